package media_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/media"
	"switchboard/store"
)

// foreign is a server that is not the Twilio API: it records every Authorization header it sees.
type foreign struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
	auths []string
}

func newForeign(t *testing.T) *foreign {
	f := &foreign{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.Path)
		if a := r.Header.Get("Authorization"); a != "" {
			f.auths = append(f.auths, a)
		}
		f.mu.Unlock()
		w.Write(jpegBytes)
	}))
	t.Cleanup(f.Close)
	return f
}

// twilioServer demands the account's Basic credentials on every request, as Twilio's API does.
func twilioServer(t *testing.T, other *foreign) *httptest.Server {
	var mu sync.Mutex
	flaky := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "AC1" || pass != "secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "/ME1"):
			w.Write(pngBytes)
		case strings.HasSuffix(r.URL.Path, "/MEcdn"): // Twilio answers with its storage's URL
			http.Redirect(w, r, other.URL+"/cdn/photo", http.StatusTemporaryRedirect)
		case strings.HasSuffix(r.URL.Path, "/MEbig"):
			w.Write(append(bytes.Clone(pngBytes), make([]byte, media.MaxFileSize)...))
		case strings.HasSuffix(r.URL.Path, "/MEflaky"):
			mu.Lock()
			flaky++
			n := flaky
			mu.Unlock()
			if n <= 2 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Write(pdfBytes)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFetcher: inbound Twilio media are fetched with the account's credentials from the Twilio
// API in use and kept; the credentials never reach another host, neither named in a media URL
// nor through a redirect; a file over 5 MB and one that fails every retry keep the carrier's URL
// with a note; transient failures are retried on the backoff (an injected clock, no sleeping).
func TestFetcher(t *testing.T) {
	c := testutil.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s, err := store.Open(filepath.Join(t.TempDir(), "sb.db"), store.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(ws.ID, "+14155550100", "Main"); err != nil {
		t.Fatal(err)
	}
	other := newForeign(t)
	tw := twilioServer(t, other)
	media0 := tw.URL + "/2010-04-01/Accounts/AC1/Messages/MM1/Media/"
	urls := []string{media0 + "ME1", media0 + "MEcdn", other.URL + "/2010-04-01/Accounts/AC1/Messages/MM1/Media/MEforeign",
		media0 + "MEbig", media0 + "MEflaky", media0 + "MEdown"}
	m, err := s.RecordInboundMessage(ws.ID, store.InboundMessage{From: "+14155550123", To: "+14155550100", Text: "look",
		Media: urls, Provider: store.ProviderTwilio, ProviderID: "MM1"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := media.NewFetcher(s, media.FetcherOptions{BaseURL: tw.URL, AccountSID: "AC1", AuthToken: "secret", Now: c.Now,
		Backoff: []time.Duration{time.Minute, 5 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	next, err := f.RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := c.Now().Add(time.Minute); !next.Equal(want) {
		t.Errorf("next fetch due %v, want %v (the first retry)", next, want)
	}
	c.Advance(time.Minute)
	if _, err := f.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	c.Advance(5 * time.Minute)
	if next, err := f.RunOnce(ctx); err != nil || !next.IsZero() {
		t.Fatalf("after the last retry: next %v, %v; want an empty queue", next, err)
	}
	got, err := s.Message(ws.ID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantType := map[int]string{0: "image/png", 1: "image/jpeg", 4: "application/pdf"}
	for i, u := range got.Media {
		typ, local := wantType[i]
		if !local {
			if u != urls[i] {
				t.Errorf("media %d = %q, want the carrier's URL kept", i, u)
			}
			continue
		}
		rec, data, err := s.MediaFile(store.MediaToken(u))
		if err != nil || rec.Type != typ || len(data) == 0 || rec.Source != urls[i] {
			t.Errorf("media %d (%s): %+v %d bytes %v, want a kept %s", i, u, rec, len(data), err, typ)
		}
	}
	for _, note := range []string{"MEforeign: not fetched", "MEbig: larger than 5 MB", "MEdown: could not be fetched"} {
		if !strings.Contains(got.MediaError, note) {
			t.Errorf("media error %q does not say %q", got.MediaError, note)
		}
	}
	if strings.Contains(got.MediaError, "MEflaky") {
		t.Errorf("media error %q names the file that came on its third attempt", got.MediaError)
	}
	other.mu.Lock()
	defer other.mu.Unlock()
	if len(other.auths) != 0 {
		t.Errorf("the other host received credentials: %q", other.auths)
	}
	if len(other.paths) != 1 || other.paths[0] != "/cdn/photo" {
		t.Errorf("the other host was asked for %q, want only the redirect's /cdn/photo (never the foreign media URL)", other.paths)
	}
}

// TestFetcherWrongCredentials: a 401 with no retries left keeps the carrier URL and notes it.
func TestFetcherWrongCredentials(t *testing.T) {
	c := testutil.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s, err := store.Open(filepath.Join(t.TempDir(), "sb.db"), store.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, _ := s.CreateWorkspace("Acme")
	if _, err := s.AddNumber(ws.ID, "+14155550100", "Main"); err != nil {
		t.Fatal(err)
	}
	tw := twilioServer(t, newForeign(t))
	u := tw.URL + "/2010-04-01/Accounts/AC1/Messages/MM1/Media/ME1"
	m, err := s.RecordInboundMessage(ws.ID, store.InboundMessage{From: "+14155550123", To: "+14155550100",
		Media: []string{u}, Provider: store.ProviderTwilio, ProviderID: "MM9"})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := media.NewFetcher(s, media.FetcherOptions{BaseURL: tw.URL, AccountSID: "AC1", AuthToken: "wrong", Now: c.Now, Backoff: []time.Duration{}})
	if _, err := f.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Message(ws.ID, m.ID)
	if got.Media[0] != u || !strings.Contains(got.MediaError, "HTTP 401") {
		t.Errorf("media %v, error %q: want the URL kept and the 401 noted", got.Media, got.MediaError)
	}
}
