package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"switchboard/internal/testutil"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// pagesFixture is a data directory with one of everything the pages show: a superuser member of
// a workspace with a number, a contact in a group, a conversation with messages, a broadcast,
// a webhook subscription with a delivery, an API token and an OAuth client.
type pagesFixture struct {
	fixture
	base, contact, group, conversation, broadcast, sub string
}

func newPagesFixture(t *testing.T) pagesFixture {
	t.Helper()
	f := pagesFixture{fixture: newFixture(t)}
	d := "-data=" + f.data
	csv := filepath.Join(t.TempDir(), "contacts.csv")
	testutil.NoErr(t, os.WriteFile(csv, []byte("firstName,lastName,phone,email,company,plan\n"+
		"José,Núñez-Villanueva de la Concepción,+14155550123,jose.nunez.villanueva.de.la.concepcion@example-dental-practice.com,Acme Dental Practice International,gold\n"+
		"Mia,Wong,+442071838750,mia@example.co.uk,Wong & Co,silver\n"), 0o644))
	ok(t, "admin", "import-contacts", d, "--workspace", f.ws, csv)
	f.group = ok(t, "admin", "create-group", d, "--workspace", f.ws, "--name", "Tuesday patients")
	ok(t, "admin", "add-to-group", d, "--workspace", f.ws, "--group", f.group, "--phone", "+14155550123")
	if r := sb(t, nil, "admin", "create-oauth-client", d, "--name", "Zapier", "--redirect-uri", "https://zapier.com/dashboard/auth/oauth/return/App123CLIAPI/"); r.code != 0 {
		t.Fatalf("create-oauth-client: %s", r.stderr)
	}
	return f
}

// api calls an integration action with the fixture's token and decodes the answer into out.
func (f pagesFixture) api(t *testing.T, action string, body map[string]any, out any) {
	t.Helper()
	body["developerProvider"] = "zapier"
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", f.base+"/v1/integrations/developer/zapier/"+action, strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+f.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	testutil.NoErr(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s: %d %s", action, res.StatusCode, raw)
	}
	if out != nil {
		testutil.NoErr(t, json.Unmarshal(raw, out))
	}
}

