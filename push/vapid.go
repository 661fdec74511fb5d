package push

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"sync"
	"time"
)

// VAPID (RFC 8292): each push request carries a JWT (RFC 7519) signed with the server's key,
// ES256, naming the push service's origin (aud), an expiry (exp) and a contact (sub). A token
// is good for vapidLife; the signer keeps one per origin and signs a new one when less than
// vapidRenew of it is left, so a burst of pushes costs one signature per push service.
const (
	vapidLife  = 12 * time.Hour // RFC 8292 allows at most 24 hours
	vapidRenew = time.Hour
)

type vapidSigner struct {
	key     *Key
	subject string
	now     func() time.Time

	mu     sync.Mutex
	tokens map[string]vapidToken // by audience
}

type vapidToken struct {
	header string // the Authorization header's value
	exp    time.Time
}

func newVAPIDSigner(k *Key, subject string, now func() time.Time) *vapidSigner {
	return &vapidSigner{key: k, subject: subject, now: now, tokens: map[string]vapidToken{}}
}

// audience is the origin of a push endpoint: scheme://host[:port].
func audience(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	return u.Scheme + "://" + u.Host, nil
}

// authorization is the Authorization header for a push to endpoint:
// "vapid t=<JWT>, k=<public key>".
func (v *vapidSigner) authorization(endpoint string) (string, error) {
	aud, err := audience(endpoint)
	if err != nil {
		return "", err
	}
	now := v.now()
	v.mu.Lock()
	defer v.mu.Unlock()
	if t, ok := v.tokens[aud]; ok && now.Before(t.exp.Add(-vapidRenew)) {
		return t.header, nil
	}
	exp := now.Add(vapidLife)
	jwt, err := signJWT(v.key.priv, map[string]any{"aud": aud, "exp": exp.Unix(), "sub": v.subject})
	if err != nil {
		return "", err
	}
	t := vapidToken{header: "vapid t=" + jwt + ", k=" + v.key.PublicKey(), exp: exp}
	v.tokens[aud] = t
	return t.header, nil
}

// signJWT is a compact JWS (RFC 7515) of claims with ES256: the header and claims base64url
// encoded, joined by a dot, and the ECDSA P-256 signature of their SHA-256 as r || s, each 32
// bytes (RFC 7518 §3.4).
func signJWT(priv *ecdsa.PrivateKey, claims map[string]any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString([]byte(`{"typ":"JWT","alg":"ES256"}`)) + "." + enc.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, priv, digest[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + enc.EncodeToString(sig), nil
}
