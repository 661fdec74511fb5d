package store

import (
	"bytes"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// MaxRetentionDays bounds a workspace's message retention (100 years: "keep" in practice).
const MaxRetentionDays = 36500

// sweepBatch is how many messages one retention transaction deletes at most: a sweep of a
// year's messages holds the write lock for one batch at a time, never for all of it.
var sweepBatch = 1000

// SweepMessages deletes the workspace's messages created before cutoff, each with its index
// entries, sweepBatch per transaction, and returns how many it deleted. Messages still on their
// way (queued, sending, scheduled) are kept until they settle. Message ids are ULIDs, so the
// old messages are the first keys of the workspace: the sweep stops at the first younger one.
func (s *Store) SweepMessages(workspaceID string, cutoff time.Time) (int, error) {
	ws, ok := ParseID(workspaceID)
	if !ok {
		return 0, errorf(ErrNotFound, "workspace not found")
	}
	limit := ulid.Timestamp(cutoff)
	deleted := 0
	from := ws[:]
	for {
		var n int
		var next []byte
		err := s.updateNow(func(tx *wtx) error {
			n, next = 0, nil
			msgs := tx.Bucket(bMessages)
			c := msgs.Cursor()
			type doomed struct {
				key         []byte
				conv        string
				provider    string
				providerIDs []string
			}
			var batch []doomed
			for k, v := c.Seek(from); k != nil && bytes.HasPrefix(k, ws[:]); k, v = c.Next() {
				if len(k) != 32 || ulid.ULID(k[16:]).Time() >= limit {
					break
				}
				if len(batch) == sweepBatch {
					next = bytes.Clone(k)
					break
				}
				var m struct {
					ConversationID string `json:"conversationId"`
					Status         string `json:"status"`
					Provider       string `json:"provider"`
					ProviderID     string `json:"providerId"`
					ProviderRef    string `json:"providerRef"` // a group message's other ids, comma-separated
				}
				if err := jsonUnmarshal(v, &m); err != nil {
					return err
				}
				switch m.Status {
				case MessageQueued, MessageSending, MessageScheduled:
					continue // not settled: the carrier still needs it
				}
				d := doomed{key: bytes.Clone(k), conv: m.ConversationID, provider: m.Provider}
				if m.ProviderID != "" {
					d.providerIDs = append(d.providerIDs, m.ProviderID)
				}
				if m.ProviderRef != "" {
					d.providerIDs = append(d.providerIDs, strings.Split(m.ProviderRef, ",")...)
				}
				batch = append(batch, d)
			}
			// The reports count each conversation again without its deleted messages.
			byConv := map[string][]doomed{}
			var convs []string
			for _, d := range batch {
				if byConv[d.conv] == nil {
					convs = append(convs, d.conv)
				}
				byConv[d.conv] = append(byConv[d.conv], d)
			}
			for _, conv := range convs {
				if err := tx.reportRecount(workspaceID, conv, func() error {
					for _, d := range byConv[conv] {
						if err := deleteMessageRecord(tx, workspaceID, d.key, d.conv, d.provider, d.providerIDs); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					return err
				}
			}
			n = len(batch)
			return nil
		})
		if err != nil {
			return deleted, err
		}
		deleted += n
		if next == nil {
			return deleted, nil
		}
		from = next
	}
}

// deleteMessageRecord deletes a message (key workspace|id) and its index entries. Every index
// that holds messages must drop its entry here.
func deleteMessageRecord(tx *wtx, workspaceID string, key []byte, conversationID, provider string, providerIDs []string) error {
	id := ulid.ULID(key[16:]).String()
	if err := unindexMessage(tx, key); err != nil {
		return err
	}
	if err := tx.Bucket(bConvMessages).Delete(idxKey(workspaceID, conversationID, id)); err != nil {
		return err
	}
	if err := deleteOwnerMedia(tx.Tx, workspaceID, id); err != nil { // its attachments go with it
		return err
	}
	// The carrier's ids: a late receipt for a deleted message finds nothing, as it should.
	for _, pid := range providerIDs {
		pk := providerKey(provider, pid)
		if v := tx.Bucket(bMsgProvider).Get(pk); bytes.Equal(v, key) {
			if err := tx.Bucket(bMsgProvider).Delete(pk); err != nil {
				return err
			}
		}
	}
	return tx.Bucket(bMessages).Delete(key)
}

// SweepRetention applies every workspace's retention once: messages older than its
// RetentionDays are deleted. It returns how many were deleted.
func (s *Store) SweepRetention() (int, error) {
	wss, err := s.Workspaces()
	if err != nil {
		return 0, err
	}
	total := 0
	for _, w := range wss {
		if w.RetentionDays <= 0 {
			continue
		}
		n, err := s.SweepMessages(w.ID, s.Now().AddDate(0, 0, -w.RetentionDays))
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
