package store

import (
	"bytes"
	"encoding/binary"
	"slices"
	"time"

	"switchboard/store/kv"
)

// Auto-assignment hands a number's new conversations, and those the contact reopens, to an
// available member of its default team who holds fewer open conversations than the team's
// capacity. Two indexes make the choice a few reads however many conversations there are:
// bAssignedOpen (workspace | user | conversation) lists each member's open assigned
// conversations, kept in step by every write that changes a conversation's status or
// assignees (syncOpenAssigned); bAssignLast (workspace | user → time) is when each member was
// last assigned a conversation.

// Who did an assignment, in conversation.assigned's `by` and the activity entry.
const (
	byDefaultAssignee = "auto:default-assignee"
	byPrefixAuto      = "auto:" // + the team's mode
	byPrefixRule      = "rule:" // + the rule's id
)

func openAssignedKey(ws, user, conv string) []byte {
	k := make([]byte, 0, 48)
	k = append(k, idKey(ws)...)
	k = append(k, idKey(user)...)
	return append(k, idKey(conv)...)
}

// syncOpenAssigned keeps bAssignedOpen in step with c after its status or assignees changed
// from wasStatus and wasAssigned.
func syncOpenAssigned(tx *kv.Tx, c *Conversation, wasStatus string, wasAssigned []string) error {
	b := tx.Bucket(bAssignedOpen)
	wasOpen, isOpen := wasStatus == ConversationOpen, c.Status == ConversationOpen
	for _, u := range wasAssigned {
		if wasOpen && !(isOpen && slices.Contains(c.AssignedUserIDs, u)) {
			if err := b.Delete(openAssignedKey(c.WorkspaceID, u, c.ID)); err != nil {
				return err
			}
		}
	}
	for _, u := range c.AssignedUserIDs {
		if isOpen && !(wasOpen && slices.Contains(wasAssigned, u)) {
			if err := b.Put(openAssignedKey(c.WorkspaceID, u, c.ID), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// openAssigned counts user's open assigned conversations, up to limit.
func openAssigned(tx *kv.Tx, ws, user string, limit int) int {
	p := openAssignedKey(ws, user, "")[:32]
	n := 0
	c := tx.Bucket(bAssignedOpen).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && n < limit; k, _ = c.Next() {
		n++
	}
	return n
}

// OpenAssigned counts userID's open conversations in the workspace (the teams page shows it).
func (s *Store) OpenAssigned(workspaceID, userID string) (int, error) {
	n := 0
	err := s.view(func(tx *kv.Tx) error {
		n = openAssigned(tx, workspaceID, userID, 1<<30)
		return nil
	})
	return n, err
}

// noteAssigned records that user was assigned a conversation now.
func noteAssigned(tx *kv.Tx, ws, user string, now time.Time) error {
	return tx.Bucket(bAssignLast).Put(openAssignedKey(ws, user, "")[:32], binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano())))
}

func lastAssigned(tx *kv.Tx, ws, user string) int64 {
	v := tx.Bucket(bAssignLast).Get(openAssignedKey(ws, user, "")[:32])
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// pickAssignee chooses who of team takes a conversation: an available member (who may see the
// conversation, when may is not nil) holding fewer open conversations than the team's
// capacity. Least busy: the fewest open first, ties to the longest since their last
// assignment. Round-robin: the longest since their last assignment first, ties to the fewest
// open. "" when no one qualifies.
func (s *Store) pickAssignee(tx *kv.Tx, ws string, team *Team, mode string, may func(string) bool, now time.Time) string {
	capacity := team.Capacity
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	best, bestOpen, bestLast := "", 0, int64(0)
	for _, u := range team.Members {
		if !isMember(tx, ws, u) || (may != nil && !may(u)) || s.availability(tx, u, now) != Available {
			continue
		}
		open := openAssigned(tx, ws, u, capacity)
		if open >= capacity {
			continue
		}
		last := lastAssigned(tx, ws, u)
		better := false
		switch {
		case best == "":
			better = true
		case mode == AssignLeastBusy:
			better = open < bestOpen || open == bestOpen && last < bestLast
		default:
			better = last < bestLast || last == bestLast && open < bestOpen
		}
		if better {
			best, bestOpen, bestLast = u, open, last
		}
	}
	return best
}

// autoAssign gives the unassigned conversation c of a number to its default assignee, when
// available and below capacity, else to a member its default team's auto-assignment chooses.
// It returns who and how ("" when no one). The caller writes c.
func (s *Store) autoAssign(tx *wtx, r *routing, c *Conversation, now time.Time) (string, error) {
	nr := r.Numbers[c.OutboundChannelID]
	if nr == nil || len(c.AssignedUserIDs) > 0 {
		return "", nil
	}
	team, hasTeam := r.Team(nr.DefaultTeam)
	may, err := s.hearers(tx.Tx, c)
	if err != nil {
		return "", err
	}
	who, by, via := "", "", ""
	if u := nr.DefaultAssignee; u != "" && isMember(tx.Tx, c.WorkspaceID, u) && (may == nil || may(u)) &&
		s.availability(tx.Tx, u, now) == Available {
		capacity := DefaultCapacity
		if hasTeam {
			capacity = team.Capacity
		}
		if openAssigned(tx.Tx, c.WorkspaceID, u, capacity) < capacity {
			who, by, via = u, byDefaultAssignee, "default assignee"
		}
	}
	if who == "" && hasTeam && team.Assign != AssignOff {
		who, by, via = s.pickAssignee(tx.Tx, c.WorkspaceID, &team, team.Assign, may, now), byPrefixAuto+team.Assign, team.Assign
	}
	if who == "" {
		return "", nil
	}
	c.AssignedUserIDs = []string{who}
	if err := noteAssigned(tx.Tx, c.WorkspaceID, who, now); err != nil {
		return "", err
	}
	if err := s.putEntry(tx, ConversationEntry{WorkspaceID: c.WorkspaceID, ConversationID: c.ID, Kind: EntryAutoAssign,
		Added: []string{who}, Via: via}); err != nil {
		return "", err
	}
	if err := s.liveAssignedBy(tx, c, nil, "", "Auto-assignment"); err != nil {
		return "", err
	}
	return who, s.emitAssigned(tx, c, who, by)
}

// indexOpenAssigned builds bAssignedOpen from the conversations of a file written before it
// existed (schema 10→11).
func indexOpenAssigned(_ *Store, tx *kv.Tx) error {
	return tx.Bucket(bConversations).ForEach(func(_, v []byte) error {
		var c struct {
			ID              string   `json:"id"`
			WorkspaceID     string   `json:"workspaceId"`
			Status          string   `json:"status"`
			AssignedUserIDs []string `json:"assignedUserIds"`
		}
		if err := jsonUnmarshal(v, &c); err != nil {
			return err
		}
		if c.Status != ConversationOpen {
			return nil
		}
		for _, u := range c.AssignedUserIDs {
			if err := tx.Bucket(bAssignedOpen).Put(openAssignedKey(c.WorkspaceID, u, c.ID), nil); err != nil {
				return err
			}
		}
		return nil
	})
}
