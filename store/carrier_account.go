package store

import (
	"time"

	"switchboard/store/kv"
)

// CarrierAccount is a carrier account an administrator connected in the browser: one per
// carrier. The store keeps what it is given: the secrets (auth token, API key) arrive sealed by
// the caller with a key that lives outside the database, so neither the file nor a backup holds
// them in clear. The rest is public and shown on the page.
type CarrierAccount struct {
	Carrier string `json:"carrier"` // twilio or telnyx
	// AccountSID is Twilio's account (AC…); APIKeySID its API key (SK…) when one signs the calls.
	AccountSID string `json:"accountSid,omitempty"`
	APIKeySID  string `json:"apiKeySid,omitempty"`
	// PublicKey is Telnyx's webhook signing key (base64 Ed25519): public, so kept in clear.
	PublicKey string `json:"publicKey,omitempty"`
	// Last4 is the last four characters of the auth token or API key, the only part shown again.
	Last4 string `json:"last4"`
	// Sealed is the secrets as the caller sealed them; the store never reads it.
	Sealed      []byte    `json:"sealed"`
	ConnectedAt time.Time `json:"connectedAt"`
	ConnectedBy string    `json:"connectedBy,omitempty"` // the user's id
}

// SaveCarrierAccount connects a's carrier account, replacing the one connected before.
func (s *Store) SaveCarrierAccount(a CarrierAccount) error {
	if a.Carrier != ProviderTwilio && a.Carrier != ProviderTelnyx {
		return ValidationError{{"carrier", "must be twilio or telnyx"}}
	}
	if len(a.Sealed) == 0 {
		return ValidationError{{"sealed", "must hold the sealed secrets"}}
	}
	return s.updateNow(func(tx *wtx) error {
		return putJSON(tx.Bucket(bCarrierAccounts), []byte(a.Carrier), a)
	})
}

// CarrierAccountOf returns the account connected for carrier, and false when there is none.
func (s *Store) CarrierAccountOf(carrier string) (CarrierAccount, bool, error) {
	var a CarrierAccount
	var ok bool
	err := s.view(func(tx *kv.Tx) error {
		var err error
		ok, err = getJSON(tx.Bucket(bCarrierAccounts), []byte(carrier), &a)
		return err
	})
	return a, ok, err
}

// DeleteCarrierAccount disconnects carrier's account; disconnecting none is not an error.
func (s *Store) DeleteCarrierAccount(carrier string) error {
	return s.updateNow(func(tx *wtx) error {
		return tx.Bucket(bCarrierAccounts).Delete([]byte(carrier))
	})
}
