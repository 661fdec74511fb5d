package store

import (
	"bytes"

	"switchboard/store/kv"
)

// Number access: a number limited to teams is used — its conversations seen, its texts sent —
// only by its teams' members and the workspace's admins. Every reader that lists
// conversations or their messages asks hiddenFrom for the viewer's hidden numbers in its own
// read transaction, and every send from a number asks checkNumberUse in its write transaction.

// numberNotAllowed is what a member outside a number's teams is told (an ErrForbidden's
// message); NumberNotAllowed lets a page tell that refusal from the others.
const (
	numberNotAllowed = "not allowed to use this number"
	NumberNotAllowed = numberNotAllowed
)

// hiddenFrom is the set of number ids whose conversations user may not see in the workspace:
// nil when none (the number is limited to no team, or user is in its teams, or an admin or a
// superuser). A viewer "" hides nothing (the system, the API's own checks).
func (s *Store) hiddenFrom(tx *kv.Tx, workspaceID, user string) (map[string]bool, error) {
	if user == "" {
		return nil, nil
	}
	r, err := s.routingOf(tx, workspaceID)
	if err != nil || len(r.access) == 0 {
		return nil, err
	}
	var hidden map[string]bool
	admin := 0 // unknown, 1 yes, -1 no: read once, and only when a number is limited
	for id, users := range r.access {
		if users[user] {
			continue
		}
		if admin == 0 {
			admin = -1
			if workspaceAdmin(tx, workspaceID, user) {
				admin = 1
			}
		}
		if admin == 1 {
			return nil, nil
		}
		if hidden == nil {
			hidden = map[string]bool{}
		}
		hidden[id] = true
	}
	return hidden, nil
}

// HiddenNumbers is the set of the workspace's number ids whose conversations userID may not see
// (nil when none): the pages leave them out of their lists and choices.
func (s *Store) HiddenNumbers(workspaceID, userID string) (map[string]bool, error) {
	var out map[string]bool
	err := s.view(func(tx *kv.Tx) error {
		var err error
		out, err = s.hiddenFrom(tx, workspaceID, userID)
		return err
	})
	return out, err
}

// checkNumberUse refuses (ErrForbidden, "not allowed to use this number") a user outside the
// teams number n is limited to; user "" is the system and always may.
func (s *Store) checkNumberUse(tx *kv.Tx, workspaceID, numberID, user string) error {
	hidden, err := s.hiddenFrom(tx, workspaceID, user)
	if err != nil {
		return err
	}
	if hidden[numberID] {
		return errorf(ErrForbidden, numberNotAllowed)
	}
	return nil
}

// CheckNumberUse is checkNumberUse for the number with phone (or id) in its own transaction:
// the pages check it before they act from a number. An unknown number passes (the action that
// follows refuses it in its own words).
func (s *Store) CheckNumberUse(workspaceID, userID, phoneOrID string) error {
	return s.view(func(tx *kv.Tx) error {
		id := phoneOrID
		if nid := idxFirst(tx.Bucket(bNumberPhone), workspaceID, phoneOrID); nid != "" {
			id = nid
		}
		return s.checkNumberUse(tx, workspaceID, id, userID)
	})
}

// ---- who hears of a conversation ----

// hearers is the one answer to who may be told of conversation c's activity: the live inbox's
// unread marks and mentions ask it, and so does notified, which picks the recipients of the
// live notifications, notification e-mails and pushes. It returns a test of a user: a member
// who may see c's number (nil test: every member may).
func (s *Store) hearers(tx *kv.Tx, c *Conversation) (func(user string) bool, error) {
	r, err := s.routingOf(tx, c.WorkspaceID)
	if err != nil {
		return nil, err
	}
	allowed, limited := r.access[c.OutboundChannelID]
	if !limited {
		return nil, nil
	}
	return func(user string) bool { return allowed[user] || workspaceAdmin(tx, c.WorkspaceID, user) }, nil
}

// forgetHidden clears the unread marks members lose sight of when a change of routing (a
// number limited to teams, a member leaving a team) hides a number from them, so their counts
// hold only what they may open. It walks only the conversations of numbers someone lost.
func (s *Store) forgetHidden(tx *kv.Tx, workspaceID string, before, after *Routing) error {
	var all []string
	for numberID, n := range after.Numbers {
		if len(n.Teams) == 0 {
			continue
		}
		if all == nil {
			all = members(tx, workspaceID)
		}
		var losing []string
		for _, u := range all {
			if mayUse(tx, before, workspaceID, numberID, u) && !mayUse(tx, after, workspaceID, numberID, u) {
				losing = append(losing, u)
			}
		}
		if len(losing) == 0 {
			continue
		}
		var num PhoneNumber
		ok, err := getJSON(tx.Bucket(bNumbers), wsKey(workspaceID, numberID), &num)
		if err != nil {
			return err
		}
		if !ok {
			continue // taken out of the workspace: its conversations keep their access as it was
		}
		p := idxPrefix(workspaceID, convKeyTerm(num.Phone, ""))
		p = p[:len(p)-1] // the term continues with the addresses
		var convs []string
		c := tx.Bucket(bConvKey).Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			convs = append(convs, idFromKey(k))
		}
		for _, conv := range convs {
			for _, u := range losing {
				if _, err := setUnread(tx, workspaceID, u, conv, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ConversationNumbers maps each of ids to the id of its conversation's number (an unknown id
// is left out): the live stream checks each event's conversation against the viewer's hidden
// numbers with it.
func (s *Store) ConversationNumbers(workspaceID string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	err := s.view(func(tx *kv.Tx) error {
		for _, id := range ids {
			var c struct {
				OutboundChannelID string `json:"outboundChannelId"`
			}
			ok, err := getJSON(tx.Bucket(bConversations), wsKeyChecked(workspaceID, id), &c)
			if err != nil {
				return err
			}
			if ok {
				out[id] = c.OutboundChannelID
			}
		}
		return nil
	})
	return out, err
}

// checkAssignees refuses to assign c to a member outside the teams its number is limited to
// (they could not see it); members assigned already stay.
func (s *Store) checkAssignees(tx *kv.Tx, c *Conversation, ids []string) error {
	added, _ := diff(c.AssignedUserIDs, ids)
	if len(added) == 0 {
		return nil
	}
	r, err := s.routingOf(tx, c.WorkspaceID)
	if err != nil {
		return err
	}
	for _, u := range added {
		if !mayUse(tx, &r.Routing, c.WorkspaceID, c.OutboundChannelID, u) {
			return ValidationError{{"assignedUserIds", userName(tx, u) + " is not in the teams this number is limited to"}}
		}
	}
	return nil
}
