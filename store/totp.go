package store

import (
	bolt "go.etcd.io/bbolt"
)

// keyRequire2FA is the meta entry set while a superuser requires two-factor for everyone.
var keyRequire2FA = []byte("require_two_factor")

// TwoFactorRequired reports whether a superuser requires two-factor for every user.
func (s *Store) TwoFactorRequired() (bool, error) {
	on := false
	err := s.db.View(func(tx *bolt.Tx) error {
		on = tx.Bucket(bMeta).Get(keyRequire2FA) != nil
		return nil
	})
	return on, err
}

// SetTwoFactorRequired turns the requirement on or off.
func (s *Store) SetTwoFactorRequired(on bool) error {
	return s.update(func(tx *bolt.Tx, fx *effects) error {
		if !on {
			return tx.Bucket(bMeta).Delete(keyRequire2FA)
		}
		return tx.Bucket(bMeta).Put(keyRequire2FA, []byte{1})
	})
}
