package carrier

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"switchboard/store"
)

// Connecting an account in the browser: what is typed is checked for its form, then with the
// carrier, then sealed and stored, and put in use at once.

// TwilioCredentials is what an administrator types to connect Twilio: the Account SID and Auth
// Token, and optionally an API key (SID and secret) to sign the API calls with instead.
type TwilioCredentials struct {
	AccountSID, AuthToken, APIKeySID, APIKeySecret string
}

// TelnyxCredentials is what an administrator types to connect Telnyx.
type TelnyxCredentials struct {
	APIKey, PublicKey string
}

var (
	twilioAccountSID = regexp.MustCompile(`^AC[0-9a-fA-F]{32}$`)
	twilioKeySID     = regexp.MustCompile(`^SK[0-9a-fA-F]{32}$`)
)

// checkSecret is the rule for a token or key as typed: printable, no spaces, 8 to 512 bytes.
func checkSecret(errs *store.ValidationError, field, what, v string) {
	switch {
	case v == "":
		*errs = append(*errs, store.FieldError{Field: field, Message: "is required: paste the " + what})
	case len(v) < 8 || len(v) > 512 || strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		*errs = append(*errs, store.FieldError{Field: field, Message: "is not a " + what + ": paste it as the carrier shows it, without spaces"})
	}
}

// checkTwilioCredentials trims what was typed and checks its form: the Account SID, the Auth
// Token, and the API key's SID and secret when either is given.
func checkTwilioCredentials(in TwilioCredentials) (TwilioCredentials, store.ValidationError) {
	in = TwilioCredentials{strings.TrimSpace(in.AccountSID), strings.TrimSpace(in.AuthToken), strings.TrimSpace(in.APIKeySID), strings.TrimSpace(in.APIKeySecret)}
	var errs store.ValidationError
	if !twilioAccountSID.MatchString(in.AccountSID) {
		errs = append(errs, store.FieldError{Field: "accountSid", Message: "must be the Account SID: AC and 32 letters and digits, as Twilio's console shows it"})
	}
	checkSecret(&errs, "authToken", "Auth Token", in.AuthToken)
	if in.APIKeySID != "" || in.APIKeySecret != "" {
		if !twilioKeySID.MatchString(in.APIKeySID) {
			errs = append(errs, store.FieldError{Field: "apiKeySid", Message: "must be the API key's SID: SK and 32 letters and digits"})
		}
		checkSecret(&errs, "apiKeySecret", "API key secret", in.APIKeySecret)
	}
	return in, errs
}

// checkTelnyxCredentials trims what was typed and checks its form: the API key, and the public
// key as Telnyx's portal shows it.
func checkTelnyxCredentials(in TelnyxCredentials) (TelnyxCredentials, store.ValidationError) {
	in = TelnyxCredentials{strings.TrimSpace(in.APIKey), strings.TrimSpace(in.PublicKey)}
	var errs store.ValidationError
	checkSecret(&errs, "apiKey", "API key", in.APIKey)
	if in.PublicKey == "" {
		errs = append(errs, store.FieldError{Field: "publicKey", Message: "is required: paste the public key from Telnyx's portal (Keys & Credentials)"})
	} else if _, err := ParseTelnyxPublicKey(in.PublicKey); err != nil {
		errs = append(errs, store.FieldError{Field: "publicKey", Message: "is not one: " + err.Error()})
	}
	return in, errs
}

// ConnectTwilio checks the credentials against Twilio (the API key and the Auth Token each with
// a call that changes nothing) and, when Twilio accepts them, keeps them sealed as the Twilio
// account connected in the browser. Refused credentials change nothing.
func (a *Accounts) ConnectTwilio(ctx context.Context, in TwilioCredentials, userID string) error {
	in, errs := checkTwilioCredentials(in)
	if errs != nil {
		return errs
	}
	acct := TwilioAccount{AccountSID: in.AccountSID, AuthToken: in.AuthToken, APIKeySID: in.APIKeySID, APIKeySecret: in.APIKeySecret}
	if acct.APIKeySID != "" {
		if err := a.twilioAPI(acct).check(ctx); err != nil {
			return err
		}
	}
	// The Auth Token is proved too: it alone verifies the texts Twilio posts to Switchboard.
	if err := a.twilioAPI(TwilioAccount{AccountSID: acct.AccountSID, AuthToken: acct.AuthToken}).check(ctx); err != nil {
		return err
	}
	last4 := acct.AuthToken
	if acct.APIKeySID != "" {
		last4 = acct.APIKeySecret
	}
	return a.save(store.CarrierAccount{Carrier: store.ProviderTwilio, AccountSID: acct.AccountSID, APIKeySID: acct.APIKeySID,
		Last4: lastFour(last4), ConnectedBy: userID}, sealedSecrets{AuthToken: acct.AuthToken, APIKeySecret: acct.APIKeySecret})
}

// ConnectTelnyx checks the API key against Telnyx (its balance, which changes nothing) and the
// public key's form, and keeps them as the Telnyx account connected in the browser.
func (a *Accounts) ConnectTelnyx(ctx context.Context, in TelnyxCredentials, userID string) error {
	in, errs := checkTelnyxCredentials(in)
	if errs != nil {
		return errs
	}
	acct := TelnyxAccount{APIKey: in.APIKey, PublicKey: in.PublicKey}
	if err := a.telnyxAPI(acct).check(ctx); err != nil {
		return err
	}
	return a.save(store.CarrierAccount{Carrier: store.ProviderTelnyx, PublicKey: acct.PublicKey, Last4: lastFour(acct.APIKey),
		ConnectedBy: userID}, sealedSecrets{APIKey: acct.APIKey})
}

// save seals sec into acct, stores it and puts it in use.
func (a *Accounts) save(acct store.CarrierAccount, sec sealedSecrets) error {
	plain, err := json.Marshal(sec)
	if err != nil {
		return err
	}
	if acct.Sealed, err = a.seal.seal(plain, acct.Carrier); err != nil {
		return err
	}
	acct.ConnectedAt = a.cfg.Now()
	a.saving.Lock()
	defer a.saving.Unlock()
	if err := a.s.SaveCarrierAccount(acct); err != nil {
		return err
	}
	return a.reload()
}

// Disconnect forgets carrier's connected account; the flags' account, if any, stays in use.
// While numbers use the carrier and no flags give an account, it is refused: they would stop
// sending and receiving, and the server would not start again.
func (a *Accounts) Disconnect(carrier string) error {
	a.saving.Lock()
	defer a.saving.Unlock()
	if u := a.cur.Load(); (carrier == store.ProviderTwilio && u.twilioFrom == SourceConnected) ||
		(carrier == store.ProviderTelnyx && u.telnyxFrom == SourceConnected) {
		numbers, err := a.s.AllNumbers()
		if err != nil {
			return err
		}
		n := 0
		for _, num := range numbers {
			if num.CarrierName() == carrier {
				n++
			}
		}
		if n > 0 {
			return &store.Error{Err: store.ErrConflict, Msg: fmt.Sprintf("%d numbers use %s: remove them from their workspaces first, or connect another %s account, which replaces this one", n, label(carrier), label(carrier))}
		}
	}
	if err := a.s.DeleteCarrierAccount(carrier); err != nil {
		return err
	}
	return a.reload()
}

// lastFour is what is ever shown again of a secret.
func lastFour(secret string) string {
	if len(secret) <= 4 {
		return ""
	}
	return secret[len(secret)-4:]
}
