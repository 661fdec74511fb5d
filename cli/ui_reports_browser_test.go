package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// seedReports gives the fixture's workspace a month of activity ending now, written through the
// store on a clock that walks the days: contacts writing at all hours (most on weekday
// mornings), members answering and closing, two broadcasts with failures and replies, STOPs.
// It returns the second member's id.
func seedReports(t *testing.T, f fixture, days int) string {
	t.Helper()
	now := time.Now().UTC()
	clk := testutil.NewClock(now.AddDate(0, 0, -days))
	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{Now: clk.Now})
	testutil.NoErr(t, err)
	defer s.Close()
	bo, err := s.CreateUser(store.NewUser{Email: "bo@example.com", Name: "Bo Chen", Password: "correct horse"})
	testutil.NoErr(t, err)
	_, err = s.AddMember(f.ws, bo.ID, "member")
	testutil.NoErr(t, err)
	const from = "+14155550100"
	members := []string{f.user, bo.ID}
	drain := func() {
		claims, err := s.ClaimOutbound(10000, 10000, "", func(*store.PhoneNumber) int { return 10000 })
		testutil.NoErr(t, err)
		var outs []store.Outcome
		for _, c := range claims {
			for i, m := range c.Messages {
				o := store.Outcome{WorkspaceID: m.WorkspaceID, MessageID: m.ID, Provider: store.ProviderSandbox}
				switch {
				case i%17 == 3:
					o.Err = "twilio 30003: unreachable"
				case i%29 == 5:
					o.Err = "twilio 30007: filtered"
				default:
					o.ProviderIDs, o.Delivered = []string{"sandbox-" + m.ID}, true
				}
				outs = append(outs, o)
			}
		}
		testutil.NoErr(t, s.RecordOutcomes(outs))
	}
	start := clk.Now().Truncate(24 * time.Hour)
	for d := range days {
		day := start.AddDate(0, 0, d)
		weekend := day.Weekday() == time.Saturday || day.Weekday() == time.Sunday
		n := 4 + d%5
		if weekend {
			n = 1 + d%2
		}
		for i := range n {
			hour := 8 + (i*3+d)%10
			clk.Set(day.Add(time.Duration(hour)*time.Hour + time.Duration(i*7)*time.Minute))
			phone := fmt.Sprintf("+1303555%02d%02d", d%100, i)
			r, err := s.ReceiveMessage(f.ws, store.InboundMessage{From: phone, To: from, Text: "Can I book a visit?", Provider: store.ProviderSandbox})
			testutil.NoErr(t, err)
			author := members[(d+i)%2]
			if i%3 != 2 {
				clk.Advance(time.Duration(2+(d*i)%40) * time.Minute)
				_, err = s.SendMessage(f.ws, store.SendInput{From: from, To: []string{phone}, Text: "Of course: when suits you?", AuthorID: author})
				testutil.NoErr(t, err)
			}
			if i%2 == 0 {
				clk.Advance(time.Duration(1+i) * time.Hour)
				closed := store.ConversationClosed
				_, err = s.UpdateConversation(f.ws, r.Message.ConversationID, store.ConversationUpdate{Status: &closed, ActorID: author,
					AssignedUserIDs: &[]string{author}})
				testutil.NoErr(t, err)
			}
			if i == 3 && d%4 == 0 {
				_, err = s.ReceiveMessage(f.ws, store.InboundMessage{From: phone, To: from, Text: "STOP", Provider: store.ProviderSandbox, Keyword: store.KeywordStop})
				testutil.NoErr(t, err)
			}
		}
		if d == days/3 || d == days-5 {
			clk.Set(day.Add(15 * time.Hour))
			var to []string
			for i := range 40 {
				to = append(to, fmt.Sprintf("+1720555%04d", d*100+i))
			}
			name := "Spring check-ups"
			if d != days/3 {
				name = "Holiday opening hours"
			}
			_, err := s.SendBroadcast(f.ws, store.BroadcastInput{Name: name, From: from, Recipients: to, Text: "Our clinic news: reply to book.", AuthorID: f.user})
			testutil.NoErr(t, err)
			drain()
			clk.Advance(time.Hour)
			for i := 0; i < 6; i++ {
				_, err := s.ReceiveMessage(f.ws, store.InboundMessage{From: to[i], To: from, Text: "Yes please", Provider: store.ProviderSandbox})
				testutil.NoErr(t, err)
			}
		}
		drain()
	}
	return bo.ID
}

