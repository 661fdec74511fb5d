package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
)

// The browser tests' shared setup: one headless Chromium per person, steps that save a
// screenshot when they fail, the setup link of a first start, and signing in through the forms
// as a person does — fields found by their labels, buttons by their words.

// Viewports the pages are looked at in: a desktop, a common laptop (1366 px wide), the 1366 px
// desktop the screenshots are taken at and a phone (390 px wide).
var (
	desktop = chromedp.EmulateViewport(1280, 860)
	laptop  = chromedp.EmulateViewport(1366, 768)
	wide    = chromedp.EmulateViewport(1366, 900)
	phone   = chromedp.EmulateViewport(390, 844)
)

// browserSession is one headless Chromium driven by a test, with its screenshots.
type browserSession struct {
	t     *testing.T
	ctx   context.Context
	shots *shots
	// failShot names the screenshot a failed step saves; "" names it "failed-" and the step.
	failShot string
	// stepLimit bounds each step (0: only the browser's whole bound).
	stepLimit time.Duration
}

// openBrowser starts Chromium at chrome (testutil.Chromium) for at most bound; its screenshots
// go to shots (newShots(t) when nil).
func openBrowser(t *testing.T, chrome string, bound time.Duration, sh *shots) *browserSession {
	t.Helper()
	if sh == nil {
		sh = newShots(t)
	}
	return &browserSession{t: t, ctx: testutil.StartChromium(t, chrome, bound), shots: sh}
}

// run does the step's actions in order; on an error it saves a screenshot and ends the test.
func (b *browserSession) run(step string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx := b.ctx
	if b.stepLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(b.ctx, b.stepLimit)
		defer cancel()
	}
	if err := chromedp.Do(ctx, actions...); err != nil {
		name := b.failShot
		if name == "" {
			name = "failed-" + step
		}
		b.shot(name)
		b.t.Fatalf("%s: %v", step, err)
	}
}

// shot saves the page as it is now under name.
func (b *browserSession) shot(name string) { b.shots.take(b.ctx, name) }

// shotPhone saves the page at the phone's width as name, then goes back to the desktop's.
func (b *browserSession) shotPhone(name string) {
	b.t.Helper()
	b.run("phone width", phone)
	b.shot(name)
	b.run("desktop width", desktop)
}

// shotWidths saves the page as name-1366 and name-390, then goes back to the desktop's width.
func (b *browserSession) shotWidths(name string) {
	b.t.Helper()
	b.run("laptop width", laptop)
	b.shot(name + "-1366")
	b.run("phone width", phone)
	b.shot(name + "-390")
	b.run("desktop width", desktop)
}

// text is the trimmed text of the first element sel selects.
func (b *browserSession) text(sel chromedp.CSS) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(sel))
	if err != nil {
		b.t.Fatal(err)
	}
	return strings.TrimSpace(s)
}

