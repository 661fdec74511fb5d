package carrier_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/internal/fakecarrier"
	"switchboard/internal/testutil"
	"switchboard/store"
)

const (
	acctSID   = "AC0123456789abcdef0123456789abcdef"
	authToken = "tw-auth-token-0123456789-secret-9f3e"
	keySID    = "SK0123456789abcdef0123456789abcdef"
	keySecret = "tw-api-key-secret-abcdefghij-77aa"
	txKey     = "KEY017A1B2C3D_telnyx_api_key_secret_5d6e"
	publicURL = "https://sb.example.com"
)

// acctEnv is a store in a data directory, with a workspace, the fake carriers and Accounts over
// them.
type acctEnv struct {
	dir    string
	st     *store.Store
	ws     store.Workspace
	twilio *fakecarrier.Twilio
	telnyx *fakecarrier.Telnyx
	key    testutil.TelnyxKey
	cfg    carrier.AccountsConfig
	a      *carrier.Accounts
}

func newAcctEnv(t *testing.T, edit func(*carrier.AccountsConfig)) *acctEnv {
	t.Helper()
	e := &acctEnv{dir: t.TempDir(), key: testutil.NewTelnyxKey(t)}
	e.st = openStore(t, filepath.Join(e.dir, "switchboard.db"))
	t.Cleanup(func() { e.st.Close() })
	var err error
	if e.ws, err = e.st.CreateWorkspace("Acme Dental"); err != nil {
		t.Fatal(err)
	}
	e.twilio = fakecarrier.NewTwilio(t, acctSID, authToken)
	e.telnyx = fakecarrier.NewTelnyx(t, txKey)
	e.cfg = carrier.AccountsConfig{KeyFile: filepath.Join(e.dir, "carrier.key"), TwilioBaseURL: e.twilio.URL(),
		TwilioPricingURL: e.twilio.URL(), TelnyxBaseURL: e.telnyx.URL(), PublicURL: publicURL, PublicURLSet: true,
		Timeout: 2 * time.Second}
	if edit != nil {
		edit(&e.cfg)
	}
	e.a = newAccounts(t, e.st, e.cfg)
	return e
}

// reopen builds Accounts again over the same store and key file, as a restart does.
func (e *acctEnv) reopen(t *testing.T) *carrier.Accounts {
	t.Helper()
	return newAccounts(t, e.st, e.cfg)
}

func (e *acctEnv) connectTwilio(t *testing.T) {
	t.Helper()
	testutil.NoErr(t, e.a.ConnectTwilio(context.Background(), carrier.TwilioCredentials{AccountSID: acctSID, AuthToken: authToken}, "u1"))
}

func (e *acctEnv) connectTelnyx(t *testing.T) {
	t.Helper()
	testutil.NoErr(t, e.a.ConnectTelnyx(context.Background(), carrier.TelnyxCredentials{APIKey: txKey, PublicKey: e.key.PublicBase64()}, "u1"))
}