// TestBrowserPhoneWidth visits every page of the admin UI, with data on it, at a phone's
// width (390×844) and at a desktop's (1280): no page scrolls sideways on the phone, and every
// section of the navigation is on screen. Screenshots of each page at both widths go to a
// temporary directory (its path is logged) and to SCREENSHOT_DIR when set.
func TestBrowserPhoneWidth(t *testing.T) {
	chrome := testutil.Chromium(t)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte(`{"ok":true}`))
	}))
	defer receiver.Close()

	f := newPagesFixture(t)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	startServer(t, addr, nil, "-addr", addr, "-data="+f.data, "-log-requests=false", "-hook-allow-cidrs", "127.0.0.0/8")
	f.base = "http://" + addr
	if res, err := http.Get(f.base + "/favicon.ico"); err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("GET /favicon.ico: %v %v, want the SVG icon", res, err)
	} else {
		res.Body.Close()
	}

	var msg struct {
		ConversationID string `json:"conversationId"`
	}
	f.api(t, "send-message-action", map[string]any{"id": f.ws, "from": "+14155550100", "to": "+14155550123",
		"text": "Hi José, your appointment is tomorrow at 9. Reply C to confirm: https://acme-dental.example.com/appointments/confirm?token=0123456789abcdef0123456789abcdef0123456789abcdef"}, &msg)
	f.conversation = msg.ConversationID
	f.api(t, "send-message-action", map[string]any{"id": f.ws, "from": "+14155550100", "to": "+14155550123", "text": "See you then!"}, nil)
	// A group conversation too: the contact page lists it with its other member.
	f.api(t, "send-group-message-action", map[string]any{"id": f.ws, "from": "+14155550100", "group": []string{"+14155550123", "+442071838750"},
		"text": "The practice is closed on Friday."}, nil)
	var contacts []struct {
		ID string `json:"id"`
	}
	f.api(t, "find-contact-action", map[string]any{"id": f.ws, "searchText": "jose"}, &contacts)
	if len(contacts) == 0 {
		t.Fatal("find-contact-action found no José")
	}
	f.contact = contacts[0].ID
	var bc struct {
		ID string `json:"id"`
	}
	f.api(t, "send-broadcast-action", map[string]any{"id": f.ws, "from": "+14155550100", "name": "Spring cleaning reminder",
		"text": "Hi {{firstName}}, spring cleaning appointments are open.", "groupIds": []string{f.group}}, &bc)
	f.broadcast = bc.ID
	var sub struct {
		ID string `json:"id"`
	}
	f.api(t, "subscribe-webhook", map[string]any{"workspaceId": f.ws, "eventName": "message.received", "hookUrl": receiver.URL + "/hooks/switchboard/a-rather-long-path-for-the-receiver"}, &sub)
	f.sub = sub.ID

	b := openBrowser(t, chrome, 6*time.Minute, nil)
	b.failShot = "phone-failed"
	b.stepLimit = 20 * time.Second
	t.Logf("screenshots in %s", strings.Join(b.shots.dirs, " and "))

	// Signed-out pages first.
	for _, p := range []struct{ name, path string }{{"login", "/login"}, {"not-found", "/no/such/page"}} {
		checkPhonePage(t, b, p.name, f.base+p.path, false)
	}
	b.signIn(f.base+"/login", "ana@example.com", "correct horse", testutil.TestID("inbox-list"))
	b.run("invite a member",
		chromedp.Navigate(f.base+"/settings/members"),
		chromedp.WaitVisible(testutil.TestID("invite-form")),
		chromedp.SendKeys(testutil.TestID("invite-email"), "nia.member.with.a.long.address@acme-dental-practice.example"),
		chromedp.Click(testutil.TestID("invite-submit")),
		chromedp.WaitVisible(testutil.TestID("invite-link")),
	)
	checkPhonePage(t, b, "members-invited", "", true)
	invite, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="invite-link"]').value`))
	if err != nil || !strings.Contains(invite, "/invite/") {
		t.Fatalf("invitation link %q: %v", invite, err)
	}
	invite = f.base + invite[strings.Index(invite, "/invite/"):] // the link names the default public URL
	b.run("create a token",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(f.base+"/settings/tokens"),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/settings/tokens"] button`)),
		chromedp.SendKeys(chromedp.CSS("#token-name"), "my laptop"),
		chromedp.Click(testutil.TestID("token-create")),
		chromedp.WaitVisible(testutil.TestID("token-value")),
	)
	checkPhonePage(t, b, "token-created", "", true)

	pages := []struct{ name, path string }{
		{"inbox", "/inbox"},
		{"thread", "/inbox/" + f.conversation},
		{"contacts", "/contacts"},
		{"contact-new", "/contacts/new"},
		{"contact", "/contacts/" + f.contact},
		{"groups", "/groups"},
		{"group", "/groups/" + f.group},
		{"broadcasts", "/broadcasts"},
		{"broadcast-new", "/broadcasts/new"},
		{"broadcast", "/broadcasts/" + f.broadcast},
		{"settings", "/settings"},
		{"settings-workspace", "/settings/workspace"},
		{"settings-numbers", "/settings/numbers"},
		{"settings-members", "/settings/members"},
		{"settings-properties", "/settings/properties"},
		{"settings-webhooks", "/settings/webhooks"},
		{"settings-snippets", "/settings/snippets"},
		{"settings-tokens", "/settings/tokens"},
		{"admin-workspaces", "/admin/workspaces"},
		{"admin-users", "/admin/users"},
		{"admin-oauth-clients", "/admin/oauth-clients"},
		{"admin-backup", "/admin/backup"},
		{"signed-in-not-found", "/inbox/nothing/here"},
	}
	for _, p := range pages {
		checkPhonePage(t, b, p.name, f.base+p.path, true)
	}
	checkPhonePage(t, b, "docs", f.base+"/docs", false)
	checkPhonePage(t, b, "invite", invite, false)
}

