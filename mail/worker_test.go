package mail_test

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"switchboard/internal/testutil"
	"switchboard/mail"
	"switchboard/store"
)

// inbox is a real SMTP server run by the test (emersion/go-smtp) that keeps what it receives.
type inbox struct {
	mu   sync.Mutex
	msgs []received
}

type received struct {
	from string
	to   []string
	data string
}

func (b *inbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{box: b}, nil }

func (b *inbox) all() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.msgs...)
}

type session struct {
	box *inbox
	cur received
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error { s.cur.from = from; return nil }
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.to = append(s.cur.to, to)
	return nil
}
func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.data = string(b)
	s.box.mu.Lock()
	s.box.msgs = append(s.box.msgs, s.cur)
	s.box.mu.Unlock()
	return nil
}
func (s *session) Reset()        { s.cur = received{} }
func (s *session) Logout() error { return nil }

// startSMTP serves an inbox on addr ("127.0.0.1:0" for any port) until the test ends.
func startSMTP(t *testing.T, addr string) (*inbox, string, func()) {
	t.Helper()
	box := &inbox{}
	srv := smtp.NewServer(box)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	stop := func() { srv.Close() }
	t.Cleanup(stop)
	return box, ln.Addr().String(), stop
}

func TestMailArrives(t *testing.T) {
	box, addr, _ := startSMTP(t, "127.0.0.1:0")
	s, err := store.Open(filepath.Join(t.TempDir(), "m.db"), store.Options{})
	testutil.NoErr(t, err)
	defer s.Close()
	cfg := mail.Config{URL: "smtp://" + addr, From: "Switchboard <sms@example.com>", Timeout: 5 * time.Second}
	if _, err := s.QueueMail("ana@example.com", "Hello", "A test body\nwith two lines"); err != nil {
		t.Fatal(err)
	}
	w := mail.NewWorker(s, cfg, nil)
	if next := w.RunOnce(context.Background()); !next.IsZero() {
		t.Fatalf("expected nothing left, next due %v", next)
	}
	got := box.all()
	if len(got) != 1 || got[0].to[0] != "ana@example.com" || got[0].from != "sms@example.com" ||
		!strings.Contains(got[0].data, "Subject: Hello") || !strings.Contains(got[0].data, "A test body") {
		t.Fatalf("received %+v", got)
	}
}

// TestMailQueuedWhileServerDownArrivesAfterRestart: a mail that could not be sent stays in the
// outbox with its error, and goes once the SMTP server is back, also after a restart of
// Switchboard.
func TestMailQueuedWhileServerDownArrivesAfterRestart(t *testing.T) {
	addr := "127.0.0.1:" + testutil.FreePort(t) // nothing listens there yet
	clk := testutil.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := store.Open(path, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	cfg := mail.Config{URL: "smtp://" + addr, From: "sms@example.com", Timeout: 5 * time.Second}
	if _, err := s.QueueMail("bo@example.com", "Your link", "https://sb.example/reset/x"); err != nil {
		t.Fatal(err)
	}
	next := mail.NewWorker(s, cfg, clk.Now).RunOnce(context.Background())
	if next.IsZero() || next.Sub(clk.Now()) != time.Minute {
		t.Fatalf("after a failed try the mail is due again in %v, want 1m", next.Sub(clk.Now()))
	}
	due, _, _ := s.DueMail(clk.Now().Add(time.Minute), 10)
	if len(due) != 1 || due[0].Attempts != 1 || due[0].LastError == "" {
		t.Fatalf("outbox after the failure: %+v", due)
	}
	s.Close() // Switchboard stops with the mail queued

	box, _, _ := startSMTP(t, addr)
	clk.Advance(time.Minute)
	s, err = store.Open(path, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if next := mail.NewWorker(s, cfg, clk.Now).RunOnce(context.Background()); !next.IsZero() {
		t.Fatalf("expected the outbox empty, next due %v", next)
	}
	if got := box.all(); len(got) != 1 || got[0].to[0] != "bo@example.com" || !strings.Contains(got[0].data, "https://sb.example/reset/x") {
		t.Fatalf("received %+v", got)
	}
}

func TestConfigCheck(t *testing.T) {
	for url, ok := range map[string]bool{
		"": true, "smtp://u:p@mail.example:587": true, "smtps://mail.example": true,
		"http://mail.example": false, "smtp://": false, "smtp://h:port": false,
	} {
		err := mail.Config{URL: url, From: "Switchboard <sms@example.com>"}.Check()
		if (err == nil) != ok {
			t.Errorf("Check(%q) = %v, want ok %v", url, err, ok)
		}
	}
	if (mail.Config{URL: "smtp://h", From: "nobody"}).Check() == nil {
		t.Error("expected a bad -smtp-from to be refused")
	}
}

// TestRetryFailedMailAtStart: at start, e-mail that failed before is due at once, while e-mail
// not yet tried keeps its time.
func TestRetryFailedMailAtStart(t *testing.T) {
	clk := testutil.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	s, err := store.Open(filepath.Join(t.TempDir(), "m.db"), store.Options{Now: clk.Now})
	testutil.NoErr(t, err)
	defer s.Close()
	failed, err := s.QueueMail("bo@example.com", "Your link", "body")
	testutil.NoErr(t, err)
	testutil.NoErr(t, s.MailFailed(failed, "connection refused", clk.Now().Add(time.Hour)))
	if n, err := s.RetryFailedMail(clk.Now()); err != nil || n != 1 {
		t.Fatalf("RetryFailedMail = %d, %v; want 1", n, err)
	}
	due, next, err := s.DueMail(clk.Now(), 10)
	if err != nil || len(due) != 1 || due[0].ID != failed.ID || due[0].Attempts != 1 || !next.IsZero() {
		t.Fatalf("due after the start: %+v (next %v, %v)", due, next, err)
	}
}
