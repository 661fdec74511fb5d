package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"switchboard/automation"
	"switchboard/store/kv"
)

// A conversation waits for an answer from the contact's first text not answered yet
// (Conversation.AwaitingSince) until a person's or the API's outbound message, or a close.
// When a wait starts, the workspace's first-response target and each conversation.unanswered
// rule get their due times in the due queue, and the target's in bOverdue too
// (workspace | due(8) | conversation), which /inbox?overdue=1 reads up to now: the overdue
// conversations, found without looking at the others.

// Overdue reports whether the conversation is past its first-response target at now.
func (c *Conversation) Overdue(now time.Time) bool {
	return c.FirstResponseDue != nil && !now.Before(*c.FirstResponseDue) && c.Status != ConversationClosed
}

// maxFirstResponse bounds the first-response target (minutes): 30 days.
const maxFirstResponse = 43200

func overdueKey(c *Conversation) []byte {
	k := make([]byte, 0, 40)
	k = append(k, idKey(c.WorkspaceID)...)
	k = binary.BigEndian.AppendUint64(k, uint64(c.FirstResponseDue.UnixNano()))
	return append(k, idKey(c.ID)...)
}

// dueAfter is when minutes have passed since since: counted in the number's business hours
// when business, else in all hours; ok is false when the hours never hold that much time.
func dueAfter(r *routing, numberID string, since time.Time, minutes int, business bool, loc *time.Location) (time.Time, bool) {
	d := time.Duration(minutes) * time.Minute
	if !business {
		return since.Add(d), true
	}
	h := r.HoursOf(numberID)
	return h.AddBusiness(since, d, loc)
}

// unansweredDue is when rule tests conversation c, waiting since c.AwaitingSince.
func unansweredDue(r *routing, c *Conversation, rule *automation.Rule, loc *time.Location) (time.Time, bool) {
	return dueAfter(r, c.OutboundChannelID, *c.AwaitingSince, rule.UnansweredMinutes, rule.BusinessHoursOnly, loc)
}

// startWait queues what a new wait of c brings: the first-response target and the
// unanswered rules. c.AwaitingSince is set; the caller writes c.
func (s *Store) startWait(tx *wtx, r *routing, c *Conversation, loc *time.Location) error {
	since := *c.AwaitingSince
	if r.FirstResponse > 0 {
		if due, ok := dueAfter(r, c.OutboundChannelID, since, r.FirstResponse, r.FirstResponseBusinessOnly(), loc); ok {
			c.FirstResponseDue = &due
			if err := tx.Bucket(bOverdue).Put(overdueKey(c), nil); err != nil {
				return err
			}
			if err := putDue(tx, due, c, dueFirstResponse, since, since); err != nil {
				return err
			}
		}
	}
	// One entry for all the unanswered rules, due when the first of them is.
	var first time.Time
	for _, rule := range r.rules.Rules(automation.TriggerUnanswered) {
		if due, ok := unansweredDue(r, c, &rule.Rule, loc); ok && (first.IsZero() || due.Before(first)) {
			first = due
		}
	}
	if first.IsZero() {
		return nil
	}
	return putDue(tx, first, c, dueUnanswered, since, since)
}

// answered ends c's wait: an answer went, or it was closed. The caller writes c.
func answered(tx *kv.Tx, c *Conversation) error {
	if c.FirstResponseDue != nil {
		if err := tx.Bucket(bOverdue).Delete(overdueKey(c)); err != nil {
			return err
		}
		c.FirstResponseDue = nil
	}
	c.AwaitingSince = nil
	return nil
}

// SetFirstResponse sets the workspace's first-response target: minutes (0 turns it off),
// counted in business hours or all hours (FirstResponseBusiness, FirstResponseAll; "" keeps
// the current way).
func (s *Store) SetFirstResponse(workspaceID string, minutes int, hours string) (Routing, error) {
	var errs ValidationError
	if minutes < 0 || minutes > maxFirstResponse {
		errs = append(errs, FieldError{"firstResponse", fmt.Sprintf("must be from 0 (off) to %d minutes", maxFirstResponse)})
	}
	if hours != "" && hours != FirstResponseBusiness && hours != FirstResponseAll {
		errs = append(errs, FieldError{"firstResponseHours", "must be business or all"})
	}
	if errs != nil {
		return Routing{}, errs
	}
	return s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		rt.FirstResponse = minutes
		if hours != "" {
			rt.FirstResponseHours = hours
		}
		if rt.FirstResponseHours == FirstResponseBusiness {
			rt.FirstResponseHours = "" // the default
		}
		return nil
	})
}

// maxOverdueList bounds how many overdue conversations the filter sorts.
const maxOverdueList = 10_000

// OverdueInbox is the inbox filtered to the conversations past the first-response target now
// (and f's other filters), newest activity first, with the cursor of the next page.
func (s *Store) OverdueInbox(workspaceID string, f InboxFilter) ([]InboxItem, string, error) {
	now := s.Now()
	return s.setInbox(workspaceID, f, func(tx *kv.Tx) []inboxRef {
		var refs []inboxRef
		p := idKey(workspaceID)
		end := binary.BigEndian.AppendUint64(bytes.Clone(p), uint64(now.UnixNano()))
		c := tx.Bucket(bOverdue).Cursor()
		convs := tx.Bucket(bConversations)
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(refs) < maxOverdueList; k, _ = c.Next() {
			if len(k) != 40 || bytes.Compare(k[:24], end) > 0 {
				break
			}
			var cv Conversation
			if ok, err := getJSON(convs, wsKey(workspaceID, idFromKey(k)), &cv); err != nil || !ok || !cv.Overdue(now) {
				continue
			}
			refs = append(refs, inboxRef{c: cv, order: activityKey(&cv)[16:]})
		}
		return refs
	})
}
