package store

import (
	"encoding/binary"
	"slices"
	"sort"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Conversation is a thread between one outbound number and one or more contact addresses.
type Conversation struct {
	ID                      string     `json:"id"`
	WorkspaceID             string     `json:"workspaceId"`
	TenantID                string     `json:"tenantId"`
	Name                    string     `json:"name"`
	CommunicationType       string     `json:"communicationType"`
	Status                  string     `json:"status"`
	AssignedUserIDs         []string   `json:"assignedUserIds"`
	Labels                  []string   `json:"labels"`
	From                    string     `json:"from"`
	InboundChannelAddresses string     `json:"inboundChannelAddresses"`
	Addresses               []string   `json:"addresses"`
	OutboundChannelID       string     `json:"outboundChannelId"`
	LastMessageTime         *time.Time `json:"lastMessageTime"`
	CreatedAt               time.Time  `json:"createdAt"`
	UpdatedAt               time.Time  `json:"updatedAt"`
	// SnoozedUntil is when a snoozed conversation reopens by itself (nil: until the contact writes).
	SnoozedUntil *time.Time `json:"snoozedUntil,omitempty"`
	// CreatedClosed: a broadcast copy created it, closed; the contact's reply opens it (the
	// reports count it opened then).
	CreatedClosed bool `json:"createdClosed,omitempty"`
	// AwaitingSince is when the contact's first text not answered yet arrived: set by an
	// inbound text (keywords aside), cleared by a person's or the API's outbound message and
	// by closing (automatic replies and broadcast copies do not answer). nil: answered.
	AwaitingSince *time.Time `json:"awaitingSince,omitempty"`
	// FirstResponseDue is when the workspace's first-response target passes for that text:
	// the conversation is Overdue from then until it is answered or closed.
	FirstResponseDue *time.Time `json:"firstResponseDue,omitempty"`
	// AfterHoursUntil is the end of the closed period the after-hours reply was last
	// considered in: the next is sent only to a text from then on.
	AfterHoursUntil *time.Time `json:"afterHoursUntil,omitempty"`
}

// IsGroup reports whether the conversation has more than one contact address.
func (c *Conversation) IsGroup() bool { return len(c.Addresses) > 1 }

// Conversation statuses.
const (
	ConversationOpen    = "open"
	ConversationSnoozed = "snoozed"
	ConversationClosed  = "closed"
)

// joinAddresses is a conversation's inboundChannelAddresses: sorted, de-duplicated, joined with -.
func joinAddresses(addrs []string) string {
	return strings.Join(NormalizeGroup(addrs), "-")
}

// NormalizeGroup sorts and de-duplicates addresses.
func NormalizeGroup(addrs []string) []string {
	out := slices.Clone(addrs)
	slices.Sort(out)
	return slices.Compact(out)
}

// Conversation index terms: "k" from " " addresses finds the conversation of a number and an
// address set; "a" addresses finds every conversation with that address set; "m" address finds
// every group conversation that address is a member of. A 1:1 conversation's "a" term is already
// its one member's entry, so only group conversations get "m" terms (the disk stays lean).
func convKeyTerm(from, addrs string) string { return "k" + from + " " + addrs }
func convAddrTerm(addrs string) string      { return "a" + addrs }
func convMemberTerm(addr string) string     { return "m" + addr }

// putMemberTerms indexes a group conversation under each of its addresses; a 1:1 one needs none.
func putMemberTerms(idx *kv.Bucket, c *Conversation) error {
	if !c.IsGroup() {
		return nil
	}
	for _, a := range c.Addresses {
		if err := idx.Put(idxKey(c.WorkspaceID, convMemberTerm(a), c.ID), nil); err != nil {
			return err
		}
	}
	return nil
}

// phoneConversationIDs lists every conversation phone is in: its 1:1 conversations (one per
// number of the workspace that texted it) and the group conversations it is a member of.
func phoneConversationIDs(tx *kv.Tx, workspaceID, phone string) []string {
	idx := tx.Bucket(bConvKey)
	return append(idxIDs(idx, workspaceID, convAddrTerm(phone)), idxIDs(idx, workspaceID, convMemberTerm(phone))...)
}

// CreateConversation returns the SMS conversation between from and to, creating it (and an
// unnamed contact for an unknown to) when there is none. Concurrent identical calls yield one.
func (s *Store) CreateConversation(workspaceID, from, to string) (Conversation, bool, error) {
	// The common case, an existing pair, is a read-only transaction.
	var conv Conversation
	var found bool
	err := s.view(func(tx *kv.Tx) error {
		if _, ok, err := activeNumber(tx, workspaceID, from); err != nil || !ok {
			if err == nil {
				err = fromNumberError(from)
			}
			return err
		}
		var err error
		conv, found, err = findConversation(tx, workspaceID, from, to)
		return err
	})
	if err != nil || found {
		return conv, false, err
	}
	var created bool
	err = s.update(func(tx *wtx) error {
		n, ok, err := activeNumber(tx.Tx, workspaceID, from)
		if err != nil {
			return err
		}
		if !ok {
			return fromNumberError(from)
		}
		conv, created, err = s.conversationFor(tx, workspaceID, n, []string{to}, nil)
		if err != nil || !created {
			return err
		}
		return s.automateCreated(tx, &conv, conv.CreatedAt)
	})
	return conv, created, err
}

// LookupConversation is create-conversation's read path: in one read transaction it checks the
// workspace (ErrNotFound), userID's membership (ErrForbidden), that the workspace is not archived
// (ErrForbidden) and that from is an active number
// of the workspace (a validation error on from), then returns the id of the conversation of
// from and to, or "" when there is none yet (CreateConversation makes it). It decodes no
// conversation record: an existing pair is answered from the index alone.
func (s *Store) LookupConversation(userID, workspaceID, from, to string) (string, error) {
	var id string
	err := s.view(func(tx *kv.Tx) error {
		if err := authorize(tx, workspaceID, userID); err != nil {
			return err
		}
		// An archived workspace refuses every action (to its members; others learn nothing
		// more than authorize told them), checked here rather than in a read of its own.
		if tx.Bucket(bMeta).Get(archivedKey(workspaceID)) != nil {
			return errorf(ErrForbidden, "workspace is archived")
		}
		nid, ok, err := s.activeNumberID(tx, workspaceID, from)
		if err != nil || !ok {
			if err == nil {
				err = fromNumberError(from)
			}
			return err
		}
		if err := s.checkNumberUse(tx, workspaceID, nid, userID); err != nil {
			return err
		}
		id = idxFirst(tx.Bucket(bConvKey), workspaceID, convKeyTerm(from, to))
		return nil
	})
	return id, err
}

func findConversation(tx *kv.Tx, workspaceID, from, addrs string) (Conversation, bool, error) {
	var c Conversation
	id := idxFirst(tx.Bucket(bConvKey), workspaceID, convKeyTerm(from, addrs))
	if id == "" {
		return c, false, nil
	}
	ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
	return c, ok, err
}

// conversationFor finds or creates the conversation of number n with the (normalized) address
// set. A conversation created for a message gets that message's time as its last activity, so
// that it is written once.
func (s *Store) conversationFor(tx *wtx, workspaceID string, n PhoneNumber, addrs []string, activity *time.Time) (Conversation, bool, error) {
	return s.conversationWith(tx, workspaceID, n, addrs, activity, ConversationOpen)
}

// conversationWith is conversationFor creating a missing conversation with the given status
// (a broadcast copy's starts closed), written once.
func (s *Store) conversationWith(tx *wtx, workspaceID string, n PhoneNumber, addrs []string, activity *time.Time, status string) (Conversation, bool, error) {
	addrs = NormalizeGroup(addrs)
	key := strings.Join(addrs, "-")
	if c, ok, err := findConversation(tx.Tx, workspaceID, n.Phone, key); ok || err != nil {
		return c, false, err
	}
	for _, a := range addrs {
		// Only existence matters here: no need to decode the contact record.
		if contactIDByPhone(tx.Tx, workspaceID, a) != "" {
			continue
		}
		if _, err := s.insertContact(tx, workspaceID, ContactInput{Phone: a, Source: SourceAPI}); err != nil {
			return Conversation{}, false, err
		}
	}
	now := s.Now()
	c := Conversation{ID: s.NewID(), WorkspaceID: workspaceID, TenantID: s.tenantID, CommunicationType: CommSMS,
		Status: status, AssignedUserIDs: []string{}, Labels: []string{}, From: n.Phone,
		InboundChannelAddresses: key, Addresses: addrs, OutboundChannelID: n.ID, LastMessageTime: activity,
		CreatedAt: now, UpdatedAt: now, CreatedClosed: status == ConversationClosed}
	convChanged(tx, workspaceID, addrs, true)
	idx := tx.Bucket(bConvKey)
	if err := idx.Put(idxKey(workspaceID, convKeyTerm(n.Phone, key), c.ID), nil); err != nil {
		return c, false, err
	}
	if err := idx.Put(idxKey(workspaceID, convAddrTerm(key), c.ID), nil); err != nil {
		return c, false, err
	}
	if err := putMemberTerms(idx, &c); err != nil {
		return c, false, err
	}
	if err := putActivity(tx.Tx, &c); err != nil {
		return c, false, err
	}
	if err := putJSON(tx.Bucket(bConversations), wsKey(workspaceID, c.ID), c); err != nil {
		return c, false, err
	}
	return c, true, tx.reportCreated(&c)
}

// touchConversation records activity (moving the conversation in the inbox's activity index);
// an inbound message reopens the conversation.
func touchConversation(tx *kv.Tx, c *Conversation, at time.Time, inbound bool) error {
	if err := deleteActivity(tx, c); err != nil {
		return err
	}
	c.LastMessageTime = &at
	if err := putActivity(tx, c); err != nil {
		return err
	}
	c.UpdatedAt = at
	if inbound && c.Status != ConversationOpen {
		// The contact's text reopens a closed or snoozed conversation (its snooze time goes),
		// and its assignees hold it open again.
		was := c.Status
		if err := setStatus(tx, c, ConversationOpen, nil); err != nil {
			return err
		}
		if err := syncOpenAssigned(tx, c, was, c.AssignedUserIDs); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bConversations), wsKey(c.WorkspaceID, c.ID), c)
}

