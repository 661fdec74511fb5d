package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sort"
	"time"

	"switchboard/store/kv"
)

// Token kinds.
const (
	TokenPersonal = "personal"
	TokenOAuth    = "oauth"
)

// Token is a bearer credential for the integration API. Only its SHA-256 hash is stored.
type Token struct {
	ID        string     `json:"id"`
	UserID    string     `json:"userId"`
	Name      string     `json:"name"`
	Kind      string     `json:"kind"`
	ClientID  string     `json:"clientId,omitempty"`
	GrantID   string     `json:"grantId,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// UserTokens lists userID's personal API tokens, newest first (never their plain text, which is
// not kept).
func (s *Store) UserTokens(userID string) ([]Token, error) {
	out := []Token{}
	err := s.view(func(tx *kv.Tx) error {
		return tx.Bucket(bTokens).ForEach(func(_, v []byte) error {
			var t Token
			if err := jsonUnmarshal(v, &t); err != nil {
				return err
			}
			if t.UserID == userID && t.Kind == TokenPersonal {
				out = append(out, t)
			}
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, err
}

// RevokeUserToken deletes userID's personal token by id, with the webhook subscriptions made
// through it (like RevokeToken). Another user's token, or an unknown id, is ErrNotFound.
func (s *Store) RevokeUserToken(userID, id string) error {
	return s.update(func(tx *wtx) error {
		if _, ok := ParseID(id); !ok {
			return tx.refuse(errorf(ErrNotFound, "token not found"))
		}
		h := tx.Bucket(bTokenIDs).Get(idKey(id))
		var t Token
		if h != nil {
			if _, err := getJSON(tx.Bucket(bTokens), h, &t); err != nil {
				return err
			}
		}
		if h == nil || t.UserID != userID || t.Kind != TokenPersonal {
			return tx.refuse(errorf(ErrNotFound, "token not found"))
		}
		if err := DeleteTokenByID(tx.Tx, id); err != nil {
			return err
		}
		_, err := s.endSubscriptions(tx.Tx, ownerPrefix(ownerToken, id), "the token that made the subscription was revoked")
		return err
	})
}

// RevokeUserTokens deletes every personal API token of userID, with the webhook subscriptions
// made through them, and returns how many (a password change that asks for it).
func (s *Store) RevokeUserTokens(userID string) (int, error) {
	n := 0
	err := s.update(func(tx *wtx) error {
		var err error
		n, err = s.revokePersonalTokens(tx.Tx, userID)
		return err
	})
	return n, err
}

// revokePersonalTokens deletes userID's personal tokens inside tx, with their subscriptions.
func (s *Store) revokePersonalTokens(tx *kv.Tx, userID string) (int, error) {
	var ids []string
	err := tx.Bucket(bTokens).ForEach(func(_, v []byte) error {
		var t Token
		if err := jsonUnmarshal(v, &t); err != nil {
			return err
		}
		if t.UserID == userID && t.Kind == TokenPersonal {
			ids = append(ids, t.ID)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		if err := DeleteTokenByID(tx, id); err != nil {
			return 0, err
		}
		if _, err := s.endSubscriptions(tx, ownerPrefix(ownerToken, id), "the token that made the subscription was revoked"); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

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
	err := s.updateNow(func(tx *wtx) error {
		if _, err := getUser(tx.Tx, userID); err != nil {
			return err
		}
		return PutToken(tx.Tx, plain, t)
	})
	return t, plain, err
}

// PutToken stores t under the hash of plain inside tx (used by the OAuth provider too).
func PutToken(tx *kv.Tx, plain string, t Token) error {
	h := HashToken(plain)
	if err := putJSON(tx.Bucket(bTokens), h, t); err != nil {
		return err
	}
	return tx.Bucket(bTokenIDs).Put(idKey(t.ID), h)
}

// DeleteTokenByID removes a token by its id inside tx; missing is not an error.
func DeleteTokenByID(tx *kv.Tx, id string) error {
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
	err := s.updateNow(func(tx *wtx) error {
		ok, err := getJSON(tx.Bucket(bTokens), HashToken(plain), &t)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "token not found")
		}
		if err := DeleteTokenByID(tx.Tx, t.ID); err != nil {
			return err
		}
		if t.Kind == TokenOAuth {
			return nil
		}
		_, err = s.endSubscriptions(tx.Tx, ownerPrefix(ownerToken, t.ID), "the token that made the subscription was revoked")
		return err
	})
	return t, err
}

// Authenticate resolves a bearer token to its record in one read. Unknown and expired
// tokens are ErrNotFound. The token and its user's flag are read in the transaction every
// time; their decoding is kept for as long as the stored bytes stay the same (recordMemo),
// since this runs on every API request.
func (s *Store) Authenticate(plain string) (Token, error) {
	var t Token
	hash := sha256.Sum256([]byte(plain))
	err := s.view(func(tx *kv.Tx) error {
		raw := tx.Bucket(bTokens).Get(hash[:])
		if raw == nil {
			return errorf(ErrNotFound, "invalid token")
		}
		var err error
		if t, err = s.tokenMemo.decode(hash[:], raw, decodeToken); err != nil {
			return err
		}
		// A disabled user's tokens, personal and OAuth alike, stop working at once.
		if _, ok := ParseID(t.UserID); !ok {
			return errorf(ErrNotFound, "invalid token")
		}
		key := idKey(t.UserID)
		user := tx.Bucket(bUsers).Get(key)
		if user == nil {
			return errorf(ErrNotFound, "invalid token")
		}
		if disabled, err := s.disabledMemo.decode(key, user, decodeDisabled); err != nil || disabled {
			return errorf(ErrNotFound, "invalid token")
		}
		return nil
	})
	if err != nil {
		return Token{}, err
	}
	if t.ExpiresAt != nil {
		if !s.Now().Before(*t.ExpiresAt) {
			return Token{}, errorf(ErrNotFound, "token expired")
		}
		at := *t.ExpiresAt // the memo's copy stays the memo's
		t.ExpiresAt = &at
	}
	return t, nil
}

func decodeToken(raw []byte) (Token, error) {
	var t Token
	err := jsonUnmarshal(raw, &t)
	return t, err
}

// decodeDisabled decodes only a user record's disabled flag.
func decodeDisabled(raw []byte) (bool, error) {
	var u struct {
		Disabled bool `json:"disabled"`
	}
	err := jsonUnmarshal(raw, &u)
	return u.Disabled, err
}
