package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/internal/fakecarrier"
	"switchboard/internal/testutil"
)

// The carrier accounts connected in the browser, driven through the binary: the server talks to
// a fake Twilio and a fake Telnyx that answer as the real ones do and record every request.

const (
	connSID   = "AC0123456789abcdef0123456789abcdef"
	connToken = "connected-auth-token-never-in-clear-7d3f"
	connPhone = "+14155550177"
	publicURL = "https://sb.example.com"
)

// carrierServer starts serve on data with the carriers' APIs at the fakes and an https public URL.
func carrierServer(t *testing.T, data string, tw *fakecarrier.Twilio, tx *fakecarrier.Telnyx) *server {
	t.Helper()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	return startServer(t, addr, nil, "-addr", addr, "-data="+data, "-base-url", publicURL, "-log-requests=false",
		"-twilio-base-url", tw.URL(), "-twilio-pricing-url", tw.URL(), "-telnyx-base-url", tx.URL())
}

// anyScheme is a cookie jar that keeps Secure cookies over http too: the server's public URL is
// https, its test address plain http.
type anyScheme struct{ http.CookieJar }

func (j anyScheme) SetCookies(u *url.URL, cs []*http.Cookie) { j.CookieJar.SetCookies(asHTTPS(u), cs) }
func (j anyScheme) Cookies(u *url.URL) []*http.Cookie        { return j.CookieJar.Cookies(asHTTPS(u)) }

func asHTTPS(u *url.URL) *url.URL {
	v := *u
	v.Scheme = "https"
	return &v
}

