package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"switchboard/automation"
	"switchboard/store/kv"
)

// Rules fire inside the write transaction of the event that fired them: the automation
// package's interpreter tests each rule against the event's facts (facts, below, read from the
// transaction lazily and once), and fireRule applies a matching rule's actions as the store's
// own writes — a reply is a message queued in the outbox of the same transaction — and writes
// one activity entry naming the rule. Nothing an action does fires rules again: the triggers
// are raised only by the events themselves (an inbound text, a new conversation, a person's
// or the API's label, the due queue), never by applying an action.

// ruleEvent is the event rules are tested against.
type ruleEvent struct {
	trigger string
	w       *Workspace
	r       *routing
	conv    *Conversation
	msg     *Message // the inbound message (nil for an event without one)
	// contact is the 1:1 conversation's contact; loaded on first use when contactLoaded is false.
	contact       *Contact
	contactLoaded bool
	first         bool     // the message is the first the contact ever sent the workspace
	added         []string // label.added: the labels just added
	keyword       bool     // the inbound message is a compliance keyword
	autoInbound   bool     // the inbound message is another number's automatic message
	now           time.Time
}

// loadContact is the conversation's one contact (nil for a group or an unknown number).
func (ev *ruleEvent) loadContact(tx *kv.Tx) *Contact {
	if ev.contactLoaded {
		return ev.contact
	}
	ev.contactLoaded = true
	if ev.conv.IsGroup() || len(ev.conv.Addresses) != 1 {
		return nil
	}
	if id := contactIDByPhone(tx, ev.conv.WorkspaceID, ev.conv.Addresses[0]); id != "" {
		if c, err := getContact(tx, ev.conv.WorkspaceID, id); err == nil {
			ev.contact = &c
		}
	}
	return ev.contact
}

// facts answers the interpreter's questions about ev from tx.
type facts struct {
	tx        *kv.Tx
	ev        *ruleEvent
	words     []string
	wordsDone bool
	groups    map[string]bool
	open      int8 // 0 unknown, 1 open, -1 closed
}

func (s *Store) facts(tx *kv.Tx, ev *ruleEvent) *facts { return &facts{tx: tx, ev: ev} }

func (f *facts) Number() (string, string) { return f.ev.conv.OutboundChannelID, f.ev.conv.From }

func (f *facts) Words() []string {
	if !f.wordsDone {
		f.wordsDone = true
		if f.ev.msg != nil {
			f.words = automation.Words(f.ev.msg.Text)
		}
	}
	return f.words
}

func (f *facts) Property(name string) (string, bool) {
	c := f.ev.loadContact(f.tx)
	if c == nil {
		return "", false
	}
	v := propertyText(c.Properties[name])
	return v, strings.TrimSpace(v) != ""
}

func (f *facts) InGroup(groupID string) bool {
	c := f.ev.loadContact(f.tx)
	if c == nil {
		return false
	}
	if in, ok := f.groups[groupID]; ok {
		return in
	}
	if f.groups == nil {
		f.groups = map[string]bool{}
	}
	in := hasKey(f.tx.Bucket(bContactGroups), memberKey(c.WorkspaceID, c.ID, groupID))
	f.groups[groupID] = in
	return in
}

func (f *facts) HasLabel(label string) bool {
	list := f.ev.conv.Labels
	if f.ev.trigger == automation.TriggerLabelAdded {
		list = f.ev.added
	}
	return slices.ContainsFunc(list, func(l string) bool { return strings.EqualFold(l, label) })
}

func (f *facts) Open() bool {
	if f.open == 0 {
		h := f.ev.r.HoursOf(f.ev.conv.OutboundChannelID)
		f.open = -1
		if h.Open(f.ev.now, f.ev.w.Location()) {
			f.open = 1
		}
	}
	return f.open == 1
}

func (f *facts) FirstMessage() bool { return f.ev.first }

func (f *facts) Assignees() []string { return f.ev.conv.AssignedUserIDs }

// runRules fires the enabled rules of ev's trigger, in order.
func (s *Store) runRules(tx *wtx, ev *ruleEvent) error {
	if !ev.r.rules.Has(ev.trigger) {
		return nil
	}
	return ev.r.rules.Run(ev.trigger, s.facts(tx.Tx, ev), func(c *automation.Compiled) error {
		return s.fireRule(tx, ev, c)
	})
}

