package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"switchboard/store"
)

// wantPage checks a page's status and that its body holds every want.
func wantPage(t *testing.T, what string, res *http.Response, body string, status int, want ...string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("%s: %d, want %d", what, res.StatusCode, status)
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s: the page lacks %q", what, w)
		}
	}
}

var contactPath = regexp.MustCompile(`^/contacts/([0-9A-Z]{26})\?done=created$`)

func TestUIContacts(t *testing.T) {
	e := newUIEnv(t)
	if _, err := e.st.AddProperty(e.a.ID, "visits", store.PropertyNumber); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AddProperty(e.a.ID, "vip", store.PropertyBoolean); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.mo)
	res, body := e.send(t, c, "GET", "/contacts/new", nil)
	wantPage(t, "GET /contacts/new", res, body, http.StatusOK, "<h1>New contact</h1>", `<label for="prop-visits">visits</label>`, `<label for="prop-vip">vip</label>`)

	// Refused with the errors beside the fields, what was typed kept.
	res, body = e.send(t, c, "POST", "/contacts/new", url.Values{"firstName": {""}, "lastName": {"Lovelace"}, "phone": {"555-0123"},
		"email": {"ada@"}, "prop.visits": {"many"}})
	wantPage(t, "a contact with bad fields", res, body, http.StatusUnprocessableEntity,
		`data-testid="error-firstName"`, `data-testid="error-phone"`, `data-testid="error-email"`, `data-testid="error-prop.visits"`,
		`value="555-0123"`, `value="Lovelace"`, `value="ada@"`, `value="many"`, `role="alert"`)

	res, _ = e.send(t, c, "POST", "/contacts/new", url.Values{"firstName": {"Ada"}, "lastName": {"Lovelace"}, "phone": {"+14155550123"},
		"email": {"ada@example.com"}, "company": {"Engines"}, "prop.visits": {"3"}, "prop.vip": {"true"}})
	loc := wantRedirect(t, res, "/contacts/")
	m := contactPath.FindStringSubmatch(loc)
	if m == nil {
		t.Fatalf("created contact went to %q, want its page", loc)
	}
	id := m[1]
	ct, err := e.st.Contact(e.a.ID, id)
	if err != nil || ct.FirstName != "Ada" || ct.Email != "ada@example.com" || ct.Properties["visits"] != 3.0 || ct.Properties["vip"] != true || ct.Source != store.SourceAdmin {
		t.Fatalf("stored contact %+v (%v), want Ada with visits 3 and vip, source admin", ct, err)
	}
	res, body = e.send(t, c, "POST", "/contacts/new", url.Values{"firstName": {"Ada"}, "phone": {"+14155550123"}})
	wantPage(t, "a second contact with the same phone", res, body, http.StatusUnprocessableEntity, `data-testid="error-phone"`, "already exists: Ada Lovelace")

	// Search with the API's semantics: by name, by four digits; empty lists all.
	if _, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550999", FirstName: ptr("Bob")}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"ada": "Ada Lovelace", "0123": "Ada Lovelace", "lovel": "Ada Lovelace", "": "Bob"} {
		res, body = e.send(t, c, "GET", "/contacts?q="+url.QueryEscape(q), nil)
		wantPage(t, "search "+q, res, body, http.StatusOK, `data-testid="contacts-list"`, want, `href="/contacts/`)
	}
	res, body = e.send(t, c, "GET", "/contacts?q=zzz", nil)
	wantPage(t, "search without results", res, body, http.StatusOK, `data-testid="contacts-empty"`, `value="zzz"`)
	if strings.Contains(body, "Ada") {
		t.Error("a search for zzz lists Ada")
	}

	// Edit: a bad email is refused as typed; a good one saved; an emptied property removed.
	page := "/contacts/" + id
	res, body = e.send(t, c, "POST", page, url.Values{"firstName": {"Ada"}, "email": {"not mail"}, "prop.visits": {"3"}})
	wantPage(t, "an edit with a bad email", res, body, http.StatusUnprocessableEntity, `data-testid="error-email"`, `value="not mail"`)
	res, _ = e.send(t, c, "POST", page, url.Values{"firstName": {"Ada"}, "lastName": {"King"}, "email": {"ada@example.org"}, "prop.visits": {""}, "prop.vip": {"false"}})
	wantRedirect(t, res, page+"?done=saved")
	ct, _ = e.st.Contact(e.a.ID, id)
	if ct.LastName != "King" || ct.Email != "ada@example.org" || ct.Properties["visits"] != nil || ct.Properties["vip"] != false {
		t.Errorf("edited contact %+v, want King, the new email, no visits, vip false", ct)
	}

	// The contact's own time zone: an unknown name is refused beside the field, a real one kept.
	res, body = e.send(t, c, "POST", page, url.Values{"firstName": {"Ada"}, "lastName": {"King"}, "timeZone": {"Mars/Olympus"}})
	wantPage(t, "an edit with a bad time zone", res, body, http.StatusUnprocessableEntity, `data-testid="error-timeZone"`, `value="Mars/Olympus"`)
	res, _ = e.send(t, c, "POST", page, url.Values{"firstName": {"Ada"}, "lastName": {"King"}, "email": {"ada@example.org"}, "prop.vip": {"false"}, "timeZone": {"Europe/Paris"}})
	wantRedirect(t, res, page+"?done=saved")
	if ct, _ = e.st.Contact(e.a.ID, id); ct.TimeZone != "Europe/Paris" {
		t.Errorf("time zone %q after the edit, want Europe/Paris", ct.TimeZone)
	}
	res, body = e.send(t, c, "GET", page, nil)
	wantPage(t, "the contact page", res, body, http.StatusOK, `value="Europe/Paris"`, "Europe/Paris (the contact&#39;s own)")
	res, _ = e.send(t, c, "POST", page, url.Values{"firstName": {"Ada"}, "lastName": {"King"}, "email": {"ada@example.org"}, "prop.vip": {"false"}, "timeZone": {""}})
	wantRedirect(t, res, page+"?done=saved")
	if ct, _ = e.st.Contact(e.a.ID, id); ct.TimeZone != "" {
		t.Errorf("time zone %q after emptying it, want none (the number's applies)", ct.TimeZone)
	}

	// Groups, opt-out and conversations.
	g, err := e.st.CreateGroup(e.a.ID, "Patients")
	if err != nil {
		t.Fatal(err)
	}
	res, _ = e.send(t, c, "POST", page+"/groups", url.Values{"group": {g.ID}})
	wantRedirect(t, res, page+"?done=grouped")
	if ids, _ := e.st.GroupMemberIDs(e.a.ID, g.ID); len(ids) != 1 || ids[0] != id {
		t.Errorf("group members %v, want the contact", ids)
	}
	bg, _ := e.st.CreateGroup(e.b.ID, "Beta group")
	res, _ = e.send(t, c, "POST", page+"/groups", url.Values{"group": {bg.ID}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("adding to another workspace's group: %d, want 422", res.StatusCode)
	}
	// Opting out asks for confirmation first.
	res, body = e.send(t, c, "POST", page+"/optout", url.Values{"optedOut": {"true"}})
	wantPage(t, "an opt-out without confirmation", res, body, http.StatusUnprocessableEntity, "I confirm")
	if out, _ := e.st.IsOptedOut(e.a.ID, "+14155550123"); out {
		t.Error("an unconfirmed opt out opted the number out")
	}
	res, _ = e.send(t, c, "POST", page+"/optout", url.Values{"optedOut": {"true"}, "confirm": {"yes"}})
	wantRedirect(t, res, page+"?done=optout")
	if out, _ := e.st.IsOptedOut(e.a.ID, "+14155550123"); !out {
		t.Error("opt out left the number opted in")
	}
	conv, _, err := e.st.CreateConversation(e.a.ID, e.numberA, "+14155550123")
	if err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, c, "GET", page, nil)
	wantPage(t, "the contact page", res, body, http.StatusOK, `<h1 data-testid="contact-title">Ada King</h1>`, `data-testid="contact-opted-out"`,
		`href="/inbox/`+conv.ID+`"`, `href="/groups/`+g.ID+`"`, "A workspace admin can lift this opt-out", `value="ada@example.org"`, "Time zone America/Los_Angeles (from the number)",
		`data-testid="consent-row" data-status="revoked"`)
	// An admin opt-out is lifted by an admin (not a member) with a confirmation and a reason,
	// both recorded.
	res, _ = e.send(t, c, "POST", page+"/optout", url.Values{"optedOut": {"false"}, "confirm": {"yes"}, "reason": {"x"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a member's lift: %d, want 403", res.StatusCode)
	}
	ca := e.signIn(t, e.alice)
	res, body = e.send(t, ca, "GET", page, nil)
	wantPage(t, "the contact page for an admin", res, body, http.StatusOK, ">Lift the opt-out<", `data-testid="contact-lift-confirm"`)
	res, body = e.send(t, ca, "POST", page+"/optout", url.Values{"optedOut": {"false"}, "confirm": {"yes"}})
	wantPage(t, "a lift without a reason", res, body, http.StatusUnprocessableEntity, "ay why the opt-out is lifted")
	res, _ = e.send(t, ca, "POST", page+"/optout", url.Values{"optedOut": {"false"}, "confirm": {"yes"}, "reason": {"Called to ask for texts again"}})
	wantRedirect(t, res, page+"?done=optin")
	res, body = e.send(t, c, "GET", page, nil)
	wantPage(t, "the contact page after a lift", res, body, http.StatusOK, `data-testid="contact-lifts"`, "Called to ask for texts again")
	if out, _ := e.st.IsOptedOut(e.a.ID, "+14155550123"); out {
		t.Error("opt back in left the number opted out")
	}
	res, _ = e.send(t, c, "POST", page+"/groups/remove", url.Values{"group": {g.ID}})
	wantRedirect(t, res, page+"?done=ungroup")
	if ids, _ := e.st.GroupMemberIDs(e.a.ID, g.ID); len(ids) != 0 {
		t.Errorf("group members %v after removal, want none", ids)
	}

	// Another workspace's contact is a 404, by page and by form, and nothing of it shows.
	other, err := e.st.CreateContact(e.b.ID, store.ContactInput{Phone: "+14155550177", FirstName: ptr("Secret")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/contacts/" + other.ID, "/contacts/not-an-id"} {
		res, body = e.send(t, c, "GET", p, nil)
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, "Secret") || !strings.Contains(body, `data-testid="error-page"`) {
			t.Errorf("GET %s: %d, want the 404 page without the contact", p, res.StatusCode)
		}
	}
	for _, p := range []string{"", "/groups", "/optout"} {
		res, _ = e.send(t, c, "POST", "/contacts/"+other.ID+p, url.Values{"firstName": {"Hijack"}, "optedOut": {"true"}, "group": {bg.ID}})
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("POST /contacts/{foreign}%s: %d, want 404", p, res.StatusCode)
		}
	}
	if got, _ := e.st.Contact(e.b.ID, other.ID); got.FirstName != "Secret" {
		t.Error("a refused form changed another workspace's contact")
	}
	if out, _ := e.st.IsOptedOut(e.b.ID, "+14155550177"); out {
		t.Error("a refused form opted out another workspace's number")
	}
}

