package store

import (
	"bytes"
	"time"

	"switchboard/store/kv"
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

// CreateReset makes a reset link token for userID, valid for an hour from now, and voids the
// user's older links; the plain token is returned once.
func (s *Store) CreateReset(userID string, now time.Time) (string, error) {
	plain := RandomToken("sbr_")
	err := s.update(func(tx *wtx) error {
		if _, err := getUser(tx.Tx, userID); err != nil {
			return tx.refuse(err)
		}
		return putReset(tx.Tx, userID, plain, now)
	})
	return plain, err
}

// putReset stores a reset link for userID under its token's hash, inside tx, and deletes the
// user's older links: only the newest link works.
func putReset(tx *kv.Tx, userID, plain string, now time.Time) error {
	return putUserLink(tx.Bucket(bResets), userID, plain, PasswordReset{UserID: userID, CreatedAt: now, ExpiresAt: now.Add(ResetTTL)})
}

// linkHead is what every one-time link record (a reset, an e-mail change) has: whose it is and
// until when it works.
type linkHead struct {
	UserID    string    `json:"userId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// putUserLink writes a one-time link record v of userID into b under its token's hash and
// deletes the user's other records of b: only the newest link of a kind works.
func putUserLink(b *kv.Bucket, userID, plain string, v any) error {
	if _, err := deleteLinks(b, func(h linkHead) bool { return h.UserID == userID }); err != nil {
		return err
	}
	return putJSON(b, HashToken(plain), v)
}

// deleteLinks deletes the link records of b that match and returns how many. A bucket of links
// holds at most one per user, so the pass is short.
func deleteLinks(b *kv.Bucket, match func(linkHead) bool) (int, error) {
	var gone [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var h linkHead
		if err := jsonUnmarshal(v, &h); err != nil {
			return err
		}
		if match(h) {
			gone = append(gone, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range gone {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(gone), nil
}

// SweepExpiredLinks deletes the reset and e-mail change links expired at now and returns how
// many; used ones are deleted when they are used.
func (s *Store) SweepExpiredLinks(now time.Time) (int, error) {
	n := 0
	err := s.update(func(tx *wtx) error {
		n = 0
		for _, b := range []*kv.Bucket{tx.Bucket(bResets), tx.Bucket(bEmailChange)} {
			gone, err := deleteLinks(b, func(h linkHead) bool { return !now.Before(h.ExpiresAt) })
			if err != nil {
				return err
			}
			n += gone
		}
		return nil
	})
	return n, err
}

// ResetUser returns the user a reset token is for; a used, expired or unknown token is
// ErrNotFound.
func (s *Store) ResetUser(plain string, now time.Time) (User, error) {
	var u User
	err := s.view(func(tx *kv.Tx) error {
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

// UseReset sets the password through a reset token: the token is used up, every session of the
// user ends and their personal API tokens are revoked (with the webhook subscriptions made
// through them), in one transaction: whoever made the reset necessary keeps nothing they made
// with the old password. (OAuth grants are the OAuth provider's to revoke.) The token is checked before the password is hashed.
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
	err = s.update(func(tx *wtx) error {
		var r PasswordReset
		ok, err := getJSON(tx.Bucket(bResets), HashToken(plain), &r)
		if err != nil {
			return err
		}
		if !ok || !now.Before(r.ExpiresAt) {
			return tx.refuse(errResetGone)
		}
		if u, err = getUser(tx.Tx, r.UserID); err != nil {
			return tx.refuse(err)
		}
		if err := tx.Bucket(bResets).Delete(HashToken(plain)); err != nil {
			return err
		}
		u.PasswordHash, u.UpdatedAt = hash, s.Now()
		if err := putJSON(tx.Bucket(bUsers), idKey(u.ID), u); err != nil {
			return err
		}
		if _, err := s.revokePersonalTokens(tx.Tx, u.ID); err != nil {
			return err
		}
		return endSessions(tx.Tx, u.ID, "")
	})
	u.PasswordHash = ""
	return u, err
}
