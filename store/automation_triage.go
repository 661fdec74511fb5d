package store

import (
	"time"

	"switchboard/automation"
)

// The automations of a conversation's life beside inbound texts: its creation (by a send, the
// API or the inbox's "New conversation"), and the triage a person or the API does — an
// assignment and a close are webhook events, and a label added fires the label.added rules.
// Broadcast copies create conversations without firing rules: a campaign of 100,000 texts is
// not 100,000 new conversations anyone waits on.

// automateCreated fires the conversation.created rules of the new conversation c; the caller
// has written c, and this writes it again only when a rule changed it.
func (s *Store) automateCreated(tx *wtx, c *Conversation, now time.Time) error {
	r, err := s.routingOf(tx.Tx, c.WorkspaceID)
	if err != nil || !r.rules.Has(automation.TriggerConversationCreated) {
		return err
	}
	if tx.Bucket(bMeta).Get(archivedKey(c.WorkspaceID)) != nil {
		return nil
	}
	w, err := getWorkspace(tx.Tx, c.WorkspaceID)
	if err != nil {
		return err
	}
	before := *c
	ev := &ruleEvent{trigger: automation.TriggerConversationCreated, w: &w, r: r, conv: c, now: now}
	if err := s.runRules(tx, ev); err != nil {
		return err
	}
	return s.saveAutomated(tx.Tx, c, &before)
}

// afterTriage follows a person's or the API's change of c (from before, by actor, a user id
// or ""): conversation.assigned for each member assigned, conversation.closed for a close,
// and the label.added rules for the labels added.
func (s *Store) afterTriage(tx *wtx, before, c *Conversation, actor string, now time.Time) error {
	added, _ := diff(before.AssignedUserIDs, c.AssignedUserIDs)
	for _, u := range added {
		if err := noteAssigned(tx.Tx, c.WorkspaceID, u, now); err != nil {
			return err
		}
		if err := s.emitAssigned(tx, c, u, actor); err != nil {
			return err
		}
	}
	if c.Status == ConversationClosed && before.Status != ConversationClosed {
		if err := s.emitClosed(tx, c, actor); err != nil {
			return err
		}
	}
	labels, _ := diff(before.Labels, c.Labels)
	if len(labels) == 0 {
		return nil
	}
	r, err := s.routingOf(tx.Tx, c.WorkspaceID)
	if err != nil || !r.rules.Has(automation.TriggerLabelAdded) || tx.Bucket(bMeta).Get(archivedKey(c.WorkspaceID)) != nil {
		return err
	}
	w, err := getWorkspace(tx.Tx, c.WorkspaceID)
	if err != nil {
		return err
	}
	was := *c
	ev := &ruleEvent{trigger: automation.TriggerLabelAdded, w: &w, r: r, conv: c, added: labels, now: now,
		msg: lastInbound(tx.Tx, c.WorkspaceID, c.ID)}
	if err := s.runRules(tx, ev); err != nil {
		return err
	}
	return s.saveAutomated(tx.Tx, c, &was)
}
