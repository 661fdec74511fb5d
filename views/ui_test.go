package views

import (
	"regexp"
	"strings"
	"testing"
)

var (
	controlRE = regexp.MustCompile(`<(input|select|textarea)\b([^>]*)>`)
	idRE      = regexp.MustCompile(`\bid="([^"]+)"`)
	typeRE    = regexp.MustCompile(`\btype="([^"]+)"`)
)

// labelled checks §10's rule for people and tests alike: every visible form control has an id
// and a <label for> naming it, and the page has one <h1>.
func labelled(t *testing.T, html string) {
	t.Helper()
	for _, m := range controlRE.FindAllStringSubmatch(html, -1) {
		if tm := typeRE.FindStringSubmatch(m[2]); tm != nil && tm[1] == "hidden" {
			continue
		}
		id := idRE.FindStringSubmatch(m[2])
		if id == nil {
			t.Errorf("a %s without an id (so without a label): %s", m[1], m[0])
			continue
		}
		if !strings.Contains(html, `<label for="`+id[1]+`"`) {
			t.Errorf("no <label for=%q> for %s", id[1], m[0])
		}
	}
	if n := strings.Count(html, "<h1"); n != 1 {
		t.Errorf("%d <h1> elements, want 1", n)
	}
}

func frame() Frame {
	return Frame{Title: "Inbox", UserName: "Dana", Superuser: true, Section: "inbox", Current: "w1", Back: "/inbox",
		Workspaces: []Option{{"w1", "Acme"}, {"w2", "Beta"}}}
}

func TestAppFrame(t *testing.T) {
	html := render(t, App(frame(), Inbox(InboxView{})))
	labelled(t, html)
	expect(t, html, `<label for="workspace-select">Workspace</label>`, `<option value="w1" selected>Acme</option>`,
		`href="/inbox" aria-current="page" data-testid="nav-inbox">Inbox<`, `data-testid="nav-admin">Admin<`,
		`action="/logout"`, `>Sign out<`, `<script src="/static/htmx.min.js" defer>`)
	one := frame()
	one.Superuser, one.Workspaces = false, one.Workspaces[:1]
	html = render(t, App(one, Inbox(InboxView{})))
	if strings.Contains(html, "workspace-select") || strings.Contains(html, "nav-admin") {
		t.Error("one workspace needs no switch, and a member sees no Admin entry")
	}
	expect(t, html, `data-testid="workspace-name"`)
}

func TestInboxList(t *testing.T) {
	v := InboxView{Status: "open", Labels: []string{"vip"}, Label: "vip", Numbers: []Option{{"+14155550100", "+14155550100 (Front desk)"}},
		Rows: []InboxRow{{ID: "c1", Title: "Ada Lovelace", Number: "+14155550123", Last: "See you", Status: "open", When: "09:30", Labels: []string{"vip"}}},
		New:  NewConversationForm{To: "555", Errors: map[string]string{"to": "Must be an E.164 phone number"}}}
	html := render(t, Inbox(v))
	labelled(t, html)
	expect(t, html, `<th scope="col">Contact</th>`, `href="/inbox/c1" data-testid="inbox-link">Ada Lovelace<`, `+14155550123`,
		`<option value="open" selected>open</option>`, `<option value="vip" selected>vip</option>`, `>Clear filters<`,
		`data-testid="error-to">Must be an E.164`, `value="555"`, `>Start conversation<`)
}

func TestInboxEmptyStates(t *testing.T) {
	html := render(t, Inbox(InboxView{CanAddNumber: true, AddNumber: AddNumberForm{Phone: "+1", Errors: map[string]string{"phone": "bad"}}}))
	labelled(t, html)
	expect(t, html, `data-testid="add-number-form"`, `action="/settings/numbers"`, `>Add sandbox number<`, `data-testid="error-phone">bad<`)
	if html = render(t, Inbox(InboxView{})); strings.Contains(html, "add-number-form") || !strings.Contains(html, "Ask an admin") {
		t.Error("a member without numbers: want a pointer to an admin, not the form")
	}
	html = render(t, NoWorkspace(true, "Ac", map[string]string{"name": "too short"}))
	labelled(t, html)
	expect(t, html, `data-testid="create-workspace-form"`, `value="Ac"`, `>Create workspace<`, `too short`)
	expect(t, render(t, NoWorkspace(false, "", nil)), `data-testid="no-workspace"`, `role="status"`)
}

