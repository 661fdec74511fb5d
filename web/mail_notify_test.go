package web

import (
	"context"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	netmail "net/mail"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"switchboard/internal/testutil"
	"switchboard/mail"
	"switchboard/store"
)

// mailNotifyEnv is a server with e-mail configured, a real SMTP server run by the test, and a
// clock the test advances; the mail worker is run by hand (RunOnce) at the test's times.
type mailNotifyEnv struct {
	*uiEnv
	clk    *testutil.Clock
	box    *smtpInbox
	worker *mail.Worker
	conv   store.Conversation
}

func newMailNotifyEnv(t *testing.T) *mailNotifyEnv {
	t.Helper()
	clk := testutil.NewClock(time.Now()) // streams set write deadlines from it: keep it near the real time
	st, err := store.Open(filepath.Join(t.TempDir(), "n.db"), store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &uiEnv{st: st, numberA: "+14155550100"}
	e.a, err = st.CreateWorkspace("Acme Dental")
	testutil.NoErr(t, err)
	for _, u := range []struct {
		p           *store.User
		email, name string
		role        string
	}{{&e.alice, "alice@example.com", "Alice Admin", "admin"}, {&e.mo, "mo@example.com", "Mo", "member"}} {
		*u.p, err = st.CreateUser(store.NewUser{Email: u.email, Name: u.name, Password: uiPassword})
		testutil.NoErr(t, err)
		_, err = st.AddMember(e.a.ID, u.p.ID, u.role)
		testutil.NoErr(t, err)
	}
	_, err = st.AddNumber(e.a.ID, e.numberA, "Front desk")
	testutil.NoErr(t, err)
	_, err = st.CreateContact(e.a.ID, store.ContactInput{FirstName: ptr("José"), LastName: ptr("Núñez"), Phone: "+14155550123"})
	testutil.NoErr(t, err)
	conv, _, err := st.CreateConversation(e.a.ID, e.numberA, "+14155550123")
	testutil.NoErr(t, err)

	box := &smtpInbox{got: make(chan struct{}, 20)}
	srv := smtp.NewServer(box)
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoErr(t, err)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	worker := mail.NewWorker(st, mail.Config{URL: "smtp://" + ln.Addr().String(), From: "Switchboard <sms@example.com>", Timeout: 5 * time.Second}, clk.Now)
	e.srv = httptest.NewUnstartedServer(nil)
	e.sess, err = NewSessions(st, SessionConfig{BaseURL: "https://sb.example", Mail: worker})
	testutil.NoErr(t, err)
	e.srv.Config.Handler = New(st, Config{Sessions: e.sess})
	e.srv.Start()
	t.Cleanup(e.srv.Close)
	return &mailNotifyEnv{uiEnv: e, clk: clk, box: box, worker: worker, conv: conv}
}

// sendDue runs the mail worker once and returns the e-mails it sent.
func (e *mailNotifyEnv) sendDue(t *testing.T) []string {
	t.Helper()
	e.box.mu.Lock()
	before := len(e.box.msgs)
	e.box.mu.Unlock()
	e.worker.RunOnce(context.Background())
	e.box.mu.Lock()
	defer e.box.mu.Unlock()
	var out []string
	for _, m := range e.box.msgs[before:] {
		out = append(out, readMail(t, m))
	}
	for range out {
		<-e.box.got
	}
	return out
}

// readMail decodes a received e-mail into "To: …\nSubject: …\n\nbody" as its reader sees it.
func readMail(t *testing.T, raw string) string {
	t.Helper()
	m, err := netmail.ReadMessage(strings.NewReader(raw))
	testutil.NoErr(t, err)
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	testutil.NoErr(t, err)
	body, err := io.ReadAll(quotedprintable.NewReader(m.Body))
	testutil.NoErr(t, err)
	return "To: " + m.Header.Get("To") + "\nSubject: " + subject + "\n\n" + string(body)
}

func (e *mailNotifyEnv) mention(t *testing.T, who store.User, text string) {
	t.Helper()
	_, err := e.st.CreateComment(e.a.ID, store.CommentInput{From: e.numberA, To: "+14155550123", Text: text,
		Mentions: []string{who.ID}, AuthorID: e.alice.ID})
	testutil.NoErr(t, err)
}

// TestMentionAndAssignmentEmails: a member who chose e-mail on their profile and has no inbox
// open gets an e-mail naming the conversation with a link to it; within ten minutes of one
// e-mail further notifications gather into one e-mail sent when the ten minutes are over; with
// the inbox open, or without the choice, nothing is e-mailed.
func TestMentionAndAssignmentEmails(t *testing.T) {
	e := newMailNotifyEnv(t)
	mo := e.signIn(t, e.mo)
	_, body := e.send(t, mo, "GET", "/settings/profile", nil)
	if !strings.Contains(body, `data-testid="notify-email"`) || strings.Contains(body, `data-testid="notify-email-off"`) {
		t.Fatal("expected the e-mail choice on the profile, without the no-e-mail note")
	}

	// Without the choice, a mention sends nothing.
	e.mention(t, e.mo, "@Mo can you call back?")
	if got := e.sendDue(t); len(got) != 0 {
		t.Fatalf("%d e-mails before the user chose them", len(got))
	}

	res, _ := e.send(t, mo, "POST", "/settings/profile/notifications", url.Values{"inbound": {"mine"}, "email": {"on"}})
	wantRedirect(t, res, "/settings/profile?done=notifications")
	_, body = e.send(t, mo, "GET", "/settings/profile", nil)
	if !strings.Contains(body, `id="notify-email" name="email" value="on" checked`) {
		t.Fatal("the e-mail choice was not kept")
	}

	e.mention(t, e.mo, "@Mo the patient asks about Friday")
	got := e.sendDue(t)
	if len(got) != 1 {
		t.Fatalf("%d e-mails after a mention, want 1", len(got))
	}
	for _, want := range []string{"To: <mo@example.com>", "Subject: Alice Admin mentioned you: ",
		"Alice Admin mentioned you in the conversation with", "(+14155550123) in Acme Dental",
		"> @Mo the patient asks about Friday", "https://sb.example/inbox/" + e.conv.ID} {
		if !strings.Contains(got[0], want) {
			t.Fatalf("the e-mail lacks %q:\n%s", want, got[0])
		}
	}
	if res, _ := e.send(t, mo, "GET", "/inbox/"+e.conv.ID, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("the e-mail's link: %d", res.StatusCode)
	}

	// Within ten minutes: a mention and an assignment wait and go together at the tenth minute.
	e.clk.Advance(3 * time.Minute)
	e.mention(t, e.mo, "@Mo one more thing")
	e.clk.Advance(time.Minute)
	assignees := []string{e.mo.ID}
	_, err := e.st.UpdateConversation(e.a.ID, e.conv.ID, store.ConversationUpdate{AssignedUserIDs: &assignees, ActorID: e.alice.ID})
	testutil.NoErr(t, err)
	if got := e.sendDue(t); len(got) != 0 {
		t.Fatalf("%d e-mails within ten minutes of the last, want 0", len(got))
	}
	e.clk.Advance(6*time.Minute - time.Second)
	if got := e.sendDue(t); len(got) != 0 {
		t.Fatalf("%d e-mails a second before the ten minutes are over", len(got))
	}
	e.clk.Advance(time.Second)
	got = e.sendDue(t)
	if len(got) != 1 || !strings.Contains(got[0], "Subject: 2 notifications in Switchboard") ||
		!strings.Contains(got[0], "> @Mo one more thing") ||
		!strings.Contains(got[0], "Alice Admin assigned you the conversation with") {
		t.Fatalf("want one e-mail with both notifications, got %d:\n%s", len(got), strings.Join(got, "\n----\n"))
	}

	// With the inbox open, the user is not away: no e-mail, even ten minutes on.
	e.clk.Advance(20 * time.Minute)
	stream := e.openStream(t, mo, "")
	e.mention(t, e.mo, "@Mo are you there?")
	stream.next(t, "notification")
	e.clk.Advance(20 * time.Minute)
	if got := e.sendDue(t); len(got) != 0 {
		t.Fatalf("%d e-mails while the user has the inbox open", len(got))
	}
}

// TestPresenceAway: a user is away when no stream of theirs is open in the workspace and the
// last one closed more than a minute ago (a page load closes one stream and opens the next).
func TestPresenceAway(t *testing.T) {
	clk := testutil.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	p := newPresence(clk.Now)
	if !p.away("u", "w") {
		t.Fatal("a user who never opened a stream is away")
	}
	closeA := p.opened("u", "w")
	closeB := p.opened("u", "w")
	if p.away("u", "w") || !p.away("u", "other") || !p.away("v", "w") {
		t.Fatal("a stream makes its user present in its workspace only")
	}
	closeA()
	if p.away("u", "w") {
		t.Fatal("away while a second stream is open")
	}
	closeB()
	clk.Advance(59 * time.Second)
	if p.away("u", "w") {
		t.Fatal("away within a minute of the last stream closing")
	}
	clk.Advance(time.Second)
	if !p.away("u", "w") {
		t.Fatal("not away a minute after the last stream closed")
	}
}
