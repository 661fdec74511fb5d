package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"switchboard/internal/testutil"
)

// TestBrowserTwoFactor: the first administrator turns on two-factor from the profile (QR code,
// secret, a first code, ten recovery codes), then signs in again with a code from the app, and
// once more with a recovery code.
func TestBrowserTwoFactor(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chrome := testutil.Chromium(t)
	data := t.TempDir()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false")
	link := ""
	re := regexp.MustCompile(`one-time link\): (\S+)`)
	for deadline := time.Now().Add(5 * time.Second); link == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(srv.stdout.String()); m != nil {
			link = m[1]
		}
	}
	if link == "" {
		t.Fatalf("serve printed no setup link; stdout:\n%s", srv.stdout)
	}
	base := "http://" + addr
	shots := newShots(t)
	ctx := testutil.StartChromium(t, chrome, 2*time.Minute)
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			shots.take(ctx, "two-factor-failed")
			t.Fatalf("%s: %v", step, err)
		}
	}
	const email, password = "admin@acme.example", "correct horse battery"
	run("set up the administrator",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(strings.Replace(link, "http://localhost:", "http://127.0.0.1:", 1)),
		chromedp.WaitVisible(testutil.TestID("setup-form")),
		chromedp.SendKeys(chromedp.CSS("#email"), email),
		chromedp.SendKeys(chromedp.CSS("#name"), "Dana Admin"),
		chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Click(testutil.TestID("setup-submit")),
		chromedp.WaitVisible(testutil.TestID("notice-link")),
		chromedp.Navigate(base+"/settings/profile"),
		chromedp.WaitVisible(testutil.TestID("two-factor-setup")),
		chromedp.Click(testutil.TestID("two-factor-setup")),
		chromedp.WaitVisible(testutil.TestID("enrol-qr")),
	)
	shots.take(ctx, "two-factor-enrol")
	secret, err := chromedp.Run(ctx, chromedp.Text(testutil.TestID("enrol-secret")))
	if err != nil {
		t.Fatal(err)
	}
	secret = strings.ReplaceAll(strings.TrimSpace(secret), " ", "")
	qrShown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const i = document.querySelector('[data-testid="enrol-qr"]'); return i.complete && i.naturalWidth > 0 })()`))
	if err != nil || !qrShown {
		t.Fatalf("the QR code image did not load (CSP or encoding): %v", err)
	}
	codeAt := func(at time.Time) string {
		c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	confirmed := codeAt(time.Now())
	run("confirm with a first code",
		chromedp.SendKeys(chromedp.CSS("#code"), confirmed),
		chromedp.Click(testutil.TestID("enrol-submit")),
		chromedp.WaitVisible(testutil.TestID("recovery-codes")),
	)
	shots.take(ctx, "two-factor-recovery")
	codes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="recovery-codes"] code'), c => c.textContent)`))
	if err != nil || len(codes) != 10 {
		t.Fatalf("recovery codes: %v %v", codes, err)
	}
	// signIn signs out and in again; each of refused is tried first and must show the error.
	signIn := func(step, code string, refused ...string) {
		t.Helper()
		run(step,
			chromedp.Navigate(base+"/settings/profile"),
			chromedp.WaitVisible(chromedp.CSS("form.signout button")),
			chromedp.Click(chromedp.CSS("form.signout button")),
			chromedp.WaitVisible(testutil.TestID("login-form")),
			chromedp.SendKeys(chromedp.CSS("#email"), email),
			chromedp.SendKeys(chromedp.CSS("#password"), password),
			chromedp.Click(testutil.TestID("login-submit")),
			chromedp.WaitVisible(testutil.TestID("code-form")),
		)
		for i, bad := range refused {
			run(step+": a refused code",
				// Drop the previous error, so that only the answer to this code can show one.
				chromedp.Evaluate[chromedp.Void](`document.querySelector('#code').value = ''; document.querySelector('[data-testid="code-error"]')?.remove()`),
				chromedp.SendKeys(chromedp.CSS("#code"), bad),
				chromedp.Click(testutil.TestID("code-submit")),
				chromedp.WaitVisible(testutil.TestID("code-error")),
			)
			if i == 0 {
				shots.take(ctx, "two-factor-code-refused")
				run("the refused code at 390 px", chromedp.EmulateViewport(390, 844))
				shots.take(ctx, "two-factor-code-refused-390")
				run("back to the desktop", chromedp.EmulateViewport(1280, 900))
			}
		}
		run(step,
			chromedp.Evaluate[chromedp.Void](`document.querySelector('#code').value = ''`),
			chromedp.SendKeys(chromedp.CSS("#code"), code),
			chromedp.Click(testutil.TestID("code-submit")),
			chromedp.WaitVisible(testutil.TestID("create-workspace-form")),
		)
	}
	// The next step's code: the first one was spent on the confirmation, and is refused when
	// replayed, like a wrong one.
	wrong := fmt.Sprintf("%06d", (atoi(t, confirmed)+500000)%1000000)
	signIn("sign in with a code from the app", codeAt(time.Now().Add(30*time.Second)), confirmed, wrong)
	// A recovery code works once: the first one, spent, is refused the second time.
	signIn("sign in with a recovery code", codes[0])
	signIn("sign in with another recovery code", codes[1], codes[0])
	shots.take(ctx, "two-factor-signed-in")

	// The profile's notification choices, e-mail included, at desktop and phone widths.
	run("the notification choices",
		chromedp.Navigate(base+"/settings/profile"),
		chromedp.WaitVisible(testutil.TestID("notify-email")),
		chromedp.ScrollIntoView(testutil.TestID("notifications-section")),
	)
	shots.take(ctx, "profile-notifications")
	run("the profile at 390 px", chromedp.EmulateViewport(390, 844), chromedp.ScrollIntoView(testutil.TestID("notifications-section")))
	shots.take(ctx, "profile-notifications-390")
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	if err != nil || wide {
		t.Fatalf("the profile scrolls sideways at 390 px (%v)", err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