// latestConversationWith returns the id of the workspace's 1:1 conversation with phone that
// had the latest activity, or "".
func latestConversationWith(tx *kv.Tx, workspaceID, phone string) (string, error) {
	best, bestAt := "", time.Time{}
	for _, id := range idxIDs(tx.Bucket(bConvKey), workspaceID, convAddrTerm(phone)) {
		var c Conversation
		ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		at := c.CreatedAt
		if c.LastMessageTime != nil {
			at = *c.LastMessageTime
		}
		if best == "" || !at.Before(bestAt) {
			best, bestAt = c.ID, at
		}
	}
	return best, nil
}

// Conversation returns a conversation by id.
func (s *Store) Conversation(workspaceID, id string) (Conversation, error) {
	var c Conversation
	err := s.view(func(tx *kv.Tx) error {
		ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "conversation not found")
		}
		return err
	})
	return c, err
}

// CountConversations counts a workspace's conversations.
func (s *Store) CountConversations(workspaceID string) (int, error) {
	n := 0
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		return forEachPrefix(tx.Bucket(bConversations), idKey(workspaceID), func(_, _ []byte) error { n++; return nil })
	})
	return n, err
}

// ContactConversations lists the workspace's 1:1 conversations with phone (one per number of
// the workspace that texted it), newest activity first. The admin UI's contact page links them.
func (s *Store) ContactConversations(workspaceID, phone string) ([]Conversation, error) {
	return s.ContactConversationsFor(workspaceID, phone, "")
}

