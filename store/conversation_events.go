package store

import (
	"switchboard/store/kv"
)

// The conversation webhook events: conversation.assigned when someone (a person, a rule,
// auto-assignment) assigns a member, conversation.closed when the conversation is closed.
const (
	EventConversationAssigned = "conversation.assigned"
	EventConversationClosed   = "conversation.closed"
)

// ConversationPayload is the conversation.* webhook payload: the conversation (the
// Conversation result's fields with its status, assignees and labels), the assignee it is
// about (conversation.assigned: the member assigned; conversation.closed: its first assignee,
// "" when none) and what did it: `by` is a user id, `rule:{id}`, `auto:round-robin`,
// `auto:least-busy` or `auto:default-assignee` ("" for the API or the system).
type ConversationPayload struct {
	AssignedUserIDs []string `json:"assignedUserIds"`
	Assignee        string   `json:"assignee"`
	AssigneeEmail   string   `json:"assigneeEmail"`
	AssigneeName    string   `json:"assigneeName"`
	By              string   `json:"by"`
	From            string   `json:"from"`
	ID              string   `json:"id"`
	Labels          []string `json:"labels"`
	Status          string   `json:"status"`
	To              string   `json:"to"`
	UpdatedAt       string   `json:"updatedAt"`
	WorkspaceID     string   `json:"workspaceId"`
}

func conversationPayload(tx *kv.Tx, c *Conversation, assignee, by string) ConversationPayload {
	p := ConversationPayload{AssignedUserIDs: orEmpty(c.AssignedUserIDs), Assignee: assignee, By: by, From: c.From,
		ID: c.ID, Labels: orEmpty(c.Labels), Status: c.Status, To: c.InboundChannelAddresses,
		UpdatedAt: FormatTime(c.UpdatedAt), WorkspaceID: c.WorkspaceID}
	if assignee != "" {
		if u, err := getUser(tx, assignee); err == nil {
			p.AssigneeName, p.AssigneeEmail = u.Name, u.Email
		}
	}
	return p
}

// emitAssigned emits conversation.assigned for user, newly assigned to c by by.
func (s *Store) emitAssigned(tx *wtx, c *Conversation, user, by string) error {
	return s.emit(tx, c.WorkspaceID, EventConversationAssigned, conversationPayload(tx.Tx, c, user, by))
}

// emitClosed emits conversation.closed for c, closed by by.
func (s *Store) emitClosed(tx *wtx, c *Conversation, by string) error {
	first := ""
	if len(c.AssignedUserIDs) > 0 {
		first = c.AssignedUserIDs[0]
	}
	return s.emit(tx, c.WorkspaceID, EventConversationClosed, conversationPayload(tx.Tx, c, first, by))
}
