package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"

	"github.com/chromedp/chromedp"
)

// awakeZone picks a zone where it is now between 01:00 and 06:59, so that a Texas number read in
// it is outside every calling window whatever the time of the test.
func awakeZone(t *testing.T) string {
	for _, name := range []string{"Pacific/Honolulu", "America/Los_Angeles", "America/Chicago", "America/Sao_Paulo",
		"Europe/London", "Europe/Berlin", "Europe/Moscow", "Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo",
		"Australia/Sydney", "Pacific/Auckland"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			continue
		}
		if h := time.Now().In(loc).Hour(); h >= 1 && h <= 6 {
			return name
		}
	}
	t.Fatal("no zone in the list is between 01:00 and 07:00 now")
	return ""
}

// TestBrowserCallingHours: an admin turns US state calling hours on with the box beside quiet
// hours; a broadcast to a Texas contact outside Texas's hours and to three UK numbers on a number
// capped at 2 a day shows, on its page, which copies wait and why. Screenshots at 1280 and 390 px
// go to SCREENSHOT_DIR as hours-*.png.
func TestBrowserCallingHours(t *testing.T) {
	chrome := testutil.Chromium(t)
	f := newFixture(t)
	d := "-data=" + f.data
	ok(t, "admin", "set-number", d, "--number", "+14155550100", "--daily-cap", "2")
	zone := awakeZone(t)
	csv := filepath.Join(t.TempDir(), "contacts.csv")
	if err := os.WriteFile(csv, []byte("firstName,phone,timeZone\nTex,+12145550123,"+zone+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb(t, nil, "admin", "import-contacts", d, "--workspace", f.ws, csv)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+f.data, "-log-requests=false")
	defer srv.stop(t)

	br := openBrowser(t, chrome, 3*time.Minute, nil)
	br.stepLimit, br.failShot = 20*time.Second, "hours-failed"
	br.signIn(srv.base+"/login", "ana@example.com", "correct horse", testutil.TestID("new-conversation-form"))
	br.run("turn state calling hours on",
		chromedp.Navigate(srv.base+"/settings/workspace"),
		chromedp.WaitVisible(testutil.TestID("ws-state-hours")),
		chromedp.Click(testutil.TestID("ws-state-hours")),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	on, err := chromedp.Run(br.ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="ws-state-hours"]').checked`))
	if err != nil || !on {
		t.Fatalf("after saving, the state hours box is checked=%v (%v), want checked", on, err)
	}
	br.run("scroll to the box", chromedp.ScrollIntoView(testutil.TestID("ws-state-hours")))
	br.shot("hours-01-setting")

	var b struct{ ID string }
	apiOK(t, srv.base, f.token, "send-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
		"from": "+14155550100", "text": "Our spring sale starts today", "name": "Spring sale",
		"recipients": []string{"+12145550123", "+447700900121", "+447700900122", "+447700900123"}}, http.StatusAccepted, &b)
	br.run("the broadcast page lists the waiting copies",
		chromedp.Navigate(srv.base+"/broadcasts/"+b.ID),
		chromedp.WaitVisible(testutil.TestID("broadcast-held")),
	)
	held := br.text(testutil.TestID("broadcast-held"))
	if !strings.Contains(held, "Texas") || !strings.Contains(held, "daily cap of 2 reached") {
		t.Errorf("waiting copies %q, want the Texas hours and the daily cap", held)
	}
	br.shot("hours-02-broadcast")
	br.run("phone width", phone, chromedp.Navigate(srv.base+"/broadcasts/"+b.ID),
		chromedp.WaitVisible(testutil.TestID("broadcast-held")))
	br.shot("hours-03-broadcast-390")
	br.run("phone width settings", chromedp.Navigate(srv.base+"/settings/numbers"), chromedp.WaitVisible(testutil.TestID("daily-cap-form")))
	if got := br.text(testutil.TestID("daily-cap-today")); !strings.Contains(got, "of 2 today") {
		t.Errorf("numbers page says %q, want today's count of 2", got)
	}
	if w, err := chromedp.Run(br.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || w > 390 {
		t.Errorf("the numbers page at 390 px is %d px wide (%v): it scrolls sideways", w, err)
	}
	br.shot("hours-04-numbers-390")
	br.run("desktop numbers", desktop, chromedp.Navigate(srv.base+"/settings/numbers"),
		chromedp.WaitVisible(testutil.TestID("daily-cap-form")))
	br.shot("hours-05-numbers")
}
