package store

import (
	"slices"
	"strings"
)

// US carriers filter texts from numbers not registered for their kind: a local number needs an
// A2P 10DLC brand and campaign, a toll-free number a verification; a short code is provisioned
// already registered. Each number records its type and registration so that compose pages can
// warn before a send the carriers will block.

// Number types.
const (
	NumberLocal     = "local"
	NumberTollFree  = "toll-free"
	NumberShortCode = "short-code"
)

// Registration statuses.
const (
	RegUnregistered = "unregistered"
	RegPending      = "pending"
	RegApproved     = "approved"
	RegRejected     = "rejected"
)

// NumberTypes and RegistrationStatuses list the values, in the order forms offer them.
var (
	NumberTypes          = []string{NumberLocal, NumberTollFree, NumberShortCode}
	RegistrationStatuses = []string{RegUnregistered, RegPending, RegApproved, RegRejected}
)

// MaxRegistrationID is the longest brand, campaign or verification id accepted (carrier ids are
// short: Twilio's BN…/CM… sids are 34 characters).
const MaxRegistrationID = 64

// NumberRegistration is a number's type and carrier registration. Empty fields take defaults:
// the type guessed from the phone (GuessNumberType), status unregistered; numbers from before
// registration existed have none.
type NumberRegistration struct {
	Type   string `json:"type,omitempty"`
	Status string `json:"status,omitempty"`
	// BrandID and CampaignID are the A2P 10DLC registration of a local number; VerificationID is
	// a toll-free number's verification.
	BrandID        string `json:"brandId,omitempty"`
	CampaignID     string `json:"campaignId,omitempty"`
	VerificationID string `json:"verificationId,omitempty"`
}

// tollFreeNANP are the North American toll-free area codes.
var tollFreeNANP = map[string]bool{"800": true, "833": true, "844": true, "855": true, "866": true, "877": true, "888": true}

// GuessNumberType is a number's type from its digits: up to 6 digits is a short code, a NANP
// number in a toll-free area code is toll-free, anything else local.
func GuessNumberType(phone string) string {
	digits := strings.TrimPrefix(phone, "+")
	switch {
	case len(digits) <= 6:
		return NumberShortCode
	case len(digits) == 11 && digits[0] == '1' && tollFreeNANP[digits[1:4]]:
		return NumberTollFree
	}
	return NumberLocal
}

// NumberType is the number's type: as recorded, else guessed from its phone.
func (n *PhoneNumber) NumberType() string {
	if n.Registration != nil && n.Registration.Type != "" {
		return n.Registration.Type
	}
	return GuessNumberType(n.Phone)
}

// RegistrationStatus is the number's registration status, unregistered when none is recorded.
func (n *PhoneNumber) RegistrationStatus() string {
	if n.Registration != nil && n.Registration.Status != "" {
		return n.Registration.Status
	}
	return RegUnregistered
}

// RegistrationOf is the number's registration with its defaults filled in.
func (n *PhoneNumber) RegistrationOf() NumberRegistration {
	var r NumberRegistration
	if n.Registration != nil {
		r = *n.Registration
	}
	r.Type, r.Status = n.NumberType(), n.RegistrationStatus()
	return r
}

// NeedsRegistration reports whether carriers are likely to filter texts from the number: a local
// or toll-free number that is not approved. Sandbox numbers reach no carrier, so never.
func (n *PhoneNumber) NeedsRegistration() bool {
	if n.CarrierName() == ProviderSandbox {
		return false
	}
	t := n.NumberType()
	return (t == NumberLocal || t == NumberTollFree) && n.RegistrationStatus() != RegApproved
}

// RegistrationWarning is what compose pages say about sending from n ("" when nothing).
func (n *PhoneNumber) RegistrationWarning() string {
	if !n.NeedsRegistration() {
		return ""
	}
	what := "registered for A2P 10DLC (a brand and a campaign)"
	if n.NumberType() == NumberTollFree {
		what = "a verified toll-free number"
	}
	return n.Phone + " is a " + n.NumberType() + " number whose registration is " + n.RegistrationStatus() +
		": US carriers filter or block texts from numbers that are not " + what + ". An admin records it under Settings → Numbers."
}

// normalize trims the ids and checks every field; errors name registration fields as the forms
// and flags do (type, registrationStatus, brandId, campaignId, verificationId).
func (r *NumberRegistration) normalize() ValidationError {
	var errs ValidationError
	r.Type, r.Status = strings.TrimSpace(r.Type), strings.TrimSpace(r.Status)
	r.BrandID, r.CampaignID, r.VerificationID = strings.TrimSpace(r.BrandID), strings.TrimSpace(r.CampaignID), strings.TrimSpace(r.VerificationID)
	if r.Type != "" && !slices.Contains(NumberTypes, r.Type) {
		errs = append(errs, FieldError{"type", "must be local, toll-free or short-code"})
	}
	if r.Status != "" && !slices.Contains(RegistrationStatuses, r.Status) {
		errs = append(errs, FieldError{"registrationStatus", "must be unregistered, pending, approved or rejected"})
	}
	for _, f := range []struct{ name, v string }{{"brandId", r.BrandID}, {"campaignId", r.CampaignID}, {"verificationId", r.VerificationID}} {
		if runeLen(f.v) > MaxRegistrationID {
			errs = append(errs, FieldError{f.name, "must be at most 64 characters"})
		} else if strings.ContainsFunc(f.v, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
			errs = append(errs, FieldError{f.name, "must not contain control characters"})
		}
	}
	sortFieldErrors(errs)
	return errs
}

// NormalizeRegistration trims and checks a registration as SetNumberRegistration does, without
// storing it.
func NormalizeRegistration(r NumberRegistration) (NumberRegistration, error) {
	if errs := r.normalize(); errs != nil {
		return r, errs
	}
	return r, nil
}

// SetNumberRegistration replaces a number's type and registration (ids trimmed; an empty type
// is guessed again from the phone).
func (s *Store) SetNumberRegistration(workspaceID, id string, r NumberRegistration) (PhoneNumber, error) {
	return s.SetNumberSettings(workspaceID, id, &r, nil)
}

// SetNumberSettings changes, in one transaction, a number's registration (as
// SetNumberRegistration, when r is not nil) and its daily cap (as SetNumberDailyCap, when
// dailyCap is not nil): both are checked before either is written.
func (s *Store) SetNumberSettings(workspaceID, id string, r *NumberRegistration, dailyCap *int) (PhoneNumber, error) {
	var n PhoneNumber
	if r != nil {
		if errs := r.normalize(); errs != nil {
			return n, errs
		}
	}
	if dailyCap != nil {
		if msg := CheckDailyCap(*dailyCap); msg != "" {
			return n, ValidationError{{"dailyCap", msg}}
		}
	}
	err := s.updateNow(func(tx *wtx) error {
		ok, err := getJSON(tx.Bucket(bNumbers), wsKeyChecked(workspaceID, id), &n)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "number not found")
		}
		if r != nil {
			reg := *r
			n.Registration = &reg
		}
		if dailyCap != nil {
			n.DailyCap = *dailyCap
		}
		return putJSON(tx.Bucket(bNumbers), wsKey(workspaceID, n.ID), n)
	})
	return n, err
}
