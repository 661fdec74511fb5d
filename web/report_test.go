package web

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// reportEnv is an API env on a clock at 09:00 UTC on Friday 6 March 2026, with a day of
// texts: Ana writes and is answered twice (the first answer after 90 s) and her conversation
// closed after an hour; Bo texts STOP (an opt-out and its automatic reply); on Saturday Cy
// writes to the second number and waits.
type reportEnv struct {
	*env
	clk        *testutil.Clock
	admin      store.User
	adminToken string
}

func newReportEnv(t *testing.T) *reportEnv {
	t.Helper()
	clk := testutil.NewClock(time.Date(2026, 3, 6, 9, 0, 0, 0, time.UTC))
	e := &reportEnv{env: newEnvOpts(t, Config{}, store.Options{Now: clk.Now}, nil), clk: clk}
	var err error
	e.admin, err = e.st.CreateUser(store.NewUser{Email: "cy@example.com", Name: "Cy Admin"})
	must(t, err)
	_, err = e.st.AddMember(e.ws.ID, e.admin.ID, "admin")
	must(t, err)
	_, e.adminToken, err = e.st.CreateToken(e.admin.ID, "reports")
	must(t, err)
	in := func(from, to, text string, kw store.Keyword) store.Message {
		t.Helper()
		r, err := e.st.ReceiveMessage(e.ws.ID, store.InboundMessage{From: from, To: to, Text: text, Provider: store.ProviderSandbox, Keyword: kw})
		must(t, err)
		return r.Message
	}
	ana := in(toNumber, fromNumber, "Hi, can I book?", store.NoKeyword)
	clk.Advance(90 * time.Second)
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "Sure, when?"})).want(t, http.StatusAccepted)
	clk.Advance(10 * time.Minute)
	in(toNumber, fromNumber, "Tuesday", store.NoKeyword)
	clk.Advance(30 * time.Second)
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "Booked."})).want(t, http.StatusAccepted)
	clk.Set(time.Date(2026, 3, 6, 10, 0, 0, 0, time.UTC))
	closed := store.ConversationClosed
	_, err = e.st.UpdateConversation(e.ws.ID, ana.ConversationID, store.ConversationUpdate{Status: &closed, ActorID: e.user.ID})
	must(t, err)
	in("+14155550177", fromNumber, "STOP", store.KeywordStop)
	clk.Set(time.Date(2026, 3, 7, 23, 0, 0, 0, time.UTC))
	in("+14155550188", fromNumber2, "Hello?", store.NoKeyword)
	return e
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (e *reportEnv) report(t *testing.T, token string, fields obj) resp {
	t.Helper()
	return e.postAs(t, token, "get-report-action", e.body(fields))
}

