package store

import (
	"fmt"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Notification e-mails: a mention or an assignment also e-mails the user it is for when they
// chose it on their profile and are away — no open live stream of the workspace, as the web
// layer's stream broker tells (NotifyByMail). The e-mail is queued in the outbox in the same
// transaction as the mention or assignment, so a crash loses none.
//
// At most one e-mail per user per MailNotifyEvery: the first goes at once; what happens
// within the following ten minutes gathers into one e-mail due when they are over.

// MailNotifyEvery is the least time between two notification e-mails to one user.
const MailNotifyEvery = 10 * time.Minute

// mailNotifyMaxItems bounds the notifications one e-mail lists; more are counted.
const mailNotifyMaxItems = 20

// mailNotifyMargin: a gathering e-mail is joined only while it is due later than this, so that
// the mail worker, which reads due e-mails before sending them, never sends an older copy of
// one being joined.
const mailNotifyMargin = 5 * time.Second

// MailNotify is what the store needs to e-mail notifications.
type MailNotify struct {
	// Away reports whether userID has no open live stream of workspaceID.
	Away func(userID, workspaceID string) bool
	// BaseURL is the public URL the e-mails link to (no trailing slash).
	BaseURL string
}

// NotifyByMail turns notification e-mails on (e-mail is configured) with the away test and the
// public URL; a zero MailNotify turns them off.
func (s *Store) NotifyByMail(n MailNotify) {
	n.BaseURL = strings.TrimRight(n.BaseURL, "/")
	s.hookMu.Lock()
	s.mailNotify = n
	s.hookMu.Unlock()
}

// mailNotifyState is a user's notification e-mail record: when the last one was due, and the
// one still gathering, if any.
type mailNotifyState struct {
	LastDue time.Time        `json:"lastDue"`
	Pending string           `json:"pending,omitempty"` // the gathering e-mail's id
	Items   []mailNotifyItem `json:"items,omitempty"`   // what it lists so far
	More    int              `json:"more,omitempty"`    // notifications beyond the listed ones
}

type mailNotifyItem struct {
	Title        string `json:"title"`        // "Ana Lima mentioned you"
	Conversation string `json:"conversation"` // "José Núñez (+14155550123) in Acme Dental"
	Line         string `json:"line"`         // the body's sentence
	Text         string `json:"text,omitempty"`
	Link         string `json:"link"`
}

// mailNotification e-mails user about a notification of conversation c, when they chose it,
// are away, and e-mail is on; within ten minutes of the last one it joins the gathering one.
// title is the subject's start ("Ana Lima mentioned you"), lead the body's sentence before the
// conversation's name ("Ana Lima mentioned you in the conversation with ").
func (s *Store) mailNotification(tx *wtx, c *Conversation, user, title, lead, text string) error {
	s.hookMu.RLock()
	n := s.mailNotify
	s.hookMu.RUnlock()
	if n.Away == nil {
		return nil
	}
	p, err := notificationPrefs(tx.Tx, user)
	if err != nil || !p.Email {
		return err
	}
	u, err := getUser(tx.Tx, user)
	if err != nil || u.Disabled || u.Email == "" {
		return nil
	}
	if !n.Away(user, c.WorkspaceID) {
		return nil
	}
	if r := []rune(text); len(r) > 300 {
		text = string(r[:299]) + "…"
	}
	label := conversationLabel(tx.Tx, c)
	item := mailNotifyItem{Title: title, Conversation: label, Line: lead + label + ".", Text: text,
		Link: n.BaseURL + "/inbox/" + c.ID}
	var st mailNotifyState
	if _, err := getJSON(tx.Bucket(bMailNotify), idKey(user), &st); err != nil {
		return err
	}
	now := s.Now()
	if st.Pending != "" {
		var m Mail
		ok, err := getJSON(tx.Bucket(bMail), idKey(st.Pending), &m)
		if err != nil {
			return err
		}
		if ok && m.DueAt.After(now.Add(mailNotifyMargin)) {
			st.add(item)
			m.Subject, m.Body = st.render(n.BaseURL)
			if err := putJSON(tx.Bucket(bMail), idKey(m.ID), m); err != nil {
				return err
			}
			return putJSON(tx.Bucket(bMailNotify), idKey(user), st)
		}
	}
	due := now
	if !st.LastDue.IsZero() && now.Before(st.LastDue.Add(MailNotifyEvery)) {
		due = st.LastDue.Add(MailNotifyEvery)
	}
	st = mailNotifyState{LastDue: due}
	st.add(item)
	m := Mail{To: u.Email}
	m.Subject, m.Body = st.render(n.BaseURL)
	if err := s.queueMailAt(tx.Tx, &m, due); err != nil {
		return err
	}
	tx.mail = true // the mail worker is woken after the commit
	if due.After(now) {
		st.Pending = m.ID // it gathers what comes until it is due
	} else {
		st.Items = nil
	}
	return putJSON(tx.Bucket(bMailNotify), idKey(user), st)
}

func (st *mailNotifyState) add(it mailNotifyItem) {
	if len(st.Items) >= mailNotifyMaxItems {
		st.More++
		return
	}
	st.Items = append(st.Items, it)
}

// render is the subject and plain-text body of the e-mail listing st's notifications.
func (st *mailNotifyState) render(base string) (subject, body string) {
	var b strings.Builder
	if len(st.Items) == 1 {
		it := st.Items[0]
		subject = MailText(it.Title + ": " + it.Conversation)
	} else {
		subject = fmt.Sprintf("%d notifications in Switchboard", len(st.Items)+st.More)
	}
	for i, it := range st.Items {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(MailText(it.Line) + "\n") // names in it stay on its line
		if it.Text != "" {
			for _, line := range strings.Split(it.Text, "\n") {
				b.WriteString("> " + line + "\n")
			}
		}
		fmt.Fprintf(&b, "Open it: %s\n", it.Link)
	}
	if st.More > 0 {
		fmt.Fprintf(&b, "\n…and %d more; see your inbox: %s/inbox?unread=1\n", st.More, base)
	}
	fmt.Fprintf(&b, "\nYou get these e-mails while you are away from Switchboard, at most one every %d minutes. "+
		"Turn them off on your profile: %s/settings/profile\n", int(MailNotifyEvery/time.Minute), base)
	return subject, b.String()
}

// conversationLabel names a conversation for an e-mail: its name, else its contacts' names or
// numbers, and the workspace: "José Núñez (+14155550123) in Acme Dental".
func conversationLabel(tx *kv.Tx, c *Conversation) string {
	who := c.Name
	if who == "" {
		var names []string
		for _, a := range c.Addresses {
			name := a
			if n := contactName(tx, c.WorkspaceID, a); n != "" {
				name = n + " (" + a + ")"
			}
			names = append(names, name)
		}
		who = strings.Join(names, ", ")
	}
	if w, err := getWorkspace(tx, c.WorkspaceID); err == nil && w.Name != "" {
		who += " in " + w.Name
	}
	return who
}
