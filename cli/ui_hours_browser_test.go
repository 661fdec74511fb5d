package cli

import (
	"context"
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

	shots := newShots(t)
	ctx := testutil.StartChromium(t, chrome, 3*time.Minute)
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			shots.take(ctx, "hours-failed")
			t.Fatalf("%s: %v", step, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(testutil.TestID(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	run("sign in",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(srv.base+"/login"),
		chromedp.WaitVisible(testutil.TestID("login-form")),
		chromedp.SendKeys(testutil.TestID("login-email"), "ana@example.com"),
		chromedp.SendKeys(testutil.TestID("login-password"), "correct horse"),
		chromedp.Click(testutil.TestID("login-submit")),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)
	run("turn state calling hours on",
		chromedp.Navigate(srv.base+"/settings/workspace"),
		chromedp.WaitVisible(testutil.TestID("ws-state-hours")),
		chromedp.Click(testutil.TestID("ws-state-hours")),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	on, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="ws-state-hours"]').checked`))
	if err != nil || !on {
		t.Fatalf("after saving, the state hours box is checked=%v (%v), want checked", on, err)
	}
	run("scroll to the box", chromedp.ScrollIntoView(testutil.TestID("ws-state-hours")))
	shots.take(ctx, "hours-01-setting")

	var b struct{ ID string }
	apiOK(t, srv.base, f.token, "send-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
		"from": "+14155550100", "text": "Our spring sale starts today", "name": "Spring sale",
		"recipients": []string{"+12145550123", "+447700900121", "+447700900122", "+447700900123"}}, http.StatusAccepted, &b)
	run("the broadcast page lists the waiting copies",
		chromedp.Navigate(srv.base+"/broadcasts/"+b.ID),
		chromedp.WaitVisible(testutil.TestID("broadcast-held")),
	)
	held := text("broadcast-held")
	if !strings.Contains(held, "Texas") || !strings.Contains(held, "daily cap of 2 reached") {
		t.Errorf("waiting copies %q, want the Texas hours and the daily cap", held)
	}
	shots.take(ctx, "hours-02-broadcast")
	run("phone width", chromedp.EmulateViewport(390, 844), chromedp.Navigate(srv.base+"/broadcasts/"+b.ID),
		chromedp.WaitVisible(testutil.TestID("broadcast-held")))
	shots.take(ctx, "hours-03-broadcast-390")
	run("phone width settings", chromedp.Navigate(srv.base+"/settings/numbers"), chromedp.WaitVisible(testutil.TestID("daily-cap-form")))
	if got := text("daily-cap-today"); !strings.Contains(got, "of 2 today") {
		t.Errorf("numbers page says %q, want today's count of 2", got)
	}
	if w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || w > 390 {
		t.Errorf("the numbers page at 390 px is %d px wide (%v): it scrolls sideways", w, err)
	}
	shots.take(ctx, "hours-04-numbers-390")
	run("desktop numbers", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.base+"/settings/numbers"),
		chromedp.WaitVisible(testutil.TestID("daily-cap-form")))
	shots.take(ctx, "hours-05-numbers")
}
