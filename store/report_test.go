package store_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"switchboard/store"
)

// checkReports builds what is waiting, recounts the rollups from the records, and compares the
// reports of many queries with the reference computed from the records by the definitions.
func checkReports(t testing.TB, w *reportWorld, step string) {
	t.Helper()
	if _, err := w.s.BuildReports(1 << 20); err != nil {
		t.Fatalf("after %s: build: %v", step, err)
	}
	if err := store.RecountReports(w.s); err != nil {
		t.Fatalf("after %s: %v", step, err)
	}
	for _, q := range reportQueries(w) {
		got, err := w.s.Report(w.ws, q)
		if err != nil {
			t.Fatalf("after %s: Report(%s): %v", step, queryName(q), err)
		}
		want, err := store.ReferenceReport(w.s, w.ws, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after %s: Report(%s) differs from the records:\n got %+v\nwant %+v", step, queryName(q), got, want)
		}
	}
}

// buildInSteps runs the workspace's build a step at a time, calling between after each step
// while the build goes on (steps counted from 1), and returns how many steps it took.
func buildInSteps(t testing.TB, w *reportWorld, between func(step int)) int {
	t.Helper()
	for step := 1; ; step++ {
		_, err := w.s.BuildReports(1)
		must(t, err)
		if building, _, _, _ := w.s.ReportBuild(w.ws); !building {
			return step
		}
		if step > 1000 {
			t.Fatal("the build does not finish")
		}
		between(step)
	}
}

func day(y int, m time.Month, d int) store.Date {
	return store.DateOf(time.Date(y, m, d, 12, 0, 0, 0, time.UTC), time.UTC)
}

// reportQueries are the ranges and filters checkReports compares: the whole month, each day,
// midnight, each number, each member, as an admin and as a member.
func reportQueries(w *reportWorld) []store.ReportQuery {
	admin := store.ReportQuery{ViewerID: w.admin.ID, Admin: true}
	var qs []store.ReportQuery
	with := func(from, to store.Date, edit func(*store.ReportQuery)) {
		q := admin
		q.From, q.To = from, to
		if edit != nil {
			edit(&q)
		}
		qs = append(qs, q)
	}
	with(day(2026, 3, 1), day(2026, 3, 31), nil)
	for d := 5; d <= 12; d++ {
		with(day(2026, 3, d), day(2026, 3, d), nil)
	}
	with(day(2026, 3, 6), day(2026, 3, 7), nil)
	for _, n := range []string{w.main.ID, w.second.ID} {
		with(day(2026, 3, 1), day(2026, 3, 31), func(q *store.ReportQuery) { q.NumberID = n })
	}
	for _, u := range []string{w.admin.ID, w.member.ID} {
		with(day(2026, 3, 1), day(2026, 3, 31), func(q *store.ReportQuery) { q.MemberID = u })
		with(day(2026, 3, 6), day(2026, 3, 9), func(q *store.ReportQuery) { q.MemberID, q.NumberID = u, w.main.ID })
	}
	with(day(2026, 3, 6), day(2026, 3, 12), func(q *store.ReportQuery) { q.ViewerID, q.Admin = w.member.ID, false })
	for _, team := range []string{w.team, w.otherTeam} {
		if team != "" {
			with(day(2026, 3, 1), day(2026, 3, 31), func(q *store.ReportQuery) { q.TeamID = team })
			with(day(2026, 3, 12), day(2026, 3, 12), func(q *store.ReportQuery) { q.TeamID, q.NumberID = team, w.main.ID })
		}
	}
	return qs
}

func queryName(q store.ReportQuery) string {
	return fmt.Sprintf("%s…%s number %q member %q team %q viewer %q admin %v", q.From, q.To, q.NumberID, q.MemberID, q.TeamID, q.ViewerID, q.Admin)
}

// Every write path keeps the rollups equal to what the records say: after each step of the
// workload (sends, outcomes, receipts, inbound, keywords, assignments, closes, snoozes, a
// broadcast, send-later, a blocked number, an import, a cancelled broadcast, an erasure), the
// rollups are counted again from the records and compared, exactly, and every report equals the
// one computed from the records by the definitions.
func TestReportRollupsFollowEveryWrite(t *testing.T) {
	w := newReportWorld(t, filepath.Join(t.TempDir(), "switchboard.db"))
	runReportWorkload(t, w, func(step string) { checkReports(t, w, step) })
}