// get-report-action answers exactly §24's JSON: the figures, null where nothing was measured,
// every day of the range.
func TestGetReportAction(t *testing.T) {
	e := newReportEnv(t)
	got := e.report(t, e.adminToken, obj{"from": "2026-03-05", "to": "2026-03-07"}).want(t, http.StatusOK)
	var body map[string]any
	if err := json.Unmarshal(got.raw, &body); err != nil {
		t.Fatal(err)
	}
	member := func(id string, replied, closed int, fr any) map[string]any {
		return map[string]any{"userId": id, "assigned": 0.0, "replied": float64(replied), "closed": float64(closed), "firstResponseMedianSeconds": fr}
	}
	want := map[string]any{
		"from": "2026-03-05", "to": "2026-03-07",
		"conversations":        map[string]any{"opened": 3.0, "replied": 2.0, "closed": 1.0},
		"messages":             map[string]any{"inbound": 4.0, "outbound": 2.0, "automatic": 1.0, "broadcast": 0.0},
		"firstResponseSeconds": map[string]any{"median": 90.0, "p90": 90.0},
		"resolutionSeconds":    map[string]any{"median": 3600.0, "p90": 3600.0},
		"optOuts":              1.0,
		"members":              []any{member(e.user.ID, 2, 1, 90.0), member(e.admin.ID, 0, 0, nil)},
		"days": []any{
			map[string]any{"date": "2026-03-05", "inbound": 0.0, "outbound": 0.0},
			map[string]any{"date": "2026-03-06", "inbound": 3.0, "outbound": 2.0},
			map[string]any{"date": "2026-03-07", "inbound": 1.0, "outbound": 0.0},
		},
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("report:\n got %s\nwant %v", got.raw, want)
	}
	keys := []string{`"from"`, `"to"`, `"conversations"`, `"messages"`, `"firstResponseSeconds"`, `"resolutionSeconds"`, `"optOuts"`, `"members"`, `"days"`}
	for i := 1; i < len(keys); i++ {
		if strings.Index(string(got.raw), keys[i-1]) > strings.Index(string(got.raw), keys[i]) {
			t.Errorf("%s comes after %s: the fields are not in §24's order", keys[i-1], keys[i])
		}
	}

	// The second number alone: Cy's text, nothing measured (null), no member did anything there.
	n2, err := e.st.NumberByPhone(fromNumber2)
	must(t, err)
	got = e.report(t, e.adminToken, obj{"from": "2026-03-07", "to": "2026-03-07", "numberId": n2.ID}).want(t, http.StatusOK)
	var one reportResult
	got.decode(t, &one)
	if one.Messages.Inbound != 1 || one.Conversations.Opened != 1 || one.FirstResponseSeconds.Median != nil ||
		one.ResolutionSeconds.P90 != nil || len(one.Days) != 1 || one.Members[0].Replied != 0 {
		t.Errorf("the second number on Saturday: %s", got.raw)
	}
	if !strings.Contains(string(got.raw), `"firstResponseSeconds":{"median":null,"p90":null}`) {
		t.Errorf("nothing measured is not null: %s", got.raw)
	}

	// A member who is not an admin: their own row only, and 403 for another member's figures.
	got = e.report(t, e.token, obj{"from": "2026-03-06", "to": "2026-03-06"}).want(t, http.StatusOK)
	got.decode(t, &one)
	if len(one.Members) != 1 || one.Members[0].UserID != e.user.ID || one.Conversations.Opened != 2 {
		t.Errorf("as a member: %s", got.raw)
	}
	e.report(t, e.token, obj{"from": "2026-03-06", "to": "2026-03-06", "memberId": e.admin.ID}).want(t, http.StatusForbidden)
	got = e.report(t, e.adminToken, obj{"from": "2026-03-06", "to": "2026-03-06", "memberId": e.user.ID, "userId": e.admin.ID}).want(t, http.StatusOK)
	got.decode(t, &one)
	if len(one.Members) != 1 || one.Members[0].UserID != e.user.ID || one.Messages.Outbound != 2 || one.Messages.Inbound != 0 {
		t.Errorf("memberId (the body's userId ignored): %s", got.raw)
	}
	// 400 days is the most; every day is listed.
	got = e.report(t, e.adminToken, obj{"from": "2025-02-04", "to": "2026-03-09"}).want(t, http.StatusOK)
	got.decode(t, &one)
	if len(one.Days) != 399 || one.Days[0].Date != "2025-02-04" || one.Days[398].Date != "2026-03-09" {
		t.Errorf("399 days: %d listed, %s … %s", len(one.Days), one.Days[0].Date, one.Days[len(one.Days)-1].Date)
	}
}

