package store

import (
	"time"

	bolt "go.etcd.io/bbolt"
)

// ResetTTL is how long a password reset link works.
const ResetTTL = time.Hour

// PasswordReset is a one-time password reset link, stored under the SHA-256 of its token.
type PasswordReset struct {
	UserID    string    `json:"userId"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

var errResetGone = errorf(ErrNotFound, "this reset link does not work: it was used already, it expired (links last an hour), or it was never made")

// CreateReset makes a reset link token for userID, valid for an hour from now; the plain token
// is returned once.
func (s *Store) CreateReset(userID string, now time.Time) (string, error) {
	plain := RandomToken("sbr_")
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		if _, err := getUser(tx, userID); err != nil {
			return fx.refuse(err)
		}
		return putJSON(tx.Bucket(bResets), HashToken(plain), PasswordReset{UserID: userID, CreatedAt: now, ExpiresAt: now.Add(ResetTTL)})
	})
	return plain, err
}

// ResetUser returns the user a reset token is for; a used, expired or unknown token is
// ErrNotFound.
func (s *Store) ResetUser(plain string, now time.Time) (User, error) {
	var u User
	err := s.db.View(func(tx *bolt.Tx) error {
		var r PasswordReset
		ok, err := getJSON(tx.Bucket(bResets), HashToken(plain), &r)
		if err != nil {
			return err
		}
		if !ok || !now.Before(r.ExpiresAt) {
			return errResetGone
		}
		u, err = getUser(tx, r.UserID)
		return err
	})
	u.PasswordHash = ""
	return u, err
}

// UseReset sets the password through a reset token: the token is used up and every session of
// the user ends, in one transaction. The token is checked before the password is hashed.
func (s *Store) UseReset(plain, password string, now time.Time) (User, error) {
	// The token first: a made-up one must not cost a bcrypt hash.
	if _, err := s.ResetUser(plain, now); err != nil {
		return User{}, err
	}
	hash, err := hashPassword("password", password)
	if err != nil {
		return User{}, err
	}
	var u User
	err = s.update(func(tx *bolt.Tx, fx *effects) error {
		var r PasswordReset
		ok, err := getJSON(tx.Bucket(bResets), HashToken(plain), &r)
		if err != nil {
			return err
		}
		if !ok || !now.Before(r.ExpiresAt) {
			return fx.refuse(errResetGone)
		}
		if u, err = getUser(tx, r.UserID); err != nil {
			return fx.refuse(err)
		}
		if err := tx.Bucket(bResets).Delete(HashToken(plain)); err != nil {
			return err
		}
		u.PasswordHash, u.UpdatedAt = hash, s.Now()
		if err := putJSON(tx.Bucket(bUsers), idKey(u.ID), u); err != nil {
			return err
		}
		return endSessions(tx, u.ID, "")
	})
	u.PasswordHash = ""
	return u, err
}
