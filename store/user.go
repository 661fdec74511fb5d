package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/mail"
	"strings"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/crypto/bcrypt"
)

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
	err = s.db.Update(func(tx *bolt.Tx) error {
		if emailTaken(tx, u.Email) {
			return errorf(ErrConflict, "a user with email %s already exists", u.Email)
		}
		return putNewUser(tx, u)
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
	if in.Password != "" && (len(in.Password) < 8 || len(in.Password) > 72) {
		errs = append(errs, FieldError{"password", "must be 8 to 72 bytes"})
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

func emailTaken(tx *bolt.Tx, email string) bool {
	return tx.Bucket(bUserEmail).Get([]byte(strings.ToLower(email))) != nil
}

// putNewUser writes a new user and its email index entry (the caller checked emailTaken).
func putNewUser(tx *bolt.Tx, u User) error {
	if err := tx.Bucket(bUserEmail).Put([]byte(strings.ToLower(u.Email)), []byte(u.ID)); err != nil {
		return err
	}
	return putJSON(tx.Bucket(bUsers), idKey(u.ID), u)
}

// User returns a user by id.
func (s *Store) User(id string) (User, error) {
	var u User
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		u, err = getUser(tx, id)
		return err
	})
	return u, err
}

func getUser(tx *bolt.Tx, id string) (User, error) {
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
	err := s.db.View(func(tx *bolt.Tx) error {
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
	err := s.db.View(func(tx *bolt.Tx) error {
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

// HashToken is the stored form of a bearer token or secret.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// RandomToken returns prefix + 256 random bits from crypto/rand, URL-safe.
func RandomToken(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// CreateToken issues a personal API token acting as userID; the plain token is returned once.
func (s *Store) CreateToken(userID, name string) (Token, string, error) {
	if name == "" {
		name = "personal token"
	}
	plain := RandomToken("sbp_")
	t := Token{ID: s.NewID(), UserID: userID, Name: name, Kind: TokenPersonal, CreatedAt: s.Now()}
	err := s.db.Update(func(tx *bolt.Tx) error {
		if _, err := getUser(tx, userID); err != nil {
			return err
		}
		return PutToken(tx, plain, t)
	})
	return t, plain, err
}

// PutToken stores t under the hash of plain inside tx (used by the OAuth provider too).
func PutToken(tx *bolt.Tx, plain string, t Token) error {
	h := HashToken(plain)
	if err := putJSON(tx.Bucket(bTokens), h, t); err != nil {
		return err
	}
	return tx.Bucket(bTokenIDs).Put(idKey(t.ID), h)
}

// DeleteTokenByID removes a token by its id inside tx; missing is not an error.
func DeleteTokenByID(tx *bolt.Tx, id string) error {
	ids := tx.Bucket(bTokenIDs)
	h := ids.Get(idKey(id))
	if h == nil {
		return nil
	}
	h = append([]byte(nil), h...)
	if err := tx.Bucket(bTokens).Delete(h); err != nil {
		return err
	}
	return ids.Delete(idKey(id))
}

// RevokeToken deletes a token given in plain; unknown tokens are ErrNotFound. Revoking a
// personal token also deletes the webhook subscriptions made with it and cancels their pending
// deliveries, in the same transaction (an OAuth access token's subscriptions belong to its
// grant, which outlives the rotation of its tokens).
func (s *Store) RevokeToken(plain string) (Token, error) {
	var t Token
	err := s.db.Update(func(tx *bolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bTokens), HashToken(plain), &t)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "token not found")
		}
		if err := DeleteTokenByID(tx, t.ID); err != nil {
			return err
		}
		if t.Kind == TokenOAuth {
			return nil
		}
		_, err = s.endSubscriptions(tx, ownerPrefix(ownerToken, t.ID), "the token that made the subscription was revoked")
		return err
	})
	return t, err
}

// Authenticate resolves a bearer token to its record in one read. Unknown and expired
// tokens are ErrNotFound.
func (s *Store) Authenticate(plain string) (Token, error) {
	var t Token
	err := s.db.View(func(tx *bolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bTokens), HashToken(plain), &t)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "invalid token")
		}
		// A disabled user's tokens, personal and OAuth alike, stop working at once.
		if u, err := getUser(tx, t.UserID); err != nil || u.Disabled {
			return errorf(ErrNotFound, "invalid token")
		}
		return nil
	})
	if err == nil && t.ExpiresAt != nil && !s.Now().Before(*t.ExpiresAt) {
		return Token{}, errorf(ErrNotFound, "token expired")
	}
	return t, err
}

// Users lists every user of the installation, oldest first; password hashes are not returned.
func (s *Store) Users() ([]User, error) {
	out := []User{}
	err := s.db.View(func(tx *bolt.Tx) error {
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
