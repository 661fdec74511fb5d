package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestBrowserContactsAndBroadcast drives the campaign pages in headless Chromium, as an admin of
// a workspace in New York would: create a contact and find it by name and by the last four
// digits of its number; make a group of two; compose a broadcast to it with a merge tag whose
// preview and segment count follow the typing; schedule it 3 s ahead in the workspace's time
// zone and watch the progress page reach `sent` by itself (the server's scheduler starts it,
// the sandbox delivers, htmx polls). Screenshots go where TestBrowserFirstRun's go.
func TestBrowserContactsAndBroadcast(t *testing.T) {
	chrome := testutil.Chromium(t)
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tz := "America/New_York"
	ws, err := st.CreateWorkspace("Acme Dental")
	if err == nil {
		_, err = st.UpdateWorkspace(ws.ID, store.WorkspaceSettings{TimeZone: &tz})
	}
	var user store.User
	if err == nil {
		user, err = st.CreateUser(store.NewUser{Email: "dana@acme.example", Name: "Dana Admin", Password: "correct horse battery"})
	}
	if err == nil {
		_, err = st.AddMember(ws.ID, user.ID, "admin")
	}
	if err == nil {
		_, err = st.AddNumber(ws.ID, "+14155550100", "Front desk")
	}
	if err == nil {
		grace := "Grace"
		_, err = st.CreateContact(ws.ID, store.ContactInput{Phone: "+14155550188", FirstName: &grace, Source: store.SourceAPI})
	}
	if err == nil {
		_, err = st.AddProperty(ws.ID, "lastVisit", store.PropertyDate)
	}
	if err != nil {
		t.Fatalf("set up: %v", err)
	}
	st.Close()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false")

	b := openBrowser(t, chrome, 2*time.Minute, nil)
	rows := func() []string {
		t.Helper()
		r, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="contact-row"]'), r => r.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	b.signIn(srv.base+"/contacts", "dana@acme.example", "correct horse battery", testutil.TestID("contact-search-form"))
	b.run("new contact: a number that does not parse is refused beside the field, as typed",
		chromedp.Click(testutil.TestID("contact-new")),
		chromedp.WaitVisible(testutil.TestID("contact-form")),
		chromedp.SendKeys(chromedp.CSS("#contact-first"), "Ada"),
		chromedp.SendKeys(chromedp.CSS("#contact-last"), "Lovelace"),
		chromedp.SendKeys(chromedp.CSS("#contact-phone"), "555-0123"),
		chromedp.SendKeys(chromedp.CSS("#contact-email"), "ada@example.com"),
		chromedp.Click(testutil.TestID("contact-submit")),
		chromedp.WaitVisible(testutil.TestID("error-phone")),
	)
	b.shot("c01-contact-error")
	b.run("create the contact",
		chromedp.Clear(chromedp.CSS("#contact-phone")),
		chromedp.SendKeys(chromedp.CSS("#contact-phone"), "(415) 555-0123"), // national format, the workspace's US
		chromedp.Click(testutil.TestID("contact-submit")),
		chromedp.WaitVisible(testutil.TestID("contact-title")),
	)
	if got := b.text(testutil.TestID("contact-title")); got != "Ada Lovelace" {
		t.Errorf("contact page title %q, want Ada Lovelace", got)
	}
	b.shot("c02-contact")
	for _, q := range []string{"lovelace", "0123"} {
		b.run("search "+q,
			chromedp.Navigate(srv.base+"/contacts"),
			chromedp.WaitVisible(testutil.TestID("contact-search")),
			chromedp.SendKeys(testutil.TestID("contact-search"), q),
			chromedp.Click(testutil.TestID("contact-search-submit")),
			poll(`location.search.includes("q=")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
			chromedp.WaitVisible(testutil.TestID("contacts-list")),
		)
		if r := rows(); len(r) != 1 || !strings.Contains(r[0], "Ada Lovelace") || !strings.Contains(r[0], "(415) 555-0123") {
			t.Errorf("search %q found %q, want Ada Lovelace alone", q, r)
		}
		b.shot("c03-search-" + q)
	}

	b.run("create a group",
		chromedp.Click(testutil.TestID("nav-groups")),
		chromedp.WaitVisible(testutil.TestID("group-create-form")),
		chromedp.SendKeys(chromedp.CSS("#group-name"), "Check-up due"),
		chromedp.Click(testutil.TestID("group-create-submit")),
		chromedp.WaitVisible(testutil.TestID("group-add-form")),
	)
	for i, p := range []string{"+14155550123", "+14155550188"} {
		b.run("add "+p,
			chromedp.SendKeys(chromedp.CSS("#member-phone"), p),
			chromedp.Click(testutil.TestID("member-add-submit")),
			poll(fmt.Sprintf(`document.querySelectorAll('[data-testid="member-row"]').length === %d`, i+1), nil,
				chromedp.WithPollingTimeout(10*time.Second)),
		)
	}
	if got := b.text(chromedp.CSS(`.page-head [data-testid="group-size"]`)); got != "2 members" {
		t.Errorf("group size %q, want 2 members", got)
	}
	b.shot("c04-group")

	b.run("compose a broadcast",
		chromedp.Click(testutil.TestID("nav-broadcasts")),
		chromedp.WaitVisible(testutil.TestID("broadcasts-empty")),
		chromedp.Click(testutil.TestID("broadcast-new")),
		chromedp.WaitVisible(testutil.TestID("compose-form")),
		chromedp.SendKeys(chromedp.CSS("#bc-name"), "December check-ups"),
		chromedp.SendKeys(chromedp.CSS("#bc-text"), "Hi {{firstName|there}}, your check-up is due. Reply to book."),
	)
	if got := b.text(testutil.TestID("bc-preview")); !strings.HasPrefix(got, "Hi Grace, your check-up") && !strings.HasPrefix(got, "Hi Ada, your check-up") {
		t.Errorf("preview %q, want the text rendered for a contact", got)
	}
	if got := b.text(testutil.TestID("bc-segments")); got != "1 segment (GSM-7)" {
		t.Errorf("segment count %q, want 1 segment (GSM-7)", got)
	}
	b.run("a long text costs two segments", chromedp.SendKeys(chromedp.CSS("#bc-text"), strings.Repeat(" Thank you!", 12)))
	if got := b.text(testutil.TestID("bc-segments")); got != "2 segments (GSM-7)" {
		t.Errorf("segment count %q, want 2 segments (GSM-7)", got)
	}
	b.shot("c05-compose")
	b.run("sending to nobody is refused beside the recipients, the text kept",
		chromedp.Click(testutil.TestID("bc-submit")),
		chromedp.WaitVisible(testutil.TestID("error-recipients")),
	)
	if got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("bc-text").value`)); err != nil || !strings.Contains(got, "{{firstName|there}}") {
		t.Errorf("text after the refusal %q, want it as typed", got)
	}
	b.shot("c06-compose-error")
	loc, _ := time.LoadLocation(tz)
	at := time.Now().Add(3 * time.Second).In(loc).Format("2006-01-02T15:04:05")
	b.run("schedule it 3 s ahead for the group",
		chromedp.Click(testutil.TestID("bc-group")),
		chromedp.Click(testutil.TestID("bc-later")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("bc-send-at").value = "`+at+`"`),
		chromedp.Click(testutil.TestID("bc-submit")),
		chromedp.WaitVisible(testutil.TestID("broadcast-progress")),
	)
	status := b.text(testutil.TestID("broadcast-status"))
	if status != "scheduled" && status != "sending" && status != "sent" {
		t.Errorf("status right after scheduling %q", status)
	}
	b.shot("c07-scheduled")
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.stillHere = true`)); err != nil {
		t.Fatal(err)
	}
	b.run("watch it reach sent without reloading",
		poll(`document.querySelector('[data-testid="broadcast-progress"]').dataset.status === "sent"`, nil,
			chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)),
	)
	if still, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.stillHere === true`)); err != nil || !still {
		t.Errorf("the page reloaded while watching the broadcast (%v)", err)
	}
	if got := b.text(testutil.TestID("count-sent")); got != "2" {
		t.Errorf("sent counter %q, want 2 (both members of the group)", got)
	}
	if _, err := chromedp.Run(b.ctx, chromedp.WaitNotPresent(testutil.TestID("broadcast-cancel"))); err != nil {
		t.Errorf("Cancel still offered on a sent broadcast: %v", err)
	}
	b.shot("c08-sent")
	b.run("the list shows it with its counters",
		chromedp.Click(chromedp.CSS(`.crumbs a[href="/broadcasts"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(testutil.TestID("broadcasts-list")),
	)
	if got := b.text(testutil.TestID("broadcast-status")); got != "sent" {
		t.Errorf("list status %q, want sent", got)
	}
	b.shot("c09-broadcasts")
	b.run("the contact's page now lists the broadcast's conversation and the group",
		chromedp.Click(testutil.TestID("nav-contacts")),
		chromedp.WaitVisible(testutil.TestID("contacts-list")),
		chromedp.Click(chromedp.CSS(`a[data-testid="contact-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(testutil.TestID("contact-conversation")),
	)
	if got := b.text(testutil.TestID("contact-groups")); !strings.Contains(got, "Check-up due") {
		t.Errorf("the contact's groups %q, want Check-up due", got)
	}
	b.shot("c10-contact-after")
	b.run("open the conversation from the contact",
		chromedp.Click(testutil.TestID("contact-conversation")),
		chromedp.WaitVisible(testutil.TestID("thread-items")),
	)
	if got := b.text(testutil.TestID("message-text")); !strings.HasPrefix(got, "Hi Ada, your check-up is due") && !strings.HasPrefix(got, "Hi Grace, your check-up is due") {
		t.Errorf("the broadcast copy in the thread reads %q, want its merge tag rendered", got)
	}
	b.shot("c11-thread")
	b.run("phone width", phone, chromedp.Navigate(srv.base+"/broadcasts/new"), chromedp.WaitVisible(testutil.TestID("compose-form")))
	b.shot("c12-compose-phone")
	b.run("groups at phone width", chromedp.Navigate(srv.base+"/groups"), chromedp.WaitVisible(testutil.TestID("groups-list")))
	b.shot("c13-groups-phone")
}