// fireRule applies rule's actions to ev's conversation, in order, and writes the activity
// entry that names the rule and says what it did. The caller writes the conversation
// (saveAutomated).
func (s *Store) fireRule(tx *wtx, ev *ruleEvent, rule *automation.Compiled) error {
	c := ev.conv
	status, snoozed, assignees := c.Status, c.SnoozedUntil, slices.Clone(c.AssignedUserIDs)
	did := make([]string, 0, len(rule.Rule.Actions))
	for _, a := range rule.Rule.Actions {
		d, err := s.applyAction(tx, ev, rule, a)
		if err != nil {
			return err
		}
		did = append(did, d)
	}
	e := ConversationEntry{WorkspaceID: c.WorkspaceID, ConversationID: c.ID, Kind: EntryRule,
		RuleID: rule.Rule.ID, Rule: rule.Rule.Name, Text: joinWords(did)}
	// The entry also records what the firing changed — the status it left, the assignees it
	// added and removed — as a person's entries do, so that the reports read a rule's close or
	// assignment from the records like any other.
	if c.Status != status || !sameTime(c.SnoozedUntil, snoozed) {
		e.Status, e.SnoozeUntil = c.Status, c.SnoozedUntil
	}
	e.Added, e.Removed = diff(assignees, c.AssignedUserIDs)
	return s.putEntry(tx, e)
}

// applyAction does one action and says what it did, in words for the activity entry
// ("assigned to Ana Lima"). An action that cannot be done (a member gone, no one available)
// says so and changes nothing; only a failure of the write is an error.
func (s *Store) applyAction(tx *wtx, ev *ruleEvent, rule *automation.Compiled, a automation.Action) (string, error) {
	c := ev.conv
	by := byPrefixRule + rule.Rule.ID
	ruleWho := "Rule '" + rule.Rule.Name + "'"
	switch a.Type {
	case automation.ActAssign:
		return s.ruleAssign(tx, ev, a.UserID, by, ruleWho, "")
	case automation.ActAssignTeam:
		team, ok := ev.r.Team(a.TeamID)
		if !ok {
			return "could not assign: the team was deleted", nil
		}
		mode := AssignRoundRobin
		if team.Assign == AssignLeastBusy {
			mode = AssignLeastBusy
		}
		may, err := s.hearers(tx.Tx, c)
		if err != nil {
			return "", err
		}
		u := s.pickAssignee(tx.Tx, c.WorkspaceID, &team, mode, may, ev.now)
		if u == "" {
			return "found no one available in " + team.Name, nil
		}
		return s.ruleAssign(tx, ev, u, by, ruleWho, " ("+team.Name+", "+mode+")")
	case automation.ActUnassign:
		if len(c.AssignedUserIDs) == 0 {
			return "found the conversation unassigned", nil
		}
		c.AssignedUserIDs = []string{}
		return "unassigned the conversation", nil
	case automation.ActAddLabel, automation.ActFlagOptOut:
		label, said := a.Label, "added the label "+a.Label
		if a.Type == automation.ActFlagOptOut {
			label, said = LabelPossibleOptOut, "marked a possible opt-out for review"
		}
		if slices.Contains(c.Labels, label) {
			return said, nil
		}
		if len(c.Labels) >= 20 {
			return "could not add the label " + label + ": the conversation has 20 labels", nil
		}
		c.Labels = NormalizeGroup(append(slices.Clone(c.Labels), label))
		return said, nil
	case automation.ActRemoveLabel:
		c.Labels = orEmpty(slices.DeleteFunc(slices.Clone(c.Labels), func(l string) bool { return l == a.Label }))
		return "removed the label " + a.Label, nil
	case automation.ActClose:
		if c.Status == ConversationClosed {
			return "found the conversation closed", nil
		}
		if err := setStatus(tx.Tx, c, ConversationClosed, nil); err != nil {
			return "", err
		}
		if err := answered(tx.Tx, c); err != nil {
			return "", err
		}
		c.UpdatedAt = ev.now
		return "closed the conversation", s.emitClosed(tx, c, by)
	case automation.ActSnooze:
		until := ev.now.Add(time.Duration(a.Minutes) * time.Minute)
		if err := setStatus(tx.Tx, c, ConversationSnoozed, &until); err != nil {
			return "", err
		}
		return "snoozed the conversation until " + until.In(ev.w.Location()).Format("Mon Jan 2 15:04"), nil
	case automation.ActReply:
		reason, err := s.autoSend(tx, ev, c, a.Text, autoRule+rule.Rule.ID)
		if err != nil || reason == "" {
			return "replied", err
		}
		return "did not reply: " + reason, nil
	case automation.ActNote:
		return "added a note", s.addComment(tx, c, &Comment{Text: a.Text, Rule: rule.Rule.Name})
	case automation.ActMention:
		if !isMember(tx.Tx, c.WorkspaceID, a.UserID) {
			return "could not mention a former member", nil
		}
		name := userName(tx.Tx, a.UserID)
		return "mentioned " + name, s.addComment(tx, c, &Comment{Text: ruleWho + " mentioned @" + name + ".",
			Mentions: []string{a.UserID}, Rule: rule.Rule.Name})
	case automation.ActAddToGroup:
		contact := ev.loadContact(tx.Tx)
		if contact == nil {
			return "could not add to a group: the conversation has no one contact", nil
		}
		g, err := getGroup(tx.Tx, c.WorkspaceID, a.GroupID)
		if err != nil {
			return "could not add to a group: the group was deleted", nil
		}
		return "added the contact to the group " + g.Name, s.addMember(tx, &g, contact.ID)
	case automation.ActSetProperty:
		contact := ev.loadContact(tx.Tx)
		if contact == nil {
			return "could not set " + a.Name + ": the conversation has no one contact", nil
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(string(a.Value)))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return "could not set " + a.Name, nil
		}
		updated, _, err := s.upsertContact(tx, c.WorkspaceID, ContactInput{Phone: contact.Phone(),
			Properties: map[string]any{a.Name: v}}, nil)
		if verr, ok := err.(ValidationError); ok && len(verr) > 0 {
			return "could not set " + a.Name + ": " + verr[0].Message, nil
		}
		if err != nil {
			return "", err
		}
		ev.contact = &updated
		return "set " + a.Name + " to " + automation.ValueString(a.Value), nil
	}
	return "", fmt.Errorf("store: unknown action %q", a.Type)
}

