package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/carrier"
	"switchboard/internal/fakecarrier"
	"switchboard/internal/testutil"
	"switchboard/store"
)

const (
	cTwilioSID   = "AC0123456789abcdef0123456789abcdef"
	cTwilioToken = "tw-token-for-the-ui-0123456789-c0de"
	cTelnyxKey   = "KEY01_telnyx_ui_key_secret_77ab"
	cPublicURL   = "https://sb.example.com"
)

// carrierUIEnv is uiEnv served with carrier accounts over the fake carriers.
type carrierUIEnv struct {
	*uiEnv
	twilio   *fakecarrier.Twilio
	telnyx   *fakecarrier.Telnyx
	accounts *carrier.Accounts
}

// newCarrierUIEnv serves e's store with Accounts (edit changes their configuration) and a
// metrics registry.
func newCarrierUIEnv(t *testing.T, edit func(*carrier.AccountsConfig)) *carrierUIEnv {
	t.Helper()
	e := &carrierUIEnv{uiEnv: newUIEnv(t)}
	e.twilio = fakecarrier.NewTwilio(t, cTwilioSID, cTwilioToken)
	e.telnyx = fakecarrier.NewTelnyx(t, cTelnyxKey)
	cfg := carrier.AccountsConfig{KeyFile: filepath.Join(t.TempDir(), "carrier.key"), TwilioBaseURL: e.twilio.URL(),
		TwilioPricingURL: e.twilio.URL(), TelnyxBaseURL: e.telnyx.URL(), PublicURL: cPublicURL, PublicURLSet: true, Timeout: 2 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	var err error
	if e.accounts, err = carrier.NewAccounts(e.st, cfg); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	e.srv.Close()
	e.srv = httptest.NewServer(New(e.st, Config{Sessions: e.sess, Receiver: carrier.NewReceiver(e.st, carrier.NewMetrics(reg, e.st)),
		Accounts: e.accounts, BaseURL: cPublicURL, Registry: reg}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *carrierUIEnv) connectTwilio(t *testing.T) {
	t.Helper()
	su := e.signIn(t, e.superuser(t))
	res, body := e.send(t, su, "POST", "/admin/carriers/twilio", url.Values{"accountSid": {cTwilioSID}, "authToken": {cTwilioToken}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("connect Twilio: %d %s", res.StatusCode, body)
	}
}

// TestUIConnectCarrier: only superusers open /admin/carriers; credentials Twilio refuses give
// its words and keep nothing; accepted ones show by their last four characters only; the flags
// say when they win.
func TestUIConnectCarrier(t *testing.T) {
	e := newCarrierUIEnv(t, nil)
	alice := e.signIn(t, e.alice)
	res, _ := e.send(t, alice, "GET", "/admin/carriers", nil)
	wantStatus(t, "an admin of a workspace", res, "", http.StatusForbidden)
	su := e.signIn(t, e.superuser(t))
	res, body := e.send(t, su, "GET", "/admin/carriers", nil)
	wantStatus(t, "carriers page", res, body, http.StatusOK, "<h1>Carriers</h1>", `<label for="tw-sid">Account SID</label>`,
		`<label for="tw-token">Auth Token</label>`, `<label for="tx-key">API key</label>`, `<label for="tx-public">Public key</label>`, "Not connected.")

	res, body = e.send(t, su, "POST", "/admin/carriers/twilio", url.Values{"accountSid": {cTwilioSID}, "authToken": {"not-the-token-1234"}})
	wantStatus(t, "wrong token", res, body, http.StatusUnprocessableEntity, `role="alert"`, "Twilio said: authentication failed")
	if strings.Contains(body, "not-the-token-1234") {
		t.Fatal("the page shows the typed token back")
	}
	res, body = e.send(t, su, "POST", "/admin/carriers/twilio", url.Values{"accountSid": {"AC1"}, "authToken": {cTwilioToken}})
	wantStatus(t, "malformed SID", res, body, http.StatusUnprocessableEntity, "Must be the Account SID")

	res, _ = e.send(t, su, "POST", "/admin/carriers/twilio", url.Values{"accountSid": {cTwilioSID}, "authToken": {cTwilioToken}})
	wantRedirect(t, res, "/admin/carriers?done=twilio")
	res, body = e.send(t, su, "GET", "/admin/carriers?done=twilio", nil)
	wantStatus(t, "connected", res, body, http.StatusOK, `role="status"`, "Twilio connected", "ending in <code>c0de</code>", cTwilioSID)
	if strings.Contains(body, cTwilioToken) {
		t.Fatal("the page shows the auth token")
	}

	key := testutil.NewTelnyxKey(t)
	res, body = e.send(t, su, "POST", "/admin/carriers/telnyx", url.Values{"apiKey": {"KEY_wrong_wrong"}, "publicKey": {key.PublicBase64()}})
	wantStatus(t, "wrong Telnyx key", res, body, http.StatusUnprocessableEntity, "Telnyx said: authentication failed")
	res, _ = e.send(t, su, "POST", "/admin/carriers/telnyx", url.Values{"apiKey": {cTelnyxKey}, "publicKey": {key.PublicBase64()}})
	wantRedirect(t, res, "/admin/carriers?done=telnyx")

	// A number on Twilio keeps its account connected.
	if _, err := e.st.CreateNumber(e.a.ID, store.NumberInput{Phone: "+14155550177", Carrier: store.ProviderTwilio}); err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, su, "POST", "/admin/carriers/twilio/disconnect", url.Values{})
	wantStatus(t, "disconnect with numbers", res, body, http.StatusConflict, "1 numbers use Twilio")
	res, _ = e.send(t, su, "POST", "/admin/carriers/telnyx/disconnect", url.Values{})
	wantRedirect(t, res, "/admin/carriers?done=disconnected-telnyx")

	flags := newCarrierUIEnv(t, func(c *carrier.AccountsConfig) {
		c.Twilio = carrier.TwilioAccount{AccountSID: cTwilioSID, AuthToken: cTwilioToken}
	})
	res, body = flags.send(t, flags.signIn(t, flags.superuser(t)), "GET", "/admin/carriers", nil)
	wantStatus(t, "flags", res, body, http.StatusOK, "This server runs with -twilio-account-sid and -twilio-auth-token")
}

// TestUICallbacksUseTheConnectedAccount: once Twilio is connected in the browser, its callbacks
// are verified with the connected auth token, without a restart.
func TestUICallbacksUseTheConnectedAccount(t *testing.T) {
	e := newCarrierUIEnv(t, nil)
	if _, err := e.st.CreateNumber(e.a.ID, store.NumberInput{Phone: "+14155550177", Carrier: store.ProviderTwilio}); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"MessageSid": {"SM0001aaaabbbbccccddddeeeeffff0001"}, "From": {"+14155550142"}, "To": {"+14155550177"}, "Body": {"hello"}}
	post := func() int {
		req, _ := http.NewRequest("POST", e.srv.URL+"/carrier/twilio/sms", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Twilio-Signature", carrier.TwilioSignature(cTwilioToken, cPublicURL+"/carrier/twilio/sms", form))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := post(); got != http.StatusForbidden {
		t.Fatalf("a callback before any account: %d, want 403", got)
	}
	e.connectTwilio(t)
	if got := post(); got != http.StatusOK {
		t.Fatalf("a callback signed with the connected token: %d, want 200", got)
	}
}
