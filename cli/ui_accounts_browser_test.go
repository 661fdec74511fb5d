package cli

import (
	"fmt"
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
	base := "http://" + addr
	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.failShot = "two-factor-failed"
	b.setUpAdmin(setupLink(t, srv))
	b.run("set up two-factor from the profile",
		chromedp.Navigate(base+"/settings/profile"),
		chromedp.WaitVisible(testutil.TestID("two-factor-setup")),
		chromedp.Click(testutil.TestID("two-factor-setup")),
		chromedp.WaitVisible(testutil.TestID("enrol-qr")),
	)
	b.shot("two-factor-enrol")
	secret, err := chromedp.Run(b.ctx, chromedp.Text(testutil.TestID("enrol-secret")))
	if err != nil {
		t.Fatal(err)
	}
	secret = strings.ReplaceAll(strings.TrimSpace(secret), " ", "")
	qrShown, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => { const i = document.querySelector('[data-testid="enrol-qr"]'); return i.complete && i.naturalWidth > 0 })()`))
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
	b.run("confirm with the password and a first code",
		chromedp.SendKeys(chromedp.CSS("#enrol-password"), adminPassword),
		chromedp.SendKeys(chromedp.CSS("#code"), confirmed),
		chromedp.Click(testutil.TestID("enrol-submit")),
		chromedp.WaitVisible(testutil.TestID("recovery-codes")),
	)
	b.shot("two-factor-recovery")
	codes, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="recovery-codes"] code'), c => c.textContent)`))
	if err != nil || len(codes) != 10 {
		t.Fatalf("recovery codes: %v %v", codes, err)
	}
	// signIn signs out and in again; each of refused is tried first and must show the error.
	signIn := func(step, code string, refused ...string) {
		t.Helper()
		b.run(step+": sign out",
			chromedp.Navigate(base+"/settings/profile"),
			chromedp.WaitVisible(chromedp.CSS("form.signout button")),
			chromedp.Click(chromedp.CSS("form.signout button")),
			chromedp.WaitVisible(testutil.TestID("login-form")),
		)
		b.signInHere(adminEmail, adminPassword, testutil.TestID("code-form"))
		for i, bad := range refused {
			b.run(step+": a refused code",
				// Drop the previous error, so that only the answer to this code can show one.
				chromedp.Evaluate[chromedp.Void](`document.querySelector('#code').value = ''; document.querySelector('[data-testid="code-error"]')?.remove()`),
				chromedp.SendKeys(chromedp.CSS("#code"), bad),
				chromedp.Click(testutil.TestID("code-submit")),
				chromedp.WaitVisible(testutil.TestID("code-error")),
			)
			if i == 0 {
				b.shot("two-factor-code-refused")
				b.shotPhone("two-factor-code-refused-390")
			}
		}
		b.run(step,
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
	b.shot("two-factor-signed-in")

	// The profile's notification choices, e-mail included, at desktop and phone widths.
	b.run("the notification choices",
		chromedp.Navigate(base+"/settings/profile"),
		chromedp.WaitVisible(testutil.TestID("notify-email")),
		chromedp.ScrollIntoView(testutil.TestID("notifications-section")),
	)
	b.shot("profile-notifications")
	b.run("the profile at 390 px", phone, chromedp.ScrollIntoView(testutil.TestID("notifications-section")))
	b.shot("profile-notifications-390")
	// The e-mail form asks for the password; without e-mail configured it changes at once.
	b.run("change the e-mail",
		chromedp.ScrollIntoView(testutil.TestID("email-form")),
		chromedp.SendKeys(chromedp.CSS("#email-new"), "admin2@example.com"),
		chromedp.SendKeys(chromedp.CSS("#email-password"), adminPassword),
		chromedp.Click(testutil.TestID("email-save")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		chromedp.ScrollIntoView(testutil.TestID("profile-email")),
	)
	b.shot("profile-email-390")
	if got, err := chromedp.Run(b.ctx, chromedp.Text(testutil.TestID("profile-email-current"))); err != nil || got != "admin2@example.com" {
		t.Fatalf("the profile after the change names %q (%v)", got, err)
	}
	wide, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
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