// TestConnectTwilioChecksThenSealsAndKeeps: wrong credentials are refused with what Twilio said
// and nothing is kept; right ones are kept sealed — the database holds no secret in clear, the
// key file is the owner's alone — shown by their last four characters, and survive a restart.
func TestConnectTwilioChecksThenSealsAndKeeps(t *testing.T) {
	e := newAcctEnv(t, nil)
	ctx := context.Background()

	err := e.a.ConnectTwilio(ctx, carrier.TwilioCredentials{AccountSID: acctSID, AuthToken: "wrong-token-123456"}, "u1")
	if err == nil || !strings.HasPrefix(err.Error(), "Twilio said: authentication failed") || !carrier.IsKind(err, carrier.KindAuth) {
		t.Fatalf("wrong token: %v, want Twilio said: authentication failed…", err)
	}
	if strings.Contains(err.Error(), "wrong-token") {
		t.Fatalf("the error shows the token: %v", err)
	}
	if _, ok, _ := e.st.CarrierAccountOf(store.ProviderTwilio); ok {
		t.Fatal("refused credentials were kept")
	}
	if _, ok := e.a.Twilio(); ok {
		t.Fatal("refused credentials are in use")
	}
	if _, err := os.Stat(e.cfg.KeyFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the key file was made before anything needed it: %v", err)
	}

	var verrs store.ValidationError
	err = e.a.ConnectTwilio(ctx, carrier.TwilioCredentials{AccountSID: "AC12", AuthToken: "has space inside"}, "u1")
	if !errors.As(err, &verrs) || len(verrs) != 2 || e.twilio.Count("GET", ".json") != 1 {
		t.Fatalf("malformed fields: %v (calls to Twilio: %d), want two field errors and no new call", err, e.twilio.Count("GET", ".json"))
	}

	e.connectTwilio(t)
	got, ok := e.a.Twilio()
	if !ok || got.AccountSID != acctSID || got.AuthToken != authToken {
		t.Fatalf("in use after connecting: %+v %v", got, ok)
	}
	if e.a.TwilioAuthToken() != authToken {
		t.Fatal("callbacks are not verified with the connected token")
	}
	st := status(t, e.a, store.ProviderTwilio)
	if st.Source != carrier.SourceConnected || st.Last4 != "9f3e" || st.AccountSID != acctSID || st.FlagsSet {
		t.Fatalf("status %+v", st)
	}
	info, err := os.Stat(e.cfg.KeyFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v mode %v, want 0600", err, info.Mode().Perm())
	}
	e.st.Close()
	raw, err := os.ReadFile(filepath.Join(e.dir, "switchboard.db"))
	testutil.NoErr(t, err)
	if bytes.Contains(raw, []byte(authToken)) {
		t.Fatal("the database holds the auth token in clear")
	}
	e.st = openStore(t, filepath.Join(e.dir, "switchboard.db"))

	// A restart keeps the connection; without the key file it cannot be opened, and says so.
	again := e.reopen(t)
	if got, ok := again.Twilio(); !ok || got.AuthToken != authToken {
		t.Fatalf("after a restart: %+v %v", got, ok)
	}
	testutil.NoErr(t, os.Rename(e.cfg.KeyFile, e.cfg.KeyFile+".away"))
	lost := e.reopen(t)
	if _, ok := lost.Twilio(); ok {
		t.Fatal("an account whose key file is gone is in use")
	}
	if st := status(t, lost, store.ProviderTwilio); !st.Connected || !strings.Contains(st.Problem, "carrier.key") {
		t.Fatalf("status without the key file: %+v", st)
	}
}

// TestConnectTwilioAPIKey: with an API key, API calls are signed with the key and the Auth
// Token, which verifies callbacks, is proved too; the key's secret is what is shown.
func TestConnectTwilioAPIKey(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.twilio.APIKeySID, e.twilio.APIKeySecret = keySID, keySecret
	err := e.a.ConnectTwilio(context.Background(), carrier.TwilioCredentials{AccountSID: acctSID, AuthToken: authToken, APIKeySID: keySID, APIKeySecret: "not-the-secret-1234"}, "u1")
	if !carrier.IsKind(err, carrier.KindAuth) {
		t.Fatalf("wrong key secret: %v", err)
	}
	testutil.NoErr(t, e.a.ConnectTwilio(context.Background(), carrier.TwilioCredentials{AccountSID: acctSID, AuthToken: authToken, APIKeySID: keySID, APIKeySecret: keySecret}, "u1"))
	users := map[string]bool{}
	for _, r := range e.twilio.Requests() {
		if r.OK {
			users[r.User] = true
		}
	}
	if !users[keySID] || !users[acctSID] {
		t.Fatalf("accepted calls signed by %v, want both the API key and the account", users)
	}
	st := status(t, e.a, store.ProviderTwilio)
	if st.Last4 != "77aa" || st.APIKeySID != keySID {
		t.Fatalf("status %+v, want the key's secret's last four", st)
	}
	// The account's API calls now go with the key.
	before := len(e.twilio.Requests())
	if _, err := e.a.AccountNumbers(context.Background(), store.ProviderTwilio, ""); err != nil {
		t.Fatal(err)
	}
	if r := e.twilio.Requests()[before]; r.User != keySID || !r.OK {
		t.Fatalf("listing numbers was signed by %q", r.User)
	}
}

