package store

import (
	"encoding/json"
	"slices"
	"strings"

	"switchboard/internal/phone"
	"switchboard/store/kv"
)

// Notifications: an inbound text, a mention or an assignment tells the users it concerns, in
// the change's own transaction, through every channel at once: a live event for their open
// pages, an e-mail while they are away (mentions and assignments), and a Web Push to each of
// their devices. Who is told is decided in one place, notified; the channels read its answer.

// Why a user is told: the reason of the live notification event and of the push.
const (
	reasonInbound    = "inbound"
	reasonMention    = "mention"
	reasonAssignment = "assignment"
)

// notice is one change that notifies users, in the words each channel shows.
type notice struct {
	reason string
	conv   *Conversation
	// actor made the change ("" for a contact's text); no one is told of their own action.
	actor string
	// users are those a mention or an assignment is for; an inbound text concerns every member.
	users []string
	// title and body are the live notification's words; text is the message's or the
	// comment's text, which the push shows (unless the user hides it) and the e-mail quotes.
	title, body, text string
	media             bool // the message has media
	// mailTitle and mailLead start the e-mail's subject and sentence; "" sends none.
	mailTitle, mailLead string
}

// recipient is a user told of a notice, with their notification choices.
type recipient struct {
	user  string
	prefs NotificationPrefs
}

// notified returns who is told of n: for an inbound text every member of the workspace whose
// choices ask for it (all inbound, or in conversations assigned to them or unassigned); for a
// mention or an assignment the users it is for. Only members who may see the conversation's
// number are told (hearers: a number limited to teams tells its teams' members and the
// admins), and the user who made the change never is. This is the one place that decides who
// is notified of what: the live event, the e-mail and the push all go to its answer.
func (s *Store) notified(tx *kv.Tx, n *notice) ([]recipient, error) {
	may, err := s.hearers(tx, n.conv)
	if err != nil {
		return nil, err
	}
	users := n.users
	if n.reason == reasonInbound {
		users = members(tx, n.conv.WorkspaceID)
	}
	var out []recipient
	for _, u := range users {
		if u == "" || u == n.actor || (may != nil && !may(u)) ||
			slices.ContainsFunc(out, func(r recipient) bool { return r.user == u }) {
			continue
		}
		p, err := notificationPrefs(tx, u)
		if err != nil {
			return nil, err
		}
		if n.reason == reasonInbound && !p.wantsInbound(n.conv, u) {
			continue
		}
		out = append(out, recipient{user: u, prefs: p})
	}
	return out, nil
}

// tell notifies everyone n concerns, through every channel, inside the change's transaction.
func (s *Store) tell(tx *wtx, n *notice) error {
	rs, err := s.notified(tx.Tx, n)
	if err != nil || len(rs) == 0 {
		return err
	}
	var push pushNotice
	for _, r := range rs {
		if err := s.notification(tx, n.conv, r.user, n.reason, n.title, n.body, r.prefs.Sound); err != nil {
			return err
		}
		if n.mailTitle != "" {
			if err := s.mailNotification(tx, n.conv, r.user, n.mailTitle, n.mailLead, n.text); err != nil {
				return err
			}
		}
		if err := s.queuePushes(tx, n, r, &push); err != nil {
			return err
		}
	}
	return nil
}

// pushNotice is what every push of one notice shares, worked out for its first recipient with
// a device.
type pushNotice struct {
	ready            bool
	title, workspace string
}

// PushPayload is the JSON a push carries to the service worker, before encryption (at most
// about 1 KB: the title and workspace are clipped, the body is at most 120 characters of text).
type PushPayload struct {
	Title          string `json:"title"` // the contact's name, or the number in the workspace's format
	Body           string `json:"body"`  // the text's first 120 characters, "Photo", or "New message"
	URL            string `json:"url"`   // the conversation's page, /inbox/{id}
	ConversationID string `json:"conversationId"`
	Workspace      string `json:"workspace"` // the workspace's name
	Unread         int    `json:"unread"`    // the user's unread conversations in that workspace: the app badge
	Reason         string `json:"reason"`    // inbound, mention or assignment
}

// pushBodyMax is how many characters of a text a push shows.
const pushBodyMax = 120

// queuePushes queues a push of n to each of r's devices.
func (s *Store) queuePushes(tx *wtx, n *notice, r recipient, shared *pushNotice) error {
	subs := userPushSubIDs(tx.Tx, r.user)
	if len(subs) == 0 {
		return nil
	}
	ws := n.conv.WorkspaceID
	if !shared.ready {
		w, err := getWorkspace(tx.Tx, ws)
		if err != nil {
			return err
		}
		shared.ready, shared.title, shared.workspace = true, clip(conversationTitle(tx.Tx, n.conv, w.Country), 100), clip(w.Name, 100)
	}
	p := PushPayload{Title: shared.title, URL: "/inbox/" + n.conv.ID, ConversationID: n.conv.ID,
		Workspace: shared.workspace, Reason: n.reason,
		Unread: int(decodeUint(tx.Bucket(bUnreadCount).Get(unreadKey(ws, r.user, "")[:32])))}
	p.Body = pushBody(n, !r.prefs.HideText)
	payload, err := json.Marshal(p)
	if err != nil {
		return err
	}
	urgency := "normal"
	if n.reason == reasonInbound {
		urgency = "high"
	}
	for _, sub := range subs {
		j := PushJob{SubscriptionID: sub, UserID: r.user, ConversationID: n.conv.ID, Urgency: urgency, Payload: payload}
		if err := s.queuePushJob(tx, j); err != nil {
			return err
		}
	}
	return nil
}

// pushBody is what a push says: for a customer's text its first 120 characters ("Photo" for
// media alone), or "New message" when the user hides texts; for a mention who mentioned them
// and, unless hidden, what they wrote; for an assignment who assigned it.
func pushBody(n *notice, showText bool) string {
	first := func(s string) string {
		if r := []rune(strings.TrimSpace(s)); len(r) > pushBodyMax {
			return string(r[:pushBodyMax])
		}
		return strings.TrimSpace(s)
	}
	switch n.reason {
	case reasonInbound:
		switch {
		case !showText:
			return "New message"
		case strings.TrimSpace(n.text) == "" && n.media:
			return "Photo"
		}
		return first(n.text)
	case reasonMention:
		if !showText || strings.TrimSpace(n.text) == "" {
			return n.title
		}
		return first(n.title + ": " + n.text)
	}
	return n.title
}

// conversationTitle names a conversation as a notification's title: its name, else each
// contact's name or, for a number with no named contact, the number in the workspace's format.
func conversationTitle(tx *kv.Tx, c *Conversation, country string) string {
	if c.Name != "" {
		return c.Name
	}
	names := make([]string, 0, len(c.Addresses))
	for _, a := range c.Addresses {
		if name := contactName(tx, c.WorkspaceID, a); name != "" {
			names = append(names, name)
		} else {
			names = append(names, phone.Format(a, country))
		}
	}
	return strings.Join(names, ", ")
}

// contactName is the full name of the workspace's contact with that phone, "" when none.
func contactName(tx *kv.Tx, ws, phone string) string {
	if id := contactIDByPhone(tx, ws, phone); id != "" {
		if ct, err := getContact(tx, ws, id); err == nil {
			return strings.TrimSpace(ct.FirstName + " " + ct.LastName)
		}
	}
	return ""
}
