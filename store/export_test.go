package store

import bolt "go.etcd.io/bbolt"

// BulkContacts inserts contacts in write transactions of a few hundred, as an import does, so
// that tests can build workspaces of thousands of contacts in about a second. It goes through the
// same insertContact as CreateContact: record, index entries and events. (bbolt splits nodes only
// at commit, so one huge transaction would spend its time moving keys within a node.)
func BulkContacts(s *Store, workspaceID string, ins []ContactInput) ([]Contact, error) {
	const chunk = 300
	out := make([]Contact, 0, len(ins))
	for len(ins) > 0 {
		part := ins[:min(chunk, len(ins))]
		ins = ins[len(part):]
		n := len(out)
		err := s.updateNow(func(tx *bolt.Tx, fx *effects) error {
			out = out[:n]
			for _, in := range part {
				c, err := s.insertContact(tx, fx, workspaceID, in)
				if err != nil {
					return err
				}
				out = append(out, c)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RecordedEvents returns the webhook events recorded for a workspace under name, oldest first,
// and the deliveries queued for them. Nothing else in the store exposes events yet (the
// webhooks package will).
func RecordedEvents(s *Store, workspaceID, name string) ([]Event, []Delivery, error) {
	var events []Event
	var deliveries []Delivery
	err := s.db.View(func(tx *bolt.Tx) error {
		ids := map[string]bool{}
		if err := tx.Bucket(bEvents).ForEach(func(_, v []byte) error {
			var ev Event
			if err := jsonUnmarshal(v, &ev); err != nil {
				return err
			}
			if ev.WorkspaceID == workspaceID && ev.Name == name {
				events = append(events, ev)
				ids[ev.ID] = true
			}
			return nil
		}); err != nil {
			return err
		}
		return tx.Bucket(bDeliveries).ForEach(func(_, v []byte) error {
			var d Delivery
			if err := jsonUnmarshal(v, &d); err != nil {
				return err
			}
			if ids[d.EventID] {
				deliveries = append(deliveries, d)
			}
			return nil
		})
	})
	return events, deliveries, err
}

// SetSweepBatch makes retention sweeps delete n messages per transaction until the returned
// function restores the default.
func SetSweepBatch(n int) (restore func()) {
	prev := sweepBatch
	sweepBatch = n
	return func() { sweepBatch = prev }
}
