package store

import (
	"time"

	"switchboard/store/kv"
)

// CarrierLink ties a number to its resource in the connected carrier account, and keeps what
// the last reading of its webhooks there found.
type CarrierLink struct {
	// ID is the carrier's id of the number: Twilio's PN… sid, Telnyx's phone number id.
	ID string `json:"id"`
	// CheckedAt is when the number's settings were last read at the carrier.
	CheckedAt time.Time `json:"checkedAt,omitzero"`
	// Problem is what that reading found wrong, in words ("" when texts reach Switchboard).
	Problem string `json:"problem,omitempty"`
}

// SetNumberLink records a reading of the number's settings at its carrier.
func (s *Store) SetNumberLink(workspaceID, id string, link CarrierLink) (PhoneNumber, error) {
	var n PhoneNumber
	err := s.updateNow(func(tx *wtx) error {
		var err error
		if n, err = numberOf(tx.Tx, workspaceID, id); err != nil {
			return err
		}
		n.Link = &link
		return putJSON(tx.Bucket(bNumbers), wsKey(workspaceID, n.ID), n)
	})
	return n, err
}

// RemoveNumber takes a number out of its workspace, so that the phone is free for any
// workspace again. Conversations and messages keep the phone as their history; texts still
// queued on it fail, as for a deactivated number.
func (s *Store) RemoveNumber(workspaceID, id string) (PhoneNumber, error) {
	var n PhoneNumber
	err := s.updateNow(func(tx *wtx) error {
		var err error
		if n, err = numberOf(tx.Tx, workspaceID, id); err != nil {
			return err
		}
		if err := tx.Bucket(bNumberPhone).Delete(idxKey(workspaceID, n.Phone, n.ID)); err != nil {
			return err
		}
		if ws, nid := numberOwner(tx.Tx, n.Phone); ws == workspaceID && nid == n.ID {
			if err := tx.Bucket(bNumberGlobal).Delete([]byte(n.Phone)); err != nil {
				return err
			}
		}
		return tx.Bucket(bNumbers).Delete(wsKey(workspaceID, n.ID))
	})
	return n, err
}

// PhonesInUse reports which of phones belong to a workspace, by the installation-wide index.
func (s *Store) PhonesInUse(phones []string) (map[string]bool, error) {
	used := map[string]bool{}
	err := s.view(func(tx *kv.Tx) error {
		for _, p := range phones {
			if ws, _ := numberOwner(tx, p); ws != "" {
				used[p] = true
			}
		}
		return nil
	})
	return used, err
}

// numberOf reads a workspace's number by an id from outside; ErrNotFound when there is none.
func numberOf(tx *kv.Tx, workspaceID, id string) (PhoneNumber, error) {
	var n PhoneNumber
	ok, err := getJSON(tx.Bucket(bNumbers), wsKeyChecked(workspaceID, id), &n)
	if err == nil && !ok {
		err = errorf(ErrNotFound, "number not found")
	}
	return n, err
}
