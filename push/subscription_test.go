package push_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/internal/testutil"
	"switchboard/push"
	"switchboard/store"
)

const (
	goodKey  = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
	goodAuth = "BTBZMqHH6r4Tts7J_aSIgg"
)

func subJSON(endpoint, p256dh, auth string) string {
	return `{"endpoint":"` + endpoint + `","expirationTime":null,"keys":{"p256dh":"` + p256dh + `","auth":"` + auth + `"}}`
}

func fields(err error) []string {
	var ve store.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	for _, f := range ve {
		out = append(out, f.Field)
	}
	return out
}

func TestDecodeSubscription(t *testing.T) {
	cases := []struct {
		name, body string
		want       string // failing fields, comma-separated
	}{
		{"a browser's subscription", subJSON("https://fcm.googleapis.com/fcm/send/abc:APA91b", goodKey, goodAuth), ""},
		{"padded base64url keys", subJSON("https://updates.push.services.mozilla.com/wpush/v2/gAAA", goodKey+"=", goodAuth+"=="), ""},
		{"not JSON", `endpoint=https://x`, "body"},
		{"two JSON values", subJSON("https://a.example/x", goodKey, goodAuth) + `{}`, "body"},
		{"no endpoint", subJSON("", goodKey, goodAuth), "endpoint"},
		{"a mailto endpoint", subJSON("mailto:a@b.example", goodKey, goodAuth), "endpoint"},
		{"an ftp endpoint", subJSON("ftp://push.example/x", goodKey, goodAuth), "endpoint"},
		{"credentials in the endpoint", subJSON("https://u:p@push.example/x", goodKey, goodAuth), "endpoint"},
		{"a long endpoint", subJSON("https://push.example/"+strings.Repeat("a", 2048), goodKey, goodAuth), "endpoint"},
		{"a short public key", subJSON("https://push.example/x", goodKey[:40], goodAuth), "keys.p256dh"},
		{"a point off the curve", subJSON("https://push.example/x", "BA"+strings.Repeat("A", 85), goodAuth), "keys.p256dh"},
		{"an auth secret of 15 bytes", subJSON("https://push.example/x", goodKey, "BTBZMqHH6r4Tts7J_aSI"), "keys.auth"},
		{"not base64url", subJSON("https://push.example/x", goodKey, "!!!!!!!!!!!!!!!!!!!!!!"), "keys.auth"},
		{"everything wrong", `{"endpoint":"x","expirationTime":-5,"keys":{}}`, "endpoint,expirationTime,keys.auth,keys.p256dh"},
	}
	for _, c := range cases {
		_, err := push.DecodeSubscription([]byte(c.body))
		if got := strings.Join(fields(err), ","); got != c.want {
			t.Errorf("%s: failing fields %q (%v), want %q", c.name, got, err, c.want)
		}
	}
}

func FuzzDecodeSubscription(f *testing.F) {
	f.Add([]byte(subJSON("https://fcm.googleapis.com/fcm/send/abc", goodKey, goodAuth)))
	f.Add([]byte(`{"endpoint":"http://[::1]:80/x","expirationTime":1e300,"keys":{"p256dh":"","auth":null}}`))
	f.Add([]byte(`{"keys":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := push.DecodeSubscription(data)
		if err == nil {
			// What it accepts, the worker can encrypt for and the endpoint parses.
			if s.Endpoint == "" || len(s.Keys.Auth) < 20 || s.Expires().IsZero() != (s.ExpirationTime == nil) {
				t.Fatalf("accepted %q as %+v", data, s)
			}
			return
		}
		if fields(err) == nil {
			t.Fatalf("error %v is not a ValidationError", err)
		}
	})
}

// The webhooks' address rules hold for endpoints: public https hosts; loopback, private and
// link-local ones refused; a range in -hook-allow-cidrs admitted, plain http there included.
func TestGuardCheck(t *testing.T) {
	strict := push.NewGuard(nil)
	ctx := context.Background()
	for _, e := range []string{"https://127.0.0.1/x", "https://10.0.0.7/x", "https://[::1]/x", "https://169.254.169.254/x",
		"https://192.168.1.20:8443/x", "https://[::ffff:127.0.0.1]/x"} {
		if err := strict.Check(ctx, e); err == nil || !strings.Contains(err.Error(), "not an allowed address") {
			t.Errorf("%s: %v, want refused as not an allowed address", e, err)
		}
	}
	if err := strict.Check(ctx, "https://8.8.8.8/push/x"); err != nil {
		t.Errorf("a public https endpoint: %v", err)
	}
	if err := strict.Check(ctx, "http://8.8.8.8/push/x"); err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("a public http endpoint: %v, want refused: https only", err)
	}
	allowed := loopback(t)
	for _, e := range []string{"http://127.0.0.1:8080/x", "https://127.0.0.1/x"} {
		if err := allowed.Check(ctx, e); err != nil {
			t.Errorf("%s with 127.0.0.0/8 allowed: %v", e, err)
		}
	}
	if err := allowed.Check(ctx, "http://10.1.2.3/x"); err == nil {
		t.Error("a private host outside the allowed range was admitted")
	}
}

func TestLoadKeyMakesItOnceAndKeepsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "push.key")
	k1, err := push.LoadKey(path)
	testutil.NoErr(t, err)
	info, err := os.Stat(path)
	testutil.NoErr(t, err)
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("push.key has mode %v, want 0600", info.Mode().Perm())
	}
	k2, err := push.LoadKey(path)
	testutil.NoErr(t, err)
	if k1.PublicKey() != k2.PublicKey() || len(k1.PublicKey()) != 87 || k1.PublicKey()[0] != 'B' {
		t.Fatalf("public keys %q and %q: want the same uncompressed point (87 base64url characters starting B)", k1.PublicKey(), k2.PublicKey())
	}
	testutil.NoErr(t, os.WriteFile(path, []byte("not a key"), 0o600))
	if _, err := push.LoadKey(path); err == nil || !strings.Contains(err.Error(), "not a VAPID key file") {
		t.Fatalf("a damaged push.key: %v", err)
	}
}
