package store

import (
	"time"

	"switchboard/store/kv"
)

// Membership makes a user a member of a workspace.
type Membership struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	UserID      string    `json:"userId"`
	Role        string    `json:"role"`
	CreatedAt   time.Time `json:"createdAt"`
}

// SetMemberRole changes a member's role in a workspace (admin or member). An unknown membership
// is ErrNotFound; demoting the workspace's last admin is ErrConflict (no one could manage it).
func (s *Store) SetMemberRole(workspaceID, userID, role string) (Membership, error) {
	var m Membership
	if role != "admin" && role != "member" {
		return m, ValidationError{{"role", "must be admin or member"}}
	}
	err := s.update(func(tx *wtx) error {
		m = Membership{}
		b := tx.Bucket(bMemberships)
		ok, err := getJSON(b, wsKeyChecked(workspaceID, userID), &m)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "membership not found"))
		}
		if m.Role == role {
			return nil
		}
		if m.Role == "admin" {
			admins := 0
			if err := forEachPrefix(b, idKey(workspaceID), func(_, v []byte) error {
				var o Membership
				if err := jsonUnmarshal(v, &o); err != nil {
					return err
				}
				if o.Role == "admin" {
					admins++
				}
				return nil
			}); err != nil {
				return err
			}
			if admins <= 1 {
				return tx.refuse(errorf(ErrConflict, "%s needs at least one admin", "the workspace"))
			}
		}
		m.Role = role
		return putJSON(b, wsKey(workspaceID, userID), m)
	})
	return m, err
}

// AddMember makes userID a member of workspaceID; adding twice returns the existing membership.
func (s *Store) AddMember(workspaceID, userID, role string) (Membership, error) {
	if role == "" {
		role = "member"
	}
	var m Membership
	err := s.updateNow(func(tx *wtx) error {
		var err error
		m, err = s.addMembership(tx.Tx, workspaceID, userID, role)
		return err
	})
	return m, err
}

func (s *Store) addMembership(tx *kv.Tx, workspaceID, userID, role string) (Membership, error) {
	var m Membership
	if _, err := getWorkspace(tx, workspaceID); err != nil {
		return m, err
	}
	if _, err := getUser(tx, userID); err != nil {
		return m, err
	}
	b := tx.Bucket(bMemberships)
	if ok, err := getJSON(b, wsKey(workspaceID, userID), &m); ok || err != nil {
		return m, err
	}
	m = Membership{ID: s.NewID(), WorkspaceID: workspaceID, UserID: userID, Role: role, CreatedAt: s.Now()}
	if err := putJSON(b, wsKey(workspaceID, userID), m); err != nil {
		return m, err
	}
	return m, tx.Bucket(bUserWS).Put(wsKey(userID, workspaceID), []byte(m.ID))
}

// RemoveMember ends a membership: the user's next request to the workspace is refused, and the
// webhook subscriptions the user made in it are deleted with their pending deliveries cancelled,
// in the same transaction, since a subscription lives only while its user may act on the
// workspace. The user's Web Push subscriptions are deleted in it too (§22 counts a removal as
// the end of their sessions' notifications). An unknown workspace, user or membership is
// ErrNotFound.
func (s *Store) RemoveMember(workspaceID, userID string) error {
	return s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		if _, err := getUser(tx.Tx, userID); err != nil {
			return tx.refuse(err)
		}
		b := tx.Bucket(bMemberships)
		if b.Get(wsKey(workspaceID, userID)) == nil {
			return tx.refuse(errorf(ErrNotFound, "membership not found"))
		}
		if err := b.Delete(wsKey(workspaceID, userID)); err != nil {
			return err
		}
		if err := tx.Bucket(bUserWS).Delete(wsKey(userID, workspaceID)); err != nil {
			return err
		}
		tx.wakeLive(workspaceID) // the user's open streams end
		// Their devices' push subscriptions end too, with the pushes still queued: none of the
		// workspace's texts reaches their phones any more. (They turn notifications on again
		// for their other workspaces on their profile.)
		if err := deleteUserPushSubs(tx.Tx, userID); err != nil {
			return err
		}
		_, err := s.endSubscriptions(tx.Tx, ownerPrefix(ownerMember, workspaceID, userID),
			"the user who made the subscription is no longer a member of the workspace")
		return err
	})
}

// Members lists the memberships of a workspace.
func (s *Store) Members(workspaceID string) ([]Membership, error) {
	var out []Membership
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		return forEachPrefix(tx.Bucket(bMemberships), idKey(workspaceID), func(_, v []byte) error {
			var m Membership
			if err := jsonUnmarshal(v, &m); err != nil {
				return err
			}
			out = append(out, m)
			return nil
		})
	})
	return out, err
}

// Authorize checks, in this order, that the workspace exists (ErrNotFound, "workspace not
// found") and that userID is a member of it (ErrForbidden).
func (s *Store) Authorize(workspaceID, userID string) error {
	return s.view(func(tx *kv.Tx) error { return authorize(tx, workspaceID, userID) })
}

func authorize(tx *kv.Tx, workspaceID, userID string) error {
	if _, ok := ParseID(workspaceID); !ok || tx.Bucket(bWorkspaces).Get(idKey(workspaceID)) == nil {
		return errorf(ErrNotFound, "workspace not found")
	}
	if _, ok := ParseID(userID); !ok || tx.Bucket(bMemberships).Get(wsKey(workspaceID, userID)) == nil {
		return errorf(ErrForbidden, "you are not a member of this workspace")
	}
	return nil
}

func isMember(tx *kv.Tx, workspaceID, userID string) bool {
	_, ok := ParseID(userID)
	return ok && tx.Bucket(bMemberships).Get(wsKey(workspaceID, userID)) != nil
}

// MemberRole is userID's role in workspaceID (admin or member); ErrForbidden when not a member.
func (s *Store) MemberRole(workspaceID, userID string) (string, error) {
	var m Membership
	err := s.view(func(tx *kv.Tx) error {
		ok, err := getJSON(tx.Bucket(bMemberships), wsKeyChecked(workspaceID, userID), &m)
		if err == nil && !ok {
			err = errorf(ErrForbidden, "you are not a member of this workspace")
		}
		return err
	})
	return m.Role, err
}
