package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"time"

	"switchboard/store/kv"
)

// What the inbound recovery keeps: each carrier's last check (what it looked back to, what it
// recovered, why it failed), and the sends still waiting for their delivery receipt, which it
// asks the carrier about one by one. A carrier does not retry a webhook that failed, so these
// are how a text or a receipt that arrived while the server was down gets in.

// RecoveryCheck is one carrier's last check of its message listings.
type RecoveryCheck struct {
	// At is when the last check ran; Since what it looked back to.
	At    time.Time `json:"at"`
	Since time.Time `json:"since"`
	// Texts and Statuses are what it recovered: texts not seen before, and receipts that moved
	// a send to delivered or failed.
	Texts    int `json:"texts,omitempty"`
	Statuses int `json:"statuses,omitempty"`
	// Error says why it failed ("" when it did not): the next check tries again from LastOK.
	Error string `json:"error,omitempty"`
	// LastOK is when the last check that succeeded ran: the next one looks back to it.
	LastOK time.Time `json:"lastOk,omitzero"`
	// TotalTexts counts the texts every check recovered.
	TotalTexts int `json:"totalTexts,omitempty"`
}

// RecoveryChecks are the carriers' last checks, by carrier name.
func (s *Store) RecoveryChecks() (map[string]RecoveryCheck, error) {
	out := map[string]RecoveryCheck{}
	err := s.view(func(tx *kv.Tx) error {
		return decodeRecoveryChecks(tx.Bucket(bMeta).Get(metaRecovery), out)
	})
	return out, err
}

func decodeRecoveryChecks(raw []byte, out map[string]RecoveryCheck) error {
	if raw == nil {
		return nil
	}
	return json.Unmarshal(raw, &out)
}

// RecordRecoveryCheck keeps carrier's check c: its LastOK is c.At when it succeeded, else the
// previous one's, and its texts add to the total.
func (s *Store) RecordRecoveryCheck(carrier string, c RecoveryCheck) (RecoveryCheck, error) {
	var kept RecoveryCheck
	err := s.update(func(tx *wtx) error {
		all := map[string]RecoveryCheck{}
		if err := decodeRecoveryChecks(tx.Bucket(bMeta).Get(metaRecovery), all); err != nil {
			return err
		}
		prev := all[carrier]
		kept = c
		kept.LastOK = prev.LastOK
		if c.Error == "" {
			kept.LastOK = c.At
		}
		kept.TotalTexts = prev.TotalTexts + c.Texts
		all[carrier] = kept
		raw, err := json.Marshal(all)
		if err != nil {
			return err
		}
		return tx.Bucket(bMeta).Put(metaRecovery, raw)
	})
	return kept, err
}

// KnownProviderIDs reports which of the carrier's message ids are recorded already (as an
// inbound text or as a send).
func (s *Store) KnownProviderIDs(provider string, ids []string) (map[string]bool, error) {
	known := map[string]bool{}
	err := s.view(func(tx *kv.Tx) error {
		b := tx.Bucket(bMsgProvider)
		for _, id := range ids {
			if b.Get(providerKey(provider, id)) != nil {
				known[id] = true
			}
		}
		return nil
	})
	return known, err
}

// awaitKey is the key of a send waiting for its receipt: provider | 0 | sent at (8, Unix ns) |
// workspace | message, so that one carrier's sends are read oldest first.
func awaitKey(m *Message) []byte {
	k := make([]byte, 0, len(m.Provider)+1+8+32)
	k = append(k, m.Provider...)
	k = append(k, 0)
	k = binary.BigEndian.AppendUint64(k, uint64(m.SentAt.UnixNano()))
	return append(k, wsKey(m.WorkspaceID, m.ID)...)
}

// awaitPrefix is the start of provider's entries sent at or after t.
func awaitPrefix(provider string, t time.Time) []byte {
	k := append([]byte(provider), 0)
	return binary.BigEndian.AppendUint64(k, uint64(max(t.UnixNano(), 0)))
}

// markAwaiting notes a send the carrier accepted whose outcome is still to come; unmarkAwaiting
// forgets it once the outcome is known.
func markAwaiting(tx *kv.Tx, m *Message) error {
	if m.Status != MessageSent || m.ProviderID == "" || m.SentAt == nil || m.Provider == ProviderSandbox {
		return nil
	}
	return tx.Bucket(bMsgAwaiting).Put(awaitKey(m), nil)
}

func unmarkAwaiting(tx *kv.Tx, m *Message) error {
	if m.SentAt == nil || m.Provider == "" {
		return nil
	}
	return tx.Bucket(bMsgAwaiting).Delete(awaitKey(m))
}

// AwaitingReceipts lists provider's sends accepted at or after since that are still sent (no
// delivery receipt yet), oldest first, at most limit of them.
func (s *Store) AwaitingReceipts(provider string, since time.Time, limit int) ([]Message, error) {
	var out []Message
	err := s.view(func(tx *kv.Tx) error {
		head := append([]byte(provider), 0)
		c := tx.Bucket(bMsgAwaiting).Cursor()
		for k, _ := c.Seek(awaitPrefix(provider, since)); k != nil && bytes.HasPrefix(k, head) && len(out) < limit; k, _ = c.Next() {
			var m Message
			ok, err := getJSON(tx.Bucket(bMessages), k[len(k)-32:], &m)
			if err != nil {
				return err
			}
			if ok && m.Status == MessageSent && m.ProviderID != "" {
				out = append(out, m)
			}
		}
		return nil
	})
	return out, err
}

// SweepAwaiting forgets provider's sends accepted before before, and those whose message is gone
// or has its outcome (deleted meanwhile by retention, say); it returns how many it forgot. It
// writes only when there is something to forget.
func (s *Store) SweepAwaiting(provider string, before time.Time) (int, error) {
	var gone [][]byte
	err := s.view(func(tx *kv.Tx) error {
		head := append([]byte(provider), 0)
		cut := awaitPrefix(provider, before)
		c := tx.Bucket(bMsgAwaiting).Cursor()
		for k, _ := c.Seek(head); k != nil && bytes.HasPrefix(k, head); k, _ = c.Next() {
			if bytes.Compare(k, cut) >= 0 {
				var m struct {
					Status string `json:"status"`
				}
				ok, err := getJSON(tx.Bucket(bMessages), k[len(k)-32:], &m)
				if err != nil {
					return err
				}
				if ok && m.Status == MessageSent {
					continue
				}
			}
			gone = append(gone, bytes.Clone(k))
		}
		return nil
	})
	if err != nil || len(gone) == 0 {
		return 0, err
	}
	// An entry found old, gone or final stays so: deleting it later is as right as now.
	err = s.update(func(tx *wtx) error {
		for _, k := range gone {
			if err := tx.Bucket(bMsgAwaiting).Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(gone), nil
}
