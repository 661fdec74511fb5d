package store_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// loadReportWorld opens the schema-9 file the workload wrote before the rollups existed
// (testdata/schema9-reports.db.gz) on a clock at start: the migration runs.
func loadReportWorld(t *testing.T, start time.Time) *reportWorld {
	t.Helper()
	in, err := os.Open("testdata/schema9-reports.db.gz")
	must(t, err)
	defer in.Close()
	zr, err := gzip.NewReader(in)
	must(t, err)
	path := filepath.Join(t.TempDir(), "v9.db")
	out, err := os.Create(path)
	must(t, err)
	_, err = io.Copy(out, zr)
	must(t, err)
	must(t, out.Close())
	clk := testutil.NewClock(start)
	s := openStoreAt(t, path, store.Options{Now: clk.Now})
	w := &reportWorld{s: s, path: path, clk: clk, convs: map[string]string{}}
	w.loc, _ = time.LoadLocation("America/New_York")
	wss, err := s.Workspaces()
	must(t, err)
	if len(wss) != 1 {
		t.Fatalf("%d workspaces in the schema-9 file", len(wss))
	}
	w.ws = wss[0].ID
	w.admin, err = s.UserByEmail("ana@example.com")
	must(t, err)
	w.member, err = s.UserByEmail("bo@example.com")
	must(t, err)
	numbers, err := s.Numbers(w.ws)
	must(t, err)
	for _, n := range numbers {
		switch n.Phone {
		case "+14155550100":
			w.main = n
		case "+14155550101":
			w.second = n
		}
	}
	return w
}

// A file from before the rollups: the migration starts a build that runs in steps while writes
// go on (the server stays usable), and once it is done every figure equals what the records
// say, the conversations broadcasts created counted as opened by the contact's reply.
func TestReportMigrationFromSchema9(t *testing.T) {
	defer store.SetReportBuildBatches(3, 2, 4)()
	w := loadReportWorld(t, time.Date(2026, 3, 12, 15, 0, 0, 0, time.UTC))
	if v, err := w.s.SchemaVersion(); err != nil || v != store.SchemaVersion {
		t.Fatalf("schema %d (%v), want %d", v, err, store.SchemaVersion)
	}
	building, done, total, err := w.s.ReportBuild(w.ws)
	must(t, err)
	if !building || done != 0 || total < 10 {
		t.Fatalf("after the migration: building %v, %d of %d", building, done, total)
	}
	if err := store.RecountReports(w.s); err == nil {
		t.Fatal("RecountReports compared rollups while the build runs")
	}
	// Writes between the build's steps: to a conversation already counted, to one not yet
	// counted, a new one, an opt-out, a close.
	const early, late, fresh = "+14155550111", "+14155550119", "+14155550130"
	steps := buildInSteps(t, w, func(step int) {
		w.clk.Advance(time.Minute)
		switch step {
		case 1:
			w.in(t, w.main, early, "Still on for Tuesday?", store.NoKeyword)
			w.out(t, w.main, early, "Yes!", w.member.ID)
		case 2:
			w.in(t, w.main, late, "Who is this?", store.NoKeyword)
			w.in(t, w.main, fresh, "Hello", store.NoKeyword)
		case 3:
			w.update(t, w.convs[early], w.admin.ID, store.ConversationUpdate{Status: status(store.ConversationClosed)})
			_, _, err := w.s.CreateOptOut(w.ws, w.admin.ID, "+14155550131", store.OptOutAPI)
			must(t, err)
		}
	})
	if steps < 4 {
		t.Fatalf("the build took %d steps; the test wants writes between several", steps)
	}
	checkReports(t, w, "the migration and the writes during its build")
	// A broadcast created these conversations before the rollups recorded it: they count as
	// opened by the contact's reply, not by the copy.
	c, err := w.s.Conversation(w.ws, w.convs[late])
	must(t, err)
	if !c.CreatedClosed {
		t.Errorf("the conversation a broadcast copy created is not marked created closed")
	}
	if c, err := w.s.Conversation(w.ws, w.convs[early]); err != nil || c.CreatedClosed {
		t.Errorf("a conversation the contact started is marked created closed (%v)", err)
	}
	// A second open changes nothing.
	w.s.Close()
	w2 := loadReportWorldAt(t, w)
	checkReports(t, w2, "a restart")
}

// loadReportWorldAt opens w's file again (a restart) on w's clock.
func loadReportWorldAt(t *testing.T, w *reportWorld) *reportWorld {
	t.Helper()
	s := openStoreAt(t, w.path, store.Options{Now: w.clk.Now})
	w2 := *w
	w2.s = s
	return &w2
}
