package carrier

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/store"
)

// TwilioAccount is the Twilio account in use. AuthToken verifies Twilio's signature on every
// callback and signs the API calls, unless an API key (APIKeySID, APIKeySecret) signs them.
type TwilioAccount struct {
	AccountSID   string
	AuthToken    string
	APIKeySID    string
	APIKeySecret string
}

func (a TwilioAccount) ok() bool { return a.AccountSID != "" && a.AuthToken != "" }

// apiCredentials is the HTTP Basic user and password of API calls.
func (a TwilioAccount) apiCredentials() (user, pass string) {
	if a.APIKeySID != "" {
		return a.APIKeySID, a.APIKeySecret
	}
	return a.AccountSID, a.AuthToken
}

// TelnyxAccount is the Telnyx account in use: the API key signs calls, the public key (base64
// Ed25519) verifies webhooks.
type TelnyxAccount struct {
	APIKey    string
	PublicKey string
}

func (a TelnyxAccount) ok() bool { return a.APIKey != "" }

// Source says where the account in use comes from.
type Source int

// Sources of an account.
const (
	SourceNone      Source = iota // no account: the carrier's numbers cannot send
	SourceFlags                   // the server's flags or SWITCHBOARD_* variables, which win
	SourceConnected               // connected in the browser
)

// AccountsConfig configures Accounts.
type AccountsConfig struct {
	// KeyFile is the carrier key file (DIR/carrier.key), made when an account is first connected.
	KeyFile string
	// Twilio and Telnyx are the accounts of the flags; when set they are used, whatever is
	// connected in the browser.
	Twilio TwilioAccount
	Telnyx TelnyxAccount
	// Base URLs of the carriers' APIs (tests point them at local servers); "" is the default.
	TwilioBaseURL, TwilioPricingURL, TelnyxBaseURL string
	// PublicURL is the server's public URL; PublicURLSet says it was configured (-base-url) rather
	// than defaulted, which wiring numbers needs.
	PublicURL    string
	PublicURLSet bool
	// Timeout bounds each call to an account API (default DefaultAPITimeout).
	Timeout time.Duration
	// Now is the clock of connection and check times; nil is the store's.
	Now func() time.Time
}

type apiConfig struct{ timeout time.Duration }

// Accounts holds the carrier accounts Switchboard uses: those of the flags, else those an
// administrator connected in the browser, whose secrets are stored sealed with the key in
// KeyFile. It gives the dispatcher and the callbacks the account in use at each use, so a
// connection made in the browser takes effect at once, and it does what the numbers pages ask
// of the accounts: list, search, buy, wire, check, release.
type Accounts struct {
	s      *store.Store
	cfg    AccountsConfig
	seal   sealer
	client *http.Client
	locks  keyedLocks
	cur    atomic.Pointer[inUse]
	// saving serialises the changes of connection, so the snapshot in use is always that of
	// the last one stored.
	saving sync.Mutex
}

// inUse is a snapshot of the accounts in use, replaced whole when a connection changes.
type inUse struct {
	twilio     TwilioAccount
	twilioFrom Source
	twilioSend *Twilio
	telnyx     TelnyxAccount
	telnyxFrom Source
	telnyxSend *Telnyx
	telnyxKey  ed25519.PublicKey
	// broken says why a connected account cannot be opened (its key file is missing or another).
	broken map[string]string
}

// NewAccounts loads the connected accounts. An account that cannot be opened does not stop the
// server: its page says why and offers to connect it again.
func NewAccounts(s *store.Store, cfg AccountsConfig) (*Accounts, error) {
	if cfg.TwilioBaseURL == "" {
		cfg.TwilioBaseURL = DefaultTwilioBaseURL
	}
	if cfg.TwilioPricingURL == "" {
		cfg.TwilioPricingURL = DefaultTwilioPricingURL
	}
	if cfg.TelnyxBaseURL == "" {
		cfg.TelnyxBaseURL = DefaultTelnyxBaseURL
	}
	for _, u := range []*string{&cfg.TwilioBaseURL, &cfg.TwilioPricingURL, &cfg.TelnyxBaseURL, &cfg.PublicURL} {
		*u = strings.TrimRight(*u, "/")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultAPITimeout
	}
	if cfg.Now == nil {
		cfg.Now = s.Now
	}
	a := &Accounts{s: s, cfg: cfg, seal: sealer{path: cfg.KeyFile},
		client: &http.Client{CheckRedirect: noRedirects}}
	return a, a.reload()
}

// Reload reads the connected accounts again: a cluster's node that becomes the leader takes
// the connections made while another node led.
func (a *Accounts) Reload() error {
	a.saving.Lock()
	defer a.saving.Unlock()
	return a.reload()
}

