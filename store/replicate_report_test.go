package store_test

import (
	"reflect"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestFollowerReportsAsTheLeader: the report rollups a write buffers until just before its
// commit are part of its log entry. After every step of the reports workload, and through the
// background build a time zone change starts, a follower applying the leader's entries answers
// every report as the leader does and holds the same file.
func TestFollowerReportsAsTheLeader(t *testing.T) {
	defer store.SetReportBuildBatches(2, 1, 3)()
	clk := testutil.NewClock(reportStart)
	p := newPairWith(t, store.Options{Now: clk.Now})
	w := newReportWorldOn(t, p.leader, "", clk)
	same := func(step string) {
		t.Helper()
		for _, q := range reportQueries(w) {
			lead, err := p.leader.Report(w.ws, q)
			must(t, err)
			follow, err := p.follower.Report(w.ws, q)
			must(t, err)
			if !reflect.DeepEqual(lead, follow) {
				t.Fatalf("after %s: Report(%s) on the follower differs from the leader's:\n got %+v\nwant %+v", step, queryName(q), follow, lead)
			}
		}
		if dl, df := dumpFile(t, p.leader), dumpFile(t, p.follower); dl != df {
			t.Fatalf("after %s: leader and follower files differ:\n%s", step, firstDiff(dl, df))
		}
	}
	counted := false
	runReportWorkload(t, w, func(step string) {
		same(step)
		r, err := p.follower.Report(w.ws, store.ReportQuery{From: day(2026, 3, 1), To: day(2026, 3, 31), Admin: true})
		must(t, err)
		counted = counted || r.Totals.Inbound > 0
	})
	if !counted {
		t.Fatal("the follower's reports count no inbound text: the comparison compared nothing")
	}
	_, err := p.leader.UpdateWorkspace(w.ws, store.WorkspaceSettings{TimeZone: ptr("Europe/Berlin")})
	must(t, err)
	if building, _, _, _ := p.follower.ReportBuild(w.ws); !building {
		t.Fatal("the follower does not see the build the zone change started")
	}
	buildInSteps(t, w, func(step int) {
		if step%3 == 1 {
			w.clk.Advance(time.Minute)
			w.in(t, w.main, "+14155550111", "One more question", store.NoKeyword)
		}
		same("build step")
	})
	if building, _, _, _ := p.follower.ReportBuild(w.ws); building {
		t.Fatal("the follower still sees a build the leader finished")
	}
	same("the build")
	if _, err := p.follower.BuildReports(1); err != nil {
		t.Fatalf("a follower with no build waiting: BuildReports = %v", err)
	}
}