// checkPhonePage opens url (or, when url is "", reloads nothing and uses the page as it is) at
// desktop (1366) and phone widths, saves both screenshots, and checks at the phone's width that
// the document does not scroll sideways, that the header is one compact bar and, when nav is
// set, that every nav link is on screen once its Menu is opened; at the desktop's width, that
// the navigation is on one line.
func checkPhonePage(t *testing.T, b *browserSession, name, url string, nav bool) {
	t.Helper()
	bctx := b.ctx
	for _, width := range []int64{1366, 390} {
		height := int64(900)
		if width == 390 {
			height = 844
		}
		acts := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(width, height)}
		if url != "" {
			acts = append(acts, chromedp.Navigate(url))
		}
		acts = append(acts, chromedp.WaitReady(chromedp.CSS("h1")))
		limit := 10 * time.Second
		if strings.HasSuffix(url, "/docs") {
			limit = 30 * time.Second // Redoc renders the reference from a 1 MB script
		}
		pctx, cancel := context.WithTimeout(bctx, limit)
		err := chromedp.Do(pctx, acts...)
		cancel()
		if err != nil {
			t.Errorf("%s at %d px: no page with an <h1>: %v", name, width, err)
			return
		}
		b.shot(fmt.Sprintf("page-%s-%d", name, width))
		if width == 1366 {
			checkDesktopPage(t, b, name, nav)
		}
	}
	// At the phone's width: the header's height with its Menu closed, then, the Menu open, the
	// widest element and every overflowing one, for the message.
	header, err := chromedp.Run(bctx, chromedp.Evaluate[float64](`(() => {
		const h = document.querySelector('header');
		return h ? h.getBoundingClientRect().height : 0;
	})()`))
	if err != nil {
		t.Fatalf("%s: measure the header: %v", name, err)
	}
	if header > 64 {
		t.Errorf("%s at 390 px: the header is %.0f px tall, want one compact bar (at most 64 px)", name, header)
	}
	if nav {
		b.run("open the menu", chromedp.Click(testutil.TestID("menu-toggle")),
			poll(`document.querySelector('[data-testid="main-menu"]').open`, nil, chromedp.WithPollingTimeout(5*time.Second)))
		b.shot(fmt.Sprintf("page-%s-390-menu", name))
		defer b.run("close the menu", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="main-menu"]').open = false`))
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[string](`(() => {
		const w = window.innerWidth, sw = document.documentElement.scrollWidth;
		const wide = [];
		for (const el of document.querySelectorAll('body *')) {
			const r = el.getBoundingClientRect();
			if (r.width > 0 && r.right > w + 0.5) {
				let p = el.parentElement, clipped = false;
				for (; p && p !== document.body; p = p.parentElement) {
					const o = getComputedStyle(p).overflowX;
					if (o === 'auto' || o === 'scroll' || o === 'hidden') { clipped = true; break; }
				}
				if (!clipped) wide.push(el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + (el.dataset.testid ? '[' + el.dataset.testid + ']' : '') + ' right=' + Math.round(r.right));
			}
		}
		const nav = [];
		for (const a of document.querySelectorAll('header nav a')) {
			const r = a.getBoundingClientRect();
			if (r.width === 0 || r.height === 0 || r.left < 0 || r.right > w + 0.5) nav.push(a.textContent.trim() + ' at ' + Math.round(r.left) + '..' + Math.round(r.right));
		}
		const cut = [];
		for (const tb of document.querySelectorAll('main table')) {
			const box = tb.parentElement;
			if (tb.scrollWidth > box.clientWidth + 1 || tb.getBoundingClientRect().right > w + 0.5) {
				cut.push((tb.dataset.testid || tb.className || 'table') + ' ' + Math.round(tb.scrollWidth) + '>' + box.clientWidth);
			}
		}
		return JSON.stringify({w, sw, wide: wide.slice(0, 8), nav, navCount: document.querySelectorAll('header nav a').length, cut});
	})()`))
	if err != nil {
		t.Fatalf("%s: measure: %v", name, err)
	}
	var m struct {
		W, SW    int
		Wide     []string
		Nav      []string
		NavCount int
		Cut      []string
	}
	testutil.NoErr(t, json.Unmarshal([]byte(got), &m))
	if len(m.Cut) > 0 {
		t.Errorf("%s at 390 px: tables wider than their box (columns cut off): %v", name, m.Cut)
	}
	if m.SW > m.W {
		t.Errorf("%s at 390 px: the document is %d px wide (scrolls sideways); too wide: %v", name, m.SW, m.Wide)
	}
	if nav {
		if m.NavCount < 5 {
			t.Errorf("%s: %d nav links, want every section (at least 5)", name, m.NavCount)
		}
		if len(m.Nav) > 0 {
			t.Errorf("%s at 390 px: nav links off screen: %v", name, m.Nav)
		}
	}
}

