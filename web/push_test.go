package web

import (
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"switchboard/internal/testutil"
	"switchboard/oauth"
	"switchboard/push"
	"switchboard/store"
	"switchboard/webhooks"
)

// newPushEnv is newUIEnv with Web Push on (a VAPID key; endpoints checked with the webhooks'
// rules, 127.0.0.0/8 allowed as -hook-allow-cidrs would) and the repository's static files.
func newPushEnv(t *testing.T) (*uiEnv, *push.Key) {
	t.Helper()
	e := newUIEnv(t)
	key, err := push.NewKey()
	testutil.NoErr(t, err)
	_, lo, _ := net.ParseCIDR("127.0.0.0/8")
	prov, err := oauth.New(e.st, oauth.Config{Session: e.sess})
	testutil.NoErr(t, err)
	e.srv.Close()
	e.srv = httptest.NewServer(New(e.st, Config{Sessions: e.sess, OAuth: prov, Static: os.DirFS(".."),
		PushKey: key.PublicKey(), CheckPushEndpoint: push.NewGuard(webhooks.NewGuard([]*net.IPNet{lo})).Check}))
	t.Cleanup(e.srv.Close)
	return e, key
}

// postJSON sends body as JSON with the headers a same-origin fetch carries.
func (e *uiEnv) postJSON(t *testing.T, c *http.Client, method, path, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	testutil.NoErr(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	testutil.NoErr(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func subscription(endpoint, p256dh, auth string) string {
	return `{"endpoint":"` + endpoint + `","expirationTime":null,"keys":{"p256dh":"` + p256dh + `","auth":"` + auth + `"}}`
}

func (e *uiEnv) devices(t *testing.T, u store.User) []store.PushSubscription {
	t.Helper()
	subs, err := e.st.UserPushSubscriptions(u.ID)
	testutil.NoErr(t, err)
	return subs
}

func TestPushKeyIsThePublicPoint(t *testing.T) {
	e, key := newPushEnv(t)
	res, body := e.send(t, e.browser(t), "GET", "/push/key", nil)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") || body != key.PublicKey() {
		t.Fatalf("GET /push/key: %d %q %q", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(raw) != 65 || raw[0] != 4 {
		t.Fatalf("the key is not an uncompressed P-256 point in base64url: %d bytes, %v", len(raw), err)
	}
}

// Bad subscriptions are 400s that say what is wrong, and store nothing.
func TestPushSubscribeRefusesBadInput(t *testing.T) {
	e, _ := newPushEnv(t)
	ps := testutil.StartPushService(t)
	dev := ps.NewDevice()
	var good struct {
		Endpoint string
		Keys     struct{ P256dh, Auth string }
	}
	testutil.NoErr(t, json.Unmarshal([]byte(dev.JSON()), &good))
	res, _ := e.postJSON(t, e.browser(t), "POST", "/push/subscriptions", dev.JSON())
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("signed out: %d, want 401", res.StatusCode)
	}
	c := e.signIn(t, e.alice)
	cases := []struct{ name, body, field, words string }{
		{"plain http on a public host", subscription("http://8.8.8.8/push/x", good.Keys.P256dh, good.Keys.Auth), "endpoint", "https"},
		{"a loopback host outside -hook-allow-cidrs", subscription("https://[::1]/push/x", good.Keys.P256dh, good.Keys.Auth), "endpoint", "not an allowed address"},
		{"a private host", subscription("https://192.168.1.10/push/x", good.Keys.P256dh, good.Keys.Auth), "endpoint", "not an allowed address"},
		{"cloud metadata", subscription("https://169.254.169.254/latest", good.Keys.P256dh, good.Keys.Auth), "endpoint", "not an allowed address"},
		{"a short public key", subscription(good.Endpoint, good.Keys.P256dh[:43], good.Keys.Auth), "keys.p256dh", "65 bytes"},
		{"a long auth secret", subscription(good.Endpoint, good.Keys.P256dh, good.Keys.Auth+"AAAA"), "keys.auth", "16 bytes"},
		{"not JSON", "endpoint=" + good.Endpoint, "body", "PushSubscription"},
	}
	for _, tc := range cases {
		res, body := e.postJSON(t, c, "POST", "/push/subscriptions", tc.body)
		var errs store.ValidationError
		_ = json.Unmarshal([]byte(body), &errs)
		if res.StatusCode != 400 || len(errs) != 1 || errs[0].Field != tc.field || !strings.Contains(errs[0].Message, tc.words) {
			t.Errorf("%s: %d %s; want 400 on %s saying %q", tc.name, res.StatusCode, body, tc.field, tc.words)
		}
	}
	// A post from another site is refused by the forms' cross-origin protection.
	res, _ = e.postJSON(t, c, "POST", "/push/subscriptions", dev.JSON(), "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site post: %d, want 403", res.StatusCode)
	}
	if n := len(e.devices(t, e.alice)); n != 0 {
		t.Fatalf("refused subscriptions stored %d devices", n)
	}
	// Ten devices; the eleventh is refused.
	for i := range store.MaxPushDevices {
		res, body := e.postJSON(t, c, "POST", "/push/subscriptions", ps.NewDevice().JSON())
		if res.StatusCode != http.StatusCreated || !strings.Contains(body, `"id"`) {
			t.Fatalf("device %d: %d %s", i+1, res.StatusCode, body)
		}
	}
	res, body := e.postJSON(t, c, "POST", "/push/subscriptions", ps.NewDevice().JSON())
	if res.StatusCode != 400 || !strings.Contains(body, "10 devices") {
		t.Fatalf("the eleventh device: %d %s", res.StatusCode, body)
	}
	if n := len(e.devices(t, e.alice)); n != store.MaxPushDevices {
		t.Fatalf("%d devices after the eleventh was refused", n)
	}
}

// The profile lists the devices with Remove; Remove, turning it off on the device, and signing
// out each end a subscription.
func TestPushDevicesOnTheProfile(t *testing.T) {
	e, _ := newPushEnv(t)
	ps := testutil.StartPushService(t)
	c := e.signIn(t, e.alice)
	res, page := e.send(t, c, "GET", "/settings/profile", nil)
	wantStatus(t, "the profile", res, page, 200, `<label for="push-toggle">Notifications on this device</label>`,
		`<label for="notify-text">Show message text in notifications</label>`, `data-testid="devices-empty"`, "/static/push.js?v=")
	if strings.Contains(page, `data-testid="ios-install"`) {
		t.Fatal("a desktop browser is told how to add the app to an iPhone's Home Screen")
	}
	one, two := ps.NewDevice(), ps.NewDevice()
	for _, d := range []*testutil.PushDevice{one, two} {
		if res, body := e.postJSON(t, c, "POST", "/push/subscriptions", d.JSON(), "User-Agent", "Mozilla/5.0 (Linux; Android 14) Chrome/126.0"); res.StatusCode != 201 {
			t.Fatalf("subscribe: %d %s", res.StatusCode, body)
		}
	}
	res, page = e.send(t, c, "GET", "/settings/profile", nil)
	wantStatus(t, "the profile with devices", res, page, 200, `data-testid="devices-list"`, "Chrome on Android", "(this browser)", ">Remove</button>")
	if n := strings.Count(page, `data-testid="device-row"`); n != 2 {
		t.Fatalf("the profile lists %d devices, want 2", n)
	}
	// Remove on the profile.
	first := e.devices(t, e.alice)[0]
	res, _ = e.send(t, c, "POST", "/settings/profile/devices/"+first.ID+"/remove", url.Values{})
	wantRedirect(t, res, "/settings/profile?done=device-removed")
	// Another user's device is not theirs to remove.
	mo := e.signIn(t, e.mo)
	second := e.devices(t, e.alice)[0]
	res, _ = e.send(t, mo, "POST", "/settings/profile/devices/"+second.ID+"/remove", url.Values{})
	if res.StatusCode != http.StatusNotFound || len(e.devices(t, e.alice)) != 1 {
		t.Fatalf("Mo removing Alice's device: %d, Alice has %d devices", res.StatusCode, len(e.devices(t, e.alice)))
	}
	// The device turns notifications off itself.
	if res, body := e.postJSON(t, c, "DELETE", "/push/subscriptions", `{"endpoint":"`+second.Endpoint+`"}`); res.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE /push/subscriptions: %d %s", res.StatusCode, body)
	}
	if n := len(e.devices(t, e.alice)); n != 0 {
		t.Fatalf("%d devices after Remove and the device's own unsubscribe", n)
	}
	// Signing out ends the session's subscriptions.
	if res, _ := e.postJSON(t, c, "POST", "/push/subscriptions", one.JSON()); res.StatusCode != 201 {
		t.Fatal("subscribing again failed")
	}
	res, _ = e.send(t, c, "POST", "/logout", url.Values{})
	if res.StatusCode != http.StatusSeeOther || len(e.devices(t, e.alice)) != 0 {
		t.Fatalf("sign-out: %d; Alice still has %d devices", res.StatusCode, len(e.devices(t, e.alice)))
	}
	// On an iPhone the profile says how to add the app to the Home Screen.
	iphone := "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	c = e.signIn(t, e.alice)
	res, page = e.send(t, c, "GET", "/settings/profile", nil, "User-Agent", iphone)
	wantStatus(t, "the profile on an iPhone", res, page, 200, `data-testid="ios-install"`, "Add to Home Screen", "iOS 16.4")
}

func TestShowMessageTextIsSaved(t *testing.T) {
	e, _ := newPushEnv(t)
	c := e.signIn(t, e.alice)
	res, _ := e.send(t, c, "POST", "/settings/profile/notifications", url.Values{"inbound": {"mine"}})
	wantRedirect(t, res, "/settings/profile?done=notifications")
	if p, _ := e.st.NotificationPrefs(e.alice.ID); !p.HideText {
		t.Fatal("unchecking \"Show message text in notifications\" did not hide texts")
	}
	_, page := e.send(t, c, "GET", "/settings/profile", nil)
	if strings.Contains(page, `id="notify-text" name="show_text" value="on" checked`) {
		t.Fatal("the box shows checked after it was saved unchecked")
	}
	e.send(t, c, "POST", "/settings/profile/notifications", url.Values{"inbound": {"mine"}, "show_text": {"on"}})
	if p, _ := e.st.NotificationPrefs(e.alice.ID); p.HideText {
		t.Fatal("checking it again did not show texts")
	}
}

// The installable app's files: the manifest with every field of §22, icons that are real PNGs
// of their sizes, the worker with its headers and this build's versioned files, the offline page,
// and the manifest and Home Screen tags on signed-out and signed-in pages alike.
func TestInstallableAppFiles(t *testing.T) {
	e, _ := newPushEnv(t)
	b := e.browser(t)
	res, body := e.send(t, b, "GET", "/manifest.webmanifest", nil)
	if res.Header.Get("Content-Type") != "application/manifest+json" {
		t.Fatalf("manifest Content-Type %q", res.Header.Get("Content-Type"))
	}
	var m struct {
		ID              string `json:"id"`
		Name            string `json:"name"`
		ShortName       string `json:"short_name"`
		StartURL        string `json:"start_url"`
		Scope           string `json:"scope"`
		Display         string `json:"display"`
		ThemeColor      string `json:"theme_color"`
		BackgroundColor string `json:"background_color"`
		Icons           []struct{ Src, Sizes, Type, Purpose string }
	}
	testutil.NoErr(t, json.Unmarshal([]byte(body), &m))
	if m.ID == "" || m.Name != "Switchboard" || m.ShortName == "" || m.StartURL != "/inbox" || m.Scope != "/" ||
		m.Display != "standalone" || m.ThemeColor == "" || m.BackgroundColor == "" {
		t.Fatalf("manifest %+v", m)
	}
	sizes, maskable := map[string]bool{}, false
	for _, ic := range m.Icons {
		res, data := e.send(t, b, "GET", ic.Src, nil)
		img, err := png.DecodeConfig(strings.NewReader(data))
		if res.StatusCode != 200 || err != nil || ic.Sizes != strconv.Itoa(img.Width)+"x"+strconv.Itoa(img.Height) {
			t.Fatalf("icon %s (%s): %d, %v, %dx%d", ic.Src, ic.Sizes, res.StatusCode, err, img.Width, img.Height)
		}
		sizes[ic.Sizes] = true
		maskable = maskable || ic.Purpose == "maskable"
	}
	if !sizes["192x192"] || !sizes["512x512"] || !maskable {
		t.Fatalf("icons %+v: want 192 and 512, one maskable", m.Icons)
	}
	res, body = e.send(t, b, "GET", "/sw.js", nil)
	if res.Header.Get("Cache-Control") != "no-cache" || !strings.Contains(res.Header.Get("Content-Type"), "javascript") ||
		strings.Contains(body, "__VERSION__") || strings.Contains(body, "__PRECACHE__") || !strings.Contains(body, `"/offline"`) {
		t.Fatalf("/sw.js: %q %q\n%.300s", res.Header.Get("Cache-Control"), res.Header.Get("Content-Type"), body)
	}
	files, err := newPWAFiles(os.DirFS(".."))
	testutil.NoErr(t, err)
	version := files.version
	if !strings.Contains(body, `"/static/app.css?v=`+version+`"`) {
		t.Fatalf("/sw.js does not precache this build's versioned files (%s)", version)
	}
	res, body = e.send(t, b, "GET", "/offline", nil)
	wantStatus(t, "/offline", res, body, 200, "You are offline: new messages appear when you reconnect")
	head := []string{`<link rel="manifest" href="/manifest.webmanifest">`, `<link rel="apple-touch-icon"`,
		`<meta name="apple-mobile-web-app-capable" content="yes">`, `<meta name="apple-mobile-web-app-title"`,
		`/static/pwa.js?v=` + version, `/static/app.css?v=` + version}
	res, body = e.send(t, b, "GET", "/login", nil)
	wantStatus(t, "/login", res, body, 200, head...)
	res, body = e.send(t, e.signIn(t, e.alice), "GET", "/inbox", nil)
	wantStatus(t, "/inbox", res, body, 200, head...)
}

// A new build's static files make a new asset version: its worker has a cache of its own and
// precaches its own versioned files, so it takes over without an older build's files.
func TestNewBuildNewWorkerCache(t *testing.T) {
	worker := []byte(`const VERSION = "__VERSION__"; const PRECACHE = ["__PRECACHE__"];`)
	build := func(css string) pwaFiles {
		p, err := newPWAFiles(fstest.MapFS{"static/service-worker.js": {Data: worker}, "static/app.css": {Data: []byte(css)}})
		testutil.NoErr(t, err)
		return p
	}
	old, next := build("body{}"), build("body{color:red}")
	if old.version == next.version || len(old.version) != 12 {
		t.Fatalf("versions %q and %q: want two different 12-digit versions", old.version, next.version)
	}
	for _, p := range []pwaFiles{old, next} {
		w := string(p.worker)
		if !strings.Contains(w, `const VERSION = "`+p.version+`"`) || !strings.Contains(w, `"/static/app.css?v=`+p.version+`"`) || !strings.Contains(w, `"/offline"`) {
			t.Fatalf("worker %s", w)
		}
	}
}