// TestConnectTelnyx: the API key is checked against the balance, the public key's form locally;
// the connected account verifies webhooks.
func TestConnectTelnyx(t *testing.T) {
	e := newAcctEnv(t, nil)
	ctx := context.Background()
	err := e.a.ConnectTelnyx(ctx, carrier.TelnyxCredentials{APIKey: "KEYwrong_key_value", PublicKey: e.key.PublicBase64()}, "u1")
	if err == nil || !strings.HasPrefix(err.Error(), "Telnyx said: authentication failed") {
		t.Fatalf("wrong key: %v", err)
	}
	var verrs store.ValidationError
	if err := e.a.ConnectTelnyx(ctx, carrier.TelnyxCredentials{APIKey: txKey, PublicKey: "bm90IGEga2V5"}, "u1"); !errors.As(err, &verrs) || verrs[0].Field != "publicKey" {
		t.Fatalf("bad public key: %v", err)
	}
	e.connectTelnyx(t)
	if !e.a.Usable(store.ProviderTelnyx) || !bytes.Equal(e.a.TelnyxPublicKey(), e.key.Public) {
		t.Fatal("the connected Telnyx account is not in use")
	}
	if st := status(t, e.a, store.ProviderTelnyx); st.Last4 != "5d6e" {
		t.Fatalf("status %+v", st)
	}
	testutil.NoErr(t, e.a.Disconnect(store.ProviderTelnyx))
	if e.a.Usable(store.ProviderTelnyx) {
		t.Fatal("still in use after disconnecting")
	}
}

// TestFlagsWin: the flags' account is used whatever is connected, and the status says both.
func TestFlagsWin(t *testing.T) {
	e := newAcctEnv(t, func(c *carrier.AccountsConfig) {
		c.Twilio = carrier.TwilioAccount{AccountSID: acctSID, AuthToken: "flag-token-0000"}
	})
	e.connectTwilio(t)
	if got, _ := e.a.Twilio(); got.AuthToken != "flag-token-0000" {
		t.Fatalf("in use: %+v, want the flags' account", got)
	}
	st := status(t, e.a, store.ProviderTwilio)
	if st.Source != carrier.SourceFlags || !st.FlagsSet || !st.Connected {
		t.Fatalf("status %+v", st)
	}
}

// TestAccountCarrierSendsWithTheAccountInUse: the dispatcher's adapter follows connections made
// after the server started.
func TestAccountCarrierSendsWithTheAccountInUse(t *testing.T) {
	e := newAcctEnv(t, nil)
	c := e.a.Carrier(store.ProviderTwilio)
	_, err := c.Send(context.Background(), carrier.Outbound{From: "+14155550100", To: "+14155550123", Text: "hi"})
	if p, ok := carrier.Permanent(err); !ok || !strings.Contains(p.Reason, "not configured") {
		t.Fatalf("send without an account: %v", err)
	}
	e.connectTwilio(t)
	id, err := c.Send(context.Background(), carrier.Outbound{From: "+14155550100", To: "+14155550123", Text: "hi"})
	if err != nil || !strings.HasPrefix(id, "SM") || len(e.twilio.Sent()) != 1 {
		t.Fatalf("send after connecting: %q %v", id, err)
	}
	if cb := e.twilio.Sent()[0].Get("StatusCallback"); cb != publicURL+"/carrier/twilio/status" {
		t.Fatalf("StatusCallback %q", cb)
	}
}

func openStore(t testing.TB, path string) *store.Store {
	t.Helper()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newAccounts(t testing.TB, st *store.Store, cfg carrier.AccountsConfig) *carrier.Accounts {
	t.Helper()
	a, err := carrier.NewAccounts(st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func status(t testing.TB, a *carrier.Accounts, name string) carrier.AccountStatus {
	t.Helper()
	st, err := a.Status(name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
