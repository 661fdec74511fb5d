package store

import (
	"fmt"
	"net/mail"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
	"switchboard/store/kv"
)

// User is a person who signs in to the admin UI or acts through a token.
type User struct {
	ID           string    `json:"id"`
	Email        string    `json:"email"`
	Name         string    `json:"name"`
	PasswordHash string    `json:"passwordHash,omitempty"`
	Superuser    bool      `json:"superuser"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`

	// Disabled users cannot sign in; their sessions and tokens stop working (SetUserDisabled).
	Disabled bool `json:"disabled,omitempty"`
	// TwoFactor is set once the user has enrolled an authenticator app.
	TwoFactor bool `json:"twoFactor,omitempty"`
}

// NewUser is the input of CreateUser.
type NewUser struct {
	Email     string
	Name      string
	Password  string // empty: the user cannot sign in with a password until one is set
	Superuser bool
}

// CreateUser adds a user; the email must be unique (case-insensitively).
func (s *Store) CreateUser(in NewUser) (User, error) {
	u, err := newUserRecord(s, in)
	if err != nil {
		return User{}, err
	}
	err = s.updateNow(func(tx *wtx) error {
		if emailTaken(tx.Tx, u.Email) {
			return errorf(ErrConflict, "a user with email %s already exists", u.Email)
		}
		return putNewUser(tx.Tx, u)
	})
	return u, err
}

// newUserRecord validates in and builds the user, its password hashed.
func newUserRecord(s *Store, in NewUser) (User, error) {
	var errs ValidationError
	email := strings.TrimSpace(in.Email)
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || len(email) > 254 {
		errs = append(errs, FieldError{"email", "must be an email address such as ana@example.com"})
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || runeLen(name) > 255 {
		errs = append(errs, FieldError{"name", "is required, at most 255 characters"})
	}
	if in.Password != "" {
		if p := passwordProblem(in.Password); p != "" {
			errs = append(errs, FieldError{"password", p})
		}
	}
	if errs != nil {
		return User{}, errs
	}
	u := User{ID: s.NewID(), Email: email, Name: name, Superuser: in.Superuser, CreatedAt: s.Now(), UpdatedAt: s.Now()}
	if in.Password != "" {
		h, err := bcrypt.GenerateFromPassword([]byte(in.Password), bcrypt.DefaultCost)
		if err != nil {
			return User{}, fmt.Errorf("store: hash password: %w", err)
		}
		u.PasswordHash = string(h)
	}
	return u, nil
}

func emailTaken(tx *kv.Tx, email string) bool {
	return tx.Bucket(bUserEmail).Get([]byte(strings.ToLower(email))) != nil
}

// putNewUser writes a new user and its email index entry (the caller checked emailTaken).
func putNewUser(tx *kv.Tx, u User) error {
	if err := tx.Bucket(bUserEmail).Put([]byte(strings.ToLower(u.Email)), []byte(u.ID)); err != nil {
		return err
	}
	return putJSON(tx.Bucket(bUsers), idKey(u.ID), u)
}

// User returns a user by id.
func (s *Store) User(id string) (User, error) {
	var u User
	err := s.view(func(tx *kv.Tx) error {
		var err error
		u, err = getUser(tx, id)
		return err
	})
	return u, err
}

func getUser(tx *kv.Tx, id string) (User, error) {
	var u User
	if _, ok := ParseID(id); !ok {
		return u, errorf(ErrNotFound, "user not found")
	}
	ok, err := getJSON(tx.Bucket(bUsers), idKey(id), &u)
	if err == nil && !ok {
		err = errorf(ErrNotFound, "user not found")
	}
	return u, err
}

// UserByEmail finds a user by email, case-insensitively.
func (s *Store) UserByEmail(email string) (User, error) {
	var u User
	err := s.view(func(tx *kv.Tx) error {
		id := tx.Bucket(bUserEmail).Get([]byte(strings.ToLower(strings.TrimSpace(email))))
		if id == nil {
			return errorf(ErrNotFound, "user not found")
		}
		var err error
		u, err = getUser(tx, string(id))
		return err
	})
	return u, err
}

// CheckPassword reports whether password is the user's password.
func CheckPassword(u User, password string) bool {
	if u.PasswordHash == "" {
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) == nil
}

// HasSuperuser reports whether any superuser exists (first-run setup is offered until one does).
func (s *Store) HasSuperuser() (bool, error) {
	found := false
	err := s.view(func(tx *kv.Tx) error {
		return tx.Bucket(bUsers).ForEach(func(_, v []byte) error {
			var u User
			if err := jsonUnmarshal(v, &u); err != nil {
				return err
			}
			found = found || u.Superuser
			return nil
		})
	})
	return found, err
}

// ---- API tokens ----

// Users lists every user of the installation, oldest first; password hashes are not returned.
func (s *Store) Users() ([]User, error) {
	out := []User{}
	err := s.view(func(tx *kv.Tx) error {
		return tx.Bucket(bUsers).ForEach(func(_, v []byte) error {
			var u User
			if err := jsonUnmarshal(v, &u); err != nil {
				return err
			}
			u.PasswordHash = ""
			out = append(out, u)
			return nil
		})
	})
	return out, err
}
