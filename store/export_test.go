package store

import (
	"strings"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

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
		err := s.updateNow(func(tx *wtx) error {
			out = out[:n]
			for _, in := range part {
				c, err := s.insertContact(tx, workspaceID, in)
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
	err := s.view(func(tx *kv.Tx) error {
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

// DowngradeToSchema1 rewrites what the carrier migration (2→3) changed back into the layout
// before it — schema 1's for these buckets — and sets the version to 2:
// no installation-wide number index, the outbox keyed priority|message id → ws|message id,
// broadcasts without an outstanding count, messages without their number id.
func DowngradeToSchema1(tx *kv.Tx) error {
	if err := tx.DeleteBucket(bNumberGlobal); err != nil {
		return err
	}
	ready := tx.Bucket(bOutbox)
	type kv struct{ k, v []byte }
	var entries []kv
	if err := ready.ForEach(func(k, v []byte) error {
		entries = append(entries, kv{append([]byte(nil), k...), append([]byte(nil), v...)})
		return nil
	}); err != nil {
		return err
	}
	for _, e := range entries {
		if err := ready.Delete(e.k); err != nil {
			return err
		}
		var m Message
		key := append(append([]byte(nil), e.v[:16]...), e.k[17:]...)
		if _, err := getJSON(tx.Bucket(bMessages), key, &m); err != nil {
			return err
		}
		m.NumberID = ""
		if err := putJSON(tx.Bucket(bMessages), key, m); err != nil {
			return err
		}
		if err := ready.Put(append([]byte{e.k[16]}, e.k[17:]...), key); err != nil {
			return err
		}
	}
	var bs []Broadcast
	if err := tx.Bucket(bBroadcasts).ForEach(func(_, v []byte) error {
		var b Broadcast
		if err := jsonUnmarshal(v, &b); err != nil {
			return err
		}
		bs = append(bs, b)
		return nil
	}); err != nil {
		return err
	}
	for _, b := range bs {
		b.Outstanding = 0
		if err := putJSON(tx.Bucket(bBroadcasts), wsKey(b.WorkspaceID, b.ID), b); err != nil {
			return err
		}
	}
	return tx.Bucket(bMeta).Put([]byte("schema_version"), encodeUint(2))
}

// PutRawNumber writes a number record and its workspace index entry only, as schema 1 did.
func PutRawNumber(tx *kv.Tx, n PhoneNumber) error {
	if err := tx.Bucket(bNumberPhone).Put(idxKey(n.WorkspaceID, n.Phone, n.ID), nil); err != nil {
		return err
	}
	return putJSON(tx.Bucket(bNumbers), wsKey(n.WorkspaceID, n.ID), n)
}

// LeavePending writes recipients as a pending fan-out chunk of a broadcast and marks it fanning
// out, as a crash between two fan-out transactions leaves it.
func LeavePending(s *Store, workspaceID, id string, recipients []string) error {
	return rawUpdate(s.DB(), func(tx *kv.Tx) error {
		var b Broadcast
		if _, err := getJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), &b); err != nil {
			return err
		}
		b.Status, b.Fanout = BroadcastSending, true
		if err := tx.Bucket(bBroadcastPending).Put(pendingKey(workspaceID, id, 7), []byte(strings.Join(recipients, ","))); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), b)
	})
}

// SetSweepBatch makes retention sweeps delete n messages per transaction until the returned
// function restores the default.
func SetSweepBatch(n int) (restore func()) {
	prev := sweepBatch
	sweepBatch = n
	return func() { sweepBatch = prev }
}

// SetInboxScan makes an inbox page examine at most n conversations until restore is called.
func SetInboxScan(n int) (restore func()) {
	prev := inboxScan
	inboxScan = n
	return func() { inboxScan = prev }
}

// SearchWork is the work one search did: postings entries decoded, records read, phone index
// entries scanned.
type SearchWork = index.Work

// SearchContactsWork is SearchContacts also returning the work it did.
func SearchContactsWork(s *Store, workspaceID, searchText string) ([]Contact, SearchWork, error) {
	return s.searchContacts(workspaceID, searchText)
}

// SetSearchBounds sets the candidate count at which s's searches verify on records and the
// budget of a tiny-digit walk until restore is called.
func SetSearchBounds(s *Store, verify, tinyWalk int) (restore func()) {
	b := &s.idx.Bounds
	v, w := b.VerifyDirect, b.TinyWalkBudget
	b.VerifyDirect, b.TinyWalkBudget = verify, tinyWalk
	return func() { b.VerifyDirect, b.TinyWalkBudget = v, w }
}

// PostingsEntries is how many entries the workspace's postings hold, all terms together.
func PostingsEntries(s *Store, workspaceID string) (int, error) {
	n := 0
	err := s.view(func(tx *kv.Tx) error {
		b := index.ReadSplit(tx, indexLayout.Terms, idKey(workspaceID))
		if !b.Exists() {
			return nil
		}
		var err error
		n, err = b.AddPostings(index.NewSet(uint32(index.WsBucket(tx, bContactNums, idKey(workspaceID)).Sequence())), "", false)
		return err
	})
	return n, err
}

// InboxWork is the work one inbox search did.
type InboxWork = inboxWork

// InboxPageWork is InboxPage also returning the work its search did.
func InboxPageWork(s *Store, workspaceID string, f InboxFilter) ([]InboxItem, string, InboxWork, error) {
	return s.inboxPageWork(workspaceID, f)
}

// SetInboxWalk sets the estimated matching messages from which an inbox search tests
// conversations as it walks, and the walk's message budget, until restore is called.
func SetInboxWalk(postings, messages int) (restore func()) {
	p, m := inboxWalkPostings, inboxWalkMessages
	inboxWalkPostings, inboxWalkMessages = postings, messages
	return func() { inboxWalkPostings, inboxWalkMessages = p, m }
}

// KeptRanks waits for a rank table being built, if any, and reports whether the workspace's
// searches have a kept table of ranks.
func KeptRanks(s *Store, workspaceID string) bool {
	_, ok := s.idx.KeptRanks(idKey(workspaceID))
	return ok
}

// KeptRanksSnapshot waits for a rank table being built, if any, and returns the snapshot the
// workspace's kept table was built from (0: none).
func KeptRanksSnapshot(s *Store, workspaceID string) int {
	built, _ := s.idx.KeptRanks(idKey(workspaceID))
	return built
}

// HoldKeptRanks keeps the workspace's kept ranks from being rebuilt until release is called,
// waiting for a build under way first.
func HoldKeptRanks(s *Store) (release func()) {
	s.idx.HoldRankBuilds(true)
	return func() { s.idx.HoldRankBuilds(false) }
}

// SetKeptPrefixMin sets the fewest postings entries of a prefix kept with its workspace's ranks
// until restore is called.
func SetKeptPrefixMin(s *Store, n int) (restore func()) {
	b := &s.idx.Bounds
	old := b.KeptPrefixMin
	b.KeptPrefixMin = n
	return func() { b.KeptPrefixMin = old }
}
