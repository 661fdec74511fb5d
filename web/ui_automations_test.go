package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// Bad hours, replies, targets and teams are refused with the field's error beside it, and
// nothing is saved; good ones are saved and shown.
func TestUIHoursAndTeamsRefuseBadInput(t *testing.T) {
	e := newUIEnv(t)
	alice := e.signIn(t, e.alice)
	for _, c := range []struct {
		path string
		form url.Values
		says string
	}{
		{"/settings/hours", url.Values{"week": {"mon-fri 09:00-12:00, 11:00-13:00"}}, "overlap"},
		{"/settings/hours", url.Values{"week": {"mon 17:00-09:00"}}, "ends before it starts"},
		{"/settings/hours", url.Values{"week": {"mon-fri 09:00-17:00"}, "holidays": {"2026-02-30"}}, "is not a date"},
		{"/settings/hours/replies", url.Values{"afterHours": {"Back at {{openTime}}"}}, "unknown merge tag"},
		{"/settings/hours/first-response", url.Values{"minutes": {"-5"}}, "must be from 0"},
		{"/settings/teams", url.Values{"name": {"Ghosts"}, "members": {"01ARZ3NDEKTSV4RRFFQ69G5FAV"}}, "is not a member of this workspace"},
		{"/settings/teams", url.Values{"name": {""}}, "is required"},
	} {
		res, body := e.send(t, alice, "POST", c.path, c.form)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(strings.ToLower(body), c.says) || !strings.Contains(body, `role="alert"`) {
			t.Errorf("POST %s %v: %d, want 422 saying %q", c.path, c.form, res.StatusCode, c.says)
		}
	}
	rt, _ := e.st.RoutingOf(e.a.ID)
	if !rt.Hours.IsZero() || len(rt.Teams) != 0 || rt.AutoReply.AfterHours != nil || rt.FirstResponse != 0 {
		t.Fatalf("something was saved: %+v", rt)
	}
	res, _ := e.send(t, alice, "POST", "/settings/hours", url.Values{"week": {"Monday 9:00-17:00; sat 10:00-13:00"}, "holidays": {"2026-12-25"}})
	wantRedirect(t, res, "/settings/hours?done=hours")
	_, body := e.send(t, alice, "GET", "/settings/hours", nil)
	if !strings.Contains(body, "mon 09:00-17:00; sat 10:00-13:00") || !strings.Contains(body, "2026-12-25") {
		t.Error("the hours page does not show the saved week in its notation")
	}
	res, _ = e.send(t, alice, "POST", "/settings/teams", url.Values{"name": {"Front desk"}, "members": {e.mo.ID}, "assign": {"round-robin"}, "capacity": {"5"}})
	wantRedirect(t, res, "/settings/teams?done=added")
	_, body = e.send(t, alice, "GET", "/settings/teams", nil)
	if !strings.Contains(body, "Front desk") || !strings.Contains(body, "auto-assignment round-robin") {
		t.Error("the teams page does not list the team")
	}
	// Members are not admins: the pages are closed to them.
	for _, p := range []string{"/settings/hours", "/settings/teams", "/settings/automations"} {
		if res, _ := e.send(t, e.signIn(t, e.mo), "GET", p, nil); res.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s as a member: %d, want 403", p, res.StatusCode)
		}
	}
}

// The header says whether the workspace is open, and when it opens; the availability chosen
// there is kept.
func TestUIHeaderOpenStateAndAvailability(t *testing.T) {
	e := newUIEnv(t)
	now := time.Now().UTC()
	days := now.Format("2006-01-02") + "," + now.AddDate(0, 0, 1).Format("2006-01-02")
	if _, err := e.st.SetHours(e.a.ID, "", &store.HoursInput{Week: "mon-sun 10:00-11:00", Holidays: days}); err != nil {
		t.Fatal(err)
	}
	alice := e.signIn(t, e.alice)
	_, body := e.send(t, alice, "GET", "/inbox", nil)
	want := "Closed · opens " + now.AddDate(0, 0, 2).Format("Mon") + " 10:00"
	if !strings.Contains(body, `data-testid="hours-state">`+want+"<") {
		t.Fatalf("the header does not say %q", want)
	}
	if _, err := e.st.SetHours(e.a.ID, "", &store.HoursInput{Week: ""}); err != nil {
		t.Fatal(err)
	}
	if _, body = e.send(t, alice, "GET", "/inbox", nil); !strings.Contains(body, `data-testid="hours-state">Open<`) {
		t.Fatal("the header does not say Open")
	}
	res, _ := e.send(t, alice, "POST", "/availability", url.Values{"availability": {"away"}, "back": {"/contacts"}})
	wantRedirect(t, res, "/contacts")
	if _, chosen, _ := e.st.Availability(e.alice.ID); chosen != store.Away {
		t.Fatalf("chose %s", chosen)
	}
	if _, body = e.send(t, alice, "GET", "/inbox", nil); !strings.Contains(body, `<option value="away" selected>`) {
		t.Fatal("the header does not show away chosen")
	}
	if res, _ := e.send(t, alice, "POST", "/availability", url.Values{"availability": {"asleep"}}); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("an unknown availability: %d", res.StatusCode)
	}
}

