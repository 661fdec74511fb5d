package store

import (
	"strings"

	bolt "go.etcd.io/bbolt"
)

// AddNumber gives a workspace an active outbound phone number; a number belongs to one
// workspace at most once.
func (s *Store) AddNumber(workspaceID, phone, name string) (PhoneNumber, error) {
	phone = strings.TrimSpace(phone)
	var errs ValidationError
	if !ValidE164(phone) {
		errs = append(errs, FieldError{"phone", E164Message})
	}
	if runeLen(name) > 255 {
		errs = append(errs, FieldError{"name", "must be at most 255 characters"})
	}
	if errs != nil {
		return PhoneNumber{}, errs
	}
	n := PhoneNumber{ID: s.NewID(), WorkspaceID: workspaceID, Phone: phone, Name: strings.TrimSpace(name), Active: true, CreatedAt: s.Now()}
	err := s.db.Update(func(tx *bolt.Tx) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		idx := tx.Bucket(bNumberPhone)
		if idxFirst(idx, workspaceID, phone) != "" {
			return errorf(ErrConflict, "number %s is already in this workspace", phone)
		}
		if err := idx.Put(idxKey(workspaceID, phone, n.ID), nil); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bNumbers), wsKey(workspaceID, n.ID), n)
	})
	return n, err
}

// Numbers lists a workspace's phone numbers, oldest first.
func (s *Store) Numbers(workspaceID string) ([]PhoneNumber, error) {
	out := []PhoneNumber{}
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		return forEachPrefix(tx.Bucket(bNumbers), idKey(workspaceID), func(_, v []byte) error {
			var n PhoneNumber
			if err := jsonUnmarshal(v, &n); err != nil {
				return err
			}
			out = append(out, n)
			return nil
		})
	})
	return out, err
}

// activeNumber returns the workspace's active number with that phone, or false.
func activeNumber(tx *bolt.Tx, workspaceID, phone string) (PhoneNumber, bool, error) {
	var n PhoneNumber
	id := idxFirst(tx.Bucket(bNumberPhone), workspaceID, phone)
	if id == "" {
		return n, false, nil
	}
	ok, err := getJSON(tx.Bucket(bNumbers), wsKey(workspaceID, id), &n)
	return n, ok && n.Active, err
}

// isActiveNumber is activeNumber for callers that need only the answer: it decodes just the
// active flag, not the whole record.
func isActiveNumber(tx *bolt.Tx, workspaceID, phone string) (bool, error) {
	id := idxFirst(tx.Bucket(bNumberPhone), workspaceID, phone)
	if id == "" {
		return false, nil
	}
	var n struct {
		Active bool `json:"active"`
	}
	ok, err := getJSON(tx.Bucket(bNumbers), wsKey(workspaceID, id), &n)
	return ok && n.Active, err
}

// NumberByPhone finds which workspace owns an active number (inbound routing).
func (s *Store) NumberByPhone(phone string) (PhoneNumber, error) {
	var found PhoneNumber
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bNumbers).ForEach(func(_, v []byte) error {
			var n PhoneNumber
			if err := jsonUnmarshal(v, &n); err != nil {
				return err
			}
			if n.Phone == phone && n.Active && found.ID == "" {
				found = n
			}
			return nil
		})
	})
	if err == nil && found.ID == "" {
		err = errorf(ErrNotFound, "number %s is not in any workspace", phone)
	}
	return found, err
}

// fromNumberError is the validation error for a `from` that is not the workspace's number.
func fromNumberError(phone string) ValidationError {
	return ValidationError{{"from", "must be an active phone number of this workspace; " + phone + " is not"}}
}