// reload reads the connected accounts and builds the adapters of the accounts in use.
func (a *Accounts) reload() error {
	u := &inUse{broken: map[string]string{}}
	if a.cfg.Twilio.ok() {
		u.twilio, u.twilioFrom = a.cfg.Twilio, SourceFlags
	} else if sec, acct, ok, err := a.openConnected(store.ProviderTwilio, u); err != nil {
		return err
	} else if ok {
		u.twilio = TwilioAccount{AccountSID: acct.AccountSID, AuthToken: sec.AuthToken, APIKeySID: acct.APIKeySID, APIKeySecret: sec.APIKeySecret}
		u.twilioFrom = SourceConnected
	}
	if a.cfg.Telnyx.ok() {
		u.telnyx, u.telnyxFrom = a.cfg.Telnyx, SourceFlags
	} else if sec, acct, ok, err := a.openConnected(store.ProviderTelnyx, u); err != nil {
		return err
	} else if ok {
		u.telnyx, u.telnyxFrom = TelnyxAccount{APIKey: sec.APIKey, PublicKey: acct.PublicKey}, SourceConnected
	}
	if u.twilioFrom != SourceNone {
		u.twilioSend = NewTwilio(TwilioConfig{AccountSID: u.twilio.AccountSID, AuthToken: u.twilio.AuthToken,
			APIKeySID: u.twilio.APIKeySID, APIKeySecret: u.twilio.APIKeySecret, BaseURL: a.cfg.TwilioBaseURL,
			StatusCallbackURL: a.cfg.PublicURL + "/carrier/twilio/status"})
	}
	if u.telnyxFrom != SourceNone {
		u.telnyxSend = NewTelnyx(TelnyxConfig{APIKey: u.telnyx.APIKey, BaseURL: a.cfg.TelnyxBaseURL,
			WebhookURL: a.cfg.PublicURL + "/carrier/telnyx/webhook"})
		u.telnyxKey, _ = ParseTelnyxPublicKey(u.telnyx.PublicKey) // nil refuses every webhook
	}
	a.cur.Store(u)
	return nil
}

// sealedSecrets is what a connected account keeps sealed.
type sealedSecrets struct {
	AuthToken    string `json:"authToken,omitempty"`
	APIKeySecret string `json:"apiKeySecret,omitempty"`
	APIKey       string `json:"apiKey,omitempty"`
}

// openConnected reads and unseals carrier's connected account; one that cannot be unsealed is
// noted in u.broken and reported as none.
func (a *Accounts) openConnected(carrier string, u *inUse) (sealedSecrets, store.CarrierAccount, bool, error) {
	var sec sealedSecrets
	acct, ok, err := a.s.CarrierAccountOf(carrier)
	if err != nil || !ok {
		return sec, acct, false, err
	}
	plain, err := a.seal.open(acct.Sealed, carrier)
	if err == nil {
		err = json.Unmarshal(plain, &sec)
	}
	if err != nil {
		u.broken[carrier] = "The connected account cannot be opened: " + err.Error() + ". Connect it again."
		return sec, acct, false, nil
	}
	return sec, acct, true, nil
}

// Twilio is the Twilio account in use, false when there is none.
func (a *Accounts) Twilio() (TwilioAccount, bool) {
	u := a.cur.Load()
	return u.twilio, u.twilioFrom != SourceNone
}

// Telnyx is the Telnyx account in use, false when there is none.
func (a *Accounts) Telnyx() (TelnyxAccount, bool) {
	u := a.cur.Load()
	return u.telnyx, u.telnyxFrom != SourceNone
}

// TwilioAuthToken verifies Twilio's callbacks: "" (refusing them all) without an account.
func (a *Accounts) TwilioAuthToken() string { return a.cur.Load().twilio.AuthToken }

// TelnyxPublicKey verifies Telnyx's webhooks: nil (refusing them all) without an account.
func (a *Accounts) TelnyxPublicKey() ed25519.PublicKey { return a.cur.Load().telnyxKey }

// Usable reports whether numbers of carrier can send and receive: it has an account (and, for
// Telnyx, the public key that verifies its webhooks). The sandbox always can.
func (a *Accounts) Usable(carrier string) bool {
	u := a.cur.Load()
	switch carrier {
	case store.ProviderTwilio:
		return u.twilioFrom != SourceNone
	case store.ProviderTelnyx:
		return u.telnyxFrom != SourceNone && u.telnyxKey != nil
	}
	return carrier == store.ProviderSandbox || carrier == ""
}

// accountCarrier is the Carrier of a carrier name that sends with the account in use at each
// send, so that an account connected or changed in the browser applies to the next message.
type accountCarrier struct {
	a    *Accounts
	name string
}

// Carrier returns the adapter of name (twilio or telnyx) that sends with the account in use.
// Without an account, a message fails with the reason.
func (a *Accounts) Carrier(name string) Carrier { return accountCarrier{a: a, name: name} }

func (c accountCarrier) Name() string { return c.name }