// The rules page: a rule made with the form (conditions and actions by choice), refused
// without an action or with an unanswered time below a minute or a reply over the ceiling;
// tested against the latest conversations without acting; exported and imported back.
func TestUIRuleFormTestExportImport(t *testing.T) {
	e := newUIEnv(t)
	alice := e.signIn(t, e.alice)
	if _, err := e.st.ReceiveMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "I am a new patient"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.ReceiveMessage(e.a.ID, store.InboundMessage{From: "+14155550124", To: e.numberA, Text: "billing question"}); err != nil {
		t.Fatal(err)
	}
	base := url.Values{"name": {"New patients"}, "trigger": {"message.received"}, "match": {"all"}, "enabled": {"on"},
		"crows": {"2"}, "arows": {"2"}, "cond-kind-0": {"text|contains|"}, "cond-value-0": {"new patient"}}
	with := func(extra url.Values) url.Values {
		f := url.Values{}
		for k, v := range base {
			f[k] = v
		}
		for k, v := range extra {
			f[k] = v
		}
		return f
	}
	for _, c := range []struct {
		form url.Values
		says string
	}{
		{with(nil), "a rule needs at least one action"},
		{with(url.Values{"trigger": {"conversation.unanswered"}, "minutes": {"0"}, "act-kind-0": {"close|"}}), "must be from 1"},
		{with(url.Values{"act-kind-0": {"reply|"}, "act-value-0": {strings.Repeat("x", 1300)}}), "must be at most 1200 characters"},
		{with(url.Values{"act-kind-0": {"assign|01ARZ3NDEKTSV4RRFFQ69G5FAV"}}), "is not a member of this workspace"},
	} {
		res, body := e.send(t, alice, "POST", "/settings/automations/new", c.form)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(strings.ToLower(body), c.says) {
			t.Errorf("%v: %d, want 422 saying %q", c.form, res.StatusCode, c.says)
		}
	}
	if rules, _ := e.st.Rules(e.a.ID); len(rules) != 0 {
		t.Fatalf("%d rules saved from refused forms", len(rules))
	}
	good := with(url.Values{"act-kind-0": {"assign|" + e.mo.ID}, "act-kind-1": {"addLabel|"}, "act-value-1": {"new"}})
	// "Test" shows what it would do, on which conversations, and saves nothing.
	good.Set("op", "test")
	res, body := e.send(t, alice, "POST", "/settings/automations/new", good)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "would run on 1 of the 2 latest conversations") ||
		!strings.Contains(body, "assign to mo; add the label new") {
		t.Fatalf("test: %d\n%s", res.StatusCode, body)
	}
	if rules, _ := e.st.Rules(e.a.ID); len(rules) != 0 {
		t.Fatal("Test saved the rule")
	}
	good.Set("op", "save")
	res, _ = e.send(t, alice, "POST", "/settings/automations/new", good)
	loc := wantRedirect(t, res, "/settings/automations/")
	rules, _ := e.st.Rules(e.a.ID)
	if len(rules) != 1 || rules[0].Rule.Actions[0].UserID != e.mo.ID || rules[0].Rule.Actions[1].Label != "new" {
		t.Fatalf("saved %+v", rules)
	}
	_, body = e.send(t, alice, "GET", strings.Split(loc, "?")[0], nil)
	if !strings.Contains(body, `value="new patient"`) || !strings.Contains(body, `selected>Assign to mo<`) {
		t.Fatal("the rule's page does not show it as saved")
	}
	_, body = e.send(t, alice, "GET", "/settings/automations", nil)
	if !strings.Contains(body, "New patients") || !strings.Contains(body, "Assign to mo; Add the label new") {
		t.Fatalf("the list does not show the rule:\n%s", body)
	}
	// Export, delete, import back.
	res, exported := e.send(t, alice, "GET", "/settings/automations/"+rules[0].ID+"/export", nil)
	if res.Header.Get("Content-Type") != "application/json" || !strings.Contains(res.Header.Get("Content-Disposition"), "rule-new-patients.json") {
		t.Fatalf("export: %v", res.Header)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(exported), &doc); err != nil || doc["name"] != "New patients" || doc["trigger"] != "message.received" {
		t.Fatalf("exported %s", exported)
	}
	res, _ = e.send(t, alice, "POST", "/settings/automations/"+rules[0].ID+"/delete", url.Values{})
	wantRedirect(t, res, "/settings/automations?done=deleted")
	res, body = e.send(t, alice, "POST", "/settings/automations/import", url.Values{"json": {`{"name":"x","trigger":"message.received","actions":[]}`}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "A rule needs at least one action") {
		t.Fatalf("a bad import: %d", res.StatusCode)
	}
	res, _ = e.send(t, alice, "POST", "/settings/automations/import", url.Values{"json": {exported}})
	wantRedirect(t, res, "/settings/automations?done=imported")
	if got, _ := e.st.Rules(e.a.ID); len(got) != 1 || got[0].Rule.Name != "New patients" {
		t.Fatalf("imported %+v", got)
	}
}
