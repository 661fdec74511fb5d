package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"switchboard/automation"
	"switchboard/store/kv"
)

// "Test" on the rules page runs a rule against the workspace's latest conversations without
// acting: each is read as the rule's trigger would find it — its newest inbound text (and that
// text's time, for the hours), its contact, labels and assignees — and the answer says whether
// the rule would fire and what it would do, in words.

// TryConversations is how many of the latest conversations a test runs against.
const TryConversations = 50

// RuleTrial is what a rule would have done to one conversation.
type RuleTrial struct {
	ConversationID string
	// ContactName is the 1:1 contact's name ("" when unnamed or a group); Addresses the
	// conversation's contact numbers.
	ContactName string
	Addresses   []string
	// Text is the newest inbound text the rule was tested against ("" when none).
	Text  string
	At    time.Time
	Fires bool
	// Would lists what it would do ("assign to Ana Lima", "reply: We open Monday 09:00").
	Would []string
}

// TryRule tests rule against the workspace's TryConversations latest conversations (those
// viewer may see) without changing anything. A rule that fails its checks is a
// ValidationError, as when it is saved.
func (s *Store) TryRule(workspaceID, viewer string, rule automation.Rule) ([]RuleTrial, error) {
	norm, verr := normalizeRule(rule)
	if verr != nil {
		return nil, verr
	}
	compiled := automation.CompileRule(norm)
	var out []RuleTrial
	err := s.view(func(tx *kv.Tx) error {
		w, err := getWorkspace(tx, workspaceID)
		if err != nil {
			return err
		}
		r, err := s.routingOf(tx, workspaceID)
		if err != nil {
			return err
		}
		hidden, err := s.hiddenFrom(tx, workspaceID, viewer)
		if err != nil {
			return err
		}
		p := idKey(workspaceID)
		return reverseScan(tx.Bucket(bConvActivity), p, func(k []byte) (bool, error) {
			if len(k) != 40 {
				return false, nil
			}
			var c Conversation
			if ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, idFromKey(k[24:])), &c); err != nil || !ok {
				return false, err
			}
			if hidden[c.OutboundChannelID] {
				return false, nil
			}
			out = append(out, s.tryOn(tx, &w, r, &c, compiled))
			return len(out) >= TryConversations, nil
		})
	})
	return out, err
}

// tryOn tests rule on conversation c as its trigger would find it.
func (s *Store) tryOn(tx *kv.Tx, w *Workspace, r *routing, c *Conversation, rule *automation.Compiled) RuleTrial {
	ev := &ruleEvent{trigger: rule.Rule.Trigger, w: w, r: r, conv: c, now: s.Now()}
	if rule.Rule.Trigger == automation.TriggerLabelAdded {
		ev.added = c.Labels
	}
	if m := lastInbound(tx, w.ID, c.ID); m != nil {
		ev.msg, ev.now = m, m.CreatedAt
		ev.first = firstInboundOf(tx, w.ID, c.ID, m.ID)
	}
	t := RuleTrial{ConversationID: c.ID, At: ev.now, Addresses: c.Addresses}
	if ev.msg != nil {
		t.Text = ev.msg.Text
	}
	if contact := ev.loadContact(tx); contact != nil {
		t.ContactName = strings.TrimSpace(contact.FirstName + " " + contact.LastName)
	}
	t.Fires = rule.Matches(s.facts(tx, ev))
	if !t.Fires {
		return t
	}
	for _, a := range rule.Rule.Actions {
		t.Would = append(t.Would, s.describeAction(tx, ev, a))
	}
	return t
}

// firstInboundOf reports whether the message id is the conversation's first inbound one.
func firstInboundOf(tx *kv.Tx, ws, convID, id string) bool {
	p := idxPrefix(ws, convID)
	c := tx.Bucket(bConvMessages).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if len(k) != len(p)+16 {
			continue
		}
		var m Message
		if ok, err := getJSON(tx.Bucket(bMessages), wsKey(ws, idFromKey(k)), &m); err != nil || !ok {
			return false
		}
		if !m.Outbound {
			return m.ID == id
		}
	}
	return false
}

// describeAction says what action a would do in ev, without doing it.
func (s *Store) describeAction(tx *kv.Tx, ev *ruleEvent, a automation.Action) string {
	switch a.Type {
	case automation.ActAssign:
		return "assign to " + userName(tx, a.UserID)
	case automation.ActAssignTeam:
		t, ok := ev.r.Team(a.TeamID)
		if !ok {
			return "assign to a team that was deleted"
		}
		mode := AssignRoundRobin
		if t.Assign == AssignLeastBusy {
			mode = AssignLeastBusy
		}
		return "assign to a member of " + t.Name + " (" + mode + ")"
	case automation.ActUnassign:
		return "unassign"
	case automation.ActAddLabel:
		return "add the label " + a.Label
	case automation.ActRemoveLabel:
		if !slices.Contains(ev.conv.Labels, a.Label) {
			return "remove the label " + a.Label + " (it has none)"
		}
		return "remove the label " + a.Label
	case automation.ActClose:
		return "close"
	case automation.ActSnooze:
		return fmt.Sprintf("snooze for %d minutes", a.Minutes)
	case automation.ActReply:
		text, err := s.renderAuto(tx, ev, ev.conv, a.Text)
		if err != nil {
			text = a.Text
		}
		return "reply: " + text
	case automation.ActNote:
		return "add a note: " + a.Text
	case automation.ActMention:
		return "mention " + userName(tx, a.UserID)
	case automation.ActAddToGroup:
		if g, err := getGroup(tx, ev.conv.WorkspaceID, a.GroupID); err == nil {
			return "add the contact to the group " + g.Name
		}
		return "add the contact to a group that was deleted"
	case automation.ActSetProperty:
		return "set " + a.Name + " to " + automation.ValueString(a.Value)
	case automation.ActFlagOptOut:
		return "mark a possible opt-out for review"
	}
	return a.Type
}
