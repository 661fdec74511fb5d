package store

import (
	"slices"
	"time"

	"switchboard/store/kv"
)

// Conversation entries are the thread's record of triage: who changed the status, the
// assignees, the labels or the block of a conversation, and when. Each is written in the
// transaction of the change it records, into conversation_entries (ws|id → entry) and the
// thread index (bConvMessages, term "a"+conversation id), beside the thread's messages ("" +
// id) and comments ("c" + id).

// Entry kinds.
const (
	EntryStatus   = "status"   // Status is the new status (snoozed with SnoozeUntil)
	EntryAssign   = "assign"   // Added and Removed are user ids
	EntryLabels   = "labels"   // Added and Removed are labels
	EntryBlock    = "block"    // Phone was blocked
	EntryUnblock  = "unblock"  // Phone was unblocked
	EntrySnoozeUp = "snoozeUp" // the snooze time passed: the conversation reopened
	// EntryAutoAssign: auto-assignment gave the conversation to Added[0]; Via says how
	// (round-robin, least-busy, default assignee).
	EntryAutoAssign = "autoAssign"
	// EntryRule: the rule RuleID, named Rule when it fired, did Text ("assigned to Ana Lima").
	EntryRule = "rule"
)

// ConversationEntry is one activity entry of a thread. UserID is "" for a change the system
// made (a snooze that ended).
type ConversationEntry struct {
	ID             string     `json:"id"`
	WorkspaceID    string     `json:"workspaceId"`
	ConversationID string     `json:"conversationId"`
	UserID         string     `json:"userId,omitempty"`
	Kind           string     `json:"kind"`
	Status         string     `json:"status,omitempty"`
	SnoozeUntil    *time.Time `json:"snoozeUntil,omitempty"`
	Added          []string   `json:"added,omitempty"`
	Removed        []string   `json:"removed,omitempty"`
	Phone          string     `json:"phone,omitempty"`
	Via            string     `json:"via,omitempty"`
	RuleID         string     `json:"ruleId,omitempty"`
	Rule           string     `json:"rule,omitempty"`
	Text           string     `json:"text,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
}

func entryTerm(conversationID string) string { return "a" + conversationID }

// entryChange is the live event's change for an entry of each kind.
var entryChange = map[string]string{EntryStatus: "status", EntrySnoozeUp: "status", EntryAssign: "assignment",
	EntryLabels: "labels", EntryBlock: "block", EntryUnblock: "block", EntryAutoAssign: "assignment", EntryRule: "rule"}

// putEntry writes e (id and time given here), its thread index entry and its live event: each
// triage change is one conversation event naming the entry, so an open thread appends every
// entry as it is written, whatever wrote it (a form, the API, a block, the snooze sweep).
func (s *Store) putEntry(tx *wtx, e ConversationEntry) error {
	e.ID, e.CreatedAt = s.NewID(), s.Now()
	if err := putJSON(tx.Bucket(bConvEntries), wsKey(e.WorkspaceID, e.ID), e); err != nil {
		return err
	}
	if err := tx.Bucket(bConvMessages).Put(idxKey(e.WorkspaceID, entryTerm(e.ConversationID), e.ID), nil); err != nil {
		return err
	}
	if err := tx.reportEntry(&e); err != nil {
		return err
	}
	fields := map[string]any{"change": entryChange[e.Kind], "entryId": e.ID}
	if e.Status != "" {
		fields["status"] = e.Status
	}
	return s.live(tx, e.WorkspaceID, LiveConversation, e.ConversationID, "", fields)
}

// logChanges writes an entry for each triage field that differs between before and after.
func (s *Store) logChanges(tx *wtx, before, after *Conversation, userID string) error {
	base := ConversationEntry{WorkspaceID: after.WorkspaceID, ConversationID: after.ID, UserID: userID}
	if before.Status != after.Status || !sameTime(before.SnoozedUntil, after.SnoozedUntil) {
		e := base
		e.Kind, e.Status, e.SnoozeUntil = EntryStatus, after.Status, after.SnoozedUntil
		if err := s.putEntry(tx, e); err != nil {
			return err
		}
	}
	if added, removed := diff(before.AssignedUserIDs, after.AssignedUserIDs); len(added)+len(removed) > 0 {
		e := base
		e.Kind, e.Added, e.Removed = EntryAssign, added, removed
		if err := s.putEntry(tx, e); err != nil {
			return err
		}
	}
	if added, removed := diff(before.Labels, after.Labels); len(added)+len(removed) > 0 {
		e := base
		e.Kind, e.Added, e.Removed = EntryLabels, added, removed
		if err := s.putEntry(tx, e); err != nil {
			return err
		}
	}
	return nil
}

// logBlock writes a block or unblock entry into every 1:1 conversation with phone.
func (s *Store) logBlock(tx *wtx, workspaceID, userID, phone string, blocked bool) error {
	kind := EntryUnblock
	if blocked {
		kind = EntryBlock
	}
	for _, id := range idxIDs(tx.Bucket(bConvKey), workspaceID, convAddrTerm(phone)) {
		if err := s.putEntry(tx, ConversationEntry{WorkspaceID: workspaceID, ConversationID: id, UserID: userID,
			Kind: kind, Phone: phone}); err != nil {
			return err
		}
	}
	return nil
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// diff returns what after has that before has not, and the reverse.
func diff(before, after []string) (added, removed []string) {
	for _, x := range after {
		if !slices.Contains(before, x) {
			added = append(added, x)
		}
	}
	for _, x := range before {
		if !slices.Contains(after, x) {
			removed = append(removed, x)
		}
	}
	return added, removed
}

// ConversationEntries lists a conversation's activity entries, oldest first.
func (s *Store) ConversationEntries(workspaceID, conversationID string) ([]ConversationEntry, error) {
	out := []ConversationEntry{}
	err := s.view(func(tx *kv.Tx) error {
		for _, id := range idxIDs(tx.Bucket(bConvMessages), workspaceID, entryTerm(conversationID)) {
			var e ConversationEntry
			if ok, err := getJSON(tx.Bucket(bConvEntries), wsKey(workspaceID, id), &e); err != nil {
				return err
			} else if ok {
				out = append(out, e)
			}
		}
		return nil
	})
	return out, err
}
