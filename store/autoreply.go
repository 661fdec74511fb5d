package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"switchboard/automation"
	"switchboard/store/kv"
)

// Automatic messages are the texts Switchboard sends by itself: the after-hours reply, the
// greeting, a rule's reply (and the keyword replies, which compliance requires and which
// nothing below holds back). Each is an ordinary outbound message — queued in the outbox,
// counted against the number's daily cap like any text — marked with what sent it
// (Message.Auto), which the thread shows as "Automatic reply". None goes to an opted-out
// contact, in answer to a keyword or to another automatic reply, or from a number to itself,
// and at most autoCap go to one contact in autoCapWindow (bAutoSent: workspace | phone | 0 |
// at(8) | message, pruned as it is written).

// What sent an automatic message (Message.Auto); a rule's is "rule:" + its id.
const (
	AutoAfterHours = "after-hours"
	AutoGreeting   = "greeting"
	AutoKeyword    = "keyword"
	autoRule       = "rule:"
)

// The cap on automatic messages to one contact.
const (
	autoCap       = 3
	autoCapWindow = 24 * time.Hour
)

func autoSentPrefix(ws, phone string) []byte {
	k := make([]byte, 0, 16+len(phone)+1+8)
	k = append(k, idKey(ws)...)
	k = append(k, phone...)
	return append(k, 0)
}

// autoSentCount counts the automatic messages to phone within the window before now.
func autoSentCount(tx *kv.Tx, ws, phone string, now time.Time) int {
	p := autoSentPrefix(ws, phone)
	from := binary.BigEndian.AppendUint64(bytes.Clone(p), uint64(now.Add(-autoCapWindow).UnixNano()))
	n := 0
	c := tx.Bucket(bAutoSent).Cursor()
	for k, _ := c.Seek(from); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		n++
	}
	return n
}

// noteAutoSent counts the automatic message id to phone at now and drops the phone's entries
// older than the window.
func noteAutoSent(tx *kv.Tx, ws, phone, id string, now time.Time) error {
	b := tx.Bucket(bAutoSent)
	p := autoSentPrefix(ws, phone)
	cut := binary.BigEndian.AppendUint64(bytes.Clone(p), uint64(now.Add(-autoCapWindow).UnixNano()))
	var old [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.Compare(k, cut) < 0; k, _ = c.Next() {
		old = append(old, bytes.Clone(k))
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return b.Put(append(binary.BigEndian.AppendUint64(p, uint64(now.UnixNano())), idKey(id)...), nil)
}

// autoHeld says why no automatic message may go in conversation c for event ev ("" when
// one may).
func (s *Store) autoHeld(tx *kv.Tx, ev *ruleEvent, c *Conversation) (string, error) {
	switch {
	case tx.Bucket(bMeta).Get(archivedKey(c.WorkspaceID)) != nil:
		return "the workspace is archived", nil
	case ev.keyword:
		return "the text was a keyword", nil
	case ev.autoInbound:
		return "the text was itself an automatic reply", nil
	}
	for _, a := range c.Addresses {
		if a == c.From {
			return "a number does not answer itself", nil
		}
		out, err := s.isOptedOut(tx, c.WorkspaceID, a)
		if err != nil {
			return "", err
		}
		if out {
			return "the contact opted out", nil
		}
		if autoSentCount(tx, c.WorkspaceID, a, ev.now) >= autoCap {
			return fmt.Sprintf("%d automatic messages went to this contact in the last 24 hours", autoCap), nil
		}
	}
	return "", nil
}

// autoSend queues the automatic message text (sent by kind) in c, its merge tags filled in
// ({{nextOpen}} too), unless autoHeld or the ceiling stops it: reason says why it did not go
// ("" when it went).
func (s *Store) autoSend(tx *wtx, ev *ruleEvent, c *Conversation, text, kind string) (reason string, err error) {
	if reason, err = s.autoHeld(tx.Tx, ev, c); reason != "" || err != nil {
		return reason, err
	}
	text, err = s.renderAuto(tx.Tx, ev, c, text)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "the text is empty once merge tags are filled in", nil
	}
	if tooLongFilled(text) {
		return "the text " + filledTooLong, nil
	}
	m, err := s.queueMessage(tx, c, false, ev.now, SendInput{Text: text, Auto: kind}, PriorityNormal, "")
	if err != nil {
		return "", err
	}
	for _, a := range c.Addresses {
		if err := noteAutoSent(tx.Tx, c.WorkspaceID, a, m.ID, ev.now); err != nil {
			return "", err
		}
	}
	return "", nil
}

// renderAuto fills an automatic text's merge tags: the contact's (a group conversation's take
// their fallbacks) and {{nextOpen}}, when the number's hours next open ("Monday 09:00").
func (s *Store) renderAuto(tx *kv.Tx, ev *ruleEvent, c *Conversation, text string) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	tmpl, err := ParseTemplate(text)
	if err != nil || !tmpl.HasTags() {
		return text, nil
	}
	contact := ev.loadContact(tx)
	loc := ev.w.Location()
	return tmpl.Render(func(name string) string {
		if name == TagNextOpen {
			h := ev.r.HoursOf(c.OutboundChannelID)
			if at, ok := h.NextOpen(ev.now, loc); ok {
				return automation.LongOpening(at, ev.now, loc)
			}
			return ""
		}
		return ContactTagValue(contact, name)
	}), nil
}

