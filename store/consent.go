package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/store/kv"
)

// Consent is one entry of a number's consent history: when and how the contact agreed to be
// texted (granted) or withdrew (revoked). The history is kept by phone number, like opt-outs, so
// it exists before a contact does (an API opt-out of a bare number) and survives its deletion.
type Consent struct {
	ID         string    `json:"id"`
	Phone      string    `json:"phone"`
	Status     string    `json:"status"` // granted, revoked
	At         time.Time `json:"at"`
	Source     string    `json:"source"` // api, import, keyword, form, admin
	Method     string    `json:"method"`
	Evidence   string    `json:"evidence"`
	RecordedBy string    `json:"recordedBy"` // user id, or "" (the system, an integration)
	RecordedAt time.Time `json:"recordedAt"`
}

// Consent statuses and sources.
const (
	ConsentGranted = "granted"
	ConsentRevoked = "revoked"

	ConsentAPI     = "api"
	ConsentImport  = "import"
	ConsentKeyword = "keyword"
	ConsentForm    = "form"
	ConsentAdmin   = "admin"
)

// ConsentSources lists the sources a consent entry may name.
var ConsentSources = []string{ConsentAPI, ConsentImport, ConsentKeyword, ConsentForm, ConsentAdmin}

// MaxConsentEvidence is the longest evidence text, in characters.
const MaxConsentEvidence = 1000

// ConsentInput is a consent entry as a client gives it; At is RFC 3339.
type ConsentInput struct {
	Status   string // granted (the default) or revoked
	At       string
	Source   string
	Method   string
	Evidence string
}

// check validates in against now, naming fields prefix+"at", prefix+"source", …, and returns
// the entry it describes.
func (in ConsentInput) check(prefix string, now time.Time) (Consent, ValidationError) {
	var errs ValidationError
	c := Consent{Status: in.Status, Source: strings.TrimSpace(in.Source), Method: strings.TrimSpace(in.Method),
		Evidence: strings.TrimSpace(in.Evidence)}
	if c.Status == "" {
		c.Status = ConsentGranted
	}
	if c.Status != ConsentGranted && c.Status != ConsentRevoked {
		errs = append(errs, FieldError{prefix + "status", "must be granted or revoked"})
	}
	at, err := time.Parse(time.RFC3339, strings.TrimSpace(in.At))
	switch {
	case strings.TrimSpace(in.At) == "":
		errs = append(errs, FieldError{prefix + "at", "is required: when the contact agreed, as RFC 3339 (2025-04-01T09:30:00Z)"})
	case err != nil:
		errs = append(errs, FieldError{prefix + "at", "must be an RFC 3339 time such as 2025-04-01T09:30:00Z"})
	case at.After(now.Add(time.Minute)):
		// A minute of slack for clocks that disagree a little; consent cannot be given later.
		errs = append(errs, FieldError{prefix + "at", "must not be in the future"})
	}
	c.At = at.UTC()
	known := false
	for _, s := range ConsentSources {
		known = known || c.Source == s
	}
	if !known {
		errs = append(errs, FieldError{prefix + "source", "must be one of " + strings.Join(ConsentSources, ", ")})
	}
	if utf8.RuneCountInString(c.Method) > 200 {
		errs = append(errs, FieldError{prefix + "method", "must be at most 200 characters"})
	}
	if n := utf8.RuneCountInString(c.Evidence); n > MaxConsentEvidence {
		errs = append(errs, FieldError{prefix + "evidence", fmt.Sprintf("must be at most %d characters (it has %d)", MaxConsentEvidence, n)})
	}
	return c, errs
}

// CheckConsent validates a consent entry as a request gives it, naming its fields with prefix
// ("consent."), so handlers can refuse before writing anything.
func (s *Store) CheckConsent(prefix string, in ConsentInput) ValidationError {
	_, errs := in.check(prefix, s.Now())
	return errs
}

// addConsent appends an entry to phone's history in tx.
func (s *Store) addConsent(tx *kv.Tx, workspaceID, phone string, c Consent) error {
	c.ID, c.Phone, c.RecordedAt = s.NewID(), phone, s.Now()
	if c.At.IsZero() {
		c.At = c.RecordedAt
	}
	return putJSON(tx.Bucket(bConsents), idxKey(workspaceID, phone, c.ID), c)
}

// AddConsent records a consent entry for phone (the contact page's form, by userID).
func (s *Store) AddConsent(workspaceID, userID, phone string, in ConsentInput) (Consent, error) {
	c, errs := in.check("", s.Now())
	if errs != nil {
		return c, errs
	}
	c.RecordedBy = userID
	err := s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		return s.addConsent(tx.Tx, workspaceID, phone, c)
	})
	return c, err
}

// Consents lists phone's consent history, most recent first (by when consent was given or
// withdrawn, then by when it was recorded).
func (s *Store) Consents(workspaceID, phone string) ([]Consent, error) {
	out := []Consent{}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok || phone == "" {
			return nil
		}
		p := idxPrefix(workspaceID, phone)
		c := tx.Bucket(bConsents).Cursor()
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			var e Consent
			if err := jsonUnmarshal(v, &e); err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	// Recorded order is ID order; newest first, by At then by recording.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	slices.SortStableFunc(out, func(a, b Consent) int { return b.At.Compare(a.At) })
	return out, err
}

// LatestConsent is phone's current consent: the entry with the latest At (the one recorded
// last among equals); false when the number has no history. The contacts export fills its
// consentStatus, consentAt and consentSource columns from it.
func (s *Store) LatestConsent(workspaceID, phone string) (c Consent, ok bool, err error) {
	err = s.view(func(tx *kv.Tx) error {
		c, ok, err = latestConsent(tx, workspaceID, phone)
		return err
	})
	return c, ok, err
}

// latestConsent is LatestConsent in tx: entries are kept in recording order, so among equal
// times the later one found wins.
func latestConsent(tx *kv.Tx, workspaceID, phone string) (Consent, bool, error) {
	var latest Consent
	found := false
	if _, ok := ParseID(workspaceID); !ok || phone == "" {
		return latest, false, nil
	}
	p := idxPrefix(workspaceID, phone)
	c := tx.Bucket(bConsents).Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		var e Consent
		if err := jsonUnmarshal(v, &e); err != nil {
			return latest, false, err
		}
		if !found || !e.At.Before(latest.At) {
			latest, found = e, true
		}
	}
	return latest, found, nil
}

// consentEntry validates in.Consent (fields named "consent.at", …); nil when none was given.
func (s *Store) consentEntry(in *ContactInput) (*Consent, error) {
	if in.Consent == nil {
		return nil, nil
	}
	c, errs := in.Consent.check("consent.", s.Now())
	if errs != nil {
		return nil, errs
	}
	c.RecordedBy = in.ConsentBy
	return &c, nil
}

// importConsentNames names consent failures by their import columns.
var importConsentNames = strings.NewReplacer("consent.at", colConsentAt, "consent.source", colConsentSource,
	"consent.method", colConsentMethod, "consent.status", "consentStatus")

// importConsentCell sets one consent column's value on a row being imported; a row with any
// consent column gets an entry (source import unless its consentSource says otherwise).
func importConsentCell(in *ContactInput, column, v string) {
	if in.Consent == nil {
		in.Consent = &ConsentInput{Source: ConsentImport}
	}
	switch column {
	case colConsentAt:
		in.Consent.At = v
	case colConsentSource:
		in.Consent.Source = v
	default:
		in.Consent.Method = v
	}
}
