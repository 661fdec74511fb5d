package store

import (
	"bytes"
	"encoding/hex"
	"slices"

	"switchboard/store/kv"
)

// The inbox reads conversations newest activity first from bConvActivity, whose keys are
// workspace(16) | activity(8, big-endian Unix nanoseconds) | conversation(16) with empty
// values: a reverse cursor over the workspace's prefix walks them in order without a scan.
// A conversation's activity is its lastMessageTime, else its creation time. The entry moves
// in the same transaction as the record (conversationFor, touchConversation).

// InboxFilter narrows Inbox. Empty fields do not filter.
type InboxFilter struct {
	Status     string // open, snoozed or closed
	AssignedTo string // a user id
	Unassigned bool
	Label      string
	// Search matches the contact (name prefixes, folded; number digits in any formatting) or
	// the words of one of the conversation's messages (inboxPage).
	Search string
	// Limit caps the result (default 50, at most 200).
	Limit int
	// Before continues a list after the row whose Cursor it is ("" from the newest).
	Before string
	// Viewer, when set, leaves out the conversations of numbers the user may not see (a
	// number limited to teams they are not in).
	Viewer string
	hidden map[string]bool // Viewer's hidden numbers, read in the list's transaction
}

// see reads f.Viewer's hidden numbers in tx, for keeps.
func (s *Store) see(tx *kv.Tx, workspaceID string, f *InboxFilter) error {
	var err error
	f.hidden, err = s.hiddenFrom(tx, workspaceID, f.Viewer)
	return err
}

// inboxScan bounds how many conversations one page examines: a filter that matches little
// (closed conversations among 100,000 open ones) answers with what it found and a cursor to go
// on, so a page stays fast (within 50 ms) however selective its filter.
var inboxScan = 2000

// InboxItem is one row of the inbox: a conversation with what a person needs to pick it.
type InboxItem struct {
	Conversation Conversation
	// ContactName is the 1:1 contact's name, "" when unnamed or for a group.
	ContactName string
	// Last is the latest message's text (or "[media]"), "" when there is none.
	Last string
	// Cursor is this row's place in the list, for InboxFilter.Before (the next page).
	Cursor string
}

// Inbox lists a workspace's conversations, newest activity first, read from the activity index.
func (s *Store) Inbox(workspaceID string, f InboxFilter) ([]InboxItem, error) {
	items, _, err := s.InboxPage(workspaceID, f)
	return items, err
}

// InboxPage is Inbox with the cursor of the next page: "" when no more conversations match. A
// page holds up to f.Limit rows but reads at most inboxScan conversations, so a selective filter
// may return fewer rows (even none) and a cursor to continue from.
func (s *Store) InboxPage(workspaceID string, f InboxFilter) ([]InboxItem, string, error) {
	return s.inboxPage(workspaceID, f)
}

// decodeCursor turns a row's Cursor back into the key's activity and id (24 bytes).
func decodeCursor(s string) ([]byte, bool) {
	b, err := hex.DecodeString(s)
	return b, err == nil && len(b) == 24
}

func (f *InboxFilter) keeps(c *Conversation) bool {
	switch {
	case f.Status != "" && c.Status != f.Status:
		return false
	case f.AssignedTo != "" && !slices.Contains(c.AssignedUserIDs, f.AssignedTo):
		return false
	case f.Unassigned && len(c.AssignedUserIDs) > 0:
		return false
	case f.Label != "" && !slices.Contains(c.Labels, f.Label):
		return false
	case f.hidden[c.OutboundChannelID]:
		return false
	}
	return true
}

// lastMessageText is the text of the conversation's newest message (ids are ULIDs, so the
// index's last key under the conversation is the newest).
func lastMessageText(tx *kv.Tx, workspaceID, convID string) string {
	p := idxPrefix(workspaceID, convID)
	cur := tx.Bucket(bConvMessages).Cursor()
	k, _ := cur.Seek(append(slices.Clone(p), bytes.Repeat([]byte{0xff}, 17)...))
	if k == nil {
		k, _ = cur.Last()
	} else {
		k, _ = cur.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, p) || len(k) != len(p)+16 {
		return ""
	}
	var m Message
	if ok, err := getJSON(tx.Bucket(bMessages), wsKey(workspaceID, idFromKey(k[len(p):])), &m); err != nil || !ok {
		return ""
	}
	if m.Text == "" && len(m.Media) > 0 {
		return "[media]"
	}
	return m.Text
}
