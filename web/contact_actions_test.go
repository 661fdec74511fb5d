package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"switchboard/store"
)

// Success paths of the contact actions: find, create, create-or-update and the properties.

func TestFindContactAction(t *testing.T) {
	e := newEnv(t, Config{})
	// No contacts: an empty array, not null.
	r := e.post(t, "find-contact-action", e.body(nil)).want(t, http.StatusOK)
	if strings.TrimSpace(string(r.raw)) != "[]" {
		t.Fatalf("empty search answered %s, want []", r.raw)
	}
	add := func(first, last, phone, email string) string {
		r := e.post(t, "create-contact-action", e.body(obj{"firstName": first, "lastName": last, "phone": phone, "email": email})).want(t, http.StatusCreated)
		return r.object(t)["id"].(string)
	}
	zoe := add("Zoë", "Adams", "+14155551001", "zoe@example.com")
	ana := add("Ana", "Zimmer", "+14155551002", "ana.z@example.com")
	anaB := add("ana", "Baker", "+14155551003", "")
	// An unnamed contact comes last.
	e.post(t, "create-conversation-action", e.body(obj{"from": fromNumber, "to": "+14155551004"})).want(t, http.StatusCreated)

	ids := func(r resp) []string {
		var list []map[string]any
		r.want(t, http.StatusOK).decode(t, &list)
		out := make([]string, len(list))
		for i, c := range list {
			wantKeys(t, c, "email", "firstName", "id", "lastName", "phone", "properties", "workspaceId")
			if _, ok := c["properties"].(map[string]any); !ok {
				t.Fatalf("properties = %#v, want an object", c["properties"])
			}
			out[i], _ = c["id"].(string)
		}
		return out
	}
	all := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": ""})))
	if len(all) != 4 || all[0] != ana && all[0] != anaB || all[2] != zoe {
		t.Fatalf("empty search order %q: want the two Anas (by last name), Zoë, then the unnamed one", all)
	}
	if all[0] != anaB || all[1] != ana {
		t.Errorf("order %q: want ana Baker before Ana Zimmer (folded first name, then last name)", all)
	}
	if got := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": "ZOE"}))); len(got) != 1 || got[0] != zoe {
		t.Errorf("search ZOE = %q, want [%s] (case- and accent-insensitive)", got, zoe)
	}
	if got := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": "(415) 555-1003"}))); len(got) != 1 || got[0] != anaB {
		t.Errorf("search by formatted phone = %q, want [%s]", got, anaB)
	}
	if got := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": "nobody-here"}))); len(got) != 0 {
		t.Errorf("no-match search = %q, want []", got)
	}
	// Exact email equality ranks first.
	if got := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": "ana.z@example.com"}))); len(got) == 0 || got[0] != ana {
		t.Errorf("exact email search = %q, want %s first", got, ana)
	}
}

func TestFindContactLimit(t *testing.T) {
	e := newEnv(t, Config{})
	var csv strings.Builder
	csv.WriteString("firstName,lastName,phone,email,company\n")
	for i := range 130 {
		fmt.Fprintf(&csv, "Name%03d,Smith,+1415666%04d,,\n", 129-i, i)
	}
	if _, err := e.st.ImportContacts(e.ws.ID, strings.NewReader(csv.String()), nil); err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	r := e.post(t, "find-contact-action", e.body(obj{"searchText": "smith"})).want(t, http.StatusOK)
	r.decode(t, &list)
	// A full answer (~20 KB) is sent whole, with its length, not in chunks.
	if n := r.header.Get("Content-Length"); n != strconv.Itoa(len(r.raw)) {
		t.Errorf("Content-Length %q for a %d-byte answer", n, len(r.raw))
	}
	if len(list) != store.SearchLimit {
		t.Fatalf("%d results, want at most %d", len(list), store.SearchLimit)
	}
	for i, c := range list {
		if want := fmt.Sprintf("Name%03d", i); c["firstName"] != want {
			t.Fatalf("result %d is %v, want %s (ordered by first name)", i, c["firstName"], want)
		}
	}
}

func TestCreateContactAction(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.post(t, "create-contact-action", e.body(obj{"firstName": "Ana", "phone": toNumber})).want(t, http.StatusCreated)
	m := r.object(t)
	wantKeys(t, m, "email", "firstName", "id", "lastName", "phone", "properties", "workspaceId")
	wantField(t, m, "firstName", "Ana")
	wantField(t, m, "lastName", "")
	wantField(t, m, "email", "")
	wantField(t, m, "phone", toNumber)
	wantField(t, m, "workspaceId", e.ws.ID)
	wantField(t, m, "properties", map[string]any{})
	if !strings.Contains(string(r.raw), `"properties":{}`) {
		t.Errorf("properties not written as {}: %s", r.raw)
	}

	props := obj{"plan": "gold", "seats": 12.5, "vip": true, "renewal": "2028-02-29"}
	r = e.post(t, "create-contact-action", e.body(obj{"firstName": "Bo", "lastName": "Li", "email": "bo@example.com",
		"phone": "+14155550124", "properties": props})).want(t, http.StatusCreated)
	m = r.object(t)
	wantField(t, m, "lastName", "Li")
	wantField(t, m, "email", "bo@example.com")
	wantField(t, m, "properties", map[string]any{"plan": "gold", "seats": 12.5, "vip": true, "renewal": "2028-02-29"})

	// A taken phone is 409 and changes nothing.
	r = e.post(t, "create-contact-action", e.body(obj{"firstName": "Again", "phone": toNumber})).want(t, http.StatusConflict)
	if msg := r.errorText(t); !strings.Contains(msg, toNumber) {
		t.Errorf("409 message %q does not name the phone", msg)
	}
	c, _ := e.st.ContactByPhone(e.ws.ID, toNumber)
	if c.FirstName != "Ana" {
		t.Errorf("the 409 changed the contact: %+v", c)
	}
	// The same phone in another workspace is fine.
	e.postAs(t, e.otherToken, "create-contact-action", obj{"developerProvider": "zapier", "id": e.ws2.ID, "firstName": "Ana", "phone": toNumber}).want(t, http.StatusCreated)
}

