package store

import (
	"time"

	"switchboard/store/kv"
)

// Comment is an internal note on a conversation; it is never sent to the contact.
type Comment struct {
	ID             string   `json:"id"`
	WorkspaceID    string   `json:"workspaceId"`
	TenantID       string   `json:"tenantId"`
	ConversationID string   `json:"conversationId"`
	Text           string   `json:"text"`
	Media          []string `json:"media"`
	Mentions       []string `json:"mentions"`
	UserID         string   `json:"userId"`
	ThreadID       string   `json:"threadId"`
	// Rule names the rule that wrote the comment (a note or a mention), "" for a person's.
	Rule      string    `json:"rule,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// CommentInput is an internal comment on the conversation of From and To.
type CommentInput struct {
	From     string
	To       string
	Text     string
	Media    []string
	Mentions []string
	AuthorID string
}

// CreateComment adds an internal comment (never sent to the contact), creating the
// conversation if needed. Mentions must be members of the workspace.
func (s *Store) CreateComment(workspaceID string, in CommentInput) (Comment, error) {
	var c Comment
	err := s.update(func(tx *wtx) error {
		n, ok, err := activeNumber(tx.Tx, workspaceID, in.From)
		if err != nil {
			return err
		}
		var errs ValidationError
		if !ok {
			errs = append(errs, fromNumberError(in.From)...)
		}
		if fe, ok := checkMentions(tx.Tx, workspaceID, in.Mentions); !ok {
			errs = append(errs, fe)
		}
		if errs != nil {
			return errs
		}
		if err := s.checkNumberUse(tx.Tx, workspaceID, n.ID, in.AuthorID); err != nil {
			return err
		}
		conv, created, err := s.conversationFor(tx, workspaceID, n, []string{in.To}, nil)
		if err != nil {
			return err
		}
		if created {
			if err := s.automateCreated(tx, &conv, conv.CreatedAt); err != nil {
				return err
			}
		}
		c = Comment{Text: in.Text, Media: in.Media, Mentions: in.Mentions, UserID: in.AuthorID}
		return s.addComment(tx, &conv, &c)
	})
	return c, err
}

// ConversationComments lists a conversation's comments, oldest first.
func (s *Store) ConversationComments(workspaceID, conversationID string) ([]Comment, error) {
	out := []Comment{}
	err := s.view(func(tx *kv.Tx) error {
		for _, id := range idxIDs(tx.Bucket(bConvMessages), workspaceID, "c"+conversationID) {
			var c Comment
			if ok, err := getJSON(tx.Bucket(bComments), wsKey(workspaceID, id), &c); err != nil {
				return err
			} else if ok {
				out = append(out, c)
			}
		}
		return nil
	})
	return out, err
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
