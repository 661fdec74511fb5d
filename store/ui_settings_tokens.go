package store

import (
	"sort"

	bolt "go.etcd.io/bbolt"
)

// UserTokens lists userID's personal API tokens, newest first (never their plain text, which is
// not kept).
func (s *Store) UserTokens(userID string) ([]Token, error) {
	out := []Token{}
	err := s.db.View(func(tx *bolt.Tx) error {
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
	return s.update(func(tx *bolt.Tx, fx *effects) error {
		if _, ok := ParseID(id); !ok {
			return fx.refuse(errorf(ErrNotFound, "token not found"))
		}
		h := tx.Bucket(bTokenIDs).Get(idKey(id))
		var t Token
		if h != nil {
			if _, err := getJSON(tx.Bucket(bTokens), h, &t); err != nil {
				return err
			}
		}
		if h == nil || t.UserID != userID || t.Kind != TokenPersonal {
			return fx.refuse(errorf(ErrNotFound, "token not found"))
		}
		if err := DeleteTokenByID(tx, id); err != nil {
			return err
		}
		_, err := s.endSubscriptions(tx, ownerPrefix(ownerToken, id), "the token that made the subscription was revoked")
		return err
	})
}
