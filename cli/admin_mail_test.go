package cli

import (
	"io"
	"net"
	"strings"
	"testing"

	"github.com/emersion/go-smtp"
)

type testInbox struct{ msgs chan string }

func (b *testInbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &testSession{b}, nil }

type testSession struct{ box *testInbox }

func (s *testSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *testSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *testSession) Reset()                               {}
func (s *testSession) Logout() error                        { return nil }
func (s *testSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	s.box.msgs <- string(b)
	return err
}

// TestAdminTestEmail sends one e-mail through a real SMTP server, and fails with the reason
// when the server cannot be reached.
func TestAdminTestEmail(t *testing.T) {
	box := &testInbox{msgs: make(chan string, 1)}
	srv := smtp.NewServer(box)
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	d := "-data=" + t.TempDir()
	r := sb(t, nil, "admin", "test-email", d, "--to", "ops@example.com", "-smtp-url", "smtp://"+ln.Addr().String(), "-smtp-from", "Switchboard <sms@example.com>")
	if r.code != 0 {
		t.Fatalf("test-email: exit %d, stderr %q", r.code, r.stderr)
	}
	if msg := <-box.msgs; !strings.Contains(msg, "Switchboard test e-mail") || !strings.Contains(msg, "ops@example.com") {
		t.Fatalf("received:\n%s", msg)
	}
	fails(t, "mail: send to ops@example.com", "admin", "test-email", d, "--to", "ops@example.com", "-smtp-url", "smtp://127.0.0.1:1", "-smtp-from", "sms@example.com")
	fails(t, "missing --to", "admin", "test-email", d, "-smtp-url", "smtp://127.0.0.1:1", "-smtp-from", "sms@example.com")
}
