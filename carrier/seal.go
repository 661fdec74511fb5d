package carrier

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"

	"switchboard/internal/keyfile"
)

// sealer encrypts the secrets of connected carrier accounts with AES-256-GCM under the key in
// the carrier key file, which lives in the data directory beside the database and never in it:
// the database and its backups hold only ciphertext. The key is made when first needed.
type sealer struct{ path string }

const (
	carrierKeyWhat = "carrier key file"
	carrierKeyFix  = "move it away to make a new one, then connect the carrier accounts again"
	// sealVersion prefixes every sealed value, so a later scheme can be told apart.
	sealVersion = 1
)

// MakeKeyFile makes the carrier key file at path unless it exists. One server makes it when an
// account is first connected; a cluster's nodes make it at start, so that a joining node copies
// it with the other keys and every leader opens what another sealed.
func MakeKeyFile(path string) error {
	_, err := keyfile.Load(path, 32, carrierKeyWhat, carrierKeyFix)
	return err
}

// seal encrypts plain, bound to what (the carrier) so a value cannot be swapped for another's.
func (s sealer) seal(plain []byte, what string) ([]byte, error) {
	if s.path == "" {
		return nil, errors.New("carrier: no carrier key file is configured")
	}
	key, err := keyfile.Load(s.path, 32, carrierKeyWhat, carrierKeyFix)
	if err != nil {
		return nil, fmt.Errorf("carrier: %w", err)
	}
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("carrier: nonce: %w", err)
	}
	return aead.Seal(out, out[1:], plain, []byte(what)), nil
}

// open decrypts a value seal made; it fails when the key file is missing or is another one.
func (s sealer) open(sealed []byte, what string) ([]byte, error) {
	key, err := keyfile.Read(s.path, 32, carrierKeyWhat, carrierKeyFix)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && s.path == "") {
		return nil, errors.New("the carrier key file (carrier.key in the data directory) is missing")
	}
	if err != nil {
		return nil, err
	}
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	n := aead.NonceSize()
	if len(sealed) < 1+n || sealed[0] != sealVersion {
		return nil, errors.New("the stored secrets are not in a form this version reads")
	}
	plain, err := aead.Open(nil, sealed[1:1+n], sealed[1+n:], []byte(what))
	if err != nil {
		return nil, errors.New("the carrier key file (carrier.key in the data directory) is not the one the account was connected with")
	}
	return plain, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