// TagNextOpen is the merge tag automatic texts may use for when the number's hours next open.
const TagNextOpen = "nextOpen"

// checkAutoText checks an automatic text's merge tags against the workspace's properties and
// {{nextOpen}}: "" when they are known.
func checkAutoText(tx *kv.Tx, workspaceID, text string) (string, error) {
	if !strings.Contains(text, "{{") {
		return "", nil
	}
	types, err := propertyTypes(tx, workspaceID)
	if err != nil {
		return "", err
	}
	names := []string{TagNextOpen}
	for n := range types {
		names = append(names, n)
	}
	msg := CheckTemplate(text, names)
	return strings.Replace(msg, "or a custom property", "a custom property or nextOpen", 1), nil
}

// SetAutoReplies sets the workspace's automatic replies, or — with numberID — that number's.
// A nil text stays as it is; "" turns the reply off (for a number: off for that number);
// inherit, for a number, makes the number use the workspace's replies again.
func (s *Store) SetAutoReplies(workspaceID, numberID string, afterHours, greeting *string, inherit bool) (AutoReplies, error) {
	var out AutoReplies
	var errs ValidationError
	for _, f := range []struct {
		name string
		v    *string
	}{{"afterHours", afterHours}, {"greeting", greeting}} {
		if f.v != nil && runeLen(*f.v) > maxReply {
			errs = append(errs, FieldError{f.name, fmt.Sprintf("must be at most %d characters", maxReply)})
		}
	}
	if errs != nil {
		return out, errs
	}
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		errs = nil // a batch may run this again
		for _, f := range []struct {
			name string
			v    *string
		}{{"afterHours", afterHours}, {"greeting", greeting}} {
			if f.v == nil {
				continue
			}
			msg, err := checkAutoText(tx.Tx, workspaceID, *f.v)
			if err != nil {
				return err
			}
			if msg != "" {
				errs = append(errs, FieldError{f.name, msg})
			}
		}
		if errs != nil {
			return errs
		}
		trim := func(p *string) *string {
			if p == nil {
				return nil
			}
			v := strings.TrimSpace(*p)
			return &v
		}
		target := &rt.AutoReply
		if numberID != "" {
			n, err := routedNumber(tx.Tx, workspaceID, numberID, rt)
			if err != nil {
				return tx.refuse(err)
			}
			if inherit {
				n.AutoReply = AutoReplies{}
			}
			target = &n.AutoReply
		}
		if afterHours != nil {
			target.AfterHours = trim(afterHours)
		}
		if greeting != nil {
			target.Greeting = trim(greeting)
		}
		out = *target
		return nil
	})
	return out, err
}
