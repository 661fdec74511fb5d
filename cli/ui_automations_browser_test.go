package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// choose picks, in the select the form (a data-testid) labels label, the option that reads
// option: as a person does, by the words on screen.
func (b *browserSession) choose(form, label, option string) chromedp.Action[chromedp.Void] {
	b.t.Helper()
	sel := b.labelled(form, label)
	return poll(fmt.Sprintf(`(() => {
		const s = document.querySelector(%q);
		const o = s && Array.from(s.options).find(o => o.textContent.trim() === %q);
		if (!o) return false;
		s.value = o.value;
		s.dispatchEvent(new Event("change", {bubbles: true}));
		return true;
	})()`, string(sel), option), nil, chromedp.WithPollingTimeout(5*time.Second))
}

// TestBrowserAutomations: an admin creates a rule on the rules page — when a message is
// received, if its text contains "new patient", assign to themself and reply — then simulates
// an inbound sandbox text in a thread and watches the rule fire: the automatic reply and the
// activity entry naming the rule appear. Screenshots at 1366 and 390 px of /settings/hours,
// /settings/teams, /settings/automations, the rule's page and the inbox with the Closed badge
// and an Overdue conversation go to SCREENSHOT_DIR as automations-*.png.
func TestBrowserAutomations(t *testing.T) {
	chrome := testutil.Chromium(t)
	f := newFixture(t)
	d := "-data=" + f.data
	bea := ok(t, "admin", "create-user", d, "--email", "bea@example.com", "--name", "Bea Silva")
	ok(t, "admin", "add-member", d, "--workspace", f.ws, "--user", bea)
	// Closed now, whatever the time of the test: today and tomorrow are holidays.
	now := time.Now().UTC()
	ok(t, "admin", "set-hours", d, "--workspace", f.ws, "--week", "mon-fri 09:00-17:00; sat 10:00-13:00",
		"--holidays", now.Format("2006-01-02")+","+now.AddDate(0, 0, 1).Format("2006-01-02"))
	ok(t, "admin", "set-auto-reply", d, "--workspace", f.ws, "--after-hours", "Acme is closed. We open {{nextOpen}}.")
	team := ok(t, "admin", "create-team", d, "--workspace", f.ws, "--name", "Front desk", "--members", f.user+","+bea, "--assign", "round-robin")
	ok(t, "admin", "set-number", d, "--number", f.number, "--teams", team, "--default-team", team)
	ok(t, "admin", "set-workspace", d, "--workspace", f.ws, "--first-response", "15m", "--first-response-hours", "all")
	// A text that came an hour ago and was never answered: overdue now.
	func() {
		s, err := store.Open(dbPath(f.data), store.Options{Now: func() time.Time { return now.Add(-time.Hour) }})
		testutil.NoErr(t, err)
		defer s.Close()
		_, err = s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550177", To: "+14155550100", Text: "Hello? Nobody answered me."})
		testutil.NoErr(t, err)
	}()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+f.data, "-log-requests=false")
	defer srv.stop(t)

	b := openBrowser(t, chrome, 4*time.Minute, nil)
	b.failShot, b.stepLimit = "automations-failed", 25*time.Second
	b.signIn(srv.base+"/login", "ana@example.com", "correct horse", testutil.TestID("new-conversation-form"))
	both := func(name string) {
		t.Helper()
		b.run("wide", wide)
		b.shot("automations-" + name + "-1366")
		b.run("phone width", phone)
		b.shot("automations-" + name + "-390")
		if w, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`)); err == nil && !w {
			wide, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('*')).filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ')`))
			t.Errorf("%s scrolls sideways at 390 px: %s", name, wide)
		}
		b.run("wide again", wide)
	}
	b.run("the inbox says closed and shows the overdue conversation",
		wide,
		poll(`document.querySelector('[data-testid="hours-state"]').textContent.startsWith("Closed · opens ")`, nil),
		chromedp.WaitVisible(testutil.TestID("overdue-badge")),
	)
	both("inbox")

	b.run("the rules page, and New rule",
		chromedp.Navigate(srv.base+"/settings/automations"),
		chromedp.WaitVisible(testutil.TestID("rules-empty")),
	)
	both("rules-empty")
	b.run("open the new rule's form", chromedp.Click(testutil.TestID("rule-new")), chromedp.WaitVisible(testutil.TestID("rule-form")))
	b.run("fill the rule in",
		chromedp.SendKeys(b.labelled("rule-form", "Name"), "New patients"),
		b.choose("rule-form", "When", "A message is received"),
		b.choose("rule-form", "Condition 1", "Text contains… (a word or phrase)"),
		chromedp.SendKeys(b.labelled("rule-form", "Value 1"), "new patient"),
		b.choose("rule-form", "Action 1", "Assign to Ana Lima"),
		b.choose("rule-form", "Action 2", "Reply with the text…"),
		chromedp.SendKeys(b.labelled("rule-form", "Text or value 2"), "Welcome, {{firstName|there}}! Ana will text you back."),
	)
	b.run("save it", b.submit("rule-form", "rule-save", "Save rule"), chromedp.WaitVisible(testutil.TestID("flash")))
	both("rule")
	b.run("the list shows it, enabled",
		chromedp.Navigate(srv.base+"/settings/automations"),
		chromedp.WaitVisible(testutil.TestID("rules-list")),
	)
	if got := b.text(testutil.TestID("rule-state")); got != "enabled" {
		t.Fatalf("the rule is %q", got)
	}
	both("rules")

	// A conversation with a new contact, and the contact's text simulated in its thread.
	b.run("start a conversation",
		chromedp.Navigate(srv.base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
		chromedp.SendKeys(testutil.TestID("new-to"), "+14155550123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("simulate-form")),
	)
	b.run("the contact texts: I am a new patient",
		chromedp.SendKeys(b.labelled("simulate-form", "Text from the contact"), "Hi, I am a NEW patient"),
		chromedp.Click(testutil.TestID("simulate-submit")),
		poll(`Array.from(document.querySelectorAll('[data-testid="thread-entry"]')).some(e => e.textContent.includes("Rule 'New patients' assigned to Ana Lima and replied"))`, nil,
			chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(100*time.Millisecond)),
		poll(`Array.from(document.querySelectorAll('[data-testid="thread-message"]')).some(m => m.textContent.includes("Automatic reply") && m.textContent.includes("Welcome, there! Ana will text you back."))`, nil,
			chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(100*time.Millisecond)),
	)
	both("thread")
	if text := b.text(testutil.TestID("thread-items")); !strings.Contains(text, "Acme is closed. We open") {
		t.Errorf("the after-hours reply is not in the thread: %.300s", text)
	}

	b.run("Test runs the rule against the latest conversations without acting",
		chromedp.Navigate(srv.base+"/settings/automations"),
		chromedp.WaitVisible(testutil.TestID("rule-test")),
		chromedp.Click(testutil.TestID("rule-test")),
		chromedp.WaitVisible(testutil.TestID("trials-list")),
	)
	if got := b.text(testutil.TestID("trials-summary")); !strings.HasPrefix(got, "The rule would run on 1 of the 2 latest conversations") {
		t.Errorf("the test says %q", got)
	}
	both("rule-test")
	b.run("the hours page", chromedp.Navigate(srv.base+"/settings/hours"), chromedp.WaitVisible(testutil.TestID("hours-form")))
	both("hours")
	b.run("an overlapping range is refused beside the field",
		chromedp.SetValue(b.labelled("hours-form", "Weekly hours"), "mon 09:00-12:00, 11:00-13:00"),
		b.submit("hours-form", "hours-save", "Save hours"),
		chromedp.WaitVisible(testutil.TestID("error-week")),
	)
	if got := b.text(testutil.TestID("error-week")); !strings.Contains(got, "overlap") {
		t.Fatalf("the week's error says %q", got)
	}
	b.run("the teams page", chromedp.Navigate(srv.base+"/settings/teams"), chromedp.WaitVisible(testutil.TestID("team-form")))
	both("teams")
}
