package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

func TestUICampaignPagesSignedOut(t *testing.T) {
	e := newUIEnv(t)
	c := e.browser(t)
	for _, p := range []string{"/contacts", "/contacts/new", "/contacts/x", "/groups", "/groups/x", "/broadcasts", "/broadcasts/new", "/broadcasts/x"} {
		res, _ := e.send(t, c, "GET", p, nil)
		if loc := wantRedirect(t, res, "/login"); loc != "/login?next="+url.QueryEscape(p) {
			t.Errorf("signed-out GET %s went to %q, want sign-in and back", p, loc)
		}
	}
	for _, p := range []string{"/contacts/new", "/groups", "/broadcasts/new", "/broadcasts/x/cancel"} {
		res, _ := e.send(t, c, "POST", p, url.Values{"name": {"x"}})
		wantRedirect(t, res, "/login")
	}
	res, _ := e.send(t, c, "GET", "/broadcasts/x/progress", nil, "HX-Request", "true", "HX-Current-URL", e.srv.URL+"/broadcasts/x")
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("HX-Redirect") != "/login?next=%2Fbroadcasts%2Fx" {
		t.Errorf("signed-out progress poll: %d HX-Redirect %q, want 401 and sign in back to the page", res.StatusCode, res.Header.Get("HX-Redirect"))
	}
}

