package push

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Sizes of RFC 8291's message encryption.
const (
	// recordSize is the rs of the aes128gcm header: one record carries the whole payload.
	recordSize = 4096
	// headerSize is salt(16) | rs(4) | idlen(1) | keyid (the server's 65-byte public key).
	headerSize = 16 + 4 + 1 + 65
	// padTo rounds the plaintext's length up, so the push service cannot tell one text's length
	// from a similar one's.
	padTo = 128
	// MaxPayload is the largest payload encrypt takes: the record, less the delimiter and the
	// 16-byte tag, fits a push service's 4096-byte limit with the header.
	MaxPayload = recordSize - headerSize - 1 - 16
)

// decodeKey reads a key as browsers give it: base64url, with or without padding.
func decodeKey(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// encrypt makes the body of a push to a browser whose public key is uaPublic (65 bytes,
// uncompressed P-256) and whose authentication secret is auth (16 bytes), as RFC 8291 §3
// describes: a fresh key pair and salt per message, its ECDH secret with the browser's key
// mixed with auth into the content-encryption key and nonce, and one aes128gcm record
// (RFC 8188) that ends with the 0x02 delimiter and zero padding.
func encrypt(plaintext, uaPublic, auth []byte) ([]byte, error) {
	as, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	pad := (padTo - (len(plaintext)+1)%padTo) % padTo
	return encryptWith(plaintext, uaPublic, auth, as, salt, min(pad, MaxPayload-len(plaintext)))
}

// encryptWith is encrypt with the server's one-time key pair, salt and padding given: the RFC's
// example fixes them, so a test can compare the output byte for byte.
func encryptWith(plaintext, uaPublic, auth []byte, as *ecdh.PrivateKey, salt []byte, pad int) ([]byte, error) {
	if len(plaintext) > MaxPayload {
		return nil, fmt.Errorf("push: payload of %d bytes is over %d", len(plaintext), MaxPayload)
	}
	if len(auth) != 16 {
		return nil, errors.New("push: the authentication secret must be 16 bytes")
	}
	ua, err := ecdh.P256().NewPublicKey(uaPublic)
	if err != nil {
		return nil, fmt.Errorf("push: the browser's public key: %w", err)
	}
	secret, err := as.ECDH(ua)
	if err != nil {
		return nil, err
	}
	asPublic := as.PublicKey().Bytes()
	// IKM = HKDF(auth, ecdh_secret, "WebPush: info" || 0x00 || ua_public || as_public, 32)
	info := append(append([]byte("WebPush: info\x00"), uaPublic...), asPublic...)
	ikm, err := hkdf.Key(sha256.New, secret, auth, string(info), 32)
	if err != nil {
		return nil, err
	}
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, headerSize+len(plaintext)+1+pad+gcm.Overhead())
	body = append(body, salt...)
	body = binary.BigEndian.AppendUint32(body, recordSize)
	body = append(body, byte(len(asPublic)))
	body = append(body, asPublic...)
	record := make([]byte, 0, len(plaintext)+1+pad)
	record = append(record, plaintext...)
	record = append(record, 0x02) // the last (and only) record
	record = append(record, make([]byte, pad)...)
	return gcm.Seal(body, nonce, record, nil), nil
}
