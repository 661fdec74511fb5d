package testutil

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"strconv"
	"testing"
	"time"
)

// TelnyxKey is a fresh Ed25519 key pair standing in for a Telnyx account's webhook signing key:
// the server is given Public (PublicBase64 is how the Telnyx portal shows it), and the test
// signs webhooks with Private as Telnyx does.
type TelnyxKey struct {
	Public  ed25519.PublicKey
	Private ed25519.PrivateKey
}

// NewTelnyxKey makes a key pair from crypto/rand.
func NewTelnyxKey(t testing.TB) TelnyxKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return TelnyxKey{Public: pub, Private: priv}
}

// PublicBase64 is the public key in base64, the form SWITCHBOARD_TELNYX_PUBLIC_KEY takes.
func (k TelnyxKey) PublicBase64() string { return base64.StdEncoding.EncodeToString(k.Public) }

// Sign signs body as Telnyx signs a webhook sent at ts: Ed25519 over "unix-seconds|body". It
// returns the telnyx-timestamp and telnyx-signature-ed25519 header values.
func (k TelnyxKey) Sign(ts time.Time, body []byte) (stamp, signature string) {
	stamp = strconv.FormatInt(ts.Unix(), 10)
	return stamp, base64.StdEncoding.EncodeToString(ed25519.Sign(k.Private, append([]byte(stamp+"|"), body...)))
}

// Headers are the headers of a webhook Telnyx sends at ts with body, signed with the key.
func (k TelnyxKey) Headers(ts time.Time, body []byte) map[string]string {
	stamp, sig := k.Sign(ts, body)
	return map[string]string{"Content-Type": "application/json", "telnyx-timestamp": stamp, "telnyx-signature-ed25519": sig}
}
