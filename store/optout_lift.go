package store

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/store/kv"
)

// OptOutLift records that a workspace admin lifted an opt-out: who, when, why, and which
// opt-out it was. Only admin and api opt-outs can be lifted this way; keyword and carrier ones
// are lifted by the contact alone (START, UNSTOP or YES from that number).
type OptOutLift struct {
	ID           string    `json:"id"`
	Phone        string    `json:"phone"`
	OptOutID     string    `json:"optOutId"`
	OptOutReason string    `json:"optOutReason"`
	OptedOutAt   time.Time `json:"optedOutAt"`
	UserID       string    `json:"userId"`
	Reason       string    `json:"reason"`
	Confirmed    bool      `json:"confirmed"`
	At           time.Time `json:"at"`
}

// LiftableByAdmin reports whether an opt-out of this reason may be lifted by a workspace admin:
// admin and api opt-outs may; keyword and carrier ones record the contact's own request, which
// only the contact can withdraw.
func LiftableByAdmin(reason string) bool { return reason == OptOutAdmin || reason == OptOutAPI }

// OptOutOf returns phone's opt-out; false when the number is not opted out.
func (s *Store) OptOutOf(workspaceID, phone string) (OptOut, bool, error) {
	var o OptOut
	ok := false
	err := s.view(func(tx *kv.Tx) error {
		if _, valid := ParseID(workspaceID); !valid {
			return nil
		}
		id := idxFirst(tx.Bucket(bOptOutPhone), workspaceID, phone)
		if id == "" {
			return nil
		}
		var err error
		ok, err = getJSON(tx.Bucket(bOptOuts), wsKey(workspaceID, id), &o)
		return err
	})
	return o, ok, err
}

// LiftOptOut lifts phone's opt-out for a workspace admin (userID; the caller checks the role).
// The admin must have confirmed and given a reason; both are recorded with the lift, in the
// transaction that removes the opt-out. A keyword or carrier opt-out is refused (forbidden).
func (s *Store) LiftOptOut(workspaceID, userID, phone string, confirmed bool, reason string) (OptOutLift, error) {
	reason = strings.TrimSpace(reason)
	var errs ValidationError
	if !confirmed {
		errs = append(errs, FieldError{"confirm", "confirm that the contact asked to be texted again"})
	}
	switch n := utf8.RuneCountInString(reason); {
	case n == 0:
		errs = append(errs, FieldError{"reason", "say why the opt-out is lifted (it is recorded)"})
	case n > 500:
		errs = append(errs, FieldError{"reason", "must be at most 500 characters"})
	}
	if errs != nil {
		return OptOutLift{}, errs
	}
	var l OptOutLift
	err := s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		id := idxFirst(tx.Bucket(bOptOutPhone), workspaceID, phone)
		var o OptOut
		ok, err := getJSON(tx.Bucket(bOptOuts), wsKey(workspaceID, id), &o)
		if err != nil {
			return err
		}
		if id == "" || !ok {
			return tx.refuse(errorf(ErrNotFound, "%s is not opted out", phone))
		}
		if !LiftableByAdmin(o.Reason) {
			return tx.refuse(errorf(ErrForbidden, "%s opted out themselves (%s): only a START, UNSTOP or YES from that number lifts it", phone, o.Reason))
		}
		l = OptOutLift{ID: s.NewID(), Phone: phone, OptOutID: o.ID, OptOutReason: o.Reason, OptedOutAt: o.CreatedAt,
			UserID: userID, Reason: reason, Confirmed: true, At: s.Now()}
		if _, err := removeOptOut(tx, workspaceID, phone); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bOptOutLifts), idxKey(workspaceID, phone, l.ID), l)
	})
	return l, err
}

// OptOutLifts lists the lifts of phone's opt-outs, oldest first.
func (s *Store) OptOutLifts(workspaceID, phone string) ([]OptOutLift, error) {
	out := []OptOutLift{}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok || phone == "" {
			return nil
		}
		p := idxPrefix(workspaceID, phone)
		c := tx.Bucket(bOptOutLifts).Cursor()
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			var l OptOutLift
			if err := jsonUnmarshal(v, &l); err != nil {
				return err
			}
			out = append(out, l)
		}
		return nil
	})
	return out, err
}
