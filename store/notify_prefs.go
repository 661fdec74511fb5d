package store

import (
	"slices"

	"switchboard/store/kv"
)

// Which inbound messages notify a user (mentions and assignments to them always do).
const (
	NotifyAllInbound = "all"      // every inbound message of the workspace
	NotifyMine       = "mine"     // inbound messages in conversations assigned to them or unassigned
	NotifyMentions   = "mentions" // mentions and assignments only
)

// NotificationPrefs is what a user chose on /settings/profile: desktop notifications, and
// notification e-mails.
type NotificationPrefs struct {
	Inbound string `json:"inbound"` // NotifyAllInbound, NotifyMine or NotifyMentions
	Sound   bool   `json:"sound"`
	// Email asks for an e-mail of mentions and assignments while the user is away (mailNotification).
	Email bool `json:"email,omitempty"`
	// HideText keeps message texts out of Web Push notifications: "Show message text in
	// notifications" unchecked, for phones whose lock screen others see. Texts show by default.
	HideText bool `json:"hideText,omitempty"`
}

// DefaultNotificationPrefs notify of inbound messages in the user's and unassigned
// conversations, with no sound.
var DefaultNotificationPrefs = NotificationPrefs{Inbound: NotifyMine}

func (p NotificationPrefs) wantsInbound(c *Conversation, user string) bool {
	switch p.Inbound {
	case NotifyAllInbound:
		return true
	case NotifyMentions:
		return false
	default:
		return len(c.AssignedUserIDs) == 0 || slices.Contains(c.AssignedUserIDs, user)
	}
}

func notificationPrefs(tx *kv.Tx, user string) (NotificationPrefs, error) {
	p := DefaultNotificationPrefs
	_, err := getJSON(tx.Bucket(bNotifyPrefs), idKey(user), &p)
	return p, err
}

// NotificationPrefs returns userID's notification preferences (the defaults when never set).
func (s *Store) NotificationPrefs(userID string) (NotificationPrefs, error) {
	var p NotificationPrefs
	err := s.view(func(tx *kv.Tx) error {
		var err error
		p, err = notificationPrefs(tx, userID)
		return err
	})
	return p, err
}

// SetNotificationPrefs saves userID's notification preferences.
func (s *Store) SetNotificationPrefs(userID string, p NotificationPrefs) error {
	switch p.Inbound {
	case NotifyAllInbound, NotifyMine, NotifyMentions:
	default:
		return ValidationError{{Field: "inbound", Message: "must be all, mine or mentions"}}
	}
	return s.update(func(tx *wtx) error {
		if _, err := getUser(tx.Tx, userID); err != nil {
			return tx.refuse(err)
		}
		return putJSON(tx.Bucket(bNotifyPrefs), idKey(userID), p)
	})
}
