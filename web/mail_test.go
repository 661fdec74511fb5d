package web

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"switchboard/mail"
)

// smtpInbox is a real SMTP server (emersion/go-smtp) that keeps the message bodies it receives.
type smtpInbox struct {
	mu   sync.Mutex
	msgs []string
	got  chan struct{}
}

func (b *smtpInbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{box: b}, nil }

type smtpSession struct{ box *smtpInbox }

func (s *smtpSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *smtpSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *smtpSession) Reset()                               {}
func (s *smtpSession) Logout() error                        { return nil }
func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.box.mu.Lock()
	s.box.msgs = append(s.box.msgs, string(b))
	s.box.mu.Unlock()
	s.box.got <- struct{}{}
	return nil
}

// next waits for the next message; the worker sends as soon as it is woken.
func (b *smtpInbox) next(t *testing.T) string {
	t.Helper()
	select {
	case <-b.got:
	case <-time.After(10 * time.Second):
		t.Fatal("no e-mail arrived")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.msgs[len(b.msgs)-1]
}

var mailLinkRe = regexp.MustCompile(`http://[^\s]+/(invite|reset)/(sb[ir]_[A-Za-z0-9_=\-]+)`)

// TestInvitationAndResetMailsArrive: with -smtp-url set, an invitation and a "Forgot password?"
// request send their links by e-mail through a real SMTP server, and the links work; an unknown
// address gets the same answer and no e-mail.
func TestInvitationAndResetMailsArrive(t *testing.T) {
	e := newUIEnv(t)
	box := &smtpInbox{got: make(chan struct{}, 10)}
	srv := smtp.NewServer(box)
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	worker := mail.NewWorker(e.st, mail.Config{URL: "smtp://" + ln.Addr().String(), From: "Switchboard <sms@example.com>"}, nil)
	worker.Start()
	t.Cleanup(worker.Stop)
	serveWithMailer(t, e, worker, nil)

	admin := e.signIn(t, e.alice)
	res, body := e.send(t, admin, "POST", "/settings/members", url.Values{"email": {"new@example.com"}, "role": {"member"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="invite-mailed"`) {
		t.Fatalf("invite: %d", res.StatusCode)
	}
	msg := box.next(t)
	m := mailLinkRe.FindStringSubmatch(strings.ReplaceAll(msg, "=\r\n", ""))
	if m == nil || m[1] != "invite" || !strings.Contains(msg, "To: <new@example.com>") {
		t.Fatalf("invitation e-mail without its link:\n%s", msg)
	}
	if res, _ := e.send(t, e.browser(t), "GET", "/invite/"+m[2], nil); res.StatusCode != http.StatusOK {
		t.Fatalf("the e-mailed invitation link: %d", res.StatusCode)
	}

	b := e.browser(t)
	_, body = e.send(t, b, "GET", "/forgot", nil)
	if !strings.Contains(body, `data-testid="forgot-form"`) {
		t.Fatal("expected the forgot-password form when e-mail is configured")
	}
	_, unknown := e.send(t, b, "POST", "/forgot", url.Values{"email": {"nobody@example.com"}})
	_, known := e.send(t, b, "POST", "/forgot", url.Values{"email": {e.bob.Email}})
	if !strings.Contains(known, `data-testid="forgot-sent"`) || unknown != known {
		t.Fatal("expected the same answer for a known and an unknown address")
	}
	msg = box.next(t)
	m = mailLinkRe.FindStringSubmatch(strings.ReplaceAll(msg, "=\r\n", ""))
	if m == nil || m[1] != "reset" || !strings.Contains(msg, "To: <"+e.bob.Email+">") {
		t.Fatalf("reset e-mail without its link:\n%s", msg)
	}
	if res, _ := e.send(t, b, "POST", "/reset/"+m[2], url.Values{"password": {"bob's fresh password"}}); res.StatusCode != http.StatusOK {
		t.Fatalf("the e-mailed reset link: %d", res.StatusCode)
	}
	box.mu.Lock()
	n := len(box.msgs)
	box.mu.Unlock()
	if n != 2 {
		t.Fatalf("%d e-mails sent, want 2 (none for the unknown address)", n)
	}
}
