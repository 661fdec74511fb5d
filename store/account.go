package store

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
	"switchboard/store/kv"
)

// Password lengths, in characters (code points), as the forms say them.
const (
	MinPassword = 8
	MaxPassword = 72
)

// PasswordRule is how the forms describe a new password.
var PasswordRule = fmt.Sprintf("%d to %d characters", MinPassword, MaxPassword)

// passwordProblem is what is wrong with a new password ("" when nothing): its length in
// characters, and its size, as bcrypt reads at most 72 bytes (letters with accents and symbols
// take two to four each).
func passwordProblem(password string) string {
	switch n := utf8.RuneCountInString(password); {
	case n < MinPassword || n > MaxPassword:
		return "must be " + PasswordRule
	case len(password) > 72:
		return "is too long for its accented letters and symbols (each counts as two to four): make it shorter"
	}
	return ""
}

// hashPassword checks a new password and hashes it.
func hashPassword(field, password string) (string, error) {
	if p := passwordProblem(password); p != "" {
		return "", ValidationError{{field, p}}
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return "", fmt.Errorf("store: hash password: %w", err)
	}
	return string(h), nil
}

// ChangePassword sets userID's password after checking the current one, and ends every other
// session of the user (keep is the session the change was made from) in the same transaction:
// whoever else held a session loses it with the old password.
func (s *Store) ChangePassword(userID, current, password, keep string) error {
	u, err := s.User(userID)
	if err != nil {
		return err
	}
	if !CheckPassword(u, current) {
		return ValidationError{{"current_password", "is not your current password"}}
	}
	hash, err := hashPassword("password", password)
	if err != nil {
		return err
	}
	return s.setPasswordHash(userID, u.PasswordHash, hash, keep)
}

// SetPassword sets userID's password without the current one (a reset link, an administrator)
// and ends every session of the user.
func (s *Store) SetPassword(userID, password string) error {
	u, err := s.User(userID)
	if err != nil {
		return err
	}
	hash, err := hashPassword("password", password)
	if err != nil {
		return err
	}
	return s.setPasswordHash(userID, u.PasswordHash, hash, "")
}

// setPasswordHash writes the new hash if the password did not change meanwhile (was is the
// hash that was checked), ending the user's sessions but keep.
func (s *Store) setPasswordHash(userID, was, hash, keep string) error {
	return s.update(func(tx *wtx) error {
		u, err := getUser(tx.Tx, userID)
		if err != nil {
			return tx.refuse(err)
		}
		if u.PasswordHash != was {
			return tx.refuse(errorf(ErrConflict, "the password was changed meanwhile; try again"))
		}
		u.PasswordHash, u.UpdatedAt = hash, s.Now()
		if err := putJSON(tx.Bucket(bUsers), idKey(u.ID), u); err != nil {
			return err
		}
		return endSessions(tx.Tx, userID, keep)
	})
}

// SetName changes userID's name.
func (s *Store) SetName(userID, name string) (User, error) {
	name = strings.TrimSpace(name)
	if name == "" || runeLen(name) > 255 {
		return User{}, ValidationError{{"name", "is required, at most 255 characters"}}
	}
	var u User
	err := s.update(func(tx *wtx) error {
		var err error
		if u, err = getUser(tx.Tx, userID); err != nil {
			return tx.refuse(err)
		}
		u.Name, u.UpdatedAt = name, s.Now()
		return putJSON(tx.Bucket(bUsers), idKey(u.ID), u)
	})
	u.PasswordHash = ""
	return u, err
}

// SetEmail moves userID to the address email at once (unique, case-insensitively). Without
// e-mail to confirm a new address by, this is how it changes; with it, RequestEmailChange.
func (s *Store) SetEmail(userID, email string) (User, error) {
	email = strings.TrimSpace(email)
	if errs := checkEmail(email); errs != nil {
		return User{}, errs
	}
	var u User
	err := s.update(func(tx *wtx) error {
		var err error
		if u, err = getUser(tx.Tx, userID); err != nil {
			return tx.refuse(err)
		}
		if strings.EqualFold(u.Email, email) {
			return nil
		}
		if emailTaken(tx.Tx, email) {
			return tx.refuse(ValidationError{{"email", "belongs to another user"}})
		}
		return s.setEmail(tx.Tx, &u, email)
	})
	u.PasswordHash = ""
	return u, err
}

// SetUserDisabled disables or enables userID on actorID's word. A disabled user cannot sign
// in, and their sessions end in the same transaction; their personal tokens and OAuth tokens
// are refused while disabled (Authenticate). No one disables themselves, nor the last enabled
// superuser.
func (s *Store) SetUserDisabled(actorID, userID string, disabled bool) error {
	return s.update(func(tx *wtx) error {
		u, err := getUser(tx.Tx, userID)
		if err != nil {
			return tx.refuse(err)
		}
		if actorID == userID {
			return tx.refuse(errorf(ErrForbidden, "you cannot disable or enable yourself"))
		}
		if disabled && u.Superuser && !u.Disabled {
			n, err := enabledSuperusers(tx.Tx)
			if err != nil {
				return err
			}
			if n <= 1 {
				return tx.refuse(errorf(ErrConflict, "%s is the last superuser; promote someone else first", u.Email))
			}
		}
		u.Disabled, u.UpdatedAt = disabled, s.Now()
		if err := putJSON(tx.Bucket(bUsers), idKey(u.ID), u); err != nil {
			return err
		}
		if disabled {
			return endSessions(tx.Tx, userID, "")
		}
		return nil
	})
}

// SetSuperuser promotes or demotes userID on actorID's word: never oneself, never the last
// superuser. A demoted user's sessions end in the same transaction, so no page opened as a
// superuser stays open.
func (s *Store) SetSuperuser(actorID, userID string, on bool) error {
	return s.update(func(tx *wtx) error {
		u, err := getUser(tx.Tx, userID)
		if err != nil {
			return tx.refuse(err)
		}
		if actorID == userID {
			return tx.refuse(errorf(ErrForbidden, "you cannot change your own superuser flag"))
		}
		if u.Superuser == on {
			return nil
		}
		if !on && !u.Disabled {
			n, err := enabledSuperusers(tx.Tx)
			if err != nil {
				return err
			}
			if n <= 1 {
				return tx.refuse(errorf(ErrConflict, "%s is the last superuser", u.Email))
			}
		}
		u.Superuser, u.UpdatedAt = on, s.Now()
		if err := putJSON(tx.Bucket(bUsers), idKey(u.ID), u); err != nil {
			return err
		}
		if !on {
			return endSessions(tx.Tx, userID, "")
		}
		return nil
	})
}

func enabledSuperusers(tx *kv.Tx) (int, error) {
	n := 0
	err := tx.Bucket(bUsers).ForEach(func(_, v []byte) error {
		var u User
		if err := jsonUnmarshal(v, &u); err != nil {
			return err
		}
		if u.Superuser && !u.Disabled {
			n++
		}
		return nil
	})
	return n, err
}

// UserDisabledIn reports, inside tx, whether userID is disabled or unknown: the OAuth provider
// refuses to issue tokens for such a user's grants (their tokens stop working at once anyway).
func UserDisabledIn(tx *kv.Tx, userID string) bool {
	u, err := getUser(tx, userID)
	return err != nil || u.Disabled
}
