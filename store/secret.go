package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"switchboard/store/kv"
)

// The store keeps as hashes every secret it only has to recognise (session, reset, invitation
// and API tokens, recovery codes). The few it must read back — two-factor secrets, to compute
// the current code, and the token of a link waiting in the mail outbox, to render the e-mail
// when it is sent — are sealed with AES-256-GCM under the installation's secret key. That key
// lives in a file of the data directory (Options.SecretKey), never in the database, so a copy of
// the database holds no secret anyone could use. Each sealed value is bound to what it is for
// (the user, the e-mail), so one cannot be moved to another record.

// SecretKeySize is the length of Options.SecretKey.
const SecretKeySize = 32

// sealedPrefix starts every sealed value: the scheme's version.
const sealedPrefix = "v1:"

// errUnsealable is what opening a sealed value fails with when the key is not the one it was
// sealed with (the data directory's key file was lost or replaced), or the value was changed.
var errUnsealable = errors.New("store: a sealed secret cannot be opened with this installation's secret key")

// sealer seals and opens the secrets the store must read back.
type sealer struct {
	aead cipher.AEAD
	// ephemeral is set when no key was given: a random one for this process (tests, read-only
	// tools), which must never seal what a later process has to open (migrate refuses).
	ephemeral bool
}

func newSealer(key []byte) (*sealer, error) {
	ephemeral := key == nil
	if ephemeral {
		key = make([]byte, SecretKeySize)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("store: secret key: %w", err)
		}
	}
	if len(key) != SecretKeySize {
		return nil, fmt.Errorf("store: the secret key must be %d bytes, not %d", SecretKeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead, ephemeral: ephemeral}, nil
}

// seal encrypts plain for purpose (what it belongs to, checked when it is opened).
func (k *sealer) seal(plain, purpose string) string {
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	out := k.aead.Seal(nonce, nonce, []byte(plain), []byte(purpose))
	return sealedPrefix + base64.RawStdEncoding.EncodeToString(out)
}

// open decrypts a value seal made for the same purpose.
func (k *sealer) open(sealed, purpose string) (string, error) {
	rest, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return "", errUnsealable
	}
	b, err := base64.RawStdEncoding.DecodeString(rest)
	if err != nil || len(b) < k.aead.NonceSize() {
		return "", errUnsealable
	}
	plain, err := k.aead.Open(nil, b[:k.aead.NonceSize()], b[k.aead.NonceSize():], []byte(purpose))
	if err != nil {
		return "", errUnsealable
	}
	return string(plain), nil
}

func isSealed(v string) bool { return strings.HasPrefix(v, sealedPrefix) }

// Purposes a sealed value is bound to.
func totpPurpose(userID string) string { return "totp:" + userID }
func mailPurpose(mailID string) string { return "mail:" + mailID }

const keyCheckPurpose = "key-check"

// checkSecretKey records, in a file that has none, a value sealed with the key this start was
// given, and otherwise learns whether that key opens it (SecretKeyMatches). A random key for
// the process records nothing.
func (s *Store) checkSecretKey(meta *kv.Bucket) error {
	k := s.sealer.Load()
	if k.ephemeral {
		return nil
	}
	if meta.Get(metaKeyCheck) == nil {
		return meta.Put(metaKeyCheck, []byte(k.seal("switchboard", keyCheckPurpose)))
	}
	s.matchSecretKey(meta)
	return nil
}

// matchSecretKey learns whether the store's key opens the key check of the file whose meta
// bucket is meta; a file without one, or a random key for the process, counts as matching.
func (s *Store) matchSecretKey(meta *kv.Bucket) {
	k := s.sealer.Load()
	v := meta.Get(metaKeyCheck)
	if k.ephemeral || v == nil {
		s.keyMismatch.Store(false)
		return
	}
	_, err := k.open(string(v), keyCheckPurpose)
	s.keyMismatch.Store(err != nil)
}

// UseSecretKey replaces the key of a store opened without one: a cluster's node that starts
// from another node's copy takes the cluster's key with it, after the store is open. Call it
// before the store serves requests.
func (s *Store) UseSecretKey(key []byte) error {
	if key == nil {
		return errors.New("store: no secret key")
	}
	k, err := newSealer(key)
	if err != nil {
		return err
	}
	s.sealer.Store(k)
	return s.view(func(tx *kv.Tx) error {
		if b := tx.Bucket(bMeta); b != nil {
			s.matchSecretKey(b)
		}
		return nil
	})
}

// SecretKeyMatches reports whether the secret key this store was opened with is the one the
// database's secrets were sealed with. When it is not (the data directory's secret.key was lost
// or replaced), two-factor secrets and the links of queued e-mail cannot be read: users with
// two-factor sign in with a recovery code, or an administrator turns it off (reset-2fa).
func (s *Store) SecretKeyMatches() bool { return !s.keyMismatch.Load() }
