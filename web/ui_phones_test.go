package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"switchboard/store"
)

// TestUINationalNumbers: the UI reads numbers typed in the workspace's national format and shows
// the country's numbers that way; a number that does not parse is refused beside its field and
// nothing is stored; another country changes both.
func TestUINationalNumbers(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)

	res, body := e.send(t, c, "POST", "/inbox", url.Values{"from": {e.numberA}, "to": {"555-01"}})
	wantPage(t, "a number that does not parse", res, body, http.StatusUnprocessableEntity, `data-testid="error-to"`, "not a phone number of US", `value="555-01"`)
	if n, _ := e.st.CountConversations(e.a.ID); n != 0 {
		t.Fatalf("%d conversations after a refused number, want 0", n)
	}

	res, _ = e.send(t, c, "POST", "/inbox", url.Values{"from": {e.numberA}, "to": {"(415) 555-0123"}})
	thread := wantRedirect(t, res, "/inbox/")
	if convs, _ := e.st.ContactConversations(e.a.ID, "+14155550123"); len(convs) != 1 {
		t.Fatalf("typing (415) 555-0123 made %d conversations with +14155550123, want 1", len(convs))
	}
	res, body = e.send(t, c, "GET", thread, nil)
	wantPage(t, "the thread", res, body, http.StatusOK, "(415) 555-0123", "sent from your number (415) 555-0100")
	res, body = e.send(t, c, "GET", "/inbox", nil)
	wantPage(t, "the inbox", res, body, http.StatusOK, "(415) 555-0123")

	res, body = e.send(t, c, "POST", "/contacts/new", url.Values{"firstName": {"Mia"}, "phone": {"+44 20 7183 8750"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a contact with an international number: %d\n%s", res.StatusCode, body)
	}
	res, body = e.send(t, c, "GET", "/contacts", nil)
	wantPage(t, "the contacts", res, body, http.StatusOK, "+44 20 7183 8750")

	// The workspace moves to GB: its numbers are national now, and US ones international.
	gb := "GB"
	if _, err := e.st.UpdateWorkspace(e.a.ID, store.WorkspaceSettings{Country: &gb}); err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, c, "GET", "/contacts", nil)
	wantPage(t, "the contacts in GB", res, body, http.StatusOK, "020 7183 8750", "+1 415-555-0123")
	res, _ = e.send(t, c, "POST", "/contacts/new", url.Values{"firstName": {"Olly"}, "phone": {"020 7946 0018"}})
	wantRedirect(t, res, "/contacts/")
	if _, err := e.st.ContactByPhone(e.a.ID, "+442079460018"); err != nil {
		t.Fatalf("020 7946 0018 in GB: %v, want the contact +442079460018", err)
	}

	// The settings page validates the country.
	res, body = e.send(t, c, "POST", "/settings/workspace", url.Values{"name": {e.a.Name}, "country": {"XX"}})
	wantPage(t, "an unknown country", res, body, http.StatusUnprocessableEntity, `data-testid="error-country"`)
	if ws, _ := e.st.Workspace(e.a.ID); ws.Country != "GB" {
		t.Fatalf("country %q after a refused change, want GB", ws.Country)
	}
}

// TestStatusPages: unknown paths and wrong methods get the product's HTML page outside the API,
// and the API, the token endpoint and the carrier callbacks keep their answers.
func TestStatusPages(t *testing.T) {
	e := newUIEnv(t)
	for _, c := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/no/such/page", 404, "<h1>Page not found</h1>"},
		{"DELETE", "/login", 405, "<h1>Method not allowed</h1>"},
	} {
		res, body := e.send(t, e.browser(t), c.method, c.path, nil)
		if res.StatusCode != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %q, want %d with %q", c.method, c.path, res.StatusCode, body, c.status, c.want)
		}
		if c.status == 405 && res.Header.Get("Allow") == "" {
			t.Errorf("%s %s: no Allow header", c.method, c.path)
		}
		if c.status >= 400 && !strings.Contains(body, `href="/"`) {
			t.Errorf("%s %s: no link home", c.method, c.path)
		}
	}
	// Signed in, the page comes with the navigation.
	res, body := e.send(t, e.signIn(t, e.alice), "GET", "/inbox/a/b/c", nil)
	wantPage(t, "signed-in 404", res, body, http.StatusNotFound, "<h1>Page not found</h1>", `data-testid="nav-inbox"`)

	// The API's errors stay JSON.
	res, body = e.send(t, e.browser(t), "GET", "/v1/integrations/developer/zapier/me-action", nil)
	var m map[string]any
	if res.StatusCode != http.StatusMethodNotAllowed || json.Unmarshal([]byte(body), &m) != nil {
		t.Errorf("GET on an API action: %d %q, want a JSON 405", res.StatusCode, body)
	}
	res, body = e.send(t, e.browser(t), "GET", "/v1/nothing", nil)
	if res.StatusCode != http.StatusNotFound || json.Unmarshal([]byte(body), &m) != nil {
		t.Errorf("an unknown API path: %d %q, want a JSON 404", res.StatusCode, body)
	}
	for _, p := range []string{"/oauth/token", "/carrier/sandbox/sms"} {
		res, body = e.send(t, e.browser(t), "GET", p, nil)
		if strings.Contains(body, "<h1>") {
			t.Errorf("GET %s: %d %q, want the machine answer, not a page", p, res.StatusCode, body)
		}
	}
}
