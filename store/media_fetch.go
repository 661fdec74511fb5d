package store

import (
	"strings"
	"time"

	"switchboard/store/kv"
)

// MediaFetch is one inbound carrier media URL still to be fetched into the store: a row of the
// durable fetch queue, written in the same transaction as its message.
type MediaFetch struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	MessageID   string    `json:"messageId"`
	Index       int       `json:"index"` // the URL's place in the message's media
	URL         string    `json:"url"`
	Attempts    int       `json:"attempts,omitempty"`
	NextAt      time.Time `json:"nextAt"`
	LastError   string    `json:"lastError,omitempty"`
}

func fetchKey(f *MediaFetch) []byte { return queueKey(f.NextAt, f.ID) }

// notifyMedia wakes the media fetcher (Hooks.Media) after a commit that queued fetches.
func (s *Store) notifyMedia() {
	if f := s.hook().Media; f != nil {
		f()
	}
}

// queueMediaFetches queues one fetch per media URL of an inbound message, due now.
func (s *Store) queueMediaFetches(tx *kv.Tx, m *Message) error {
	q := tx.Bucket(bMediaFetch)
	for i, u := range m.Media {
		f := MediaFetch{ID: s.NewID(), WorkspaceID: m.WorkspaceID, MessageID: m.ID, Index: i, URL: u, NextAt: m.CreatedAt}
		if err := putJSON(q, fetchKey(&f), f); err != nil {
			return err
		}
	}
	return nil
}

// DueMediaFetches returns up to limit queued fetches due at or before now, oldest due first,
// and the due time of the next one after them (zero when there is none).
func (s *Store) DueMediaFetches(now time.Time, limit int) ([]MediaFetch, time.Time, error) {
	var out []MediaFetch
	var next time.Time
	err := s.view(func(tx *kv.Tx) error {
		c := tx.Bucket(bMediaFetch).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var f MediaFetch
			if err := jsonUnmarshal(v, &f); err != nil {
				return err
			}
			if f.NextAt.After(now) || len(out) == limit {
				next = f.NextAt
				return nil
			}
			out = append(out, f)
		}
		return nil
	})
	return out, next, err
}

// MediaFetchDepth is how many fetches are queued.
func (s *Store) MediaFetchDepth() (int, error) {
	n := 0
	err := s.view(func(tx *kv.Tx) error { n = tx.Bucket(bMediaFetch).Stats().KeyN; return nil })
	return n, err
}

// takeFetch removes f's queue row; false when it is gone (done by another worker) or its message
// no longer holds f's URL at f's place (deleted by retention or erasure).
func takeFetch(tx *kv.Tx, f *MediaFetch) (Message, bool, error) {
	q := tx.Bucket(bMediaFetch)
	var m Message
	if !hasKey(q, fetchKey(f)) {
		return m, false, nil
	}
	if err := q.Delete(fetchKey(f)); err != nil {
		return m, false, err
	}
	ok, err := getJSON(tx.Bucket(bMessages), wsKey(f.WorkspaceID, f.MessageID), &m)
	if err != nil || !ok || f.Index >= len(m.Media) || m.Media[f.Index] != f.URL {
		return m, false, err
	}
	return m, true, nil
}

// CompleteMediaFetch keeps a fetched file with its message and puts its local URL in the
// message's media in place of the carrier's, in one transaction. A message deleted meanwhile
// keeps nothing.
func (s *Store) CompleteMediaFetch(f MediaFetch, up Upload) error {
	return s.update(func(tx *wtx) error {
		m, ok, err := takeFetch(tx.Tx, &f)
		if err != nil || !ok {
			return err
		}
		u, err := s.putMedia(tx.Tx, f.WorkspaceID, f.MessageID, f.URL, up)
		if err != nil {
			return err
		}
		m.Media[f.Index] = u
		m.UpdatedAt = s.Now()
		return putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m)
	})
}

// RetryMediaFetch moves a fetch that failed to its next attempt at next, noting the error.
func (s *Store) RetryMediaFetch(f MediaFetch, next time.Time, errText string) error {
	return s.update(func(tx *wtx) error {
		q := tx.Bucket(bMediaFetch)
		if !hasKey(q, fetchKey(&f)) {
			return nil
		}
		if err := q.Delete(fetchKey(&f)); err != nil {
			return err
		}
		f.Attempts++
		f.NextAt, f.LastError = next, errText
		return putJSON(q, fetchKey(&f), f)
	})
}

// FailMediaFetch gives up on a fetch: the message keeps the carrier's URL, and its media error
// says which file could not be kept and why.
func (s *Store) FailMediaFetch(f MediaFetch, note string) error {
	return s.update(func(tx *wtx) error {
		m, ok, err := takeFetch(tx.Tx, &f)
		if err != nil || !ok {
			return err
		}
		note = strings.TrimSpace(note)
		if m.MediaError != "" {
			note = m.MediaError + "; " + note
		}
		m.MediaError = note
		m.UpdatedAt = s.Now()
		return putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m)
	})
}
