package web

import (
	"strconv"

	"switchboard/store"
)

// Result records of the API document; every field is always present.

type commentResult struct {
	ConversationID string `json:"conversationId"`
	ID             string `json:"id"`
	Text           string `json:"text"`
	WorkspaceID    string `json:"workspaceId"`
}

type conversationResult struct {
	From        string `json:"from"`
	ID          string `json:"id"`
	To          string `json:"to"`
	WorkspaceID string `json:"workspaceId"`
}

type groupMessageResult struct {
	ConversationID string   `json:"conversationId"`
	From           string   `json:"from"`
	Group          []string `json:"group"`
	ID             string   `json:"id"`
	Text           string   `json:"text"`
	WorkspaceID    string   `json:"workspaceId"`
}

type messageResult struct {
	ConversationID string `json:"conversationId"`
	From           string `json:"from"`
	ID             string `json:"id"`
	Text           string `json:"text"`
	To             string `json:"to"`
	WorkspaceID    string `json:"workspaceId"`
	Status         string `json:"status,omitempty"` // scheduled, with sendAt; absent for a send now
	SendAt         string `json:"sendAt,omitempty"`
}

type broadcastResult struct {
	From          string   `json:"from"`
	ID            string   `json:"id"`
	Recipients    []string `json:"recipients"`
	Status        string   `json:"status"`
	Text          string   `json:"text"`
	TotalOptedOut int      `json:"totalOptedOut"`
	WorkspaceID   string   `json:"workspaceId"`
}

type contactResult struct {
	Email       string         `json:"email"`
	FirstName   string         `json:"firstName"`
	ID          string         `json:"id"`
	LastName    string         `json:"lastName"`
	Phone       string         `json:"phone"`
	Properties  map[string]any `json:"properties"`
	WorkspaceID string         `json:"workspaceId"`
}

func newContactResult(c store.Contact) contactResult {
	props := c.Properties
	if props == nil {
		props = map[string]any{}
	}
	return contactResult{Email: c.Email, FirstName: c.FirstName, ID: c.ID, LastName: c.LastName,
		Phone: c.Phone(), Properties: props, WorkspaceID: c.WorkspaceID}
}

type optOutResult struct {
	ID          string `json:"id"`
	Phone       string `json:"phone"`
	WorkspaceID string `json:"workspaceId"`
}

type propertyResult struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

type phoneNumberResult struct {
	ID    string `json:"id"`
	Phone string `json:"phone"`
	Name  string `json:"name"`
}

type workspaceRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type meResult struct {
	UserID     string         `json:"userId"`
	Email      string         `json:"email"`
	Name       string         `json:"name"`
	Workspaces []workspaceRef `json:"workspaces"`
}

type subscriptionResult struct {
	ID          string `json:"id"`
	EventName   string `json:"eventName"`
	HookURL     string `json:"hookUrl"`
	WorkspaceID string `json:"workspaceId"`
	Secret      string `json:"secret"`
}

type idResult struct {
	ID string `json:"id"`
}

func itoa(n int) string { return strconv.Itoa(n) }

func formatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }
