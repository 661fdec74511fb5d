package store

import (
	"bytes"
	"time"

	"switchboard/store/kv"
)

// Session is a signed-in browser. The browser holds a random token (in the session cookie);
// the database keeps only its SHA-256, so neither a copy of the database nor a backup can be
// turned back into a cookie, and deleting the row ends the session whatever copies of the
// cookie exist.
type Session struct {
	ID        string    `json:"id"` // a ULID, for listing and ending one session; never a secret
	UserID    string    `json:"userId"`
	CreatedAt time.Time `json:"createdAt"`
	LastSeen  time.Time `json:"lastSeen"`
	UserAgent string    `json:"userAgent"`
	Address   string    `json:"address"`
	// Stage is "" for a full session; SessionStageCode while the second factor is awaited;
	// SessionStageEnrol while the user must enrol in two-factor before anything else.
	Stage string `json:"stage,omitempty"`
	// Values are the UI's choices kept with the session (the current workspace).
	Values map[string]string `json:"values,omitempty"`
}

// Session stages: what a session that passed the password still needs.
const (
	SessionStageCode  = "code"
	SessionStageEnrol = "enrol"
)

// DeleteLegacySessionKeys deletes the cookie keys earlier versions kept in the database.
func (s *Store) DeleteLegacySessionKeys() error {
	return s.updateNow(func(tx *wtx) error {
		if meta := tx.Bucket(bLegacySessionMeta); meta != nil && meta.Get(keyLegacySessionKey) != nil {
			return meta.Delete(keyLegacySessionKey)
		}
		return nil
	})
}

// sessionUserKey is user(16) | session id(16), the key of the per-user session index.
func sessionUserKey(userID, id string) []byte { return append(idKey(userID), idKey(id)...) }

// NewSession is the input of CreateSession.
type NewSession struct {
	UserID    string
	Stage     string // "" for a complete session
	UserAgent string
	Address   string
	At        time.Time // when it starts; zero means now
}

// CreateSession starts a session and returns it with its plain token, which only the caller
// ever sees (the cookie carries it).
func (s *Store) CreateSession(in NewSession) (Session, string, error) {
	plain := RandomToken("")
	at := in.At
	if at.IsZero() {
		at = s.Now()
	}
	ss := Session{ID: s.NewID(), UserID: in.UserID, CreatedAt: at, LastSeen: at, Stage: in.Stage,
		UserAgent: clip(in.UserAgent, 255), Address: clip(in.Address, 64)}
	err := s.update(func(tx *wtx) error {
		if _, err := getUser(tx.Tx, in.UserID); err != nil {
			return tx.refuse(err)
		}
		return putSession(tx.Tx, HashToken(plain), ss)
	})
	return ss, plain, err
}

func putSession(tx *kv.Tx, hash []byte, ss Session) error {
	if err := putJSON(tx.Bucket(bSessions), hash, ss); err != nil {
		return err
	}
	return tx.Bucket(bSessionUser).Put(sessionUserKey(ss.UserID, ss.ID), hash)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

// SessionByToken returns the session whose token is plain and its user, in one read. An
// unknown token, and the session of a disabled user, are ErrNotFound: a disabled user's
// sessions stop at once.
func (s *Store) SessionByToken(plain string) (Session, User, error) {
	var ss Session
	var u User
	err := s.view(func(tx *kv.Tx) error {
		ok, err := getJSON(tx.Bucket(bSessions), HashToken(plain), &ss)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "session not found")
		}
		if u, err = getUser(tx, ss.UserID); err != nil {
			return err
		}
		if u.Disabled {
			return errorf(ErrNotFound, "session not found")
		}
		return nil
	})
	return ss, u, err
}

// UpdateSession changes the session whose token is plain: fn edits a copy, which is written
// back. An unknown token is ErrNotFound.
func (s *Store) UpdateSession(plain string, fn func(*Session)) (Session, error) {
	var ss Session
	hash := HashToken(plain)
	err := s.update(func(tx *wtx) error {
		ok, err := getJSON(tx.Bucket(bSessions), hash, &ss)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "session not found"))
		}
		fn(&ss)
		return putJSON(tx.Bucket(bSessions), hash, ss)
	})
	return ss, err
}

// DeleteSession ends the session whose token is plain (sign-out); an unknown one is no error.
func (s *Store) DeleteSession(plain string) error {
	return s.update(func(tx *wtx) error {
		return deleteSessionByHash(tx.Tx, HashToken(plain))
	})
}

func deleteSessionByHash(tx *kv.Tx, hash []byte) error {
	var ss Session
	ok, err := getJSON(tx.Bucket(bSessions), hash, &ss)
	if err != nil || !ok {
		return err
	}
	if err := tx.Bucket(bSessions).Delete(hash); err != nil {
		return err
	}
	// The devices whose notifications this session turned on stop getting them with it.
	if err := deleteSessionPushSubs(tx, ss.ID); err != nil {
		return err
	}
	return tx.Bucket(bSessionUser).Delete(sessionUserKey(ss.UserID, ss.ID))
}

// UserSessions lists userID's sessions, oldest first.
func (s *Store) UserSessions(userID string) ([]Session, error) {
	var out []Session
	err := s.view(func(tx *kv.Tx) error {
		p := idKey(userID)
		c := tx.Bucket(bSessionUser).Cursor()
		for k, h := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, h = c.Next() {
			var ss Session
			if ok, err := getJSON(tx.Bucket(bSessions), h, &ss); err != nil {
				return err
			} else if ok {
				out = append(out, ss)
			}
		}
		return nil
	})
	return out, err
}

// EndUserSession ends one session of userID by its id; another user's session is not found.
func (s *Store) EndUserSession(userID, sessionID string) error {
	return s.update(func(tx *wtx) error {
		h := tx.Bucket(bSessionUser).Get(sessionUserKey(userID, sessionID))
		if h == nil {
			return tx.refuse(errorf(ErrNotFound, "session not found"))
		}
		return deleteSessionByHash(tx.Tx, bytes.Clone(h))
	})
}

// EndUserSessions ends every session of userID but the one with id keep ("" ends them all).
func (s *Store) EndUserSessions(userID, keep string) error {
	return s.update(func(tx *wtx) error { return endSessions(tx.Tx, userID, keep) })
}

// endSessions deletes userID's sessions but keep inside tx: a password change, a disabled
// user and a removed superuser flag call it in the transaction of their change.
func endSessions(tx *kv.Tx, userID, keep string) error {
	p := idKey(userID)
	var hashes [][]byte
	c := tx.Bucket(bSessionUser).Cursor()
	for k, h := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, h = c.Next() {
		if keep != "" && idFromKey(k) == keep {
			continue
		}
		hashes = append(hashes, bytes.Clone(h))
	}
	for _, h := range hashes {
		if err := deleteSessionByHash(tx, h); err != nil {
			return err
		}
	}
	return nil
}

// DeleteStaleSessions removes sessions last seen before idleBefore or created before
// createdBefore: they can no longer be used, and their rows would only grow the file.
func (s *Store) DeleteStaleSessions(idleBefore, createdBefore time.Time) (int, error) {
	n := 0
	err := s.update(func(tx *wtx) error {
		n = 0
		var hashes [][]byte
		err := tx.Bucket(bSessions).ForEach(func(k, v []byte) error {
			var ss Session
			if err := jsonUnmarshal(v, &ss); err != nil {
				return err
			}
			if ss.LastSeen.Before(idleBefore) || ss.CreatedAt.Before(createdBefore) {
				hashes = append(hashes, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, h := range hashes {
			if err := deleteSessionByHash(tx.Tx, h); err != nil {
				return err
			}
		}
		n = len(hashes)
		return nil
	})
	return n, err
}
