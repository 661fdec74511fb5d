package push

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"switchboard/store"
	"switchboard/webhooks"
)

// Subscription is what a browser's PushSubscription.toJSON() gives: where its push service
// takes messages for it, when that ends (null for never), and its keys, base64url.
type Subscription struct {
	Endpoint       string   `json:"endpoint"`
	ExpirationTime *float64 `json:"expirationTime"` // milliseconds since 1970, or null
	Keys           struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// Expires is when the push service ends the subscription; zero for never.
func (s Subscription) Expires() time.Time {
	if s.ExpirationTime == nil {
		return time.Time{}
	}
	return time.UnixMilli(int64(*s.ExpirationTime)).UTC()
}

// maxEndpoint bounds an endpoint's length (the push services' own are about 200 characters).
const maxEndpoint = 2048

// DecodeSubscription reads a subscription (a JSON body of at most a few KB) and checks its
// shape: an absolute http(s) endpoint, a P-256 public key (65 bytes, uncompressed, on the curve)
// and a 16-byte authentication secret. Every failing field is listed in one store.ValidationError
// (sorted by field), the body's own when it is not a JSON object. Where the endpoint points is
// Guard.Check's question.
func DecodeSubscription(data []byte) (Subscription, error) {
	var s Subscription
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil || dec.More() {
		return s, store.ValidationError{{Field: "body", Message: "must be the JSON of a PushSubscription: " +
			`{"endpoint": "https://…", "expirationTime": null, "keys": {"p256dh": "…", "auth": "…"}}`}}
	}
	var errs store.ValidationError
	if msg := endpointShape(s.Endpoint); msg != "" {
		errs = append(errs, store.FieldError{Field: "endpoint", Message: msg})
	}
	if e := s.ExpirationTime; e != nil && (math.IsNaN(*e) || *e < 0 || *e > 1e15) {
		errs = append(errs, store.FieldError{Field: "expirationTime", Message: "must be null or a time in milliseconds since 1970"})
	}
	if k, err := decodeKey(s.Keys.P256dh); err != nil || len(k) != 65 {
		errs = append(errs, store.FieldError{Field: "keys.p256dh", Message: "must be the browser's P-256 public key: 65 bytes, base64url"})
	} else if _, err := ecdh.P256().NewPublicKey(k); err != nil {
		errs = append(errs, store.FieldError{Field: "keys.p256dh", Message: "is not a point on the P-256 curve"})
	}
	if k, err := decodeKey(s.Keys.Auth); err != nil || len(k) != 16 {
		errs = append(errs, store.FieldError{Field: "keys.auth", Message: "must be the browser's authentication secret: 16 bytes, base64url"})
	}
	if errs != nil {
		slices.SortFunc(errs, func(a, b store.FieldError) int { return strings.Compare(a.Field, b.Field) })
		return s, errs
	}
	return s, nil
}

// endpointShape says what is wrong with an endpoint's form, "" when nothing.
func endpointShape(raw string) string {
	if raw == "" {
		return "is required"
	}
	if len(raw) > maxEndpoint {
		return "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" || u.Opaque != "" {
		return "must be the https URL of the browser's push service"
	}
	if u.User != nil {
		return "must not carry a user name or password"
	}
	return ""
}

// Guard checks where an endpoint points, with the webhooks' SSRF rules: a push service is on a
// public host and spoken to over https; hosts inside -hook-allow-cidrs (a private relay, a
// test's push service) are admitted and may use plain http. The worker's client checks every
// connection again after DNS.
type Guard struct{ hooks *webhooks.Guard }

// NewGuard wraps the server's webhook guard (nil: no range allowed).
func NewGuard(g *webhooks.Guard) *Guard {
	if g == nil {
		g = webhooks.NewGuard(nil)
	}
	return &Guard{hooks: g}
}

// Check reports why endpoint (of the right shape) is refused, as the message of a validation
// error on endpoint, or nil. It says nothing of what a host name resolves to.
func (g *Guard) Check(ctx context.Context, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return errors.New(endpointShape(endpoint))
	}
	if err := g.hooks.ValidateURL(ctx, endpoint); err != nil {
		var re *webhooks.RefusedError
		if errors.As(err, &re) {
			msg := "is not an allowed address"
			if re.Reason != "" {
				msg += " (" + re.Reason + ")"
			}
			return errors.New(msg + ": push services are on public hosts, unless an admin allows the range with -hook-allow-cidrs")
		}
		return err
	}
	if u.Scheme != "https" && !g.hooks.AllowListed(ctx, u.Hostname()) {
		return errors.New("must be an https URL: only hosts inside -hook-allow-cidrs may use plain http")
	}
	return nil
}
