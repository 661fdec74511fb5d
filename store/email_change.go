package store

import (
	"net/mail"
	"strings"
	"time"

	"switchboard/store/kv"
)

// EmailChangeTTL is how long the link that confirms a new e-mail address works.
const EmailChangeTTL = 24 * time.Hour

// emailChange is a requested change of a user's e-mail address, waiting for the link sent to
// the new address (bucket email_changes, under the SHA-256 of the link's token).
type emailChange struct {
	UserID    string    `json:"userId"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

var errEmailChangeGone = errorf(ErrNotFound, "this link does not work: it was used already, it expired (links last a day), or a newer one was sent")

// checkEmail is the rule every e-mail address of a user follows.
func checkEmail(email string) ValidationError {
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || len(email) > 254 {
		return ValidationError{{"email", "must be an email address such as ana@example.com"}}
	}
	return nil
}

// RequestEmailChange asks to move userID to the address email. Nothing changes until the link
// mailed to that address is opened (ConfirmEmailChange), so a stolen session cannot take the
// account away by its e-mail. notice, for the old address, is queued in the same transaction
// whatever happens next; mailFor makes the e-mail with the link from its token. When another
// user has the address, the change waits all the same but its link is not mailed: the answer,
// and the profile after it, must not tell who has an account. A new request voids the user's
// earlier ones.
func (s *Store) RequestEmailChange(userID, email string, now time.Time, notice *Mail, mailFor MailFor) error {
	email = strings.TrimSpace(email)
	if errs := checkEmail(email); errs != nil {
		return errs
	}
	plain := RandomToken("sbe_")
	return s.update(func(tx *wtx) error {
		u, err := getUser(tx.Tx, userID)
		if err != nil {
			return tx.refuse(err)
		}
		if strings.EqualFold(u.Email, email) {
			return tx.refuse(ValidationError{{"email", "is already your e-mail address"}})
		}
		if notice != nil {
			if err := s.queueMail(tx.Tx, notice); err != nil {
				return err
			}
			tx.mail = true
		}
		// The change waits either way, so that the profile shows it alike; its link is mailed
		// only to an address no one has (and could not be used on one that someone has).
		ch := emailChange{UserID: userID, Email: email, CreatedAt: now, ExpiresAt: now.Add(EmailChangeTTL)}
		if err := putUserLink(tx.Bucket(bEmailChange), userID, plain, ch); err != nil {
			return err
		}
		if emailTaken(tx.Tx, email) {
			return nil
		}
		if err := s.queueLinkMail(tx.Tx, mailFor, plain); err != nil {
			return err
		}
		tx.mail = true
		return nil
	})
}

// getEmailChange reads the change a link's token is for; a used, expired or unknown one is
// ErrNotFound.
func getEmailChange(tx *kv.Tx, plain string, now time.Time) (emailChange, error) {
	var ch emailChange
	ok, err := getJSON(tx.Bucket(bEmailChange), HashToken(plain), &ch)
	if err == nil && (!ok || !now.Before(ch.ExpiresAt)) {
		err = errEmailChangeGone
	}
	return ch, err
}

// EmailChangeFor returns the user a confirmation link is for and the address it confirms.
func (s *Store) EmailChangeFor(plain string, now time.Time) (User, string, error) {
	var u User
	var ch emailChange
	err := s.view(func(tx *kv.Tx) error {
		var err error
		if ch, err = getEmailChange(tx, plain, now); err != nil {
			return err
		}
		u, err = getUser(tx, ch.UserID)
		return err
	})
	u.PasswordHash = ""
	return u, ch.Email, err
}

// PendingEmailChange is the address userID asked to move to and is not confirmed yet ("" when
// none), and until when its link works.
func (s *Store) PendingEmailChange(userID string, now time.Time) (string, time.Time, error) {
	var ch emailChange
	err := s.view(func(tx *kv.Tx) error {
		return tx.Bucket(bEmailChange).ForEach(func(_, v []byte) error {
			var c emailChange
			if err := jsonUnmarshal(v, &c); err != nil {
				return err
			}
			if c.UserID == userID && now.Before(c.ExpiresAt) {
				ch = c
			}
			return nil
		})
	})
	return ch.Email, ch.ExpiresAt, err
}

// ConfirmEmailChange moves the user of a confirmation link to the address it confirms and uses
// the link up. An address another user took meanwhile is ErrConflict.
func (s *Store) ConfirmEmailChange(plain string, now time.Time) (User, error) {
	var u User
	err := s.update(func(tx *wtx) error {
		ch, err := getEmailChange(tx.Tx, plain, now)
		if err != nil {
			return tx.refuse(err)
		}
		if u, err = getUser(tx.Tx, ch.UserID); err != nil {
			return tx.refuse(err)
		}
		if !strings.EqualFold(u.Email, ch.Email) && emailTaken(tx.Tx, ch.Email) {
			return tx.refuse(errorf(ErrConflict, "%s belongs to another account now", ch.Email))
		}
		if err := tx.Bucket(bEmailChange).Delete(HashToken(plain)); err != nil {
			return err
		}
		return s.setEmail(tx.Tx, &u, ch.Email)
	})
	u.PasswordHash = ""
	return u, err
}

// setEmail moves u to email inside tx, its index entry with it (the caller checked the address
// is free).
func (s *Store) setEmail(tx *kv.Tx, u *User, email string) error {
	if err := tx.Bucket(bUserEmail).Delete([]byte(strings.ToLower(u.Email))); err != nil {
		return err
	}
	if err := tx.Bucket(bUserEmail).Put([]byte(strings.ToLower(email)), []byte(u.ID)); err != nil {
		return err
	}
	u.Email, u.UpdatedAt = email, s.Now()
	return putJSON(tx.Bucket(bUsers), idKey(u.ID), *u)
}
