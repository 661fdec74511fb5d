package web

import (
	"encoding/csv"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"switchboard/store"
)

// Issue 38, items 1–3: a search of the contacts list is a list like any other. 105 patients
// called Ana: the page counts all 105, shows 100 and a next page of 5 (and a way back), sorts by
// newest when asked, adds all 105 to a group from "all matching", and the export holds the
// search's contacts with every filter applied.
func TestUIContactsSearchIsAList(t *testing.T) {
	e := newUIEnv(t)
	var ins []store.ContactInput
	for i := range 130 {
		first := "Ana"
		if i >= 105 {
			first = "Bo"
		}
		ins = append(ins, store.ContactInput{Phone: fmt.Sprintf("+1415555%04d", i), FirstName: ptr(first), LastName: ptr(fmt.Sprintf("Patient %03d", i))})
	}
	all := createContacts(t, e.st, e.a.ID, ins)
	c := e.signIn(t, e.mo)
	rows := func(body string) int { return strings.Count(body, `data-testid="contact-row"`) }
	link := func(body, id string) string {
		m := regexp.MustCompile(`href="([^"]+)" data-testid="` + id + `"`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	}
	res, body := e.send(t, c, "GET", "/contacts?q=ana", nil)
	wantPage(t, "the search", res, body, http.StatusOK, "<strong>105</strong> contacts", "All 105 matching contacts")
	if n := rows(body); n != 100 || link(body, "contacts-next") == "" || link(body, "contacts-prev") != "" {
		t.Fatalf("first page: %d rows, next %q, previous %q; want 100 and a next page only", n, link(body, "contacts-next"), link(body, "contacts-prev"))
	}
	res, body = e.send(t, c, "GET", link(body, "contacts-next"), nil)
	wantPage(t, "the second page", res, body, http.StatusOK, "<strong>105</strong> contacts", "Ana Patient 104")
	if n := rows(body); n != 5 || link(body, "contacts-next") != "" || link(body, "contacts-prev") != "/contacts?q=ana" {
		t.Fatalf("second page: %d rows, next %q, previous %q; want the last 5 and a way back", n, link(body, "contacts-next"), link(body, "contacts-prev"))
	}
	_, body = e.send(t, c, "GET", "/contacts?q=ana&sort=newest", nil)
	if i, j := strings.Index(body, "Ana Patient 104"), strings.Index(body, "Ana Patient 000"); i < 0 || j >= 0 && j < i {
		t.Errorf("newest first: Patient 104 at %d, 000 at %d; want 104 first", i, j)
	}

	g, _ := e.st.CreateGroup(e.a.ID, "Recall")
	res, _ = e.send(t, c, "POST", "/contacts/bulk", url.Values{"q": {"ana"}, "action": {"add"}, "groupId": {g.ID}, "scope": {"all"}})
	loc := wantRedirect(t, res, "/contacts?")
	if _, body = e.send(t, c, "GET", loc, nil); !strings.Contains(body, "Added 105 contacts to the group.") {
		t.Error("adding all matching did not add 105")
	}
	if p, _ := e.st.ListContacts(e.a.ID, store.ContactFilter{GroupID: g.ID}, "", 10); p.Total != 105 {
		t.Errorf("the group holds %d, want 105", p.Total)
	}

	// The export follows the search and every filter.
	if _, _, err := e.st.CreateOptOut(e.a.ID, "", all[3].Phone(), store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.SendMessage(e.a.ID, store.SendInput{From: e.numberA, To: []string{all[4].Phone()}, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"q=ana", 105}, {"q=bo", 25}, {"q=ana&group=" + g.ID, 105}, {"q=bo&group=" + g.ID, 0},
		{"q=ana&optedOut=yes", 1}, {"q=ana&optedOut=no", 104}, {"q=ana&hasConversation=yes", 1}, {"q=bo+patient", 25}, {"", 130},
	} {
		res, body := e.send(t, c, "GET", "/contacts/export?"+tc.query, nil)
		got, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if res.StatusCode != http.StatusOK || err != nil || len(got) != tc.want+1 {
			t.Errorf("export ?%s: %d, %d rows (%v); want %d", tc.query, res.StatusCode, len(got)-1, err, tc.want)
		}
	}
}

// Issue 38, item 14: a bulk delete sent without its confirmation comes back as the same page,
// the ticked rows still ticked and Delete still chosen; nothing is deleted.
func TestUIContactsBulkKeepsTheSelection(t *testing.T) {
	e := newUIEnv(t)
	var ins []store.ContactInput
	for i := range 3 {
		ins = append(ins, store.ContactInput{Phone: fmt.Sprintf("+1415555%04d", i), FirstName: ptr("Ana")})
	}
	all := createContacts(t, e.st, e.a.ID, ins)
	c := e.signIn(t, e.mo)
	res, body := e.send(t, c, "POST", "/contacts/bulk", url.Values{"q": {"ana"}, "action": {"delete"}, "scope": {"selected"}, "id": {all[0].ID, all[2].ID}})
	wantPage(t, "the refused delete", res, body, http.StatusUnprocessableEntity, "Nothing deleted: tick “Yes, delete” to confirm",
		`value="`+all[0].ID+`" checked`, `value="`+all[2].ID+`" checked`, `<option value="delete" selected>`, `value="ana"`)
	if strings.Contains(body, `value="`+all[1].ID+`" checked`) {
		t.Error("a row not ticked came back ticked")
	}
	if n, _ := e.st.CountAllContacts(e.a.ID); n != 3 {
		t.Errorf("%d contacts left, want all 3", n)
	}
}

// createContacts creates the contacts of ins in order.
func createContacts(t *testing.T, st *store.Store, ws string, ins []store.ContactInput) []store.Contact {
	t.Helper()
	out := make([]store.Contact, 0, len(ins))
	for _, in := range ins {
		c, err := st.CreateContact(ws, in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}
