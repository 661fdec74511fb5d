package store

import (
	"bytes"
	"net/mail"
	"strings"
	"time"
	"unicode"

	"switchboard/store/kv"
)

// Mail is an e-mail in the outbox. It is written in the transaction of the change that causes
// it (an invitation, a reset link), so that a crash loses none; the mail worker (mail/) sends
// it and deletes it, or keeps it with its error and tries again later.
type Mail struct {
	ID        string    `json:"id"`
	To        string    `json:"to"`
	Subject   string    `json:"subject"`
	Body      string    `json:"body"` // plain text
	CreatedAt time.Time `json:"createdAt"`
	Attempts  int       `json:"attempts"`
	LastError string    `json:"lastError,omitempty"`
	DueAt     time.Time `json:"dueAt"`
	// Link is the token of the link the body holds, sealed: the stored body has
	// linkMarker in its place, and DueMail puts the token back for the worker that sends it.
	Link string `json:"link,omitempty"`

	token string // the plain token queueMailAt seals into Link
}

// linkMarker stands for a link's token in a stored e-mail body. Names that reach a body have
// their control characters taken out (MailText), so no one can write it.
const linkMarker = "\x00token\x00"

// MailText is s as it may go into an e-mail's subject or body: on one line, without control
// characters, so that a name cannot add lines of its own to the text (a fake paragraph, a
// header).
func MailText(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsControl), " ")
}

// MailFor makes the e-mail a change sends, given the secret token the change made (the link
// goes in the body); nil sends none.
type MailFor func(token string) *Mail

func mailQueueKey(due time.Time, id string) []byte {
	return append(encodeUint(uint64(due.UnixNano())), idKey(id)...)
}

// queueMail writes m into the outbox inside tx, due now.
func (s *Store) queueMail(tx *kv.Tx, m *Mail) error {
	return s.queueMailAt(tx, m, s.Now())
}

// queueMailAt writes m into the outbox inside tx, due at due.
func (s *Store) queueMailAt(tx *kv.Tx, m *Mail, due time.Time) error {
	if addr, err := mail.ParseAddress(m.To); err != nil || addr.Address != m.To {
		return ValidationError{{"to", "must be an email address such as ana@example.com"}}
	}
	m.ID, m.CreatedAt, m.DueAt = s.NewID(), s.Now(), due
	if m.token != "" {
		m.Link = s.sealer.Load().seal(m.token, mailPurpose(m.ID))
	}
	if err := putJSON(tx.Bucket(bMail), idKey(m.ID), m); err != nil {
		return err
	}
	return tx.Bucket(bMailQueue).Put(mailQueueKey(m.DueAt, m.ID), nil)
}

// queueLinkMail queues the e-mail mailFor makes for a link's token, inside tx (nil mailFor,
// or a nil e-mail, queues none). The token is not written in the body: it is kept sealed beside
// it and put back when the e-mail is sent, so the outbox in a copy of the database holds no
// link that works.
func (s *Store) queueLinkMail(tx *kv.Tx, mailFor MailFor, token string) error {
	if mailFor == nil {
		return nil
	}
	m := mailFor(linkMarker)
	if m == nil {
		return nil
	}
	m.token = token
	return s.queueMail(tx, m)
}

// renderMail puts a stored e-mail's link token back into its body. A token that cannot be
// opened (the data directory's secret key changed) leaves a sentence saying to ask again.
func (s *Store) renderMail(m *Mail) {
	if m.Link == "" {
		return
	}
	token, err := s.sealer.Load().open(m.Link, mailPurpose(m.ID))
	if err != nil {
		token = "(this link could not be restored: ask for a new one)"
	}
	m.Body = strings.ReplaceAll(m.Body, linkMarker, token)
	m.Link = ""
}

// QueueMail puts one e-mail in the outbox (a notification, a test); the mail worker sends it.
func (s *Store) QueueMail(to, subject, body string) (Mail, error) {
	m := Mail{To: to, Subject: subject, Body: body}
	err := s.update(func(tx *wtx) error {
		if err := s.queueMail(tx.Tx, &m); err != nil {
			return tx.refuse(err)
		}
		return nil
	})
	return m, err
}

