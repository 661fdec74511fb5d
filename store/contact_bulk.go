package store

import (
	"bytes"
	"errors"
	"time"

	"github.com/oklog/ulid/v2"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// Bulk actions of the contacts list: each call is one transaction over a chunk of ids (the
// caller chunks all matches with ContactIDs); ids no longer there are skipped. Each returns how
// many contacts it changed.

// BulkAddToGroup puts the contacts of ids into the group.
func (s *Store) BulkAddToGroup(workspaceID, groupID string, ids []string) (int, error) {
	n := 0
	err := s.updateNow(func(tx *wtx) error {
		g, err := getGroup(tx.Tx, workspaceID, groupID)
		if err != nil {
			return tx.refuse(err)
		}
		recs := index.WsBucket(tx.Tx, bContacts, idKey(workspaceID))
		for _, id := range ids {
			if recs == nil || recs.Get(idKey(id)) == nil || hasKey(tx.Bucket(bGroupMembers), memberKey(workspaceID, g.ID, id)) {
				continue
			}
			if err := s.addMember(tx, &g, id); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// BulkRemoveFromGroup takes the contacts of ids out of the group.
func (s *Store) BulkRemoveFromGroup(workspaceID, groupID string, ids []string) (int, error) {
	n := 0
	err := s.updateNow(func(tx *wtx) error {
		g, err := getGroup(tx.Tx, workspaceID, groupID)
		if err != nil {
			return tx.refuse(err)
		}
		for _, id := range ids {
			k := memberKey(workspaceID, g.ID, id)
			if !hasKey(tx.Bucket(bGroupMembers), k) {
				continue
			}
			groupMemberChanged(tx, workspaceID, g.ID, id)
			if err := tx.Bucket(bGroupMembers).Delete(k); err != nil {
				return err
			}
			if err := tx.Bucket(bContactGroups).Delete(memberKey(workspaceID, id, g.ID)); err != nil {
				return err
			}
			g.Size--
			n++
		}
		if n == 0 {
			return nil
		}
		g.UpdatedAt = s.Now()
		return putJSON(tx.Bucket(bGroups), wsKey(workspaceID, g.ID), g)
	})
	return n, err
}

// BulkOptOut records an opt-out (with reason) for the number of each contact of ids that has
// not opted out yet, each with its opt_out.created event.
func (s *Store) BulkOptOut(workspaceID, userID, reason string, ids []string) (int, error) {
	n := 0
	err := s.updateNow(func(tx *wtx) error {
		for _, id := range ids {
			c, err := getContact(tx.Tx, workspaceID, id)
			if errors.Is(err, ErrNotFound) || (err == nil && c.Phone() == "") {
				continue
			}
			if err != nil {
				return err
			}
			_, created, err := s.createOptOut(tx, workspaceID, userID, c.Phone(), reason, optOutSource{})
			if err != nil {
				return err
			}
			if created {
				n++
			}
		}
		return nil
	})
	return n, err
}

// BulkDeleteContacts deletes the contacts of ids (as DeleteContact without erase).
func (s *Store) BulkDeleteContacts(workspaceID string, ids []string) (int, error) {
	n := 0
	err := s.updateNow(func(tx *wtx) error {
		var err error
		n, err = s.deleteContactsByID(tx, workspaceID, ids)
		return err
	})
	return n, err
}

// ExportMessages calls fn with the workspace's messages created in [from, to), oldest first,
// read exportChunk at a time in short read transactions (fn runs outside them).
func (s *Store) ExportMessages(workspaceID string, from, to time.Time, fn func(Message) error) error {
	return s.ExportMessagesFor(workspaceID, from, to, "", fn)
}

// ExportMessagesFor is ExportMessages without the messages of numbers viewer may not see.
func (s *Store) ExportMessagesFor(workspaceID string, from, to time.Time, viewer string, fn func(Message) error) error {
	ws, ok := ParseID(workspaceID)
	if !ok {
		return nil
	}
	start := ulid.ULID{}
	_ = start.SetTime(ulid.Timestamp(from))
	seek := append(bytes.Clone(ws[:]), start[:]...)
	limit := ulid.Timestamp(to)
	batch := make([]Message, 0, exportChunk)
	for {
		batch = batch[:0]
		var next []byte
		err := s.view(func(tx *kv.Tx) error {
			hidden, err := s.hiddenFrom(tx, workspaceID, viewer)
			if err != nil {
				return err
			}
			c := tx.Bucket(bMessages).Cursor()
			for k, v := c.Seek(seek); k != nil && bytes.HasPrefix(k, ws[:]); k, v = c.Next() {
				if len(k) != 32 || ulid.ULID(k[16:]).Time() >= limit {
					return nil
				}
				if len(batch) == exportChunk {
					next = bytes.Clone(k)
					return nil
				}
				var m Message
				if err := jsonUnmarshal(v, &m); err != nil {
					return err
				}
				if hidden[m.NumberID] {
					continue
				}
				batch = append(batch, m)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, m := range batch {
			if err := fn(m); err != nil {
				return err
			}
		}
		if next == nil {
			return nil
		}
		seek = next
	}
}
