package web

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// reportUIEnv is the UI env with a little activity today: a text from a contact, alice's
// answer and a close.
func reportUIEnv(t *testing.T) *uiEnv {
	t.Helper()
	e := newUIEnv(t)
	r, err := e.st.ReceiveMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "Hello", Provider: store.ProviderSandbox})
	must(t, err)
	_, err = e.st.SendMessage(e.a.ID, store.SendInput{From: e.numberA, To: []string{"+14155550123"}, Text: "Hi!", AuthorID: e.alice.ID})
	must(t, err)
	closed := store.ConversationClosed
	_, err = e.st.UpdateConversation(e.a.ID, r.Message.ConversationID, store.ConversationUpdate{Status: &closed, ActorID: e.mo.ID})
	must(t, err)
	return e
}

// /reports shows the figures with every picture as SVG with its title, description and table,
// and the CSV links; a member sees the totals and their own row, and no Member filter.
func TestUIReportsPage(t *testing.T) {
	e := reportUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "GET", "/reports", nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /reports: %d\n%s", res.StatusCode, body)
	}
	for _, want := range []string{"<h1>Reports</h1>", `aria-current="page" data-testid="nav-reports"`, `<label for="report-range">Range</label>`,
		`<label for="report-member">Member</label>`, `data-testid="card-opened"`, "Messages per day", "Response times", "Busiest hours",
		`data-testid="chart-messages"`, `data-testid="chart-times"`, `data-testid="chart-hours"`, `role="img"`,
		`<title id="chart-messages-title">`, `<desc id="chart-messages-desc">`, `aria-labelledby="chart-hours-title chart-hours-desc"`,
		`data-testid="days-table"`, `data-testid="members-table"`, `data-testid="hours-table"`, `href="/reports.csv?`, "table=days",
		"alice", "mo", "Conversations replied to"} {
		if !strings.Contains(body, want) {
			t.Errorf("/reports lacks %q", want)
		}
	}
	if strings.Contains(body, "<script") && strings.Contains(body, "chart") && strings.Contains(body, "reports.js") {
		t.Error("the charts need a script")
	}

	m := e.signIn(t, e.mo)
	res, body = e.send(t, m, "GET", "/reports?range=30d", nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /reports as a member: %d", res.StatusCode)
	}
	if strings.Contains(body, `id="report-member"`) || strings.Contains(body, ">alice<") {
		t.Error("a member sees the Member filter or another member's row")
	}
	if !strings.Contains(body, `<th scope="row">mo</th>`) {
		t.Error("a member does not see their own row")
	}
	res, body = e.send(t, m, "GET", "/reports?member="+e.alice.ID, nil)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "Only admins see other members") {
		t.Errorf("a member asking for alice's figures: %d", res.StatusCode)
	}
}

// Bad filters re-render the form with the reason (role=alert), never a 500.
func TestUIReportsBadInput(t *testing.T) {
	e := reportUIEnv(t)
	c := e.signIn(t, e.alice)
	for _, tc := range []struct {
		query, want string
		status      int
	}{
		{"range=custom&from=2026-03-08&to=2026-03-01", "To must be on or after From.", 400},
		{"from=2025-01-01&to=2026-03-01", "A report covers at most 400 days", 400},
		{"range=custom&from=2026-02-30&to=2026-03-01", "From must be a date", 400},
		{"range=custom&from=&to=", "From and To must be dates", 400},
		{"range=forever", "Choose a range", 400},
		{"number=01ARZ3NDEKTSV4RRFFQ69G5FAV", "That number is not one of this workspace", 400},
		{"member=" + e.bob.ID, "That person is not a member of this workspace.", 400},
		{"team=x", "That team does not exist.", 400},
	} {
		res, body := e.send(t, c, "GET", "/reports?"+tc.query, nil)
		if res.StatusCode != tc.status || !strings.Contains(body, `role="alert"`) || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want %d with %q", tc.query, res.StatusCode, tc.status, tc.want)
		}
		if !strings.Contains(body, `<label for="report-from">From</label>`) {
			t.Errorf("%s: the form is not shown again", tc.query)
		}
	}
}