// checkDesktopPage checks, on the page as it is at the desktop's width, that nothing sticks out
// of its card (a table wider than the card, a long address), that every check box sits beside
// its words, and, when nav is set, that the
// header's sections are on one line, inside the window, in a bar of one line's height.
func checkDesktopPage(t *testing.T, b *browserSession, name string, nav bool) {
	t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
		const links = Array.from(document.querySelectorAll('header nav a'));
		const tops = new Set(links.map(a => Math.round(a.getBoundingClientRect().top)));
		const hidden = links.filter(a => a.getBoundingClientRect().width === 0).map(a => a.textContent.trim());
		const off = links.filter(a => a.getBoundingClientRect().right > window.innerWidth).map(a => a.textContent.trim());
		const header = document.querySelector('header');
		const out = [];
		for (const card of document.querySelectorAll('main .card')) {
			const c = card.getBoundingClientRect();
			for (const el of card.querySelectorAll('*')) {
				const r = el.getBoundingClientRect();
				if (r.width === 0 || r.right <= c.right + 1) continue;
				let clipped = false;
				for (let p = el.parentElement; p && p !== card; p = p.parentElement) {
					const o = getComputedStyle(p).overflowX;
					if (o === 'auto' || o === 'scroll' || o === 'hidden') { clipped = true; break; }
				}
				if (!clipped) out.push(el.tagName.toLowerCase() + (el.dataset.testid ? '[' + el.dataset.testid + ']' : '') + ' ' + Math.round(r.right - c.right) + ' px');
			}
		}
		const apart = [];
		for (const box of document.querySelectorAll('main input[type="checkbox"], main input[type="radio"]')) {
			const l = box.labels && box.labels[0];
			const b = box.getBoundingClientRect();
			if (!l || l.contains(box) || b.width === 0) continue;
			const r = l.getBoundingClientRect();
			if (r.width <= 1) continue; // read by screen readers only
			const gap = r.left - b.right, off = Math.abs((r.top + Math.min(r.height, 24) / 2) - (b.top + b.height / 2));
			if (gap < 0 || gap > 16 || off > 12) apart.push(box.id + ' ' + Math.round(gap) + '/' + Math.round(off));
		}
		return JSON.stringify({lines: tops.size, hidden, off, height: header ? header.getBoundingClientRect().height : 0, out: out.slice(0, 6), apart});
	})()`))
	if err != nil {
		t.Fatalf("%s: measure the desktop page: %v", name, err)
	}
	var m struct {
		Lines       int
		Hidden, Off []string
		Height      float64
		Out, Apart  []string
	}
	testutil.NoErr(t, json.Unmarshal([]byte(got), &m))
	if len(m.Out) > 0 {
		t.Errorf("%s at 1366 px: content sticks out of its card: %v", name, m.Out)
	}
	if len(m.Apart) > 0 {
		t.Errorf("%s at 1366 px: check boxes apart from their words (gap/offset px): %v", name, m.Apart)
	}
	if nav && (m.Lines != 1 || len(m.Hidden) > 0 || len(m.Off) > 0 || m.Height > 64) {
		t.Errorf("%s at 1366 px: the navigation is on %d lines (hidden %v, off screen %v), the header %.0f px tall; want one line in one bar", name, m.Lines, m.Hidden, m.Off, m.Height)
	}
}