func TestUIBroadcasts(t *testing.T) {
	e := newUIEnv(t)
	tz := "America/New_York"
	if _, err := e.st.UpdateWorkspace(e.a.ID, store.WorkspaceSettings{TimeZone: &tz}); err != nil {
		t.Fatal(err)
	}
	g, _ := e.st.CreateGroup(e.a.ID, "Patients")
	for _, p := range []string{"+14155550123", "+14155550124"} {
		if _, _, err := e.st.AddToGroup(e.a.ID, "Patients", p); err != nil {
			t.Fatal(err)
		}
	}
	c := e.signIn(t, e.mo)
	res, body := e.send(t, c, "GET", "/broadcasts", nil)
	wantPage(t, "no broadcasts", res, body, http.StatusOK, "<h1>Broadcasts</h1>", `data-testid="broadcasts-empty"`)
	res, body = e.send(t, c, "GET", "/broadcasts/new", nil)
	wantPage(t, "compose", res, body, http.StatusOK, "<h1>New broadcast</h1>", `<label for="bc-text">Text</label>`, "Patients (2)",
		`<script src="/static/compose.js" defer>`, "America/New_York", `type="datetime-local"`)

	res, body = e.send(t, c, "GET", "/broadcasts/new?group="+g.ID, nil)
	wantPage(t, "compose from a group's page", res, body, http.StatusOK, `name="groupIds" value="`+g.ID+`" checked`)

	// Nothing to send to, an unknown merge tag, a bad pasted number: each beside its field, as typed.
	res, body = e.send(t, c, "POST", "/broadcasts/new", url.Values{"from": {e.numberA}, "name": {"Reminder"}, "text": {"Hi {{nickname}}"}})
	wantPage(t, "no targets and an unknown tag", res, body, http.StatusUnprocessableEntity, `data-testid="error-recipients"`,
		`data-testid="error-text"`, "unknown merge tag {{nickname}}", "Hi {{nickname}}</textarea>", `value="Reminder"`)
	res, body = e.send(t, c, "POST", "/broadcasts/new", url.Values{"from": {e.numberA}, "text": {"Hi {{firstName|there}}"},
		"recipients": {"+14155550130\n555-0199"}, "groupIds": {g.ID}})
	wantPage(t, "a bad pasted number", res, body, http.StatusUnprocessableEntity, `data-testid="error-recipientsList"`,
		"555-0199 is not a phone number", "+14155550130\n555-0199</textarea>", `value="`+g.ID+`" checked`, "Preview for Ada Lovelace", "Hi Ada")
	res, body = e.send(t, c, "POST", "/broadcasts/new", url.Values{"from": {e.numberA}, "text": {"Hi"}, "groupIds": {g.ID},
		"when": {"later"}, "sendAt": {"2020-01-01T09:00"}})
	wantPage(t, "a time in the past", res, body, http.StatusUnprocessableEntity, `data-testid="error-sendAt"`, `value="2020-01-01T09:00"`)
	bg, _ := e.st.CreateGroup(e.b.ID, "Beta group")
	res, body = e.send(t, c, "POST", "/broadcasts/new", url.Values{"from": {e.numberA}, "text": {"Hi"}, "groupIds": {bg.ID}})
	wantPage(t, "another workspace's group", res, body, http.StatusUnprocessableEntity, `data-testid="error-groupIds"`)

	// Send now to the group and a pasted number.
	res, _ = e.send(t, c, "POST", "/broadcasts/new", url.Values{"from": {e.numberA}, "name": {"Now"}, "text": {"Hi {{firstName|there}}"},
		"groupIds": {g.ID}, "recipients": {"+14155550130, (415) 555-0123"}, "when": {"now"}})
	page := strings.TrimSuffix(wantRedirect(t, res, "/broadcasts/"), "?done=sent")
	res, body = e.send(t, c, "GET", page, nil)
	wantPage(t, "the progress page", res, body, http.StatusOK, `<h1 data-testid="broadcast-title">Now</h1>`, `data-testid="count-sent"`,
		"Groups: Patients", "2 pasted numbers")
	res, body = e.send(t, c, "GET", page+"/progress", nil, "HX-Request", "true")
	wantPage(t, "the progress fragment", res, body, http.StatusOK, `id="broadcast-progress"`, `data-testid="broadcast-status"`)
	if strings.Contains(body, "<html") {
		t.Error("the progress fragment is a whole page")
	}
	b, _ := e.st.Broadcast(e.a.ID, strings.TrimPrefix(page, "/broadcasts/"))
	if b.TotalQueued != 3 || b.CreatedByID != e.mo.ID {
		t.Errorf("broadcast %+v, want 3 copies by mo", b)
	}

	// Schedule in the workspace's time zone, then cancel.
	loc, _ := time.LoadLocation(tz)
	at := time.Now().In(loc).Add(48 * time.Hour).Truncate(time.Minute)
	res, _ = e.send(t, c, "POST", "/broadcasts/new", url.Values{"from": {e.numberA}, "name": {"Later"}, "text": {"Hi"},
		"groupIds": {g.ID}, "when": {"later"}, "sendAt": {at.Format("2006-01-02T15:04")}})
	later := strings.TrimSuffix(wantRedirect(t, res, "/broadcasts/"), "?done=schedule")
	sb, _ := e.st.Broadcast(e.a.ID, strings.TrimPrefix(later, "/broadcasts/"))
	if sb.Status != store.BroadcastScheduled || sb.SendAt == nil || !sb.SendAt.Equal(at) {
		t.Fatalf("scheduled broadcast %s at %v, want scheduled at %v", sb.Status, sb.SendAt, at)
	}
	res, body = e.send(t, c, "GET", later, nil)
	wantPage(t, "a scheduled broadcast", res, body, http.StatusOK, `hx-get="`+later+`/progress"`, ">Cancel broadcast<", "scheduled")
	res, _ = e.send(t, c, "POST", later+"/cancel", url.Values{})
	wantRedirect(t, res, later+"?done=cancel")
	res, body = e.send(t, c, "GET", later, nil)
	wantPage(t, "a cancelled broadcast", res, body, http.StatusOK, ">cancelled<")
	if strings.Contains(body, "hx-get=") || strings.Contains(body, ">Cancel broadcast<") {
		t.Error("a cancelled broadcast still polls or offers Cancel")
	}
	res, _ = e.send(t, c, "POST", later+"/cancel", url.Values{})
	if res.StatusCode != http.StatusConflict {
		t.Errorf("cancelling a cancelled broadcast: %d, want 409", res.StatusCode)
	}

	res, body = e.send(t, c, "GET", "/broadcasts", nil)
	wantPage(t, "the broadcast list", res, body, http.StatusOK, ">Later</a>", ">Now</a>", ">cancelled<")
	if strings.Index(body, ">Later</a>") > strings.Index(body, ">Now</a>") {
		t.Error("the list is not newest first")
	}

	// Another workspace's broadcast is a 404 and cannot be cancelled.
	other, err := e.st.SendBroadcast(e.b.ID, store.BroadcastInput{From: e.number, Recipients: []string{"+14155550177"}, Text: "beta secret",
		SendAt: ptr(time.Now().Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", "/progress"} {
		res, body = e.send(t, c, "GET", "/broadcasts/"+other.ID+p, nil)
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, "beta secret") {
			t.Errorf("GET /broadcasts/{foreign}%s: %d, want 404", p, res.StatusCode)
		}
	}
	res, _ = e.send(t, c, "POST", "/broadcasts/"+other.ID+"/cancel", url.Values{})
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("cancelling another workspace's broadcast: %d, want 404", res.StatusCode)
	}
	if ob, _ := e.st.Broadcast(e.b.ID, other.ID); ob.Status != store.BroadcastScheduled {
		t.Errorf("another workspace's broadcast is %s after a refused cancel", ob.Status)
	}
}

// TestPastedNumbers: numbers pasted one per line, between commas or semicolons, or in a row with
// spaces, in national or international format.
func TestPastedNumbers(t *testing.T) {
	numbers, bad := pastedNumbers("+14155550130 +14155550131\n(415) 555-0132; 415 555 0133,\r\n\n 020 7183 8750 ,+14155550130", "US")
	if want := []string{"+14155550130", "+14155550131", "+14155550132", "+14155550133"}; !slices.Equal(numbers, want) {
		t.Errorf("numbers %q, want %q", numbers, want)
	}
	if want := []string{"020", "7183", "8750"}; !slices.Equal(bad, want) {
		t.Errorf("bad %q, want %q", bad, want)
	}
	if numbers, bad := pastedNumbers("020 7183 8750", "GB"); !slices.Equal(numbers, []string{"+442071838750"}) || len(bad) != 0 {
		t.Errorf("a London number in a GB workspace: %q, bad %q", numbers, bad)
	}
}
