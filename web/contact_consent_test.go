package web

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// consent on create-contact and create-or-update-contact: recorded in the history; a bad value
// is a 400 naming the consent field.
func TestContactActionsConsent(t *testing.T) {
	e := newEnv(t, Config{})
	e.post(t, "create-contact-action", e.body(obj{"firstName": "Ana", "phone": "+14155552001",
		"consent": obj{"at": "2025-04-01T09:30:00Z", "source": "form", "method": "Web form at https://example.com/join", "evidence": "IP 203.0.113.7"}})).want(t, http.StatusCreated)
	c, ok, err := e.st.LatestConsent(e.ws.ID, "+14155552001")
	if err != nil || !ok || c.Status != "granted" || c.Source != "form" || c.Method != "Web form at https://example.com/join" || c.At.Format("2006-01-02") != "2025-04-01" {
		t.Errorf("LatestConsent = %+v %v %v", c, ok, err)
	}
	e.post(t, "create-or-update-contact-action", e.body(obj{"phone": "+14155552001",
		"consent": obj{"at": "2025-05-01T09:30:00Z", "source": "api"}})).want(t, http.StatusOK)
	if h, _ := e.st.Consents(e.ws.ID, "+14155552001"); len(h) != 2 || h[0].Source != "api" {
		t.Errorf("history after the update = %+v", h)
	}
	for _, tc := range []struct {
		consent obj
		field   string
	}{
		{obj{"at": "2999-01-01T00:00:00Z", "source": "form"}, "consent.at"},
		{obj{"at": "April 1st", "source": "form"}, "consent.at"},
		{obj{"at": "2025-04-01T09:30:00Z", "source": "carrier pigeon"}, "consent.source"},
		{obj{"at": "2025-04-01T09:30:00Z", "source": "form", "evidence": strings.Repeat("x", 1001)}, "consent.evidence"},
	} {
		for _, action := range []string{"create-contact-action", "create-or-update-contact-action"} {
			r := e.post(t, action, e.body(obj{"firstName": "Bo", "phone": "+14155552002", "consent": tc.consent})).want(t, http.StatusBadRequest)
			if got := r.fields(t); !slices.Contains(got, tc.field) {
				t.Errorf("%s with consent %v: fields %v, want %s", action, tc.consent, got, tc.field)
			}
		}
	}
	if _, err := e.st.ContactByPhone(e.ws.ID, "+14155552002"); err == nil {
		t.Error("a refused consent still created the contact")
	}
}
