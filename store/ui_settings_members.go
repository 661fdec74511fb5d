package store

import bolt "go.etcd.io/bbolt"

// SetMemberRole changes a member's role in a workspace (admin or member). An unknown membership
// is ErrNotFound; demoting the workspace's last admin is ErrConflict (no one could manage it).
func (s *Store) SetMemberRole(workspaceID, userID, role string) (Membership, error) {
	var m Membership
	if role != "admin" && role != "member" {
		return m, ValidationError{{"role", "must be admin or member"}}
	}
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		m = Membership{}
		b := tx.Bucket(bMemberships)
		ok, err := getJSON(b, wsKeyChecked(workspaceID, userID), &m)
		if err != nil {
			return err
		}
		if !ok {
			return fx.refuse(errorf(ErrNotFound, "membership not found"))
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
				return fx.refuse(errorf(ErrConflict, "%s needs at least one admin", "the workspace"))
			}
		}
		m.Role = role
		return putJSON(b, wsKey(workspaceID, userID), m)
	})
	return m, err
}