// DueMail returns up to limit e-mails due at now, oldest due first, with their links' tokens in
// their bodies, and when the next one not yet due is (zero when none).
func (s *Store) DueMail(now time.Time, limit int) ([]Mail, time.Time, error) {
	var out []Mail
	var next time.Time
	err := s.view(func(tx *kv.Tx) error {
		c := tx.Bucket(bMailQueue).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			due := time.Unix(0, int64(decodeUint(k[:8])))
			if due.After(now) || len(out) >= limit {
				if due.After(now) {
					next = due
				}
				return nil
			}
			var m Mail
			if ok, err := getJSON(tx.Bucket(bMail), bytes.Clone(k[8:]), &m); err != nil {
				return err
			} else if ok {
				s.renderMail(&m)
				out = append(out, m)
			}
		}
		return nil
	})
	return out, next, err
}

// RetryFailedMail makes every e-mail that failed before due now, and returns how many: the
// mail worker calls it when it starts, because a restart is how an operator applies a fixed
// -smtp-url, and the queue should go at once rather than after its backoff. E-mail not yet
// tried keeps its time (a gathering notification e-mail is due later on purpose).
func (s *Store) RetryFailedMail(now time.Time) (int, error) {
	n := 0
	err := s.update(func(tx *wtx) error {
		n = 0
		q := tx.Bucket(bMailQueue)
		var keys [][]byte
		c := q.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) > 8 && time.Unix(0, int64(decodeUint(k[:8]))).After(now) {
				keys = append(keys, bytes.Clone(k))
			}
		}
		for _, k := range keys {
			var m Mail
			if ok, err := getJSON(tx.Bucket(bMail), k[8:], &m); err != nil {
				return err
			} else if !ok || m.Attempts == 0 {
				continue
			}
			if err := q.Delete(k); err != nil {
				return err
			}
			m.DueAt = now
			if err := putJSON(tx.Bucket(bMail), idKey(m.ID), m); err != nil {
				return err
			}
			if err := q.Put(mailQueueKey(m.DueAt, m.ID), nil); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// MailSent deletes a sent e-mail from the outbox.
func (s *Store) MailSent(m Mail) error {
	return s.update(func(tx *wtx) error {
		if err := tx.Bucket(bMailQueue).Delete(mailQueueKey(m.DueAt, m.ID)); err != nil {
			return err
		}
		return tx.Bucket(bMail).Delete(idKey(m.ID))
	})
}

// MailFailed records a failed try of m (as DueMail returned it) and when to try again. The
// stored e-mail is changed, not m: m's body holds its link's token.
func (s *Store) MailFailed(sent Mail, reason string, retryAt time.Time) error {
	return s.update(func(tx *wtx) error {
		if err := tx.Bucket(bMailQueue).Delete(mailQueueKey(sent.DueAt, sent.ID)); err != nil {
			return err
		}
		var m Mail
		if ok, err := getJSON(tx.Bucket(bMail), idKey(sent.ID), &m); err != nil || !ok {
			return err // gone meanwhile: nothing to retry
		}
		m.Attempts++
		m.LastError, m.DueAt = reason, retryAt
		if err := putJSON(tx.Bucket(bMail), idKey(m.ID), m); err != nil {
			return err
		}
		return tx.Bucket(bMailQueue).Put(mailQueueKey(m.DueAt, m.ID), nil)
	})
}

// CreateResetMail is CreateReset that also queues the e-mail mailFor makes from the token, in
// the same transaction.
func (s *Store) CreateResetMail(userID string, now time.Time, mailFor MailFor) (string, error) {
	plain := RandomToken("sbr_")
	err := s.update(func(tx *wtx) error {
		if _, err := getUser(tx.Tx, userID); err != nil {
			return tx.refuse(err)
		}
		if err := putReset(tx.Tx, userID, plain, now); err != nil {
			return err
		}
		return s.queueLinkMail(tx.Tx, mailFor, plain)
	})
	return plain, err
}
