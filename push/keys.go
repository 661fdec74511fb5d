// Package push sends Web Push notifications (RFC 8030) from the durable push outbox in the
// store: store functions queue one job per device in the transaction of the change that causes
// it; the worker here encrypts each payload for its device (RFC 8291, aes128gcm), signs the
// request as the server (VAPID, RFC 8292), posts it to the device's push service and records
// the outcome, retrying with backoff. The push service sees the encrypted payload only.
//
// The encryption and the signature are composed from the standard library (crypto/ecdh,
// crypto/hkdf, crypto/aes, crypto/ecdsa), as RFC 8291 and RFC 7515 describe them, and checked
// byte for byte against RFC 8291's worked example.
package push

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"

	"switchboard/internal/keyfile"
)

// Key is the server's VAPID key pair (P-256): it signs every push request, and browsers bind
// each subscription to its public half.
type Key struct {
	priv *ecdsa.PrivateKey
	pub  []byte // the public key, uncompressed (65 bytes)
}

// PublicKey is the public key as GET /push/key serves it and PushManager.subscribe takes it:
// the uncompressed point, base64url without padding.
func (k *Key) PublicKey() string { return base64.RawURLEncoding.EncodeToString(k.pub) }

// NewKey makes a fresh key pair (tests; LoadKey makes the server's).
func NewKey() (*Key, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return keyOf(priv)
}

func keyOf(priv *ecdsa.PrivateKey) (*Key, error) {
	pub, err := priv.PublicKey.ECDH()
	if err != nil {
		return nil, err
	}
	return &Key{priv: priv, pub: pub.Bytes()}, nil
}

// LoadKey reads the key pair from path (PKCS #8 PEM), or makes one there on first start, mode
// 0600. It lives beside the session key in the data directory, never in the database, so a
// backup cannot push as the server; after a restore on a new machine browsers subscribe again.
func LoadKey(path string) (*Key, error) {
	data, _, err := keyfile.LoadOrMake(path, func() ([]byte, error) {
		k, err := NewKey()
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(k.priv)
		if err != nil {
			return nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
	})
	if err != nil {
		return nil, fmt.Errorf("push: the VAPID key: %w", err)
	}
	return parseKey(path, data)
}

func parseKey(path string, data []byte) (*Key, error) {
	bad := fmt.Errorf("push: %s is not a VAPID key file (a P-256 key, PKCS #8 PEM); move it away to make a new one "+
		"(every device then turns its notifications on again)", path)
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, bad
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, bad
	}
	priv, ok := key.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, bad
	}
	return keyOf(priv)
}
