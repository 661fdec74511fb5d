package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// The pages a dental practice meets on its first day, as issue 38 found them: a workspace with
// an admin and a member, a sandbox number, and whatever each test adds before the server starts.

// dental is a data directory served by a running switchboard: the workspace Acme Dental (New
// York) with the admin Dana, the member Ana Lima and the number +14155550100.
type dental struct {
	base, data string
	ws         store.Workspace
	admin, ana store.User
	srv        *server
}

const dentalPassword = "correct horse battery"

// newDental sets the practice up in a fresh data directory, lets more (may be nil) add to it
// through the store, then starts the server on it.
func newDental(t *testing.T, more func(st *store.Store, d *dental)) *dental {
	t.Helper()
	d := &dental{data: t.TempDir()}
	st, err := store.Open(filepath.Join(d.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tz := "America/New_York"
	must := func(err error) {
		t.Helper()
		if err != nil {
			st.Close()
			t.Fatalf("set up: %v", err)
		}
	}
	d.ws, err = st.CreateWorkspace("Acme Dental")
	must(err)
	_, err = st.UpdateWorkspace(d.ws.ID, store.WorkspaceSettings{TimeZone: &tz})
	must(err)
	d.admin, err = st.CreateUser(store.NewUser{Email: "dana@acme.example", Name: "Dana Admin", Password: dentalPassword, Superuser: true})
	must(err)
	_, err = st.AddMember(d.ws.ID, d.admin.ID, "admin")
	must(err)
	d.ana, err = st.CreateUser(store.NewUser{Email: "ana@acme.example", Name: "Ana Lima", Password: dentalPassword})
	must(err)
	_, err = st.AddMember(d.ws.ID, d.ana.ID, "member")
	must(err)
	_, err = st.AddNumber(d.ws.ID, "+14155550100", "Front desk")
	must(err)
	if more != nil {
		more(st, d)
	}
	must(st.Close())
	addr := "127.0.0.1:" + testutil.FreePort(t)
	d.srv = startServer(t, addr, nil, "-addr", addr, "-data="+d.data, "-log-requests=false")
	d.base = d.srv.base
	return d
}

// TestBrowserBroadcastPreviewCountsTheCopy is issue 38's item 4 as a person meets it: a text
// with an en dash fits one UCS-2 segment alone, but the opt-out footer the box adds makes every
// copy two; the preview shows the footer and counts it. Once a group is chosen, the page names
// the longest copy among its members: Zoë's name makes her copy UCS-2 where the sample's is not.
func TestBrowserBroadcastPreviewCountsTheCopy(t *testing.T) {
	chrome := testutil.Chromium(t)
	d := newDental(t, func(st *store.Store, d *dental) {
		g, err := st.CreateGroup(d.ws.ID, "Tuesday patients")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ phone, first, last string }{{"+14155550123", "Ada", "Li"}, {"+14155550124", "Zoë", "Çelik"}} {
			ct, err := st.CreateContact(d.ws.ID, store.ContactInput{Phone: c.phone, FirstName: &c.first, LastName: &c.last, Source: store.SourceAPI})
			if err == nil {
				err = st.AddContactToGroup(d.ws.ID, g.ID, ct.ID)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.stepLimit = 20 * time.Second
	b.signIn(d.base+"/broadcasts/new", "ana@acme.example", dentalPassword, testutil.TestID("compose-form"))
	text := b.labelled("compose-form", "Text")
	b.run("type a text with an en dash", chromedp.SendKeys(text, "Hi {{firstName}} – your cleaning is on Tuesday at 9:30. See you then!"))
	if got := b.text(testutil.TestID("bc-preview")); got != "Hi Ada – your cleaning is on Tuesday at 9:30. See you then! Reply STOP to opt out." {
		t.Errorf("preview %q, want the copy with its opt-out footer", got)
	}
	if got := b.text(testutil.TestID("bc-segments")); got != "2 segments (UCS-2)" {
		t.Errorf("segment count %q, want 2 segments (UCS-2): the footer is part of the copy", got)
	}
	b.run("untick the opt-out instructions", chromedp.Click(chromedp.CSS(`label[for="bc-optout-instructions"]`)))
	if got := b.text(testutil.TestID("bc-segments")); got != "1 segment (UCS-2)" {
		t.Errorf("without the footer: %q, want 1 segment (UCS-2)", got)
	}
	b.shotWidths("issue38-04-compose-footer-off")
	b.run("tick it again, write a plain text and choose the group",
		chromedp.Click(chromedp.CSS(`label[for="bc-optout-instructions"]`)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("bc-text").value = ""`),
		chromedp.SendKeys(text, "Hi {{firstName}}, your cleaning is on Tuesday at 9:30. See you then!"),
		chromedp.Click(chromedp.CSS(`label[for="bc-group-0"]`)),
		poll(`document.querySelector('[data-testid="bc-worst"]').textContent.includes("2 recipients")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if got := b.text(testutil.TestID("bc-segments")); got != "1 segment (GSM-7)" {
		t.Errorf("Ada's copy: %q, want 1 segment (GSM-7)", got)
	}
	if got := strings.Join(strings.Fields(b.text(testutil.TestID("bc-worst"))), " "); got != "2 recipients: the longest copy, to Zoë Çelik, takes 2 segments (UCS-2)." {
		t.Errorf("worst case %q, want Zoë's copy at 2 segments (UCS-2)", got)
	}
	b.shotWidths("issue38-04-compose")
}

// TestBrowserImportErrorsSayWhy is issue 38's item 5: the practice's export has a row of five
// cells, an unclosed quote, a number with a stray letter and a bad e-mail. The preview says
// what is wrong with each in words, and the skipped rows' file gives each row back with its
// line and its cells under the file's own columns.
func TestBrowserImportErrorsSayWhy(t *testing.T) {
	chrome := testutil.Chromium(t)
	d := newDental(t, nil)
	file := filepath.Join(t.TempDir(), "patients.csv")
	testutil.NoErr(t, os.WriteFile(file, []byte("phone,firstName,lastName,email\n"+
		"(415) 555-0101,Ana,Lima,ana@example.com\n"+
		"(415) 555-0102,Bo,Li,bo@example.com,extra\n"+
		"(415) 555-0958x,Cy,Ray,cy@example.com\n"+
		"(415) 555-0104,Di,Ng,di@\n"+
		"(415) 555-0105,\"Ed,Su,ed@example.com\n"+
		"(415) 555-0106,Fay,Wu,fay@example.com\n"), 0o600))
	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.stepLimit = 20 * time.Second
	b.signIn(d.base+"/contacts/import", "ana@acme.example", dentalPassword, testutil.TestID("import-upload-form"))
	b.run("upload the file",
		chromedp.SetUploadFiles(b.labelled("import-upload-form", "CSV file"), []string{file}),
		chromedp.Click(testutil.TestID("import-upload-submit")),
		chromedp.WaitVisible(testutil.TestID("import-preview")),
	)
	preview := b.text(testutil.TestID("import-preview"))
	for _, want := range []string{
		"Skipped: has 5 cells where the header has 4",
		`Skipped: phone: has "x", which is no part of a phone number`,
		"Skipped: email: must be an email address",
		`Skipped: has a quote that opens the "firstName" cell on line 6 and is not closed on that line, so lines 6 to 7 were read as one row`,
	} {
		if !strings.Contains(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, preview)
		}
	}
	b.shotWidths("issue38-05-import-preview")
	b.run("start the import and wait for it",
		chromedp.Click(testutil.TestID("import-start")),
		poll(`document.querySelector('[data-testid="import-progress"]')?.dataset.status === "done"`, nil, chromedp.WithPollingTimeout(15*time.Second)),
	)
	if c, s := b.text(testutil.TestID("import-created")), b.text(testutil.TestID("import-skipped")); c != "1" || s != "4" {
		t.Errorf("created %s, skipped %s; want 1 (Ana) and 4", c, s)
	}
	b.shotWidths("issue38-05-import-done")
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="import-errors-link"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	testutil.NoErr(t, err)
	rows, err := csv.NewReader(strings.NewReader(got)).ReadAll()
	if err != nil || len(rows) != 5 {
		t.Fatalf("skipped rows file %q (%v), want the header and 4 rows", rows, err)
	}
	if h := strings.Join(rows[0], ","); h != "row,column,message,line,phone,firstName,lastName,email,cells past the header" {
		t.Errorf("skipped rows header %q", h)
	}
	if r := rows[2]; r[0] != "3" || r[1] != "phone" || r[3] != "4" || r[4] != "(415) 555-0958x" || r[5] != "Cy" {
		t.Errorf("the row with a letter in its number comes back as %q, want row 3, line 4, its cells as written", r)
	}
}

// TestBrowserMentionByName is issue 38's item 6: Dana types "@Ana Lima" in a comment without
// ticking a box; the comment mentions Ana, and Ana finds the conversation under "Mentioning me",
// unread.
func TestBrowserMentionByName(t *testing.T) {
	chrome := testutil.Chromium(t)
	var conv string
	d := newDental(t, func(st *store.Store, d *dental) {
		c, _, err := st.CreateConversation(d.ws.ID, "+14155550100", "+14155550123")
		if err != nil {
			t.Fatal(err)
		}
		conv = c.ID
	})
	dana := openBrowser(t, chrome, 2*time.Minute, nil)
	dana.stepLimit = 20 * time.Second
	dana.signIn(d.base+"/inbox/"+conv, "dana@acme.example", dentalPassword, testutil.TestID("comment-form"))
	dana.run("comment with @Ana Lima",
		chromedp.SendKeys(dana.labelled("comment-form", "Comment (only your team sees it)"), "@Ana Lima can you call the patient back about Friday?"),
		chromedp.Click(testutil.TestID("comment-submit")),
		poll(`Array.from(document.querySelectorAll('.meta')).some(m => m.textContent.includes("Mentions: @Ana Lima"))`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	dana.shotWidths("issue38-06-comment")
	ana := openBrowser(t, chrome, 2*time.Minute, dana.shots)
	ana.stepLimit = 20 * time.Second
	ana.signIn(d.base+"/inbox?mentions=1", "ana@acme.example", dentalPassword, testutil.TestID("inbox-list"))
	if n, err := chromedp.Run(ana.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="inbox-row"]').length`)); err != nil || n != 1 {
		t.Errorf("Ana's mentions list %d rows (%v), want the conversation", n, err)
	}
	if got := ana.text(testutil.TestID("unread-count")); !strings.Contains(got, "1") {
		t.Errorf("Ana's unread count %q, want 1", got)
	}
	ana.shotWidths("issue38-06-mentions")
}

// TestBrowserEnrolmentEndsWithTheRequirement is issue 38's item 9: Ana signs in on a server
// started with -require-2fa and is sent to set up two-factor; the server is started again
// without the flag (and the setting is off), and her next page is the inbox, not enrolment.
func TestBrowserEnrolmentEndsWithTheRequirement(t *testing.T) {
	chrome := testutil.Chromium(t)
	d := newDental(t, nil)
	d.srv.stop(t)
	addr := strings.TrimPrefix(d.base, "http://")
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+d.data, "-log-requests=false", "-require-2fa")
	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.stepLimit = 20 * time.Second
	b.run("open the inbox", desktop, chromedp.Navigate(d.base+"/inbox"), chromedp.WaitVisible(testutil.TestID("login-form")))
	b.typeSignIn("ana@acme.example", dentalPassword)
	b.run("sign in: two-factor is required", b.submit("login-form", "login-submit", "Sign in"),
		poll(`location.pathname === "/login/enrol"`, nil, chromedp.WithPollingTimeout(10*time.Second)))
	b.shotWidths("issue38-09-enrol-required")
	srv.stop(t)
	startServer(t, addr, nil, "-addr", addr, "-data="+d.data, "-log-requests=false")
	b.run("the requirement is gone: the inbox opens",
		chromedp.Navigate(d.base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)
	b.run("the enrolment page sends her on",
		chromedp.Navigate(d.base+"/login/enrol?next=%2Fcontacts"),
		poll(`location.pathname === "/contacts"`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	b.shotWidths("issue38-09-free-again")
}

// TestBrowserWorkspaceSettingsErrors is issue 38's item 13: Dana types "New York" as the time
// zone and "a week" as the retention; the page comes back opening on a summary of both, each a
// link that puts the cursor in its field, and the time zone suggests the IANA zones.
func TestBrowserWorkspaceSettingsErrors(t *testing.T) {
	chrome := testutil.Chromium(t)
	d := newDental(t, nil)
	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.stepLimit = 20 * time.Second
	b.signIn(d.base+"/settings/workspace", "dana@acme.example", dentalPassword, testutil.TestID("workspace-form"))
	tz := b.labelled("workspace-form", "Time zone")
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.getElementById("ws-tz").list.querySelectorAll('option[value="America/New_York"]').length`)); err != nil || n != 1 {
		t.Errorf("the time zone field suggests America/New_York %d times (%v), want once", n, err)
	}
	b.run("type a city and a retention in words",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("ws-tz").value = ""`),
		chromedp.SendKeys(tz, "New York"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("ws-retention").type = "text"`),
		chromedp.SendKeys(b.labelled("workspace-form", "Message retention (days)"), "a week"),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("error-summary")),
	)
	summary := b.text(testutil.TestID("error-summary"))
	for _, want := range []string{"Time zone: Must be an IANA time zone", "Message retention (days): Must be a whole number"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary %q lacks %q", summary, want)
		}
	}
	if y, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.querySelector('[data-testid="error-summary"]').getBoundingClientRect().top`)); err != nil || y > 300 {
		t.Errorf("the summary starts %v px down (%v), want it on the first screen", y, err)
	}
	b.shotWidths("issue38-13-settings-errors")
	b.run("follow the time zone's link",
		chromedp.Click(chromedp.CSS(`[data-testid="error-summary"] a[href="#ws-tz"]`)),
		poll(`document.activeElement && document.activeElement.id === "ws-tz"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
	)
	b.run("choose the zone and save",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("ws-tz").value = ""; document.getElementById("ws-retention").value = ""`),
		chromedp.SendKeys(tz, "America/New_York"),
		chromedp.SendKeys(chromedp.CSS("#ws-retention"), "30"),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
}

// TestBrowserSmallThings is issue 38's item 14 as a superuser and a newcomer meet them: the
// header's Admin goes to an overview at /admin; inviting a member's address again is refused and
// inviting a pending one again says the old link is revoked; the invitee is signed in as she
// joins (the password hint in characters); the API reference asks nothing of another host.
func TestBrowserSmallThings(t *testing.T) {
	chrome := testutil.Chromium(t)
	d := newDental(t, nil)
	b := openBrowser(t, chrome, 3*time.Minute, nil)
	b.stepLimit = 30 * time.Second
	b.signIn(d.base+"/inbox", "dana@acme.example", dentalPassword, testutil.TestID("new-conversation-form"))
	b.run("open Admin from the header", chromedp.Click(testutil.TestID("nav-admin")), chromedp.WaitVisible(testutil.TestID("admin-overview")))
	if got := b.text(testutil.TestID("overview-users")); got != "2" {
		t.Errorf("the overview counts %s users, want 2", got)
	}
	b.shotWidths("issue38-14-admin")

	b.run("invite Ana, a member already",
		chromedp.Navigate(d.base+"/settings/members"),
		chromedp.SendKeys(testutil.TestID("invite-email"), "ana@acme.example"),
		chromedp.Click(testutil.TestID("invite-submit")),
		chromedp.WaitVisible(testutil.TestID("error-email")),
	)
	if got := b.text(testutil.TestID("error-email")); !strings.Contains(got, "is a member of this workspace already") {
		t.Errorf("inviting a member: %q", got)
	}
	invite := func() string {
		b.run("invite Nia",
			chromedp.Navigate(d.base+"/settings/members"),
			chromedp.SendKeys(testutil.TestID("invite-email"), "nia@acme.example"),
			chromedp.Click(testutil.TestID("invite-submit")),
			chromedp.WaitVisible(testutil.TestID("invite-link")),
		)
		link, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="invite-link"]').value`))
		testutil.NoErr(t, err)
		return d.base + link[strings.Index(link, "/invite/"):]
	}
	first := invite()
	second := invite()
	if got := b.text(testutil.TestID("invite-replaced")); !strings.Contains(got, "only this new link works") {
		t.Errorf("inviting Nia again: %q, want the old link said revoked", got)
	}
	b.shotWidths("issue38-14-invite-again")

	nia := openBrowser(t, chrome, 2*time.Minute, b.shots)
	nia.stepLimit = 20 * time.Second
	nia.run("the first link is revoked", desktop, chromedp.Navigate(first), chromedp.WaitVisible(testutil.TestID("invite-refused")))
	nia.run("the second link", chromedp.Navigate(second), chromedp.WaitVisible(testutil.TestID("invite-signup")))
	if got := nia.text(chromedp.CSS(`[data-testid="invite-signup"] .hint`)); got != "8 to 72 characters" {
		t.Errorf("the password hint reads %q, want 8 to 72 characters", got)
	}
	nia.run("join: signed in at once",
		chromedp.SendKeys(nia.labelled("invite-signup", "Your name"), "Nia Okafor"),
		chromedp.SendKeys(nia.labelled("invite-signup", "Password"), "a good long password"),
		chromedp.Click(testutil.TestID("invite-create")),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)
	if got := nia.text(testutil.TestID("flash")); !strings.Contains(got, "you are signed in") {
		t.Errorf("after joining: %q", got)
	}
	nia.shotWidths("issue38-14-joined")

	var mu sync.Mutex
	var outside []string
	chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil &&
			!strings.HasPrefix(e.Request.URL, d.base) && !strings.HasPrefix(e.Request.URL, "data:") && !strings.HasPrefix(e.Request.URL, "blob:") {
			mu.Lock()
			outside = append(outside, e.Request.URL)
			mu.Unlock()
		}
	})
	b.run("the API reference", chromedp.Navigate(d.base+"/docs"), chromedp.WaitVisible(chromedp.CSS(`#redoc h1`)),
		poll(`document.body.textContent.includes("API docs by Redocly")`, nil, chromedp.WithPollingTimeout(20*time.Second)))
	mu.Lock()
	if len(outside) > 0 {
		t.Errorf("/docs asked other hosts for %q", outside)
	}
	mu.Unlock()
}