// A restart in the middle changes nothing: the rollups are in the file, and the writes after it
// keep them exact.
func TestReportRollupsSurviveRestart(t *testing.T) {
	w := newReportWorld(t, filepath.Join(t.TempDir(), "switchboard.db"))
	steps := 0
	runReportWorkload(t, w, func(step string) {
		if steps++; steps == 3 || steps == 6 {
			must(t, w.s.Close())
			w.s = openStoreAt(t, w.path, store.Options{Now: w.clk.Now})
		}
		checkReports(t, w, step)
	})
}

// The retention sweep deletes old messages: the reports count the conversations again without
// them (first responses and openings move with what is left).
func TestReportRetentionSweep(t *testing.T) {
	w := newReportWorld(t, filepath.Join(t.TempDir(), "switchboard.db"))
	runReportWorkload(t, w, func(string) {})
	checkReports(t, w, "the workload")
	n, err := w.s.SweepMessages(w.ws, time.Date(2026, 3, 8, 0, 0, 0, 0, w.loc))
	must(t, err)
	if n == 0 {
		t.Fatal("the sweep deleted nothing")
	}
	checkReports(t, w, "the retention sweep")
	r, err := w.s.Report(w.ws, store.ReportQuery{From: day(2026, 3, 6), To: day(2026, 3, 7), Admin: true})
	must(t, err)
	if r.Totals.Inbound != 0 || r.Totals.Outbound != 0 {
		t.Errorf("after the sweep, 6–7 March still count %d texts in and %d out", r.Totals.Inbound, r.Totals.Outbound)
	}
}

// A new time zone makes other days: the rollups are built again, in the background, while
// writes go on, and the texts move to the new zone's days.
func TestReportZoneChangeRebuilds(t *testing.T) {
	defer store.SetReportBuildBatches(2, 1, 3)()
	w := newReportWorld(t, filepath.Join(t.TempDir(), "switchboard.db"))
	runReportWorkload(t, w, func(string) {})
	checkReports(t, w, "the workload")
	ny, err := w.s.Report(w.ws, store.ReportQuery{From: day(2026, 3, 6), To: day(2026, 3, 6), Admin: true})
	must(t, err)
	_, err = w.s.UpdateWorkspace(w.ws, store.WorkspaceSettings{TimeZone: ptr("Europe/Berlin")})
	must(t, err)
	if building, _, _, _ := w.s.ReportBuild(w.ws); !building {
		t.Fatal("no build after the time zone changed")
	}
	buildInSteps(t, w, func(step int) {
		if step%3 == 1 {
			w.clk.Advance(time.Minute)
			w.in(t, w.main, "+14155550111", "One more question", store.NoKeyword)
			w.out(t, w.main, "+14155550111", "Sure", w.member.ID)
		}
	})
	w.loc, _ = time.LoadLocation("Europe/Berlin")
	checkReports(t, w, "the change to Berlin time")
	berlin, err := w.s.Report(w.ws, store.ReportQuery{From: day(2026, 3, 6), To: day(2026, 3, 6), Admin: true})
	must(t, err)
	// 15:05 in Berlin is 09:05 in New York; the texts of the New York evening fall on 7 March.
	if ny.Totals.Inbound != 5 || berlin.Totals.Inbound != 4 {
		t.Errorf("texts in on 6 March: %d in New York time, %d in Berlin time; want 5 and 4", ny.Totals.Inbound, berlin.Totals.Inbound)
	}
}