func (c accountCarrier) Send(ctx context.Context, m Outbound) (string, error) {
	u := c.a.cur.Load()
	switch {
	case c.name == store.ProviderTwilio && u.twilioSend != nil:
		return u.twilioSend.Send(ctx, m)
	case c.name == store.ProviderTelnyx && u.telnyxSend != nil:
		return u.telnyxSend.Send(ctx, m)
	}
	return "", &PermanentError{Reason: "carrier " + c.name + " is not configured on this server"}
}

// AccountStatus is what the carriers page shows of one carrier.
type AccountStatus struct {
	Carrier string
	// Source is where the account in use comes from; FlagsSet says the flags give one (so a
	// connected account, if any, is not used).
	Source   Source
	FlagsSet bool
	// Connected is the account connected in the browser, when there is one.
	Connected   bool
	AccountSID  string
	APIKeySID   string
	Last4       string
	ConnectedAt time.Time
	ConnectedBy string
	// Problem says why the connected account cannot be used, "" when it can.
	Problem string
}

// Status is carrier's account as the carriers page shows it.
func (a *Accounts) Status(carrier string) (AccountStatus, error) {
	u := a.cur.Load()
	st := AccountStatus{Carrier: carrier, Problem: u.broken[carrier]}
	switch carrier {
	case store.ProviderTwilio:
		st.Source, st.FlagsSet = u.twilioFrom, a.cfg.Twilio.ok()
	case store.ProviderTelnyx:
		st.Source, st.FlagsSet = u.telnyxFrom, a.cfg.Telnyx.ok()
	}
	acct, ok, err := a.s.CarrierAccountOf(carrier)
	if err != nil || !ok {
		return st, err
	}
	st.Connected, st.AccountSID, st.APIKeySID, st.Last4 = true, acct.AccountSID, acct.APIKeySID, acct.Last4
	st.ConnectedAt, st.ConnectedBy = acct.ConnectedAt, acct.ConnectedBy
	return st, nil
}

// ErrNotConnected is an action on a carrier's numbers without an account for it.
type ErrNotConnected struct{ Carrier string }

func (e *ErrNotConnected) Error() string {
	return "No " + label(e.Carrier) + " account is connected: a superuser connects one on the Carriers page (Admin)."
}

// label is a carrier's name as written in sentences.
func label(carrier string) string {
	switch carrier {
	case store.ProviderTwilio:
		return "Twilio"
	case store.ProviderTelnyx:
		return "Telnyx"
	}
	return carrier
}

// api is the account API of carrier's account in use.
func (a *Accounts) api(carrier string) (numberAPI, error) {
	u := a.cur.Load()
	switch {
	case carrier == store.ProviderTwilio && u.twilioFrom != SourceNone:
		return a.twilioAPI(u.twilio), nil
	case carrier == store.ProviderTelnyx && u.telnyxFrom != SourceNone:
		return a.telnyxAPI(u.telnyx), nil
	case carrier == store.ProviderTwilio || carrier == store.ProviderTelnyx:
		return nil, &ErrNotConnected{Carrier: carrier}
	}
	return nil, store.ValidationError{{Field: "carrier", Message: "must be twilio or telnyx"}}
}

func (a *Accounts) twilioAPI(acct TwilioAccount) *twilioNumbers {
	return newTwilioNumbers(acct, a.cfg.TwilioBaseURL, a.cfg.TwilioPricingURL, a.client, apiConfig{timeout: a.cfg.Timeout})
}

func (a *Accounts) telnyxAPI(acct TelnyxAccount) *telnyxNumbers {
	return newTelnyxNumbers(acct, a.cfg.TelnyxBaseURL, a.client, apiConfig{timeout: a.cfg.Timeout})
}

// PublicURLError is wiring refused because carriers could not reach Switchboard.
type PublicURLError struct{ Reason string }

func (e *PublicURLError) Error() string { return e.Reason }

// PublicURLProblem says why numbers cannot be wired now, "" when they can: carriers post texts
// to the public https URL of -base-url, so it must be set and https.
func (a *Accounts) PublicURLProblem() string {
	switch {
	case !a.cfg.PublicURLSet:
		return "Switchboard has no public address yet: start it with -base-url (or SWITCHBOARD_BASE_URL) set to the https address the carriers reach it at, then try again."
	case !strings.HasPrefix(strings.ToLower(a.cfg.PublicURL), "https://"):
		return fmt.Sprintf("Switchboard's public address (-base-url) is %s, which is not https: carriers must post texts over https. Start it with an https -base-url, then try again.", a.cfg.PublicURL)
	}
	return ""
}

// PublicURL is the server's public URL, which carriers post texts and receipts to.
func (a *Accounts) PublicURL() string { return a.cfg.PublicURL }

// publicBase is the public URL numbers are wired to, or an error saying why there is none.
func (a *Accounts) publicBase() (string, error) {
	if p := a.PublicURLProblem(); p != "" {
		return "", &PublicURLError{Reason: p}
	}
	return a.cfg.PublicURL, nil
}