// Bad input is a 400 naming the field, in §3's order; never a 500.
func TestGetReportRefusesBadInput(t *testing.T) {
	e := newReportEnv(t)
	for _, c := range []struct {
		name   string
		fields obj
		want   []store.FieldError
	}{
		{"from after to", obj{"from": "2026-03-08", "to": "2026-03-07"}, []store.FieldError{{Field: "to", Message: "must be on or after from"}}},
		{"over 400 days", obj{"from": "2025-01-01", "to": "2026-02-05"}, []store.FieldError{{Field: "to", Message: "must be at most 400 days after from, both days included"}}},
		{"not a calendar date", obj{"from": "2027-02-30", "to": "2027-03-01"}, []store.FieldError{{Field: "from", Message: dateMessage}}},
		{"not a date", obj{"from": "March 1", "to": "2026-03-01T00:00:00Z"}, []store.FieldError{{Field: "from", Message: dateMessage}, {Field: "to", Message: dateMessage}}},
		{"a number", obj{"from": 20260301, "to": "2026-03-01"}, []store.FieldError{{Field: "from", Message: "must be a string"}}},
		{"missing", obj{}, []store.FieldError{{Field: "from", Message: "is required"}, {Field: "to", Message: "is required"}}},
		{"unknown number", obj{"from": "2026-03-01", "to": "2026-03-02", "numberId": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}, []store.FieldError{{Field: "numberId", Message: "is not a number of this workspace"}}},
		{"another workspace's number", obj{"from": "2026-03-01", "to": "2026-03-02", "numberId": e.otherNumberID(t)}, []store.FieldError{{Field: "numberId", Message: "is not a number of this workspace"}}},
		{"not a member", obj{"from": "2026-03-01", "to": "2026-03-02", "memberId": e.other.ID}, []store.FieldError{{Field: "memberId", Message: "is not a member of this workspace"}}},
		{"bad range and unknown member together", obj{"from": "2026-03-03", "to": "2026-03-02", "memberId": "nobody"}, []store.FieldError{{Field: "memberId", Message: "is not a member of this workspace"}, {Field: "to", Message: "must be on or after from"}}},
	} {
		r := e.report(t, e.adminToken, c.fields).want(t, http.StatusBadRequest)
		if got := r.fieldErrors(t); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Own rules come before the workspace: a bad range to an unknown workspace is still a 400;
	// a good one is 404, and 403 in a workspace the user is not a member of.
	e.postAs(t, e.adminToken, "get-report-action", obj{"developerProvider": "zapier", "id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "from": "x", "to": "2026-03-01"}).want(t, http.StatusBadRequest)
	e.postAs(t, e.adminToken, "get-report-action", obj{"developerProvider": "zapier", "id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "from": "2026-03-01", "to": "2026-03-01"}).want(t, http.StatusNotFound)
	e.postAs(t, e.adminToken, "get-report-action", obj{"developerProvider": "zapier", "id": e.ws2.ID, "from": "2026-03-01", "to": "2026-03-01"}).want(t, http.StatusForbidden)
}

func (e *reportEnv) otherNumberID(t *testing.T) string {
	n, err := e.st.NumberByPhone(otherNumber)
	must(t, err)
	return n.ID
}

// While the rollups are being built (a time-zone change here), the API says so with a 409
// rather than answer figures that are not complete.
func TestGetReportWhileBuilding(t *testing.T) {
	e := newReportEnv(t)
	zone := "Pacific/Auckland"
	_, err := e.st.UpdateWorkspace(e.ws.ID, store.WorkspaceSettings{TimeZone: &zone})
	must(t, err)
	r := e.report(t, e.adminToken, obj{"from": "2026-03-06", "to": "2026-03-07"}).want(t, http.StatusConflict)
	if msg := r.errorText(t); !strings.Contains(msg, "being built") {
		t.Errorf("409: %q", msg)
	}
	_, err = e.st.BuildReports(1000)
	must(t, err)
	var one reportResult
	e.report(t, e.adminToken, obj{"from": "2026-03-06", "to": "2026-03-08"}).want(t, http.StatusOK).decode(t, &one)
	// 09:00 UTC on Friday is 22:00 in Auckland; Cy's 23:00 UTC Saturday text is Sunday there.
	if one.Days[0].Inbound != 3 || one.Days[2].Inbound != 1 {
		t.Errorf("in Auckland time: %+v", one.Days)
	}
}

func FuzzDecodeGetReport(f *testing.F) {
	addSeeds(f)
	f.Add([]byte(`{"developerProvider":"zapier","id":"x","from":"2026-03-01","to":"2027-04-05","numberId":"","memberId":7}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzDecode(t, body, func(f *fields) {
			req := decodeGetReport(f, "zapier")
			if f.done() == nil && (req.to < req.from || int(req.to-req.from) >= store.MaxReportDays) {
				t.Errorf("accepted %s … %s", req.from, req.to)
			}
		})
	})
}

// FuzzReportDates builds bodies from typed dates, so the fuzzer reaches the range rules.
func FuzzReportDates(f *testing.F) {
	f.Add("2026-03-01", "2026-03-31", "")
	f.Add("2024-02-29", "2025-04-03", "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	f.Add("0001-01-01", "9999-12-31", "x")
	f.Fuzz(func(t *testing.T, from, to, member string) {
		body, err := json.Marshal(map[string]any{"developerProvider": "zapier", "id": "01J00000000000000000000000",
			"from": from, "to": to, "memberId": member})
		if err != nil {
			t.Skip()
		}
		fuzzDecode(t, body, func(f *fields) {
			req := decodeGetReport(f, "zapier")
			if f.done() == nil && (req.from.String() != from || req.to.String() != to) {
				t.Errorf("accepted %q … %q as %s … %s", from, to, req.from, req.to)
			}
		})
	})
}