func TestCreateOrUpdateContactAction(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber, "firstName": "Ana", "lastName": "Lima",
		"email": "ana@example.com", "properties": obj{"plan": "gold", "seats": 3, "vip": nil}})).want(t, http.StatusCreated)
	m := r.object(t)
	wantKeys(t, m, "email", "firstName", "id", "lastName", "phone", "properties", "workspaceId")
	id := m["id"]
	wantField(t, m, "properties", map[string]any{"plan": "gold", "seats": float64(3)})

	// Only the given fields change; "" and null count as absent; properties merge key by key
	// and a null removes its key.
	r = e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber, "lastName": "Souza", "firstName": "",
		"email": nil, "properties": obj{"seats": nil, "vip": true}})).want(t, http.StatusOK)
	m = r.object(t)
	wantField(t, m, "id", id)
	wantField(t, m, "firstName", "Ana")
	wantField(t, m, "lastName", "Souza")
	wantField(t, m, "email", "ana@example.com")
	wantField(t, m, "properties", map[string]any{"plan": "gold", "vip": true})

	// Phone alone: nothing changes, still 200.
	r = e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber})).want(t, http.StatusOK)
	m = r.object(t)
	wantField(t, m, "lastName", "Souza")
	wantField(t, m, "properties", map[string]any{"plan": "gold", "vip": true})

	// Creating with only a phone gives empty strings and {}.
	r = e.post(t, "create-or-update-contact-action", e.body(obj{"phone": "+14155550177"})).want(t, http.StatusCreated)
	m = r.object(t)
	wantField(t, m, "firstName", "")
	wantField(t, m, "properties", map[string]any{})
}

func TestListContactPropertiesAction(t *testing.T) {
	e := newEnv(t, Config{})
	var list []map[string]any
	e.post(t, "list-contact-properties-action", e.body(nil)).want(t, http.StatusOK).decode(t, &list)
	if len(list) != 4 {
		t.Fatalf("%d properties, want 4: %v", len(list), list)
	}
	for i, want := range []string{"plan", "seats", "vip", "renewal"} {
		wantKeys(t, list[i], "id", "name", "type")
		wantField(t, list[i], "name", want)
		wantField(t, list[i], "id", e.props[want].ID)
		wantField(t, list[i], "type", e.props[want].Type)
	}
	r := e.postAs(t, e.otherToken, "list-contact-properties-action", obj{"developerProvider": "zapier", "id": e.ws2.ID}).want(t, http.StatusOK)
	if strings.TrimSpace(string(r.raw)) != "[]" {
		t.Errorf("no properties answered %s, want []", r.raw)
	}
}

// TestPropertiesEmptyAndNull: "" counts as absent in properties (neither sets nor clears a
// key); in create-contact a null is absent too; in create-or-update a null removes the key.
func TestPropertiesEmptyAndNull(t *testing.T) {
	e := newEnv(t, Config{})
	m := e.post(t, "create-contact-action", e.body(obj{"firstName": "Ana", "phone": toNumber,
		"properties": obj{"plan": "gold", "renewal": "", "seats": nil, "vip": true}})).want(t, http.StatusCreated).object(t)
	wantField(t, m, "properties", map[string]any{"plan": "gold", "vip": true})
	m = e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber,
		"properties": obj{"plan": "", "vip": nil, "renewal": "2030-01-31"}})).want(t, http.StatusOK).object(t)
	wantField(t, m, "properties", map[string]any{"plan": "gold", "renewal": "2030-01-31"})
	// The stored contact agrees with the result.
	c, err := e.st.ContactByPhone(e.ws.ID, toNumber)
	if err != nil || len(c.Properties) != 2 || c.Properties["plan"] != "gold" {
		t.Errorf("stored properties %v (err %v)", c.Properties, err)
	}
}

// TestHugeNumberProperty: a number beyond float64 is refused, since the stored contact
// could not be read back (find-contact would answer 500).
func TestHugeNumberProperty(t *testing.T) {
	e := newEnv(t, Config{})
	for _, n := range []string{"1e400", "-1e309"} {
		raw := []byte(`{"developerProvider":"zapier","id":"` + e.ws.ID + `","firstName":"B","phone":"+14155550999","properties":{"seats":` + n + `}}`)
		r := e.postRaw(t, "create-contact-action", e.token, raw)
		if got := r.fields(t); len(got) != 1 || got[0] != "properties.seats" {
			t.Errorf("seats %s: fields %q, want [properties.seats]", n, got)
		}
	}
	raw := []byte(`{"developerProvider":"zapier","id":"` + e.ws.ID + `","firstName":"B","phone":"+14155550999","properties":{"seats":1.7976931348623157e308}}`)
	e.postRaw(t, "create-contact-action", e.token, raw).want(t, http.StatusCreated)
	e.post(t, "find-contact-action", e.body(nil)).want(t, http.StatusOK)
}