func TestThread(t *testing.T) {
	v := ThreadView{ID: "c1", Title: "Ada", Number: "+14155550123", From: "+14155550100", Status: "open", CanBlock: true, Sandbox: true,
		Members:  []Option{{"u1", "Dana"}, {"u2", "Mo"}},
		Assigned: []string{"u2"},
		Items: []ThreadItem{
			{Text: "Hi", Who: "Ada", Status: "received", At: "09:00"},
			{Comment: true, Text: "VIP", Who: "Dana", Mentions: []string{"@Mo"}, At: "09:01"},
			{Outbound: true, Text: "Hello", Who: "Dana", Status: "failed", Segments: 2, Error: "twilio 30003: unreachable", At: "09:02"},
		},
		Reply: ReplyForm{Text: "draft", Segments: 1, Encoding: "GSM-7", Errors: map[string]string{"text": "too long"}},
		Error: "The reply was not sent: see the form."}
	html := render(t, Thread(v))
	labelled(t, html)
	expect(t, html, `data-testid="thread-items"`, `data-items-url="/inbox/c1/items"`, `data-conversation="c1"`, `data-testid="mark-unread"`,
		`data-testid="message-segments">2 segments<`, `data-testid="message-error">twilio 30003: unreachable<`,
		`data-testid="thread-comment"`, `Mentions: @Mo`, `>draft</textarea>`, `1 segment (GSM-7)`, `data-testid="error-text">too long<`,
		`role="alert" data-testid="form-error">The reply was not sent`, `value="u2" checked`, `>Block +14155550123<`,
		`action="/inbox/c1/simulate"`, `>Simulate inbound text<`, `>Send reply<`)
	// The thread is pushed (live.js), never polled.
	if strings.Contains(html, "hx-trigger") {
		t.Error("the thread page must not poll its items")
	}
	// The order of the items is the order given (time order, chosen by the handler).
	if strings.Index(html, ">Hi<") > strings.Index(html, ">VIP<") || strings.Index(html, ">VIP<") > strings.Index(html, ">Hello<") {
		t.Error("want the items in the given order")
	}
	v.Blocked, v.Sandbox = true, false
	html = render(t, Thread(v))
	expect(t, html, `>Unblock +14155550123<`, `data-testid="thread-blocked"`)
	if strings.Contains(html, "simulate-form") {
		t.Error("a non-sandbox number offers no simulated inbound")
	}
}

func TestUnreadInFrameAndRows(t *testing.T) {
	f := Frame{Title: "Inbox", UserName: "Dana", Current: "w1", Section: "inbox", Unread: 3, Live: true,
		Workspaces: []Option{{"w1", "Acme"}}}
	html := render(t, App(f, Inbox(InboxView{Numbers: []Option{{"+14155550100", "Main"}},
		Rows: []InboxRow{{ID: "c1", Title: "Ada", Number: "+1", Status: "open", Unread: true}, {ID: "c2", Title: "Bo", Number: "+2", Status: "open"}}})))
	expect(t, html, `<title>(3) Inbox · Switchboard</title>`, `data-testid="unread-count" data-count="3"`, `data-live="/events?after=0"`,
		`src="/static/live.js"`, `data-id="c1" class="unread" data-unread="true"`, `data-testid="enable-notifications"`,
		`name="unread" value="1"`, `name="mentions" value="1"`)
	if strings.Contains(html, `data-id="c2" class="unread"`) {
		t.Error("a read row is marked unread")
	}
	f.Unread, f.Live = 0, false
	html = render(t, App(f, Inbox(InboxView{})))
	expect(t, html, `<title>Inbox · Switchboard</title>`)
	if strings.Contains(html, "live.js") || strings.Contains(html, "enable-notifications") {
		t.Error("a page without a workspace listens to events")
	}
}
