package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testutil"
)

const (
	telnyxPhone  = "+14155550188"
	fakeTelnyxAK = "KEY_fake_telnyx_api_key_7c1d"
)

// TestServeTelnyx: add-number --carrier telnyx and serve both want the keys; with them the binary
// sends through Telnyx's v2 API (a local fake) and believes only webhooks signed with the key.
func TestServeTelnyx(t *testing.T) {
	key := testutil.NewTelnyxKey(t)
	f := newFixture(t)
	d := "-data=" + f.data
	fails(t, "SWITCHBOARD_TELNYX_API_KEY", "admin", "add-number", d, "--workspace", f.ws, "--phone", telnyxPhone, "--carrier", "telnyx")
	r := sb(t, []string{"SWITCHBOARD_TELNYX_API_KEY=" + fakeTelnyxAK}, "admin", "add-number", d, "--workspace", f.ws, "--phone", telnyxPhone, "--carrier", "telnyx")
	if r.code != 0 {
		t.Fatalf("add-number --carrier telnyx with the key: exit %d, %q", r.code, r.stderr)
	}
	addr := "127.0.0.1:" + testutil.FreePort(t)
	r = sb(t, nil, "serve", "-addr", addr, d)
	if r.code == 0 || !strings.Contains(r.stderr, telnyxPhone) || !strings.Contains(r.stderr, "SWITCHBOARD_TELNYX_API_KEY") {
		t.Fatalf("serve with a telnyx number and no keys: exit %d, stderr %q", r.code, r.stderr)
	}
	r = sb(t, nil, "serve", "-addr", addr, d, "-telnyx-api-key", fakeTelnyxAK, "-telnyx-public-key", "bm90IGEga2V5")
	if r.code == 0 || !strings.Contains(r.stderr, "-telnyx-public-key") {
		t.Fatalf("serve with a malformed public key: exit %d, stderr %q", r.code, r.stderr)
	}

	var mu sync.Mutex
	var arrivals []map[string]any
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if r.URL.Path != "/v2/messages" || r.Header.Get("Authorization") != "Bearer "+fakeTelnyxAK || json.Unmarshal(raw, &body) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"errors":[{"code":"10009","title":"Authentication failed"}]}`)
			return
		}
		mu.Lock()
		arrivals = append(arrivals, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"record_type":"message","id":"40385f64-5717-4562-b3fc-2c963f66afa6"}}`)
	}))
	defer fake.Close()
	srv := startServer(t, addr, []string{"SWITCHBOARD_TELNYX_API_KEY=" + fakeTelnyxAK, "SWITCHBOARD_TELNYX_PUBLIC_KEY=" + key.PublicBase64()},
		"-addr", addr, d, "-base-url", "http://"+addr, "-log-requests=false", "-telnyx-base-url", fake.URL)

	id := sendMessage(t, srv.base, f, telnyxPhone, "+14155550142", "Your order has shipped")
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(arrivals)
		mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Telnyx got %d sends, want 1", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := arrivals[0]; got["from"] != telnyxPhone || got["to"] != "+14155550142" || got["text"] != "Your order has shipped" ||
		got["webhook_url"] != srv.base+"/carrier/telnyx/webhook" {
		t.Fatalf("Telnyx got %v", got)
	}

	webhook := func(key testutil.TelnyxKey, body string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.base+"/carrier/telnyx/webhook", strings.NewReader(body))
		for k, v := range key.Headers(time.Now(), []byte(body)) {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	receipt := `{"data":{"event_type":"message.finalized","payload":{"id":"40385f64-5717-4562-b3fc-2c963f66afa6","to":[{"phone_number":"+14155550142","status":"delivered"}]}}}`
	stranger := testutil.NewTelnyxKey(t)
	if code := webhook(stranger, receipt); code != http.StatusForbidden {
		t.Fatalf("a webhook signed by another key: %d, want 403", code)
	}
	if code := webhook(key, receipt); code != http.StatusOK {
		t.Fatalf("a signed receipt: %d, want 200", code)
	}
	for _, m := range listMessages(t, srv.base, f, 10) {
		if m.ID == id && m.Status != "delivered" {
			t.Fatalf("message %s after the receipt: %s, want delivered", id, m.Status)
		}
	}
	if strings.Contains(srv.stdout.String()+srv.stderr.String(), fakeTelnyxAK) {
		t.Error("the server printed the Telnyx API key")
	}
}
