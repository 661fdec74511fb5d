package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// BenchmarkReport90Days: 100,000 conversations and 1,000,000 messages over 90 days (fewer with
// REPORT_BENCH_CONVERSATIONS), written through the store's own write paths on a clock that
// walks the days — each conversation five texts from a contact and five answers from one of
// five members on one of two numbers, one in five assigned and closed, every send delivered —
// so the rollups are the ones the writes kept. It then times a rebuild of them from the records
// (what the migration does, in the background) and the longest step of it (how long a batch
// holds the write lock), and finally the built binary answering the 90-day report:
// get-report-action and GET /reports, p50 and p99 over 30 requests each (target ≤ 200 ms, §24).
// Seeding turns fsync off (bbolt NoSync) to be done in minutes; the server runs as always.
//
//	go test -run '^$' -bench Report90Days -benchtime 1x -timeout 60m ./cli
func BenchmarkReport90Days(b *testing.B) {
	conversations := 100_000
	if n, err := strconv.Atoi(os.Getenv("REPORT_BENCH_CONVERSATIONS")); err == nil && n >= 90 {
		conversations = n // a smaller run while trying it out
	}
	const days = 90
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := newFixture(b)
		now := time.Now().UTC()
		from, to := store.DateOf(now, time.UTC)-days+1, store.DateOf(now, time.UTC)
		clk := testutil.NewClock(from.Start(time.UTC))
		s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{Now: clk.Now})
		testutil.NoErr(b, err)
		s.DB().NoSync = true // seeding only; the server below syncs every commit
		start := time.Now()
		msgs := seedReportBench(b, s, clk, f, conversations, days)
		seeded := time.Since(start)

		// A rebuild from the records, as the migration runs it: a zone change starts one.
		zone := "America/New_York"
		_, err = s.UpdateWorkspace(f.ws, store.WorkspaceSettings{TimeZone: &zone})
		testutil.NoErr(b, err)
		start = time.Now()
		var longest time.Duration
		for {
			step := time.Now()
			_, err := s.BuildReports(1)
			testutil.NoErr(b, err)
			longest = max(longest, time.Since(step))
			building, _, _, err := s.ReportBuild(f.ws)
			testutil.NoErr(b, err)
			if !building {
				break
			}
		}
		rebuilt := time.Since(start)
		testutil.NoErr(b, s.DB().Sync())
		testutil.NoErr(b, s.Close())

		addr := "127.0.0.1:" + testutil.FreePort(b)
		srv := startServer(b, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false", "-rate-limit", "0")
		body := map[string]any{"developerProvider": "zapier", "id": f.ws, "from": from.String(), "to": to.String()}
		var rep struct {
			Messages struct{ Inbound, Outbound int }
			Days     []struct{ Date string }
		}
		apiOK(b, srv.base, f.token, "get-report-action", body, http.StatusOK, &rep)
		if len(rep.Days) != days || rep.Messages.Inbound+rep.Messages.Outbound < msgs*9/10 {
			b.Fatalf("the 90-day report counts %d in and %d out over %d days; %d messages were written", rep.Messages.Inbound,
				rep.Messages.Outbound, len(rep.Days), msgs)
		}
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.PostForm(srv.base+"/login", url.Values{"email": {"ana@example.com"}, "password": {"correct horse"}})
		if err != nil || res.StatusCode != http.StatusSeeOther {
			b.Fatalf("sign in: %v %v", res, err)
		}
		res.Body.Close()
		page := srv.base + "/reports?range=90d"
		b.StartTimer()
		apiTimes := timeRequests(b, 30, func() { apiOK(b, srv.base, f.token, "get-report-action", body, http.StatusOK, nil) })
		pageTimes := timeRequests(b, 30, func() {
			res, err := client.Get(page)
			if err != nil || res.StatusCode != http.StatusOK {
				b.Fatalf("GET /reports: %v %v", res, err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		})
		b.StopTimer()
		b.ReportMetric(apiTimes[len(apiTimes)/2], "api-p50-ms")
		b.ReportMetric(apiTimes[len(apiTimes)*99/100], "api-p99-ms")
		b.ReportMetric(pageTimes[len(pageTimes)/2], "page-p50-ms")
		b.ReportMetric(pageTimes[len(pageTimes)*99/100], "page-p99-ms")
		b.ReportMetric(float64(msgs), "messages")
		b.ReportMetric(seeded.Seconds(), "seed-s")
		b.ReportMetric(rebuilt.Seconds(), "rebuild-s")
		b.ReportMetric(float64(longest.Milliseconds()), "rebuild-step-max-ms")
	}
}

// timeRequests runs do n times after one warm-up and returns the durations in ms, sorted.
func timeRequests(b *testing.B, n int, do func()) []float64 {
	do()
	out := make([]float64, n)
	for i := range out {
		start := time.Now()
		do()
		out[i] = float64(time.Since(start).Microseconds()) / 1000
	}
	slices.Sort(out)
	return out
}

// seedReportBench writes the benchmark's conversations day by day through the store and
// returns how many messages it wrote.
func seedReportBench(b *testing.B, s *store.Store, clk *testutil.Clock, f fixture, conversations, days int) int {
	numbers := []string{"+14155550100"}
	n2, err := s.AddNumber(f.ws, "+14155550101", "Billing")
	testutil.NoErr(b, err)
	numbers = append(numbers, n2.Phone)
	members := []string{f.user}
	for m := range 4 {
		u, err := s.CreateUser(store.NewUser{Email: fmt.Sprintf("member%d@example.com", m), Name: fmt.Sprintf("Member %d", m)})
		testutil.NoErr(b, err)
		_, err = s.AddMember(f.ws, u.ID, "member")
		testutil.NoErr(b, err)
		members = append(members, u.ID)
	}
	perDay := conversations / days
	convs := make([]string, perDay*days)
	var written atomic.Int64
	closed := store.ConversationClosed
	first := clk.Now()
	for d := range days {
		day := first.AddDate(0, 0, d)
		for round := range 10 {
			clk.Set(day.Add(8*time.Hour + time.Duration(round)*50*time.Minute))
			parallelOps(b, 32, perDay, func(i int) error {
				c := d*perDay + i
				phone, number := fmt.Sprintf("+1303%07d", c), numbers[c%2]
				clk.Advance(time.Second)
				if round%2 == 0 {
					r, err := s.ReceiveMessage(f.ws, store.InboundMessage{From: phone, To: number, Text: "Hello, a question about my appointment", Provider: store.ProviderSandbox})
					if round == 0 {
						convs[c] = r.Message.ConversationID
					}
					written.Add(1)
					return err
				}
				_, err := s.SendMessage(f.ws, store.SendInput{From: number, To: []string{phone}, Text: "Thanks, we will look into it.", AuthorID: members[c%5]})
				written.Add(1)
				if err == nil && round == 9 && c%5 == 0 {
					_, err = s.UpdateConversation(f.ws, convs[c], store.ConversationUpdate{Status: &closed, AssignedUserIDs: &[]string{members[c%5]}, ActorID: members[c%5]})
				}
				return err
			})
		}
		for {
			claims, err := s.ClaimOutbound(20000, 20000, "", func(*store.PhoneNumber) int { return 20000 })
			testutil.NoErr(b, err)
			if len(claims) == 0 {
				break
			}
			var outs []store.Outcome
			for _, cl := range claims {
				for _, m := range cl.Messages {
					outs = append(outs, store.Outcome{WorkspaceID: m.WorkspaceID, MessageID: m.ID, Provider: store.ProviderSandbox,
						ProviderIDs: []string{"sandbox-" + m.ID}, Delivered: true})
				}
			}
			testutil.NoErr(b, s.RecordOutcomes(outs))
		}
		if d%10 == 9 {
			b.Logf("report seed: %d of %d days, %d messages", d+1, days, written.Load())
		}
	}
	return int(written.Load())
}

// parallelOps runs op for 0…n−1 on workers goroutines and fails the benchmark on an error.
func parallelOps(b *testing.B, workers, n int, op func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := op(i); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
}
