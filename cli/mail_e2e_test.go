package cli

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"switchboard/internal/testutil"
)

var e2eMailLink = regexp.MustCompile(`http://[^\s]+/(invite|reset)/(sb[ir]_[A-Za-z0-9_=\-]+)`)

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// nextMail waits for the next e-mail the test's SMTP server receives.
func nextMail(t *testing.T, box *testInbox) string {
	t.Helper()
	select {
	case m := <-box.msgs:
		return strings.ReplaceAll(m, "=\r\n", "") // undo quoted-printable soft breaks
	case <-time.After(15 * time.Second):
		t.Fatal("no e-mail arrived within 15 s")
		return ""
	}
}

// TestMailEndToEnd runs the binary with -smtp-url: an invitation made while the SMTP server is
// down stays queued through a crash of the binary and arrives after the restart; the e-mailed
// invitation and password-reset links work; "Forgot password?" answers an unknown address
// exactly like a known one and e-mails nobody.
func TestMailEndToEnd(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	ok(t, "admin", "create-user", d, "--email", "bo@example.com", "--name", "Bo", "--password", "bo's old password")
	smtpAddr := "127.0.0.1:" + testutil.FreePort(t) // nothing listens there yet
	addr := "127.0.0.1:" + testutil.FreePort(t)
	args := []string{"-addr", addr, d, "-log-requests=false", "-base-url", "http://" + addr,
		"-smtp-url", "smtp://" + smtpAddr, "-smtp-from", "Switchboard <sms@example.com>"}
	srv := startServer(t, addr, nil, args...)

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(srv.base+"/login", url.Values{"email": {"ana@example.com"}, "password": {"correct horse"}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %v %v", res.StatusCode, err)
	}
	res.Body.Close()
	res, err = c.PostForm(srv.base+"/settings/members", url.Values{"email": {"new@example.com"}, "role": {"member"}})
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="invite-mailed"`) {
		t.Fatalf("invite with the SMTP server down: %d, want the page to say it was e-mailed (queued)", res.StatusCode)
	}
	// The worker tried and failed; then the binary dies without a clean stop.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(srv.stderr.String(), "mail: not sent; will retry"); {
		if time.Now().After(deadline) {
			t.Fatalf("no failed try logged; stderr:\n%s", srv.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.done

	box := &testInbox{msgs: make(chan string, 10)}
	smtpSrv := smtp.NewServer(box)
	smtpSrv.Domain, smtpSrv.AllowInsecureAuth = "localhost", true
	ln, err := net.Listen("tcp", smtpAddr)
	if err != nil {
		t.Fatal(err)
	}
	go smtpSrv.Serve(ln)
	t.Cleanup(func() { smtpSrv.Close() })
	srv = startServer(t, addr, nil, args...)

	msg := nextMail(t, box)
	m := e2eMailLink.FindStringSubmatch(msg)
	if m == nil || m[1] != "invite" || !strings.Contains(msg, "To: <new@example.com>") {
		t.Fatalf("the invitation e-mail after the restart lacks its link:\n%s", msg)
	}
	if res, err := http.Get(m[0]); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the e-mailed invitation link: %v %v", res.StatusCode, err)
	} else {
		res.Body.Close()
	}

	// "Forgot password?": the same answer for an unknown and a known address; one e-mail.
	anon, _ := cookiejar.New(nil)
	b := &http.Client{Jar: anon, CheckRedirect: c.CheckRedirect}
	forgot := func(email string) string {
		res, err := b.PostForm(srv.base+"/forgot", url.Values{"email": {email}})
		if err != nil {
			t.Fatal(err)
		}
		return readAll(t, res)
	}
	unknown, known := forgot("nobody@example.com"), forgot("bo@example.com")
	if !strings.Contains(known, `data-testid="forgot-sent"`) || unknown != known {
		t.Fatal("expected the same answer for a known and an unknown address")
	}
	msg = nextMail(t, box)
	m = e2eMailLink.FindStringSubmatch(msg)
	if m == nil || m[1] != "reset" || !strings.Contains(msg, "To: <bo@example.com>") {
		t.Fatalf("the reset e-mail lacks its link:\n%s", msg)
	}
	if res, err := b.PostForm(m[0], url.Values{"password": {"bo's brand new password"}}); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the e-mailed reset link: %v %v", res.StatusCode, err)
	} else {
		res.Body.Close()
	}
	if res, err := b.PostForm(srv.base+"/login", url.Values{"email": {"bo@example.com"}, "password": {"bo's brand new password"}}); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in with the new password: %v %v", res.StatusCode, err)
	} else {
		res.Body.Close()
	}
	select {
	case extra := <-box.msgs:
		t.Fatalf("an e-mail for the unknown address, or a second one:\n%s", extra)
	default:
	}
}
