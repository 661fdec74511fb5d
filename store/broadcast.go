package store

import (
	bolt "go.etcd.io/bbolt"
)

// MaxBroadcastRecipients is the most recipients one broadcast call takes, after de-duplication.
const MaxBroadcastRecipients = 10_000

// BroadcastInput sends one text to many recipients, each in their own 1:1 conversation.
type BroadcastInput struct {
	From       string
	Recipients []string // de-duplicated by the store
	Text       string
	Media      []string
	AuthorID   string
}

// SendBroadcast stores the broadcast and one queued low-priority message per recipient that
// has not opted out, all in one transaction. Opted-out recipients are skipped and counted.
func (s *Store) SendBroadcast(workspaceID string, in BroadcastInput) (Broadcast, error) {
	var b Broadcast
	recipients := dedupe(append([]string(nil), in.Recipients...))
	err := s.updateNow(func(tx *bolt.Tx, fx *effects) error {
		n, ok, err := activeNumber(tx, workspaceID, in.From)
		if err != nil {
			return err
		}
		if !ok {
			return fromNumberError(in.From)
		}
		now := s.Now()
		b = Broadcast{ID: s.NewID(), WorkspaceID: workspaceID, TenantID: s.tenantID, From: in.From, Text: in.Text,
			Media: orEmpty(in.Media), Recipients: []string{}, CreatedByID: in.AuthorID, CreatedAt: now, UpdatedAt: now}
		for _, r := range recipients {
			out, err := s.isOptedOut(tx, workspaceID, r)
			if err != nil {
				return err
			}
			if out {
				b.TotalOptedOut++
				continue
			}
			conv, _, err := s.conversationFor(tx, fx, workspaceID, n, []string{r})
			if err != nil {
				return err
			}
			if _, err := s.queueMessage(tx, fx, &conv, SendInput{Text: in.Text, Media: in.Media, AuthorID: in.AuthorID}, PriorityLow, b.ID); err != nil {
				return err
			}
			b.Recipients = append(b.Recipients, r)
		}
		b.TotalQueued = len(b.Recipients)
		b.StartedAt = &now
		if b.TotalQueued == 0 {
			b.Status = BroadcastSent
			b.DeliveredAt = &now
		} else {
			b.Status = BroadcastSending
		}
		return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, b.ID), b)
	})
	return b, err
}

// Broadcast returns a broadcast by id.
func (s *Store) Broadcast(workspaceID, id string) (Broadcast, error) {
	var b Broadcast
	err := s.db.View(func(tx *bolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), &b)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "broadcast not found")
		}
		return err
	})
	return b, err
}