// The figures of a small day by hand: what each definition counts, and the DST day's hours.
func TestReportFiguresByHand(t *testing.T) {
	w := newReportWorld(t, filepath.Join(t.TempDir(), "switchboard.db"))
	runReportWorkload(t, w, func(string) {})
	must(t, func() error { _, err := w.s.BuildReports(100); return err }())
	get := func(from, to store.Date, edit func(*store.ReportQuery)) store.Report {
		t.Helper()
		q := store.ReportQuery{From: from, To: to, ViewerID: w.admin.ID, Admin: true}
		if edit != nil {
			edit(&q)
		}
		r, err := w.s.Report(w.ws, q)
		must(t, err)
		return r
	}
	fri := get(day(2026, 3, 6), day(2026, 3, 6), nil)
	want := store.ReportTotals{Opened: 4, Replied: 2, Closed: 1, Inbound: 5, Outbound: 4, Delivered: 3, Failed: 1, Assigned: 3}
	want.Failures[3] = 1 // 30007: filtered as spam
	got := fri.Totals
	got.FirstResponse, got.Resolution = store.Durations{}, store.Durations{}
	got.FirstResponseBusiness, got.ResolutionBusiness = store.Durations{}, store.Durations{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Friday: %+v\nwant %+v", got, want)
	}
	// In business hours (set on Thursday, the figures built again): the front desk opens at 9,
	// so its 570 s count whole; the billing number opens at 10, so Cy's 3,030 s wait before
	// it count nothing; the close of 12:58:30 counts its 14,010 s whole.
	if d := fri.Totals.FirstResponseBusiness; d.Count != 2 || *d.Median != 0 || *d.P90 != 570 {
		t.Errorf("Friday's first responses in business hours: %+v", d)
	}
	if d := fri.Totals.ResolutionBusiness; d.Count != 1 || *d.Median != 14010 {
		t.Errorf("Friday's resolutions in business hours: %+v", d)
	}
	// First responses 9:05→9:14:30 (570 s) and 9:05→9:55:30 (3,030 s); the close at 12:58:30
	// of a conversation opened at 9:05 (14,010 s).
	if d := fri.Totals.FirstResponse; d.Count != 2 || *d.Median != 570 || *d.P90 != 3030 {
		t.Errorf("Friday's first responses: %+v", d)
	}
	if d := fri.Totals.Resolution; d.Count != 1 || *d.Median != 14010 {
		t.Errorf("Friday's resolutions: %+v", d)
	}
	// Saturday: the answer at 00:00:03 to the text of 23:59:58 is Saturday's; so is Bo's first
	// response after 14 h 55 min 3 s.
	sat := get(day(2026, 3, 7), day(2026, 3, 7), nil)
	if sat.Totals.Replied != 2 || sat.Totals.FirstResponse.Count != 1 || *sat.Totals.FirstResponse.Median != 53703 {
		t.Errorf("Saturday: replied %d, first responses %+v", sat.Totals.Replied, sat.Totals.FirstResponse)
	}
	// Sunday 8 March has 23 hours in New York: the texts at 01:30 and 03:30 count in those hours.
	sun := get(day(2026, 3, 8), day(2026, 3, 8), nil)
	if h := sun.Hours[6]; h[1] != 1 || h[3] != 2 || h[2] != 0 {
		t.Errorf("Sunday's texts by hour: %v", h)
	}
	// Both days across midnight at once, and the previous period of the same length before.
	both := get(day(2026, 3, 6), day(2026, 3, 7), nil)
	if both.Totals.Inbound != fri.Totals.Inbound+sat.Totals.Inbound || both.PreviousFrom != day(2026, 3, 4) || both.PreviousTo != day(2026, 3, 5) {
		t.Errorf("6–7 March: %d in (Friday %d, Saturday %d), previous %s–%s", both.Totals.Inbound, fri.Totals.Inbound, sat.Totals.Inbound, both.PreviousFrom, both.PreviousTo)
	}
	sun2 := get(day(2026, 3, 9), day(2026, 3, 9), nil)
	if !reflect.DeepEqual(sun2.Previous, sun.Totals) {
		t.Errorf("Monday's previous period is not Sunday:\n%+v\n%+v", sun2.Previous, sun.Totals)
	}
	// The broadcast: four sent, three delivered, three failed (unsubscribed, unreachable, and a
	// receipt's 30005), one skipped; one reply (the STOP; Ed's conversation was erased); two
	// opt-outs (the STOP and the carrier's unsubscribed).
	mon := get(day(2026, 3, 9), day(2026, 3, 9), nil)
	if len(mon.Broadcasts) != 1 {
		t.Fatalf("Monday's broadcasts: %+v", mon.Broadcasts)
	}
	b := mon.Broadcasts[0]
	if b.Sent != 4 || b.Delivered != 3 || b.Failed != 3 || b.Skipped != 1 || b.Replies != 1 || b.OptOuts != 2 ||
		b.Failures != [7]int{1, 1, 0, 0, 0, 1, 0} {
		t.Errorf("the broadcast: %+v", b)
	}
	// A member who is not an admin sees their own row, and the totals of the numbers they may
	// use (the billing number is limited to a team they are not in).
	asMember := get(day(2026, 3, 6), day(2026, 3, 6), func(q *store.ReportQuery) { q.ViewerID, q.Admin = w.member.ID, false })
	frontDesk := get(day(2026, 3, 6), day(2026, 3, 6), func(q *store.ReportQuery) { q.NumberID = w.main.ID })
	if len(asMember.Members) != 1 || asMember.Members[0].UserID != w.member.ID || !reflect.DeepEqual(asMember.Totals, frontDesk.Totals) {
		t.Errorf("as a member: %+v", asMember.Members)
	}
}
