package store

import (
	"bytes"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Group is a named set of a workspace's contacts: broadcasts target and exclude
// groups. A contact may be in many; a name is unique in its workspace (case-insensitively).
type Group struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Size        int       `json:"size"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Group keys:
//
//	groups                 ws | group id → Group
//	idx_group_name         ws | 0x00 | lower(name) | 0x00 | group id → empty
//	group_members          ws | group id | contact id → empty (a group's members, in id order)
//	idx_contact_groups     ws | contact id | group id → empty (a contact's groups)

const maxGroupName = 100

func groupNameTerm(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

func checkGroupName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || runeLen(name) > maxGroupName {
		return "", ValidationError{{"name", "is required, at most 100 characters"}}
	}
	return name, nil
}

func memberKey(ws, a, b string) []byte {
	k := make([]byte, 0, 48)
	k = append(k, idKey(ws)...)
	k = append(k, idKey(a)...)
	return append(k, idKey(b)...)
}

// CreateGroup adds a group; a name the workspace already has is ErrConflict.
func (s *Store) CreateGroup(workspaceID, name string) (Group, error) {
	name, err := checkGroupName(name)
	if err != nil {
		return Group{}, err
	}
	var g Group
	err = s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		if idxFirst(tx.Bucket(bGroupName), workspaceID, groupNameTerm(name)) != "" {
			return tx.refuse(errorf(ErrConflict, "a group named %q already exists", name))
		}
		var err error
		g, err = s.insertGroup(tx.Tx, workspaceID, name)
		return err
	})
	return g, err
}

func (s *Store) insertGroup(tx *kv.Tx, workspaceID, name string) (Group, error) {
	now := s.Now()
	g := Group{ID: s.NewID(), WorkspaceID: workspaceID, Name: name, CreatedAt: now, UpdatedAt: now}
	if err := tx.Bucket(bGroupName).Put(idxKey(workspaceID, groupNameTerm(name), g.ID), nil); err != nil {
		return g, err
	}
	return g, putJSON(tx.Bucket(bGroups), wsKey(workspaceID, g.ID), g)
}

func getGroup(tx *kv.Tx, workspaceID, id string) (Group, error) {
	var g Group
	ok, err := getJSON(tx.Bucket(bGroups), wsKeyChecked(workspaceID, id), &g)
	if err == nil && !ok {
		err = errorf(ErrNotFound, "group not found")
	}
	return g, err
}

// Group returns a group by id.
func (s *Store) Group(workspaceID, id string) (Group, error) {
	var g Group
	err := s.view(func(tx *kv.Tx) error {
		var err error
		g, err = getGroup(tx, workspaceID, id)
		return err
	})
	return g, err
}

// GroupByName returns the group with that name (case-insensitive).
func (s *Store) GroupByName(workspaceID, name string) (Group, error) {
	var g Group
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return errorf(ErrNotFound, "group not found")
		}
		id := idxFirst(tx.Bucket(bGroupName), workspaceID, groupNameTerm(name))
		if id == "" {
			return errorf(ErrNotFound, "group not found")
		}
		var err error
		g, err = getGroup(tx, workspaceID, id)
		return err
	})
	return g, err
}

// Groups lists a workspace's groups by name.
func (s *Store) Groups(workspaceID string) ([]Group, error) {
	out := []Group{}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		var err error
		out, err = groupsIndexed(tx, workspaceID, bGroupName, append(idKey(workspaceID), 0))
		return err
	})
	return out, err
}

// groupsIndexed returns the groups whose ids end the index keys under prefix, in key order.
func groupsIndexed(tx *kv.Tx, workspaceID string, index, prefix []byte) ([]Group, error) {
	out := []Group{}
	err := forEachPrefix(tx.Bucket(index), prefix, func(k, _ []byte) error {
		g, err := getGroup(tx, workspaceID, idFromKey(k))
		if err == nil {
			out = append(out, g)
		}
		return err
	})
	return out, err
}

// RenameGroup renames a group; a name another group has is ErrConflict.
func (s *Store) RenameGroup(workspaceID, id, name string) (Group, error) {
	name, err := checkGroupName(name)
	if err != nil {
		return Group{}, err
	}
	var g Group
	err = s.update(func(tx *wtx) error {
		var err error
		if g, err = getGroup(tx.Tx, workspaceID, id); err != nil {
			return tx.refuse(err)
		}
		if other := idxFirst(tx.Bucket(bGroupName), workspaceID, groupNameTerm(name)); other != "" && other != g.ID {
			return tx.refuse(errorf(ErrConflict, "a group named %q already exists", name))
		}
		if err := tx.Bucket(bGroupName).Delete(idxKey(workspaceID, groupNameTerm(g.Name), g.ID)); err != nil {
			return err
		}
		if err := tx.Bucket(bGroupName).Put(idxKey(workspaceID, groupNameTerm(name), g.ID), nil); err != nil {
			return err
		}
		g.Name, g.UpdatedAt = name, s.Now()
		return putJSON(tx.Bucket(bGroups), wsKey(workspaceID, g.ID), g)
	})
	return g, err
}

// DeleteGroup deletes a group and its memberships (the contacts stay).
func (s *Store) DeleteGroup(workspaceID, id string) error {
	return s.updateNow(func(tx *wtx) error {
		g, err := getGroup(tx.Tx, workspaceID, id)
		if err != nil {
			return err
		}
		p := append(idKey(workspaceID), idKey(g.ID)...)
		var keys [][]byte
		c := tx.Bucket(bGroupMembers).Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		groupSetDropped(tx, workspaceID, g.ID)
		for _, k := range keys {
			if err := tx.Bucket(bGroupMembers).Delete(k); err != nil {
				return err
			}
			if err := tx.Bucket(bContactGroups).Delete(memberKey(workspaceID, idFromKey(k), g.ID)); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bGroupName).Delete(idxKey(workspaceID, groupNameTerm(g.Name), g.ID)); err != nil {
			return err
		}
		return tx.Bucket(bGroups).Delete(wsKey(workspaceID, g.ID))
	})
}

// AddToGroup puts the contact of phone into the group named name, creating the group when the
// workspace has none by that name and an unnamed contact when the phone has none. Adding a
// member twice changes nothing.
func (s *Store) AddToGroup(workspaceID, groupName, phone string) (Contact, Group, error) {
	var c Contact
	var g Group
	name, err := checkGroupName(groupName)
	if err != nil {
		return c, g, ValidationError{{"group", "is required, at most 100 characters"}}
	}
	if phone = strings.TrimSpace(phone); !ValidE164(phone) {
		return c, g, ValidationError{{"phone", E164Message}}
	}
	err = s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		if id := idxFirst(tx.Bucket(bGroupName), workspaceID, groupNameTerm(name)); id != "" {
			if g, err = getGroup(tx.Tx, workspaceID, id); err != nil {
				return err
			}
		} else if g, err = s.insertGroup(tx.Tx, workspaceID, name); err != nil {
			return err
		}
		if c, err = s.ensureContact(tx, workspaceID, phone, SourceAPI); err != nil {
			return err
		}
		return s.addMember(tx, &g, c.ID)
	})
	return c, g, err
}

// AddContactToGroup puts a contact (by id) into a group (by id).
func (s *Store) AddContactToGroup(workspaceID, groupID, contactID string) error {
	return s.update(func(tx *wtx) error {
		g, err := getGroup(tx.Tx, workspaceID, groupID)
		if err != nil {
			return tx.refuse(err)
		}
		if _, err := getContact(tx.Tx, workspaceID, contactID); err != nil {
			return tx.refuse(err)
		}
		return s.addMember(tx, &g, contactID)
	})
}

func (s *Store) addMember(tx *wtx, g *Group, contactID string) error {
	k := memberKey(g.WorkspaceID, g.ID, contactID)
	if hasKey(tx.Bucket(bGroupMembers), k) {
		return nil
	}
	groupMemberChanged(tx, g.WorkspaceID, g.ID, contactID)
	if err := tx.Bucket(bGroupMembers).Put(k, nil); err != nil {
		return err
	}
	if err := tx.Bucket(bContactGroups).Put(memberKey(g.WorkspaceID, contactID, g.ID), nil); err != nil {
		return err
	}
	g.Size++
	g.UpdatedAt = s.Now()
	return putJSON(tx.Bucket(bGroups), wsKey(g.WorkspaceID, g.ID), g)
}

// RemoveFromGroup takes a contact out of a group; it reports whether it was a member.
func (s *Store) RemoveFromGroup(workspaceID, groupID, contactID string) (bool, error) {
	removed := false
	err := s.update(func(tx *wtx) error {
		removed = false
		g, err := getGroup(tx.Tx, workspaceID, groupID)
		if err != nil {
			return tx.refuse(err)
		}
		k := memberKey(workspaceID, g.ID, contactID)
		if !hasKey(tx.Bucket(bGroupMembers), k) {
			return nil
		}
		groupMemberChanged(tx, workspaceID, g.ID, contactID)
		if err := tx.Bucket(bGroupMembers).Delete(k); err != nil {
			return err
		}
		if err := tx.Bucket(bContactGroups).Delete(memberKey(workspaceID, contactID, g.ID)); err != nil {
			return err
		}
		removed = true
		g.Size--
		g.UpdatedAt = s.Now()
		return putJSON(tx.Bucket(bGroups), wsKey(workspaceID, g.ID), g)
	})
	return removed, err
}

// GroupMemberIDs lists the contact ids of a group, in id order.
func (s *Store) GroupMemberIDs(workspaceID, groupID string) ([]string, error) {
	var ids []string
	err := s.view(func(tx *kv.Tx) error {
		if _, err := getGroup(tx, workspaceID, groupID); err != nil {
			return err
		}
		ids = groupMembers(tx, workspaceID, groupID)
		return nil
	})
	return ids, err
}

func groupMembers(tx *kv.Tx, workspaceID, groupID string) []string {
	var ids []string
	p := append(idKey(workspaceID), idKey(groupID)...)
	c := tx.Bucket(bGroupMembers).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		ids = append(ids, idFromKey(k))
	}
	return ids
}

// ContactGroups lists the groups a contact is in, by name.
func (s *Store) ContactGroups(workspaceID, contactID string) ([]Group, error) {
	out := []Group{}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		if _, ok := ParseID(contactID); !ok {
			return nil
		}
		var err error
		out, err = groupsIndexed(tx, workspaceID, bContactGroups, append(idKey(workspaceID), idKey(contactID)...))
		return err
	})
	return out, err
}

// GroupMemberIDsFirst lists at most limit contact ids of a group, in id order: a page of a
// group that may hold 100,000 members without reading them all.
func (s *Store) GroupMemberIDsFirst(workspaceID, groupID string, limit int) ([]string, error) {
	ids := []string{}
	err := s.view(func(tx *kv.Tx) error {
		if _, err := getGroup(tx, workspaceID, groupID); err != nil {
			return err
		}
		p := append(idKey(workspaceID), idKey(groupID)...)
		c := tx.Bucket(bGroupMembers).Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(ids) < limit; k, _ = c.Next() {
			ids = append(ids, idFromKey(k))
		}
		return nil
	})
	return ids, err
}
