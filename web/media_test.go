package web

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"switchboard/media"
	"switchboard/store"
)

var testPNG = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 200)...)

type part struct {
	name string
	data []byte
}

// sendMultipart posts fields and files (the "files" input) as a browser does.
func (e *uiEnv) sendMultipart(t *testing.T, c *http.Client, path string, fields url.Values, files []part) (*http.Response, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, vs := range fields {
		for _, v := range vs {
			mw.WriteField(k, v)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile("files", f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.data)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", e.srv.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

var mediaPath = regexp.MustCompile(`/media/[A-Za-z0-9_-]{22}/[A-Za-z0-9._-]+`)

// TestUIAttachAndServe: a reply with an image and a PDF attached is sent as one message; the
// thread shows the image as a thumbnail linking to the file and the PDF as a chip; each file is
// served without sign-in with the headers that keep it from running as a page; an unknown token
// or another name is 404.
func TestUIAttachAndServe(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, _ := e.send(t, c, "POST", "/inbox", url.Values{"from": {e.numberA}, "to": {"+14155550123"}})
	thread := wantRedirect(t, res, "/inbox/")
	pdf := []byte("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n")
	res, _ = e.sendMultipart(t, c, thread+"/reply", url.Values{"text": {"your x-ray"}},
		[]part{{"x ray.png", testPNG}, {"report.pdf", pdf}})
	wantRedirect(t, res, thread+"?done=reply")
	_, body := e.send(t, c, "GET", thread, nil)
	if !strings.Contains(body, `data-testid="media-thumb"`) || !strings.Contains(body, `loading="lazy"`) ||
		!strings.Contains(body, `data-testid="media-chip"`) || !strings.Contains(body, "application/pdf") {
		t.Fatalf("thread lacks the thumbnail and the chip:\n%s", body)
	}
	paths := mediaPath.FindAllString(body, -1)
	if len(paths) < 2 {
		t.Fatalf("thread links %v, want the two files", paths)
	}
	var img, doc string
	for _, p := range paths {
		switch {
		case strings.HasSuffix(p, "/x-ray.png"):
			img = p
		case strings.HasSuffix(p, "/report.pdf"):
			doc = p
		}
	}
	anon := &http.Client{}
	for _, want := range []struct {
		path, typ, disposition string
		data                   []byte
	}{{img, "image/png", `inline; filename=x-ray.png`, testPNG}, {doc, "application/pdf", `attachment; filename=report.pdf`, pdf}} {
		res, err := anon.Get(e.srv.URL + want.path)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		h := res.Header
		if res.StatusCode != 200 || !bytes.Equal(got, want.data) {
			t.Errorf("GET %s: %d, %d bytes; want 200 and the file", want.path, res.StatusCode, len(got))
		}
		for k, v := range map[string]string{"Content-Type": want.typ, "X-Content-Type-Options": "nosniff",
			"Content-Security-Policy": "sandbox", "Content-Disposition": want.disposition,
			"Cache-Control": "private, max-age=31536000, immutable"} {
			if h.Get(k) != v {
				t.Errorf("GET %s: %s = %q, want %q", want.path, k, h.Get(k), v)
			}
		}
	}
	for _, p := range []string{"/media/AAAAAAAAAAAAAAAAAAAAAA/x-ray.png", img[:strings.LastIndex(img, "/")] + "/other.png", "/media/x"} {
		if res, err := anon.Get(e.srv.URL + p); err != nil || res.StatusCode != 404 {
			t.Errorf("GET %s: %v %v, want 404", p, res.StatusCode, err)
		}
	}
	// The message lists the files' URLs for the carrier and for integrators.
	msgs, _ := e.st.ListMessages(e.a.ID, store.MessageFilter{Limit: 1})
	if len(msgs) != 1 || len(msgs[0].Media) != 2 || store.MediaToken(msgs[0].Media[0]) == "" {
		t.Errorf("sent message media %v, want the two kept files", msgs[0].Media)
	}
}

// TestUIAttachRefused: a file of another type (whatever its name), one over 5 MB and the 11th
// file are refused with a message naming the file, and nothing is stored or sent.
func TestUIAttachRefused(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, _ := e.send(t, c, "POST", "/inbox", url.Values{"from": {e.numberA}, "to": {"+14155550123"}})
	thread := wantRedirect(t, res, "/inbox/")
	eleven := make([]part, 11)
	for i := range eleven {
		eleven[i] = part{fmt.Sprintf("p%02d.png", i+1), testPNG}
	}
	big := append(bytes.Clone(testPNG), make([]byte, media.MaxFileSize)...)
	for _, c2 := range []struct {
		name  string
		files []part
		want  string
	}{
		{"HTML named .jpg", []part{{"ok.png", testPNG}, {"cat.jpg", []byte("<!DOCTYPE html><script>alert(1)</script>")}}, "&#34;cat.jpg&#34; is a text/html file"},
		{"over 5 MB", []part{{"huge.png", big}}, "&#34;huge.png&#34; is larger than 5 MB"},
		{"the 11th file", eleven, "&#34;p11.png&#34; is one file too many"},
	} {
		res, body := e.sendMultipart(t, c, thread+"/reply", url.Values{"text": {"hi"}}, c2.files)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, c2.want) || !strings.Contains(body, `data-testid="reply-files-error"`) {
			t.Errorf("%s: %d, want 422 naming the file (%q)", c2.name, res.StatusCode, c2.want)
		}
	}
	// The same refusals on the new conversation and broadcast compose.
	res, body := e.sendMultipart(t, c, "/inbox", url.Values{"from": {e.numberA}, "to": {"+14155550124"}},
		[]part{{"virus.exe", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff")}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "virus.exe&#34; is a") {
		t.Errorf("new conversation with an .exe: %d, want 422 naming it", res.StatusCode)
	}
	res, body = e.sendMultipart(t, c, "/broadcasts/new", url.Values{"from": {e.numberA}, "recipients": {"+14155550125"}},
		[]part{{"page.html", []byte("<html><body>x</body></html>")}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "page.html&#34; is a") {
		t.Errorf("broadcast with HTML: %d, want 422 naming it", res.StatusCode)
	}
	if n, _, _ := e.st.MediaBytes(); n != 0 {
		t.Errorf("%d files kept after refusals, want 0", n)
	}
	if msgs, _ := e.st.ListMessages(e.a.ID, store.MessageFilter{Limit: 10}); len(msgs) != 0 {
		t.Errorf("%d messages sent after refusals, want 0", len(msgs))
	}
	// Forms without files keep their 64 KiB limit.
	res, _ = e.send(t, c, "POST", thread+"/reply", url.Values{"text": {strings.Repeat("a", 70<<10)}})
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("a 70 KiB urlencoded reply: %d, want 400", res.StatusCode)
	}
}

// TestUIAttachNewConversationAndBroadcast: files alone start a conversation (sent as its first
// message) and make a broadcast.
func TestUIAttachNewConversationAndBroadcast(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, _ := e.sendMultipart(t, c, "/inbox", url.Values{"from": {e.numberA}, "to": {"+14155550126"}}, []part{{"menu.png", testPNG}})
	thread := wantRedirect(t, res, "/inbox/")
	if _, body := e.send(t, c, "GET", thread, nil); !strings.Contains(body, `data-testid="media-thumb"`) {
		t.Error("the new conversation's thread shows no thumbnail")
	}
	res, _ = e.sendMultipart(t, c, "/broadcasts/new", url.Values{"from": {e.numberA}, "recipients": {"+14155550127\n+14155550128"}},
		[]part{{"flyer.png", testPNG}})
	wantRedirect(t, res, "/broadcasts/")
	msgs, _ := e.st.ListMessages(e.a.ID, store.MessageFilter{Limit: 10})
	copies := 0
	for _, m := range msgs {
		if m.BroadcastID != "" {
			copies++
			if len(m.Media) != 1 || !strings.HasSuffix(m.Media[0], "/flyer.png") {
				t.Errorf("broadcast copy media %v, want the flyer", m.Media)
			}
		}
	}
	if copies != 2 {
		t.Errorf("%d broadcast copies, want 2", copies)
	}
	if n, _, _ := e.st.MediaBytes(); n != 2 {
		t.Errorf("%d files kept, want 2 (one per upload, shared by the broadcast's copies)", n)
	}
}