// TestBrowserReports looks at /reports as a person does, with a month of data: at 1366 and 390
// px wide (screenshots of both), every picture an SVG with a title, a description and a table,
// text in the pictures no smaller than 11 px, nothing scrolling sideways on the phone; the
// range and member filters work through their labelled fields.
func TestBrowserReports(t *testing.T) {
	chrome := testutil.Chromium(t)
	f := newFixture(t)
	boID := seedReports(t, f, 35)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	startServer(t, addr, nil, "-addr", addr, "-data="+f.data, "-log-requests=false")
	base := "http://" + addr

	b := openBrowser(t, chrome, 4*time.Minute, nil)
	b.stepLimit = 30 * time.Second
	t.Logf("screenshots in %s", strings.Join(b.shots.dirs, " and "))
	b.signIn(base+"/login", "ana@example.com", "correct horse", testutil.TestID("inbox-list"))
	b.run("open Reports from the navigation",
		chromedp.EmulateViewport(1366, 900),
		chromedp.Click(testutil.TestID("nav-reports")),
		chromedp.WaitVisible(testutil.TestID("chart-messages")),
	)
	b.run("choose the last 30 days",
		chromedp.SetValue(b.labelled("report-filter", "Range"), "30d"),
		chromedp.Submit(b.labelled("report-filter", "Range")),
		chromedp.WaitVisible(testutil.TestID("report-period")),
	)
	b.shot("reports-1366")
	checkReportPage(t, b, 1366)
	if v := b.text(testutil.TestID("card-opened")); !strings.Contains(v, "Conversations opened") {
		t.Errorf("the opened card reads %q", v)
	}
	if v := b.text(testutil.TestID("card-automatic")); !strings.HasPrefix(v, "Automatic replies") {
		t.Errorf("the automatic replies card reads %q", v)
	}
	b.run("phone width", chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(testutil.TestID("chart-messages")))
	b.shot("reports-390")
	checkReportPage(t, b, 390)
	checkPhonePage(t, b, "reports", base+"/reports?range=30d", true)

	b.run("narrow to Bo Chen",
		chromedp.EmulateViewport(1366, 900),
		chromedp.SetValue(b.labelled("report-filter", "Member"), boID),
		chromedp.Submit(b.labelled("report-filter", "Member")),
		chromedp.WaitVisible(testutil.TestID("members-table")),
	)
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="members-table"] tbody th')).map(th => th.textContent.trim())`))
	testutil.NoErr(t, err)
	if len(rows) != 1 || rows[0] != "Bo Chen" {
		t.Errorf("the members table for Bo Chen lists %v", rows)
	}
	b.shot("reports-member-1366")

	// Business hours set on their page: the figures are built again, then the page shows the
	// times in business hours beside the wall-clock ones.
	b.run("open Settings → Hours", chromedp.Navigate(base+"/settings/hours"), chromedp.WaitVisible(testutil.TestID("hours-form")))
	b.run("set business hours",
		chromedp.SetValue(b.labelled("hours-form", "Weekly hours"), "mon-fri 09:00-17:00"),
		b.submit("hours", "hours-save", "Save hours"),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	deadline := time.Now().Add(time.Minute)
	for {
		b.run("open the 30 days' report", chromedp.Navigate(base+"/reports?range=30d"), chromedp.WaitVisible(testutil.TestID("chart-times")))
		main := b.text("main")
		if strings.Contains(main, "First response (business hours)") && !strings.Contains(main, "being built") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no business-hours times a minute after the hours were set")
		}
		time.Sleep(time.Second) // the server builds in the background, every 2 s
	}
	b.shot("reports-business-hours-1366")
}

// checkReportPage checks the charts on screen: each an SVG with a title and a description it is
// labelled by, a table in its section, text of at least 11 px, inside the page's width.
func checkReportPage(t *testing.T, b *browserSession, width int) {
	t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
		const w = document.documentElement.clientWidth, out = {charts: 0, problems: []};
		for (const svg of document.querySelectorAll('figure.chart > svg')) {
			out.charts++;
			const id = svg.closest('figure').dataset.testid;
			const title = svg.querySelector(':scope > title'), desc = svg.querySelector(':scope > desc');
			if (!title || !title.textContent.trim() || !desc || !desc.textContent.trim()) out.problems.push(id + ': no title or description');
			if (svg.getAttribute('role') !== 'img' || !(svg.getAttribute('aria-labelledby') || '').includes(title && title.id)) out.problems.push(id + ': not labelled by its title');
			const section = svg.closest('section');
			if (!section || !section.querySelector('table')) out.problems.push(id + ': no table beside it');
			if (!section || !section.querySelector('a.csv')) out.problems.push(id + ': no CSV download');
			const r = svg.getBoundingClientRect();
			if (r.right > w + 0.5 || r.width < 200) out.problems.push(id + ': ' + Math.round(r.width) + ' px wide, right at ' + Math.round(r.right));
			for (const text of svg.querySelectorAll('text')) {
				const size = parseFloat(getComputedStyle(text).fontSize), tr = text.getBoundingClientRect();
				if (size < 11) out.problems.push(id + ': text "' + text.textContent + '" at ' + size + ' px');
				if (tr.width > 0 && (tr.left < r.left - 1 || tr.right > r.right + 1)) out.problems.push(id + ': text "' + text.textContent + '" outside the picture');
			}
		}
		return JSON.stringify(out);
	})()`))
	testutil.NoErr(t, err)
	var m struct {
		Charts   int
		Problems []string
	}
	testutil.NoErr(t, json.Unmarshal([]byte(got), &m))
	if m.Charts < 5 {
		t.Errorf("at %d px: %d charts, want messages, times, hours, broadcasts and opt-outs", width, m.Charts)
	}
	for _, p := range m.Problems {
		t.Errorf("at %d px: %s", width, p)
	}
}
