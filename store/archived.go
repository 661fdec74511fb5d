package store

import (
	"time"

	"switchboard/store/kv"
)

// WorkspaceArchived reports whether the workspace is archived (read-only: the API refuses
// every action on it).
func (s *Store) WorkspaceArchived(id string) (bool, error) {
	archived := false
	err := s.view(func(tx *kv.Tx) error {
		archived = tx.Bucket(bMeta).Get(archivedKey(id)) != nil
		return nil
	})
	return archived, err
}

// ArchivedReason is the error of an outbound message that was still waiting to go when its
// workspace was archived.
const ArchivedReason = "the workspace is archived"

// skipArchived fails a queued message of an archived workspace instead of claiming it: nothing
// new is sent from an archived workspace, including what was queued or scheduled before it was
// archived. The message gets message.failed with ArchivedReason (a broadcast copy counts as
// failed), so that restoring the workspace never sends stale texts. archived caches the answer
// per workspace for one claim.
func (s *Store) skipArchived(tx *wtx, bc broadcastCache, archived map[string]bool, m *Message, now time.Time) (bool, error) {
	is, ok := archived[m.WorkspaceID]
	if !ok {
		is = tx.Bucket(bMeta).Get(archivedKey(m.WorkspaceID)) != nil
		archived[m.WorkspaceID] = is
	}
	if !is {
		return false, nil
	}
	before := m.Status
	m.Status, m.ProviderErr, m.UpdatedAt = MessageFailed, ArchivedReason, now
	tx.depth--
	if err := tx.reportStatus(m, before); err != nil {
		return false, err
	}
	if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), *m); err != nil {
		return false, err
	}
	if err := s.liveMessage(tx, m); err != nil {
		return false, err
	}
	if err := s.emit(tx, m.WorkspaceID, EventMessageFailed, messagePayload(m)); err != nil {
		return false, err
	}
	return true, bc.update(tx.Tx, m, func(b *Broadcast) { b.TotalFailed++; b.Outstanding--; b.countFailure(m.ProviderErr) })
}