// ContactConversationsFor is ContactConversations without the conversations of numbers viewer
// may not see.
func (s *Store) ContactConversationsFor(workspaceID, phone, viewer string) ([]Conversation, error) {
	out := []Conversation{}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		hidden, err := s.hiddenFrom(tx, workspaceID, viewer)
		if err != nil {
			return err
		}
		// Its 1:1 conversations (under its address) and the group ones it is a member of.
		seen := map[string]bool{}
		for _, term := range []string{convAddrTerm(phone), convMemberTerm(phone)} {
			for _, id := range idxIDs(tx.Bucket(bConvKey), workspaceID, term) {
				if seen[id] {
					continue
				}
				seen[id] = true
				var c Conversation
				ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
				if err != nil {
					return err
				}
				if ok && !hidden[c.OutboundChannelID] {
					out = append(out, c)
				}
			}
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return activityOf(out[i]).After(activityOf(out[j])) })
	return out, err
}

func activityOf(c Conversation) time.Time {
	if c.LastMessageTime != nil {
		return *c.LastMessageTime
	}
	return c.CreatedAt
}

// conversationActivity is the time the inbox orders c by.
func conversationActivity(c *Conversation) time.Time {
	if c.LastMessageTime != nil {
		return *c.LastMessageTime
	}
	return c.CreatedAt
}

func activityKey(c *Conversation) []byte {
	k := make([]byte, 0, 40)
	k = append(k, idKey(c.WorkspaceID)...)
	k = binary.BigEndian.AppendUint64(k, uint64(conversationActivity(c).UnixNano()))
	return append(k, idKey(c.ID)...)
}

func putActivity(tx *kv.Tx, c *Conversation) error {
	return tx.Bucket(bConvActivity).Put(activityKey(c), activityValue(tx, c))
}