// pageClient is a signed-in browser session of email over HTTP, not following redirects.
type pageClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func signInPages(t *testing.T, base, email, password string) *pageClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	p := &pageClient{t: t, base: base, c: &http.Client{Jar: anyScheme{jar}, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if code, _, loc := p.do("POST", "/login", url.Values{"email": {email}, "password": {password}}); code != http.StatusSeeOther || loc != "/" {
		t.Fatalf("sign in: %d to %q", code, loc)
	}
	return p
}

// do sends a page request (a form when form is not nil) and returns the status, body and Location.
func (p *pageClient) do(method, path string, form url.Values) (int, string, string) {
	p.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, p.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header.Get("Location")
}

// want fails unless the request answers status with every one of texts in its body.
func (p *pageClient) want(what, method, path string, form url.Values, status int, texts ...string) string {
	p.t.Helper()
	code, body, loc := p.do(method, path, form)
	if code != status {
		p.t.Fatalf("%s: %d (to %q), want %d; body:\n%.2000s", what, code, loc, status, body)
	}
	for _, s := range texts {
		if !strings.Contains(body+loc, s) {
			p.t.Fatalf("%s: no %q in\n%.3000s", what, s, body)
		}
	}
	return body
}

// TestServeConnectsTwilioInTheBrowser: a superuser connects Twilio through the pages of the
// running binary (refused credentials first); an admin adds a number of the account, which is
// wired at Twilio; the dispatcher sends and the callbacks verify with the connected account,
// without a restart; the database file and a backup hold no secret in clear; a restart keeps it.
func TestServeConnectsTwilioInTheBrowser(t *testing.T) {
	f := newFixture(t)
	tw := fakecarrier.NewTwilio(t, connSID, connToken)
	tx := fakecarrier.NewTelnyx(t, "KEY_unused_telnyx_key")
	own := tw.Own(fakecarrier.TwilioNumber{Phone: connPhone})
	srv := carrierServer(t, f.data, tw, tx)
	pages := signInPages(t, srv.base, "ana@example.com", "correct horse")

	pages.want("carriers page", "GET", "/admin/carriers", nil, http.StatusOK, "<h1>Carriers</h1>", "Not connected.")
	body := pages.want("wrong token", "POST", "/admin/carriers/twilio", url.Values{"accountSid": {connSID}, "authToken": {"wrong-token-0000"}},
		http.StatusUnprocessableEntity, "Twilio said: authentication failed")
	if strings.Contains(body, "wrong-token-0000") {
		t.Fatal("the page shows the typed token")
	}
	pages.want("connect", "POST", "/admin/carriers/twilio", url.Values{"accountSid": {connSID}, "authToken": {connToken}}, http.StatusSeeOther, "done=twilio")
	pages.want("connected", "GET", "/admin/carriers", nil, http.StatusOK, "ending in <code>7d3f</code>")

	pages.want("account numbers", "GET", "/settings/numbers/add?carrier=twilio", nil, http.StatusOK, "(415) 555-0177")
	pages.want("add", "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {own.SID}, "name": {"Front desk"}}, http.StatusSeeOther, "done=wired")
	pages.want("numbers page", "GET", "/settings/numbers?done=wired", nil, http.StatusOK, "Receiving: checked")
	if n, _ := tw.Number(connPhone); n.SMSURL != publicURL+"/carrier/twilio/sms" || n.StatusCallback != publicURL+"/carrier/twilio/status" {
		t.Fatalf("at Twilio: %+v", n)
	}

	// The running dispatcher sends with the connected account, and callbacks verify with it.
	sendMessage(t, srv.base, f, connPhone, "+14155550142", "Your cleaning is tomorrow at 9")
	waitSent(t, tw, 1)
	if got := tw.Sent()[0]; got.Get("From") != connPhone || got.Get("StatusCallback") != publicURL+"/carrier/twilio/status" {
		t.Fatalf("Twilio got %v", got)
	}
	inbound := url.Values{"MessageSid": {"SM00000000000000000000000000000abc"}, "AccountSid": {connSID}, "From": {"+14155550142"},
		"To": {connPhone}, "Body": {"See you then"}, "NumMedia": {"0"}}
	if code := signedCallback(t, srv.base, "/carrier/twilio/sms", inbound, connToken); code != http.StatusOK {
		t.Fatalf("inbound signed with the connected token: %d", code)
	}
	if code := signedCallback(t, srv.base, "/carrier/twilio/sms", inbound, "not-the-token"); code != http.StatusForbidden {
		t.Fatalf("inbound signed with another token: %d, want 403", code)
	}
	if m := pages.want("metrics", "GET", "/metrics", nil, http.StatusOK); !strings.Contains(m, "switchboard_number_miswired 0") {
		t.Fatal("/metrics lacks switchboard_number_miswired")
	}

	// The secret is in neither the database file nor a backup; the key file is the owner's.
	backup := filepath.Join(t.TempDir(), "backup.db")
	ok(t, "backup", "-data", f.data, backup)
	for _, p := range []string{dbPath(f.data), backup} {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(connToken)) {
			t.Fatalf("%s holds the auth token in clear", p)
		}
		if !bytes.Contains(raw, []byte(connSID)) {
			t.Fatalf("%s lacks the connected account: the check reads the wrong file", p)
		}
	}
	if info, err := os.Stat(carrierKeyPath(f.data)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("carrier.key: %v", err)
	}

	// A restart keeps the connection.
	if code := srv.stop(t); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	srv = carrierServer(t, f.data, tw, tx)
	pages = signInPages(t, srv.base, "ana@example.com", "correct horse")
	pages.want("after a restart", "GET", "/admin/carriers", nil, http.StatusOK, "ending in <code>7d3f</code>")
	sendMessage(t, srv.base, f, connPhone, "+14155550142", "Running late")
	waitSent(t, tw, 2)
}

// TestServeRefusesHalfWiring: without a public https URL nothing is wired; a Twilio answering
// 500 or garbage leaves the number as it was and stores nothing.
func TestServeRefusesHalfWiring(t *testing.T) {
	f := newFixture(t)
	tw := fakecarrier.NewTwilio(t, connSID, connToken)
	own := tw.Own(fakecarrier.TwilioNumber{Phone: connPhone, SMSURL: "https://demo.twilio.com/welcome/sms/reply"})
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, []string{"SWITCHBOARD_TWILIO_BASE_URL=" + tw.URL(), "SWITCHBOARD_TWILIO_PRICING_URL=" + tw.URL()},
		"-addr", addr, "-data="+f.data, "-log-requests=false")
	pages := signInPages(t, srv.base, "ana@example.com", "correct horse")
	pages.want("connect", "POST", "/admin/carriers/twilio", url.Values{"accountSid": {connSID}, "authToken": {connToken}}, http.StatusSeeOther)
	pages.want("carriers page warns", "GET", "/admin/carriers", nil, http.StatusOK, "Switchboard has no public address yet")
	pages.want("add without -base-url", "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {own.SID}},
		http.StatusUnprocessableEntity, "no public address yet", "-base-url")
	if tw.Count("POST", own.SID+".json") != 0 {
		t.Fatal("a number was changed without a public URL")
	}
	srv.stop(t)

	srv = carrierServer(t, f.data, tw, fakecarrier.NewTelnyx(t, "KEY_x_unused_1"))
	pages = signInPages(t, srv.base, "ana@example.com", "correct horse")
	tw.Fail("update", fakecarrier.Fault{Status: 500, Body: `{"code":20500,"message":"Internal Server Error","more_info":"https://www.twilio.com/docs/errors/20500","status":500}`})
	pages.want("500", "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {own.SID}}, http.StatusBadGateway, "Twilio had a problem (HTTP 500)")
	tw.Fail("number", fakecarrier.Fault{Status: 200, Body: `{"sid": 42, "phone_number": [}`})
	pages.want("garbage", "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {own.SID}}, http.StatusBadGateway, "could not be read")
	if n, _ := tw.Number(connPhone); n.SMSURL != "https://demo.twilio.com/welcome/sms/reply" {
		t.Fatalf("the number was left changed: %+v", n)
	}
	if body := pages.want("numbers page", "GET", "/settings/numbers", nil, http.StatusOK); strings.Contains(body, "(415) 555-0177") {
		t.Fatal("the number was stored")
	}
}

// waitSent waits until the fake Twilio accepted n sends.
func waitSent(t *testing.T, tw *fakecarrier.Twilio, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(tw.Sent()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("Twilio got %d sends, want %d", len(tw.Sent()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signedCallback posts form to path as Twilio does, signed with token for the public URL.
func signedCallback(t *testing.T, base, path string, form url.Values, token string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", carrier.TwilioSignature(token, publicURL+path, form))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestServeConnectsTelnyxInTheBrowser: Telnyx connected in the browser; a number added is put
// in a messaging profile posting to Switchboard; the dispatcher sends through Telnyx and the
// webhooks are verified with the connected public key, without a restart.
func TestServeConnectsTelnyxInTheBrowser(t *testing.T) {
	f := newFixture(t)
	key := testutil.NewTelnyxKey(t)
	tw := fakecarrier.NewTwilio(t, connSID, connToken)
	tx := fakecarrier.NewTelnyx(t, "KEY01_connected_telnyx_key_9b2a")
	own := tx.Own(fakecarrier.TelnyxNumber{Phone: "+14155550188"})
	srv := carrierServer(t, f.data, tw, tx)
	pages := signInPages(t, srv.base, "ana@example.com", "correct horse")
	pages.want("connect Telnyx", "POST", "/admin/carriers/telnyx", url.Values{"apiKey": {"KEY01_connected_telnyx_key_9b2a"}, "publicKey": {key.PublicBase64()}},
		http.StatusSeeOther, "done=telnyx")
	pages.want("add", "POST", "/settings/numbers/add", url.Values{"carrier": {"telnyx"}, "id": {own.ID}}, http.StatusSeeOther, "done=wired")
	if _, hook, _ := tx.Number("+14155550188"); hook != publicURL+"/carrier/telnyx/webhook" {
		t.Fatalf("the number's profile posts to %q", hook)
	}
	sendMessage(t, srv.base, f, "+14155550188", "+14155550142", "Your crown is ready")
	deadline := time.Now().Add(10 * time.Second)
	for len(tx.Sent()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("Telnyx got no send")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A receipt for a message Switchboard does not know is answered 200 once its signature holds.
	receipt := `{"data":{"event_type":"message.finalized","payload":{"id":"40385f64-0000","to":[{"phone_number":"+14155550142","status":"delivered"}]}}}`
	for name, signer := range map[string]testutil.TelnyxKey{"another key": testutil.NewTelnyxKey(t), "the connected key": key} {
		req, _ := http.NewRequest(http.MethodPost, srv.base+"/carrier/telnyx/webhook", strings.NewReader(receipt))
		for k, v := range signer.Headers(time.Now(), []byte(receipt)) {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if want := map[bool]int{true: 200, false: 403}[name == "the connected key"]; res.StatusCode != want {
			t.Fatalf("a webhook signed with %s: %d, want %d", name, res.StatusCode, want)
		}
	}
}