// ruleAssign assigns u to ev's conversation for a rule (by, named who), with the words for
// the entry; a user who is no longer a member, or who may not see the number, is not assigned.
func (s *Store) ruleAssign(tx *wtx, ev *ruleEvent, u, by, who, how string) (string, error) {
	c := ev.conv
	name := userName(tx.Tx, u)
	if !isMember(tx.Tx, c.WorkspaceID, u) {
		return "could not assign a former member", nil
	}
	may, err := s.hearers(tx.Tx, c)
	if err != nil {
		return "", err
	}
	if may != nil && !may(u) {
		return "could not assign " + name + ": outside the number's teams", nil
	}
	if slices.Equal(c.AssignedUserIDs, []string{u}) {
		return "found the conversation assigned to " + name, nil
	}
	before := c.AssignedUserIDs
	c.AssignedUserIDs = []string{u}
	if err := noteAssigned(tx.Tx, c.WorkspaceID, u, ev.now); err != nil {
		return "", err
	}
	if err := s.liveAssignedBy(tx, c, before, "", who); err != nil {
		return "", err
	}
	return "assigned to " + name + how, s.emitAssigned(tx, c, u, by)
}

// addComment writes an internal comment in conversation c (id, workspace and times given
// here) with its thread entry, live events and comment.created event.
func (s *Store) addComment(tx *wtx, c *Conversation, cm *Comment) error {
	now := s.Now()
	cm.ID, cm.WorkspaceID, cm.TenantID, cm.ConversationID = s.NewID(), c.WorkspaceID, s.tenantID, c.ID
	cm.CreatedAt, cm.UpdatedAt = now, now
	cm.Media, cm.Mentions = orEmpty(cm.Media), orEmpty(NormalizeGroup(cm.Mentions))
	if err := putJSON(tx.Bucket(bComments), wsKey(c.WorkspaceID, cm.ID), cm); err != nil {
		return err
	}
	if err := tx.Bucket(bConvMessages).Put(idxKey(c.WorkspaceID, "c"+c.ID, cm.ID), nil); err != nil {
		return err
	}
	if err := s.liveComment(tx, c, cm); err != nil {
		return err
	}
	return s.emit(tx, c.WorkspaceID, EventCommentCreated, CommentPayload{
		ConversationID: cm.ConversationID, CreatedAt: FormatTime(cm.CreatedAt), Text: cm.Text, WorkspaceID: c.WorkspaceID})
}

// saveAutomated writes conversation c after automations changed it from before: its record,
// and its open-assigned index entries when its status or assignees changed. Nothing is written
// when nothing changed.
func (s *Store) saveAutomated(tx *kv.Tx, c, before *Conversation) error {
	if c.Status == before.Status && slices.Equal(c.AssignedUserIDs, before.AssignedUserIDs) &&
		slices.Equal(c.Labels, before.Labels) && sameTime(c.SnoozedUntil, before.SnoozedUntil) &&
		sameTime(c.AwaitingSince, before.AwaitingSince) && sameTime(c.FirstResponseDue, before.FirstResponseDue) &&
		sameTime(c.AfterHoursUntil, before.AfterHoursUntil) && c.UpdatedAt.Equal(before.UpdatedAt) {
		return nil
	}
	if err := syncOpenAssigned(tx, c, before.Status, before.AssignedUserIDs); err != nil {
		return err
	}
	return putJSON(tx.Bucket(bConversations), wsKey(c.WorkspaceID, c.ID), c)
}

// joinWords joins what a rule did: "a", "a and b", "a, b and c".
func joinWords(list []string) string {
	switch len(list) {
	case 0:
		return "did nothing"
	case 1:
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}
