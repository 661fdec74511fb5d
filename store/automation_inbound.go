package store

import (
	"time"

	"switchboard/automation"
	"switchboard/store/kv"
)

// What an inbound text sets off, in its own transaction and in this order: the wait for an
// answer starts (the first-response target and the unanswered rules are queued); an
// unassigned conversation that is new, reopened by the contact or newly waiting is
// auto-assigned; the greeting (to a number never seen before) and the after-hours reply (once
// per closed period) go; then the rules of conversation.created, message.received,
// broadcast.reply and label.added (the possible opt-out flag) fire. A workspace that sets none
// of it pays one read of its routing's version.

// inboundFacts is what recording an inbound text learned that the automations need.
type inboundFacts struct {
	created  bool // the conversation is new
	reopened bool // the text reopened a closed or snoozed conversation
	first    bool // the contact never texted the workspace before
	newWait  bool // the text started a wait for an answer
	flagged  bool // the text was flagged as a possible opt-out
}

// automateInbound runs the automations of inbound message m in conversation conv. The caller
// has written conv; this writes it again only when it changed it.
func (s *Store) automateInbound(tx *wtx, w *Workspace, n *PhoneNumber, conv *Conversation, m *Message,
	contact *Contact, in *InboundMessage, f inboundFacts) error {
	r, err := s.routingOf(tx.Tx, w.ID)
	if err != nil || !r.acts {
		return err
	}
	if tx.Bucket(bMeta).Get(archivedKey(w.ID)) != nil {
		return nil // nothing new is sent from an archived workspace, nor assigned
	}
	now := m.CreatedAt
	ev := &ruleEvent{w: w, r: r, conv: conv, msg: m, contact: contact, contactLoaded: true, first: f.first,
		keyword: in.Keyword != NoKeyword, now: now, autoInbound: isAutoMessage(tx.Tx, in.From, n.Phone)}
	before := *conv
	loc := w.Location()
	if f.newWait {
		if err := s.startWait(tx, r, conv, loc); err != nil {
			return err
		}
	}
	// Whether the text answers a broadcast is read before any reply of this text is queued.
	broadcastReply := false
	if r.rules.Has(automation.TriggerBroadcastReply) {
		if last := lastOutbound(tx.Tx, w.ID, conv.ID); last != nil && last.BroadcastID != "" {
			broadcastReply = true
		}
	}
	if len(conv.AssignedUserIDs) == 0 && (f.created || f.reopened || f.newWait) {
		if _, err := s.autoAssign(tx, r, conv, now); err != nil {
			return err
		}
	}
	if !ev.keyword {
		if text := r.GreetingOf(n.ID); text != "" && f.first {
			if _, err := s.autoSend(tx, ev, conv, text, AutoGreeting); err != nil {
				return err
			}
		}
		if err := s.afterHoursReply(tx, ev, n.ID); err != nil {
			return err
		}
	}
	fire := func(trigger string, ok bool) error {
		if !ok {
			return nil
		}
		ev.trigger = trigger
		return s.runRules(tx, ev)
	}
	if err := fire(automation.TriggerConversationCreated, f.created); err != nil {
		return err
	}
	if err := fire(automation.TriggerMessageReceived, true); err != nil {
		return err
	}
	if err := fire(automation.TriggerBroadcastReply, broadcastReply); err != nil {
		return err
	}
	ev.added = []string{LabelPossibleOptOut}
	if err := fire(automation.TriggerLabelAdded, f.flagged); err != nil {
		return err
	}
	return s.saveAutomated(tx.Tx, conv, &before)
}

// afterHoursReply sends the number's after-hours reply to the first text of a closed period:
// the conversation remembers the period's end (when the hours next open), and a text before it
// gets no second reply.
func (s *Store) afterHoursReply(tx *wtx, ev *ruleEvent, numberID string) error {
	text := ev.r.AfterHoursOf(numberID)
	c := ev.conv
	if text == "" || (c.AfterHoursUntil != nil && ev.now.Before(*c.AfterHoursUntil)) {
		return nil
	}
	h := ev.r.HoursOf(numberID)
	loc := ev.w.Location()
	if h.Open(ev.now, loc) {
		return nil
	}
	until, ok := h.NextOpen(ev.now, loc)
	if !ok {
		until = ev.now.Add(366 * 24 * time.Hour)
	}
	c.AfterHoursUntil = &until
	_, err := s.autoSend(tx, ev, c, text, AutoAfterHours)
	return err
}

// isAutoMessage reports whether a text from one of the installation's numbers to phone is that
// number's automatic message (its newest message to phone is one): two automated numbers must
// not answer each other for ever.
func isAutoMessage(tx *kv.Tx, from, to string) bool {
	ws, _ := numberOwner(tx, from)
	if ws == "" {
		return false
	}
	conv, ok, err := findConversation(tx, ws, from, to)
	if err != nil || !ok {
		return false
	}
	m := lastOutbound(tx, ws, conv.ID)
	return m != nil && m.Auto != ""
}
