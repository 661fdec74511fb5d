package store

import (
	"bytes"
	"slices"
	"strings"

	"switchboard/store/kv"
)

// migrateCarrier builds the installation-wide number index and moves queued messages of the
// old outbox (priority|message id → ws|message id) into the per-number queue.
func migrateCarrier(s *Store, tx *kv.Tx) error {
	if err := migrateGlobalNumberIndex(s, tx); err != nil {
		return err
	}
	// Broadcasts were left `sending` with every copy queued: all of them are outstanding.
	var sending []Broadcast
	if err := tx.Bucket(bBroadcasts).ForEach(func(_, v []byte) error {
		var b Broadcast
		if err := jsonUnmarshal(v, &b); err != nil {
			return err
		}
		if b.Status == BroadcastSending {
			sending = append(sending, b)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, b := range sending {
		b.Outstanding = b.TotalQueued
		if err := putJSON(tx.Bucket(bBroadcasts), wsKey(b.WorkspaceID, b.ID), b); err != nil {
			return err
		}
	}
	ready := tx.Bucket(bOutbox)
	type old struct{ k, v []byte }
	var olds []old
	if err := ready.ForEach(func(k, v []byte) error {
		if len(k) == 17 && len(v) == 32 {
			olds = append(olds, old{bytes.Clone(k), bytes.Clone(v)})
		}
		return nil
	}); err != nil {
		return err
	}
	for _, o := range olds {
		if err := ready.Delete(o.k); err != nil {
			return err
		}
		var m Message
		ok, err := getJSON(tx.Bucket(bMessages), o.v, &m)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if m.NumberID == "" {
			n, found, err := activeNumber(tx, m.WorkspaceID, m.From)
			if err != nil {
				return err
			}
			if !found {
				m.Status, m.ProviderErr = MessageFailed, "the number is no longer active"
				if err := putJSON(tx.Bucket(bMessages), o.v, m); err != nil {
					return err
				}
				continue
			}
			m.NumberID = n.ID
			if err := putJSON(tx.Bucket(bMessages), o.v, m); err != nil {
				return err
			}
		}
		if err := ready.Put(readyKey(idKey(m.NumberID), o.k[0], o.k[1:]), readyValue(&m)); err != nil {
			return err
		}
	}
	return nil
}

// migrateGlobalNumberIndex builds the installation-wide phone index from the numbers bucket.
// Files from before it could hold one phone in two workspaces: the oldest number keeps it, the
// others are deactivated (they could not have received anything reliably anyway).
func migrateGlobalNumberIndex(_ *Store, tx *kv.Tx) error {
	global, err := tx.CreateBucketIfNotExists(bNumberGlobal)
	if err != nil {
		return err
	}
	var all []PhoneNumber
	err = tx.Bucket(bNumbers).ForEach(func(_, v []byte) error {
		var n PhoneNumber
		if err := jsonUnmarshal(v, &n); err != nil {
			return err
		}
		all = append(all, n)
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(all, func(a, b PhoneNumber) int { return strings.Compare(a.ID, b.ID) }) // oldest first
	for _, n := range all {
		if global.Get([]byte(n.Phone)) == nil {
			if err := global.Put([]byte(n.Phone), wsKey(n.WorkspaceID, n.ID)); err != nil {
				return err
			}
			continue
		}
		n.Active = false
		if err := putJSON(tx.Bucket(bNumbers), wsKey(n.WorkspaceID, n.ID), n); err != nil {
			return err
		}
	}
	return nil
}