func deleteActivity(tx *kv.Tx, c *Conversation) error {
	return tx.Bucket(bConvActivity).Delete(activityKey(c))
}

// ConversationUpdate changes a conversation's triage fields; nil fields stay as they are.
type ConversationUpdate struct {
	Status          *string
	AssignedUserIDs *[]string // each a member of the workspace
	Labels          *[]string
	// SnoozeUntil, with Status snoozed, is when the conversation reopens by itself: in the
	// future, at most a year ahead (nil: until the contact writes).
	SnoozeUntil *time.Time
	// ActorID is the user making the change ("" for the API): the thread's activity entries
	// name them, and a user they assign is notified unless it is themselves.
	ActorID string
}

// UpdateConversation sets a conversation's status, assignees or labels. It does not move the
// conversation in the inbox: only messages are activity.
func (s *Store) UpdateConversation(workspaceID, id string, u ConversationUpdate) (Conversation, error) {
	var c Conversation
	var errs ValidationError
	if u.Status != nil {
		switch *u.Status {
		case ConversationOpen, ConversationSnoozed, ConversationClosed:
		default:
			errs = append(errs, FieldError{"status", "must be open, snoozed or closed"})
		}
	}
	var labels []string
	if u.Labels != nil {
		for _, l := range *u.Labels {
			if l = strings.TrimSpace(l); l != "" {
				if runeLen(l) > 64 {
					errs = append(errs, FieldError{"labels", "each label must be at most 64 characters"})
					break
				}
				labels = append(labels, l)
			}
		}
		labels = NormalizeGroup(labels)
		if len(labels) > 20 {
			errs = append(errs, FieldError{"labels", "must be at most 20 labels"})
		}
	}
	if u.Status != nil && *u.Status == ConversationSnoozed {
		if fe := checkSnooze(u.SnoozeUntil, s.Now()); fe != nil {
			errs = append(errs, *fe)
		}
	}
	if errs != nil {
		return c, errs
	}
	err := s.updateNow(func(tx *wtx) error {
		ok, err := getJSON(tx.Bucket(bConversations), wsKeyChecked(workspaceID, id), &c)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "conversation not found")
		}
		before := c
		if u.ActorID != "" {
			if err := s.checkNumberUse(tx.Tx, workspaceID, c.OutboundChannelID, u.ActorID); err != nil {
				return err
			}
		}
		if u.AssignedUserIDs != nil {
			ids := NormalizeGroup(*u.AssignedUserIDs)
			if fe, ok := checkMentions(tx.Tx, workspaceID, ids); !ok {
				fe.Field, fe.Message = "assignedUserIds", strings.Replace(fe.Message, "must be", "assignees must be", 1)
				return ValidationError{fe}
			}
			if err := s.checkAssignees(tx.Tx, &c, ids); err != nil {
				return err
			}
			c.AssignedUserIDs = orEmpty(ids)
		}
		if u.Status != nil {
			if err := setStatus(tx.Tx, &c, *u.Status, u.SnoozeUntil); err != nil {
				return err
			}
		}
		if u.Labels != nil {
			c.Labels = orEmpty(labels)
		}
		now := s.Now()
		c.UpdatedAt = now
		if c.Status == ConversationClosed && before.Status != ConversationClosed {
			if err := answered(tx.Tx, &c); err != nil { // a close ends the wait for an answer
				return err
			}
		}
		if err := s.logChanges(tx, &before, &c, u.ActorID); err != nil {
			return err
		}
		if err := syncOpenAssigned(tx.Tx, &c, before.Status, before.AssignedUserIDs); err != nil {
			return err
		}
		if err := putJSON(tx.Bucket(bConversations), wsKey(workspaceID, c.ID), c); err != nil {
			return err
		}
		if u.AssignedUserIDs != nil {
			if err := s.liveAssigned(tx, &c, before.AssignedUserIDs, u.ActorID); err != nil {
				return err
			}
		}
		return s.afterTriage(tx, &before, &c, u.ActorID, now)
	})
	return c, err
}

// Labels lists the labels in use on a workspace's most recent conversations (for the inbox's
// label filter), sorted.
func (s *Store) Labels(workspaceID string) ([]string, error) {
	return s.LabelsFor(workspaceID, "")
}

// LabelsFor is Labels over the conversations viewer may see.
func (s *Store) LabelsFor(workspaceID, viewer string) ([]string, error) {
	items, err := s.Inbox(workspaceID, InboxFilter{Limit: 200, Viewer: viewer})
	var out []string
	for _, it := range items {
		out = append(out, it.Conversation.Labels...)
	}
	return NormalizeGroup(out), err
}