func ptr[T any](v T) *T { return &v }

// TestUISwitchWorkspaceFromAPage: switching workspace on a contact, group or broadcast page
// lands on that section of the other workspace, not on a 404 for the first one's id.
func TestUISwitchWorkspaceFromAPage(t *testing.T) {
	e := newUIEnv(t)
	if _, err := e.st.AddMember(e.b.ID, e.alice.ID, "member"); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.alice)
	for back, want := range map[string]string{"/contacts/01ARZ3NDEKTSV4RRFFQ69G5FAV": "/contacts", "/groups/x": "/groups",
		"/broadcasts/x": "/broadcasts", "/contacts?q=ada": "/contacts?q=ada"} {
		res, _ := e.send(t, c, "POST", "/workspace", url.Values{"workspace": {e.b.ID}, "back": {back}})
		if loc := wantRedirect(t, res, "/"); loc != want {
			t.Errorf("switching from %s went to %s, want %s", back, loc, want)
		}
	}
}

// Issue 38, item 14 (§14): the contact page's "Send message" sends the text from the chosen
// number and opens the thread; without a text it stays on the page and says why.
func TestUIContactSendMessage(t *testing.T) {
	e := newUIEnv(t)
	c, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Ana")})
	if err != nil {
		t.Fatal(err)
	}
	cl := e.signIn(t, e.mo)
	res, body := e.send(t, cl, "GET", "/contacts/"+c.ID, nil)
	wantPage(t, "the contact", res, body, http.StatusOK, `data-testid="contact-send-submit">Send message</button>`, `<label for="contact-send-text">Message</label>`)
	res, body = e.send(t, cl, "POST", "/contacts/"+c.ID+"/message", url.Values{"from": {e.numberA}, "text": {""}})
	wantPage(t, "no text", res, body, http.StatusUnprocessableEntity, `data-testid="error-send"`, "Write the message")
	res, _ = e.send(t, cl, "POST", "/contacts/"+c.ID+"/message", url.Values{"from": {e.numberA}, "text": {"Your crown is ready."}})
	loc := wantRedirect(t, res, "/inbox/")
	res, body = e.send(t, cl, "GET", strings.TrimSuffix(loc, "#end"), nil)
	wantPage(t, "the thread", res, body, http.StatusOK, "Your crown is ready.")
}
