package web

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"switchboard/store"
)

// The contact page lists the contact's messages and deletes or erases it after a confirmation;
// the list's bulk action on nothing says so; both exports answer CSV with their columns.
func TestUIContactsDataPages(t *testing.T) {
	e := newUIEnv(t)
	if _, err := e.st.AddProperty(e.a.ID, "plan", store.PropertyText); err != nil {
		t.Fatal(err)
	}
	ana, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Ana"), Properties: map[string]any{"plan": "gold"}})
	if err != nil {
		t.Fatal(err)
	}
	bo, _ := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: "+14155550124", FirstName: ptr("Bo")})
	if _, err := e.st.SendMessage(e.a.ID, store.SendInput{From: e.numberA, To: []string{ana.Phone()}, Text: "See you at 9"}); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.mo)

	res, body := e.send(t, c, "GET", "/contacts/"+ana.ID, nil)
	wantPage(t, "the contact page", res, body, http.StatusOK, `data-testid="contact-message"`, "See you at 9", `data-testid="contact-erase-submit"`)

	res, body = e.send(t, c, "GET", "/contacts?sort=newest", nil)
	wantPage(t, "the list", res, body, http.StatusOK, "<strong>2</strong> contacts", `data-testid="contact-select"`)
	res, body = e.send(t, c, "POST", "/contacts/bulk", url.Values{"action": {"optout"}, "scope": {"selected"}})
	wantPage(t, "a bulk action on zero rows", res, body, http.StatusUnprocessableEntity, "No contacts selected: nothing was done")

	res, body = e.send(t, c, "GET", "/contacts/export", nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	want := []string{"id", "firstName", "lastName", "phone", "email", "company", "timeZone", "groups", "plan",
		"optedOut", "optOutReason", "optedOutAt", "consentStatus", "consentAt", "consentSource", "createdAt"}
	if res.StatusCode != http.StatusOK || err != nil || len(rows) != 3 || !slices.Equal(rows[0], want) {
		t.Fatalf("export: %d %q %v", res.StatusCode, rows, err)
	}
	day := ana.CreatedAt.Format("2006-01-02")
	res, body = e.send(t, c, "GET", "/inbox/export?from="+day+"&to="+day, nil)
	rows, err = csv.NewReader(strings.NewReader(body)).ReadAll()
	if res.StatusCode != http.StatusOK || err != nil || len(rows) != 2 || rows[0][0] != "conversationId" || rows[1][6] != "See you at 9" || rows[1][3] != "outbound" {
		t.Fatalf("inbox export: %d %q %v", res.StatusCode, rows, err)
	}
	res, _ = e.send(t, c, "GET", "/inbox/export?from=yesterday", nil)
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("inbox export with a bad date: %d, want 400", res.StatusCode)
	}

	// Erase asks first, then removes the contact and its conversation; the opt-out stays.
	if _, _, err := e.st.CreateOptOut(e.a.ID, "", ana.Phone(), store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, c, "POST", "/contacts/"+ana.ID+"/delete", url.Values{"erase": {"yes"}})
	wantPage(t, "the erase confirmation", res, body, http.StatusOK, "Erase (415) 555-0123?", `name="confirm" value="yes"`)
	if _, err := e.st.Contact(e.a.ID, ana.ID); err != nil {
		t.Fatal("the contact went before the confirmation")
	}
	res, _ = e.send(t, c, "POST", "/contacts/"+ana.ID+"/delete", url.Values{"erase": {"yes"}, "confirm": {"yes"}})
	wantRedirect(t, res, "/contacts?")
	if _, err := e.st.Contact(e.a.ID, ana.ID); err == nil {
		t.Error("the erased contact is still there")
	}
	if convs, _ := e.st.ContactConversations(e.a.ID, ana.Phone()); len(convs) != 0 {
		t.Errorf("%d conversations left after the erasure", len(convs))
	}
	if out, _ := e.st.IsOptedOut(e.a.ID, ana.Phone()); !out {
		t.Error("the erasure lifted the opt-out")
	}
	res, _ = e.send(t, c, "POST", "/contacts/"+bo.ID+"/delete", url.Values{"confirm": {"yes"}})
	wantRedirect(t, res, "/contacts?")
	if n, _ := e.st.CountAllContacts(e.a.ID); n != 0 {
		t.Errorf("%d contacts left, want 0", n)
	}
	// Another workspace's member cannot reach the contact pages of this one.
	res, _ = e.send(t, e.signIn(t, e.bob), "POST", "/contacts/"+ana.ID+"/delete", url.Values{"confirm": {"yes"}})
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a foreign delete: %d, want 404", res.StatusCode)
	}
}