// labelled selects the field of the form (a data-testid) whose label reads label: the way a
// person finds it, and a check that the field has a label at all.
func (b *browserSession) labelled(form, label string) chromedp.CSS {
	b.t.Helper()
	id, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
		const l = Array.from(document.querySelectorAll('[data-testid=%q] label')).find(l => l.textContent.trim() === %q);
		return l && l.control && l.control.id ? l.control.id : "";
	})()`, form, label)))
	if err != nil || id == "" {
		b.shot("failed-label-" + label)
		b.t.Fatalf("the form %s has no field labelled %q (%v)", form, label, err)
	}
	return chromedp.CSS("#" + id)
}

// submit clicks the form's submit button after checking it says words.
func (b *browserSession) submit(form, button, words string) chromedp.Action[chromedp.Void] {
	b.t.Helper()
	if got := b.text(testutil.TestID(button)); got != words {
		b.t.Fatalf("the %s button reads %q, want %q", form, got, words)
	}
	return chromedp.Click(testutil.TestID(button))
}

// typeSignIn types the e-mail and password into the sign-in form on screen.
func (b *browserSession) typeSignIn(email, password string) {
	b.t.Helper()
	b.run("type the e-mail and password",
		chromedp.WaitVisible(testutil.TestID("login-form")),
		chromedp.SendKeys(b.labelled("login-form", "Email"), email),
		chromedp.SendKeys(b.labelled("login-form", "Password"), password),
	)
}

// signIn opens url at the desktop's width, which asks a signed-out person to sign in, signs in
// with email and password and waits for landing, the page it leads to.
func (b *browserSession) signIn(url, email, password string, landing chromedp.CSS) {
	b.t.Helper()
	b.run("open the sign-in page", desktop, chromedp.Navigate(url), chromedp.WaitVisible(testutil.TestID("login-form")))
	b.signInHere(email, password, landing)
}

// signInHere signs in on the sign-in form on screen and waits for landing.
func (b *browserSession) signInHere(email, password string, landing chromedp.CSS) {
	b.t.Helper()
	b.typeSignIn(email, password)
	b.run("sign in", b.submit("login-form", "login-submit", "Sign in"), chromedp.WaitVisible(landing))
}

// The administrator the first-start tests create through the setup link.
const (
	adminEmail    = "admin@acme.example"
	adminName     = "Dana Admin"
	adminPassword = "correct horse battery"
)

var setupLinkRe = regexp.MustCompile(`one-time link\): (\S+)`)

// setupLink is the one-time link serve printed on an empty data directory, for the browser on
// the same port. startServer returns once the banner, written whole, is read.
func setupLink(t *testing.T, srv *server) string {
	t.Helper()
	m := setupLinkRe.FindStringSubmatch(srv.stdout.String())
	if m == nil {
		t.Fatalf("serve printed no setup link; stdout:\n%s", srv.stdout)
	}
	// The link names the default public URL (localhost); the browser reaches the same port.
	return strings.Replace(m[1], "http://localhost:", "http://127.0.0.1:", 1)
}

// typeSetup opens the setup link and types the first administrator into its form.
func (b *browserSession) typeSetup(link string) {
	b.t.Helper()
	b.run("open the setup link", chromedp.Navigate(link), chromedp.WaitVisible(testutil.TestID("setup-form")))
	b.run("type the administrator",
		chromedp.SendKeys(b.labelled("setup-form", "Email"), adminEmail),
		chromedp.SendKeys(b.labelled("setup-form", "Name"), adminName),
		chromedp.SendKeys(b.labelled("setup-form", "Password"), adminPassword),
	)
}

// setUpAdmin creates the first administrator through the setup link (signed in after it).
func (b *browserSession) setUpAdmin(link string) {
	b.t.Helper()
	b.run("desktop width", desktop)
	b.typeSetup(link)
	b.run("create the administrator", b.submit("setup-form", "setup-submit", "Create administrator"), chromedp.WaitVisible(testutil.TestID("notice-link")))
}

// setUpWorkspace goes on from the setup's notice to the workspace Acme Dental with the sandbox
// number +14155550100, and waits for the inbox's new-conversation form.
func (b *browserSession) setUpWorkspace() {
	b.t.Helper()
	b.run("set up a workspace and a number",
		chromedp.Click(testutil.TestID("notice-link")),
		chromedp.WaitVisible(testutil.TestID("create-workspace-form")),
		chromedp.SendKeys(chromedp.CSS("#workspace-name"), "Acme Dental"),
		chromedp.Click(testutil.TestID("create-workspace-submit")),
		chromedp.WaitVisible(testutil.TestID("add-number-form")),
		chromedp.SendKeys(chromedp.CSS("#number-phone"), "+14155550100"),
		chromedp.Click(testutil.TestID("add-number-submit")),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)
}

// shots saves full-page PNGs to a temporary directory and SCREENSHOT_DIR.
type shots struct {
	t    *testing.T
	dirs []string
}

func newShots(t *testing.T) *shots {
	s := &shots{t: t, dirs: []string{t.TempDir()}}
	if d := os.Getenv("SCREENSHOT_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err == nil {
			s.dirs = append(s.dirs, d)
		}
	}
	return s
}

func (s *shots) take(ctx context.Context, name string) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
		return
	}
	for _, d := range s.dirs {
		if err := os.WriteFile(filepath.Join(d, name+".png"), png, 0o644); err != nil {
			s.t.Logf("screenshot %s: %v", name, err)
		}
	}
}

// flashSays waits for the flash to carry words: a flash already on screen (a page the browser
// went back to) does not count as the answer to the step just taken.
func flashSays(words string) chromedp.Action[chromedp.Void] {
	return poll(fmt.Sprintf(`(() => { const f = document.querySelector('[data-testid="flash"]'); return !!f && f.textContent.includes(%q); })()`, words), nil)
}

// poll waits until the expression is true, as a step of a chromedp.Do. A form submitted just
// before navigates the page under the poll, which ends it with an error: it starts again on the
// new page, until 15 s have passed.
func poll(expr string, _ any, opts ...chromedp.PollOption) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		deadline := time.Now().Add(15 * time.Second)
		for {
			_, err := chromedp.Poll[bool](expr, opts...)(ctx, t)
			if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
				return chromedp.Void{}, err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