// GET /reports.csv?from=&to= downloads the days table (and the other tables by name).
func TestUIReportsCSV(t *testing.T) {
	e := reportUIEnv(t)
	c := e.signIn(t, e.alice)
	today := time.Now().UTC().Format(time.DateOnly)
	res, body := e.send(t, c, "GET", "/reports.csv?from="+today+"&to="+today, nil)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("CSV: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"))
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	must(t, err)
	if len(rows) != 2 || rows[0][0] != "date" || rows[1][0] != today || rows[1][1] != "1" || rows[1][2] != "1" || rows[1][9] != "1" {
		t.Errorf("days CSV: %v", rows)
	}
	for _, table := range []string{"times", "hours", "members", "broadcasts"} {
		res, body := e.send(t, c, "GET", "/reports.csv?range=7d&table="+table, nil)
		if res.StatusCode != http.StatusOK || len(strings.Split(strings.TrimSpace(body), "\n")) < 1 {
			t.Errorf("%s CSV: %d", table, res.StatusCode)
		}
		if table == "members" && (!strings.Contains(body, "alice") || !strings.Contains(body, e.mo.ID)) {
			t.Errorf("members CSV: %s", body)
		}
	}
	for _, q := range []string{"from=2026-03-02&to=2026-03-01", "table=nope", "from=x&to=y"} {
		if res, _ := e.send(t, c, "GET", "/reports.csv?"+q, nil); res.StatusCode != http.StatusBadRequest {
			t.Errorf("CSV %s: %d, want 400", q, res.StatusCode)
		}
	}
	m := e.signIn(t, e.mo)
	if res, _ := e.send(t, m, "GET", "/reports.csv?range=7d&member="+e.alice.ID, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("a member's CSV of alice: %d", res.StatusCode)
	}
}

// While the figures are being built (a time-zone change here), the page says so and how far.
func TestUIReportsWhileBuilding(t *testing.T) {
	e := reportUIEnv(t)
	zone := "Asia/Tokyo"
	_, err := e.st.UpdateWorkspace(e.a.ID, store.WorkspaceSettings{TimeZone: &zone})
	must(t, err)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "GET", "/reports", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="report-building"`) || !strings.Contains(body, "% done") {
		t.Errorf("during the build: %d, notice shown %v", res.StatusCode, strings.Contains(body, "report-building"))
	}
	_, err = e.st.BuildReports(100)
	must(t, err)
	if _, body = e.send(t, c, "GET", "/reports", nil); strings.Contains(body, `data-testid="report-building"`) {
		t.Error("the notice stays after the build")
	}
}

// With teams, an admin filters by team; a number limited to a team the member is not in is
// left out of the member's Number choice and refused with the reason when asked for by id.
func TestUIReportsTeamsAndLimitedNumbers(t *testing.T) {
	e := reportUIEnv(t)
	team, err := e.st.CreateTeam(e.a.ID, store.TeamInput{Name: "Billing desk", Members: []string{e.alice.ID}, Assign: store.AssignOff})
	must(t, err)
	n, err := e.st.NumberByPhone(e.numberA)
	must(t, err)
	_, err = e.st.SetNumberAccess(e.a.ID, n.ID, store.NumberAccess{Teams: &[]string{team.ID}})
	must(t, err)

	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "GET", "/reports?range=7d&team="+team.ID, nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `<label for="report-team">Team</label>`) ||
		!strings.Contains(body, `selected>Billing desk</option>`) {
		t.Fatalf("an admin filtering by team: %d", res.StatusCode)
	}
	res, body = e.send(t, c, "GET", "/reports?range=7d&team=nope", nil)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "That team does not exist.") {
		t.Errorf("an unknown team: %d", res.StatusCode)
	}

	m := e.signIn(t, e.mo)
	res, body = e.send(t, m, "GET", "/reports?range=7d", nil)
	if res.StatusCode != http.StatusOK || strings.Contains(body, `value="`+n.ID+`"`) || strings.Contains(body, `id="report-team"`) {
		t.Errorf("a member outside the team sees its number or the Team filter (%d)", res.StatusCode)
	}
	res, body = e.send(t, m, "GET", "/reports?range=7d&number="+n.ID, nil)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "limited to teams you are not in") {
		t.Errorf("a member asking for the limited number: %d", res.StatusCode)
	}
}
