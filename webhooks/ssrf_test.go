package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"switchboard/store"
	"switchboard/web"
	"switchboard/webhooks"
)

// The list: each must be refused without the allow-list.
var refusedHosts = []struct{ name, host string }{
	{"IPv4 loopback", "127.0.0.1"},
	{"IPv6 loopback", "[::1]"},
	{"RFC 1918", "10.0.0.1"},
	{"cloud metadata", "169.254.169.254"},
	{"IPv4-mapped loopback", "[::ffff:127.0.0.1]"},
	{"a name resolving to loopback", "localhost"},
}

func TestValidateURLRefuses(t *testing.T) {
	g := webhooks.NewGuard(nil)
	cases := []struct{ url, want string }{
		{"http://127.0.0.1/", "loopback"},
		{"http://[::1]:8080/x", "loopback"},
		{"http://10.0.0.1/", "private address (RFC 1918)"},
		{"http://172.16.5.4/", "RFC 1918"},
		{"https://192.168.1.1/", "RFC 1918"},
		{"http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{"http://[fd00:ec2::254]/", "cloud metadata"},
		{"http://100.100.100.200/", "cloud metadata"},
		{"http://[::ffff:127.0.0.1]/", "loopback"},
		{"http://[::ffff:7f00:1]/", "loopback"},
		{"http://[64:ff9b::7f00:1]/", "loopback"},    // NAT64
		{"http://[64:ff9b::a9fe:a9fe]/", "metadata"}, // NAT64 of 169.254.169.254
		{"http://[2002:7f00:1::1]/", "loopback"},     // 6to4
		{"http://[2002:0a00:0001::]/", "RFC 1918"},   // 6to4 of 10.0.0.1
		{"http://[::ffff:10.1.2.3]/", "RFC 1918"},    // mapped private
		{"http://localhost:9/", "is not an allowed address"},
		{"http://0.0.0.0/", "unspecified"},
		{"http://0.1.2.3/", "unspecified"},
		{"http://[::]/", "unspecified"},
		{"http://255.255.255.255/", "broadcast"},
		{"http://224.0.0.1/", "multicast"},
		{"http://[ff02::1]/", "multicast"},
		{"http://100.64.0.1/", "carrier-grade NAT"},
		{"http://[fc00::1]/", "unique local"},
		{"http://[fe80::1]/", "link-local"},
		{"http://169.254.1.1/", "link-local"},
		{"http://192.0.2.10/", "TEST-NET-1"},
		{"http://198.51.100.1/", "TEST-NET-2"},
		{"http://203.0.113.9/", "TEST-NET-3"},
		{"http://[2001:db8::1]/", "documentation"},
		{"http://240.0.0.1/", "reserved"},
		{"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"},
		{"ftp://example.com/", "http or https"},
		{"http:///nohost", "http or https"},
		{"http://user:pw@93.184.216.34/", "user name or password"},
	}
	for _, c := range cases {
		err := g.ValidateURL(context.Background(), c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ValidateURL(%s) = %v, want an error naming %q", c.url, err, c.want)
		}
	}
	// A host name's answer says neither what it resolves to nor whether it resolves: the
	// message of a name that does not resolve equals that of one resolving to loopback.
	err := g.ValidateURL(context.Background(), "http://no-such-host.invalid/")
	if !errors.Is(err, webhooks.ErrUnresolvable) {
		t.Errorf("unresolvable host: %v, want ErrUnresolvable", err)
	}
	local := g.ValidateURL(context.Background(), "http://localhost:9/")
	if err == nil || local == nil || err.Error() != local.Error() {
		t.Errorf("unresolvable host says %q, localhost says %q: want the same message", err, local)
	}
	for _, leak := range []string{"127.0.0.1", "::1", "loopback", "resolves", "localhost"} {
		if local != nil && strings.Contains(local.Error(), leak) {
			t.Errorf("the answer for localhost %q reveals %q", local, leak)
		}
	}
	// The message says what to do about it.
	err = g.ValidateURL(context.Background(), "http://127.0.0.1/")
	if !strings.Contains(err.Error(), "-hook-allow-cidrs") {
		t.Errorf("message %q does not mention -hook-allow-cidrs", err)
	}
}

func TestValidateURLAccepts(t *testing.T) {
	g := webhooks.NewGuard(nil)
	for _, u := range []string{
		"https://93.184.216.34/hook",
		"http://[2606:4700:4700::1111]:8443/",
		"http://[64:ff9b::5db8:d822]/", // NAT64 of a public address
		"http://[::ffff:93.184.216.34]/",
	} {
		if err := g.ValidateURL(context.Background(), u); err != nil {
			t.Errorf("ValidateURL(%s) = %v, want accepted", u, err)
		}
	}
}

func TestAllowListOpensChosenRanges(t *testing.T) {
	_, mapped, _ := net.ParseCIDR("::ffff:10.9.0.0/112") // written mapped: unwrapped to 10.9.0.0/16
	g := webhooks.NewGuard(append(loopback(t), mapped))
	for _, u := range []string{"http://127.0.0.1:8080/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::7f00:1]/",
		"http://localhost/", "http://10.9.1.2/", "http://[::ffff:10.9.1.2]/"} {
		if err := g.ValidateURL(context.Background(), u); err != nil {
			t.Errorf("with 127.0.0.0/8 and 10.9.0.0/16 allowed, ValidateURL(%s) = %v", u, err)
		}
	}
	for _, u := range []string{"http://[::1]/", "http://10.0.0.1/", "http://169.254.169.254/", "http://0.0.0.0/"} {
		if err := g.ValidateURL(context.Background(), u); err == nil {
			t.Errorf("ValidateURL(%s) accepted; only 127.0.0.0/8 and 10.9.0.0/16 are allowed", u)
		}
	}
	// Unspecified, multicast and broadcast are never destinations, whatever is allowed.
	_, all, _ := net.ParseCIDR("0.0.0.0/0")
	g = webhooks.NewGuard([]*net.IPNet{all})
	for _, a := range []string{"0.0.0.0", "224.0.0.1", "255.255.255.255"} {
		if g.CheckIP(netip.MustParseAddr(a)) == nil {
			t.Errorf("%s allowed by 0.0.0.0/0", a)
		}
	}
}

// TestSubscribeRefusesInternalHookURLs goes through the real web handler: 400 on hookUrl.
func TestSubscribeRefusesInternalHookURLs(t *testing.T) {
	e := newEnv(t, nil)
	_, token, err := e.s.CreateToken(e.user, "test")
	if err != nil {
		t.Fatal(err)
	}
	post := func(h http.Handler, hookURL string) (int, string) {
		body, _ := json.Marshal(map[string]string{"developerProvider": "zapier", "eventName": store.EventContactCreated, "hookUrl": hookURL, "workspaceId": e.ws})
		req := httptest.NewRequest(http.MethodPost, "/v1/integrations/developer/zapier/subscribe-webhook", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	strict := web.New(e.s, web.Config{ValidateHookURL: webhooks.NewGuard(nil).ValidateURL})
	for _, c := range refusedHosts {
		code, body := post(strict, "http://"+c.host+":8080/hook")
		var errs []store.FieldError
		_ = json.Unmarshal([]byte(body), &errs)
		if code != http.StatusBadRequest || len(errs) != 1 || errs[0].Field != "hookUrl" || errs[0].Message == "" {
			t.Errorf("%s (%s): %d %s, want 400 with one hookUrl error", c.name, c.host, code, body)
		}
	}
	code, body := post(strict, "http://no-such-host.invalid/hook")
	_, local := post(strict, "http://localhost:8080/hook")
	if code != http.StatusBadRequest || !strings.Contains(body, "not an allowed address") || body != local {
		t.Errorf("unresolvable host: %d %s; localhost: %s; want the same 400 saying not an allowed address", code, body, local)
	}
	if strings.Contains(local, "127.0.0.1") || strings.Contains(local, "loopback") {
		t.Errorf("the answer for localhost reveals what it resolves to: %s", local)
	}
	if subs, _ := e.s.Subscriptions(e.ws); len(subs) != 0 {
		t.Fatalf("refused subscribes stored %d subscriptions", len(subs))
	}
	// The allow-list opens loopback.
	open := web.New(e.s, web.Config{ValidateHookURL: webhooks.NewGuard(loopback(t)).ValidateURL})
	if code, body := post(open, "http://127.0.0.1:8080/hook"); code != http.StatusCreated {
		t.Fatalf("with 127.0.0.0/8 allowed: %d %s, want 201", code, body)
	}
}

// TestDialerRefusesAfterDNS delivers to subscriptions stored without the subscribe-time check
// (as a name that resolved to a public address then and to loopback now would be): the
// connection is refused after DNS and nothing reaches the receiver.
func TestDialerRefusesAfterDNS(t *testing.T) {
	e := newEnv(t, nil)
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) {})
	_, port, _ := net.SplitHostPort(rc.srv.Listener.Addr().String())
	v6, err := net.Listen("tcp", "[::1]:"+port) // so that [::1] would reach a server if dialled
	if err == nil {
		go http.Serve(v6, rc.srv.Config.Handler)
		defer v6.Close()
	}
	subs := map[string]string{}
	for _, c := range refusedHosts {
		sub := e.subscribe(t, store.EventContactCreated, "http://"+c.host+":"+port+"/hook")
		subs[sub.ID] = c.name
	}
	e.contact(t)
	e.start(t, webhooks.Options{Guard: webhooks.NewGuard(nil)})
	for subID, name := range subs {
		waitFor(t, name+" attempted", func() bool {
			ds, _ := e.s.SubscriptionDeliveries(subID, 0)
			return len(ds) == 1 && ds[0].Attempts == 1
		})
		ds, _ := e.s.SubscriptionDeliveries(subID, 0)
		atts, _ := e.s.DeliveryAttempts(ds[0].ID)
		if len(atts) != 1 || atts[0].StatusCode != 0 || !strings.Contains(atts[0].Error, "SSRF guard") {
			t.Errorf("%s: attempt = %+v, want refused by the SSRF guard", name, atts)
		}
	}
	if rc.count() != 0 {
		t.Fatalf("the receiver got %d requests through the guard", rc.count())
	}
}

// TestHookURLCheckedOnlyForMembers: the address check (which resolves host names) runs after
// the token and membership checks, so a caller without access learns nothing of what a name
// resolves to, and its failure joins the body's own failures in one 400 for a member.
func TestHookURLCheckedOnlyForMembers(t *testing.T) {
	e := newEnv(t, nil)
	_, member, err := e.s.CreateToken(e.user, "member")
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := e.s.CreateUser(store.NewUser{Email: "eve@example.com", Name: "Eve"})
	if err != nil {
		t.Fatal(err)
	}
	_, outsider, err := e.s.CreateToken(stranger.ID, "outsider")
	if err != nil {
		t.Fatal(err)
	}
	guard := webhooks.NewGuard(nil)
	var mu sync.Mutex
	var checked []string
	h := web.New(e.s, web.Config{ValidateHookURL: func(ctx context.Context, raw string) error {
		mu.Lock()
		checked = append(checked, raw)
		mu.Unlock()
		return guard.ValidateURL(ctx, raw)
	}})
	post := func(token, ws, event, hookURL string) (int, string) {
		body, _ := json.Marshal(map[string]string{"developerProvider": "zapier", "eventName": event, "hookUrl": hookURL, "workspaceId": ws})
		req := httptest.NewRequest(http.MethodPost, "/v1/integrations/developer/zapier/subscribe-webhook", strings.NewReader(string(body)))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	const internal = "http://localhost:8080/hook"
	for _, c := range []struct {
		name, token, ws string
		want            int
	}{
		{"no token", "", e.ws, http.StatusUnauthorized},
		{"unknown token", "sbp_nope", e.ws, http.StatusUnauthorized},
		{"not a member", outsider, e.ws, http.StatusForbidden},
		{"unknown workspace", member, "01JDX0000000000000000000AA", http.StatusNotFound},
		{"workspace id not a ULID", member, "../../etc", http.StatusNotFound},
	} {
		code, body := post(c.token, c.ws, store.EventContactCreated, internal)
		if code != c.want || strings.Contains(body, "allowed address") || strings.Contains(body, "127.0.0.1") {
			t.Errorf("%s: %d %s, want %d without a word on the hook URL", c.name, code, body, c.want)
		}
	}
	mu.Lock()
	if len(checked) != 0 {
		t.Fatalf("the hook URL was checked (resolved) for callers without access: %q", checked)
	}
	mu.Unlock()
	// A member with a bad event name and an internal URL hears of both at once.
	code, body := post(member, e.ws, "no.such.event", internal)
	var errs []store.FieldError
	_ = json.Unmarshal([]byte(body), &errs)
	if code != http.StatusBadRequest || len(errs) != 2 || errs[0].Field != "eventName" || errs[1].Field != "hookUrl" ||
		!strings.Contains(errs[1].Message, "not an allowed address") {
		t.Fatalf("member, bad event and internal URL: %d %s, want 400 on eventName and hookUrl", code, body)
	}
	if subs, _ := e.s.Subscriptions(e.ws); len(subs) != 0 {
		t.Fatalf("refused subscribes stored %d subscriptions", len(subs))
	}
}
