package store_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// pngBytes is a file of n bytes that starts like a PNG.
func pngBytes(n int) []byte {
	b := bytes.Repeat([]byte{7}, n)
	copy(b, "\x89PNG\r\n\x1a\n")
	return b
}

// TestMediaKeptWithMessage: attachments sent with a message are kept in the same transaction,
// listed as URLs under the public URL, and read back byte for byte (a 2.5 MiB file spans
// several chunks); an unknown token is not found.
func TestMediaKeptWithMessage(t *testing.T) {
	f := newFixture(t)
	f.s.SetPublicURL("https://sb.example.com/")
	big := pngBytes(5<<19 + 3)
	m, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "see",
		Media: []string{"https://elsewhere.example/a.png"},
		Files: []store.Upload{{Name: "x-ray.png", Type: "image/png", Data: big}, {Name: "card.vcf", Type: "text/vcard", Data: []byte("BEGIN:VCARD\r\nEND:VCARD\r\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Media) != 3 || m.Media[0] != "https://elsewhere.example/a.png" {
		t.Fatalf("media %v, want the given URL then two kept files", m.Media)
	}
	for _, u := range m.Media[1:] {
		if !strings.HasPrefix(u, "https://sb.example.com/media/") {
			t.Errorf("kept file's URL %q does not start with the public URL's /media/", u)
		}
	}
	stored, err := f.s.Message(f.ws, m.ID)
	if err != nil || len(stored.Media) != 3 {
		t.Fatalf("stored message media %v (%v)", stored.Media, err)
	}
	token := store.MediaToken(m.Media[1])
	if len(token) < 22 {
		t.Fatalf("token %q is shorter than 128 bits", token)
	}
	rec, data, err := f.s.MediaFile(token)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, big) || rec.Type != "image/png" || rec.Name != "x-ray.png" || rec.Size != int64(len(big)) || rec.OwnerID != m.ID {
		t.Errorf("kept %d bytes as %+v, want the %d sent", len(data), rec, len(big))
	}
	info, err := f.s.MediaInfo(m.Media)
	if err != nil || len(info) != 2 || info[store.MediaToken(m.Media[2])].Type != "text/vcard" {
		t.Errorf("MediaInfo = %v (%v), want both kept files", info, err)
	}
	if _, _, err := f.s.MediaFile("AAAAAAAAAAAAAAAAAAAAAA"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown token: %v, want not found", err)
	}
	if _, _, err := f.s.MediaFile(""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("empty token: %v, want not found", err)
	}
}

// TestMediaRefusedSendStoresNothing: a send refused (an opted-out recipient) keeps no file.
func TestMediaRefusedSendStoresNothing(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.s.CreateOptOut(f.ws, f.user.ID, "+14155550123", store.OptOutAdmin); err != nil {
		t.Fatal(err)
	}
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"},
		Files: []store.Upload{{Name: "a.png", Type: "image/png", Data: pngBytes(100)}}})
	if !errors.Is(err, store.ErrOptedOut) {
		t.Fatalf("send: %v, want opted out", err)
	}
	if n, _, err := f.s.MediaBytes(); err != nil || n != 0 {
		t.Errorf("%d files kept after a refused send (%v), want 0", n, err)
	}
}

// TestMediaDeletedByRetentionAndCarriedByBackup: an inbound Twilio message's media are queued
// for fetching in its transaction; once fetched they are in a backup copy, and retention deletes
// them with their message.
func TestMediaDeletedByRetentionAndCarriedByBackup(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	f := newFixtureOn(t, s)
	woken := 0
	s.SetHooks(store.Hooks{Media: func() { woken++ }})
	src := "https://api.twilio.com/2010-04-01/Accounts/AC1/Messages/MM1/Media/ME1"
	m, err := s.RecordInboundMessage(f.ws, store.InboundMessage{From: "+14155550123", To: f.number, Text: "pic",
		Media: []string{src}, Provider: store.ProviderTwilio, ProviderID: "MM1"})
	if err != nil {
		t.Fatal(err)
	}
	if woken != 1 || m.Media[0] != src {
		t.Fatalf("woken %d times, media %v: want the fetcher woken once and the carrier URL kept for now", woken, m.Media)
	}
	due, _, err := s.DueMediaFetches(clock.Now(), 10)
	if err != nil || len(due) != 1 || due[0].URL != src || due[0].MessageID != m.ID {
		t.Fatalf("due fetches %+v (%v), want the one URL of the message", due, err)
	}
	data := pngBytes(3000)
	if err := s.CompleteMediaFetch(due[0], store.Upload{Name: "ME1.png", Type: "image/png", Data: data}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Message(f.ws, m.ID)
	if len(got.Media) != 1 || !strings.HasPrefix(got.Media[0], "/media/") {
		t.Fatalf("media after the fetch %v, want the local URL", got.Media)
	}
	if n, _ := s.MediaFetchDepth(); n != 0 {
		t.Errorf("%d fetches still queued, want 0", n)
	}
	// A backup copy holds the file.
	var buf bytes.Buffer
	if _, err := s.Backup(&buf, nil); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(copyPath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	c := openStoreAt(t, copyPath, store.Options{})
	if _, b, err := c.MediaFile(store.MediaToken(got.Media[0])); err != nil || !bytes.Equal(b, data) {
		t.Errorf("backup copy: %d bytes (%v), want the file", len(b), err)
	}
	// Retention deletes the file with its message.
	clock.Advance(40 * 24 * time.Hour)
	if _, err := s.UpdateWorkspace(f.ws, store.WorkspaceSettings{RetentionDays: ptrInt(30)}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SweepRetention(); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want 1", n, err)
	}
	if _, _, err := s.MediaFile(store.MediaToken(got.Media[0])); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("file after its message was swept: %v, want not found", err)
	}
	if n, size, _ := s.MediaBytes(); n != 0 || size != 0 {
		t.Errorf("%d files (%d bytes) left, want none", n, size)
	}
}

// TestMediaFetchRetryAndFail: a failed fetch moves to its next attempt; giving up keeps the
// carrier's URL with a note; a fetch whose message was deleted keeps nothing.
func TestMediaFetchRetryAndFail(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	f := newFixtureOn(t, s)
	src := []string{"https://api.twilio.com/a", "https://api.twilio.com/b"}
	m, err := s.RecordInboundMessage(f.ws, store.InboundMessage{From: "+14155550123", To: f.number,
		Media: src, Provider: store.ProviderTwilio, ProviderID: "MM2"})
	if err != nil {
		t.Fatal(err)
	}
	due, _, _ := s.DueMediaFetches(clock.Now(), 10)
	if len(due) != 2 {
		t.Fatalf("%d fetches due, want 2", len(due))
	}
	if err := s.RetryMediaFetch(due[0], clock.Now().Add(time.Minute), "503"); err != nil {
		t.Fatal(err)
	}
	now, next, _ := s.DueMediaFetches(clock.Now(), 10)
	if len(now) != 1 || !next.Equal(clock.Now().Add(time.Minute)) {
		t.Fatalf("due now %d, next at %v: want the other one now and the retried one in a minute", len(now), next)
	}
	if err := s.FailMediaFetch(now[0], "ME-b: larger than 5 MB"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	later, _, _ := s.DueMediaFetches(clock.Now(), 10)
	if len(later) != 1 || later[0].Attempts != 1 || later[0].LastError != "503" {
		t.Fatalf("retried fetch %+v, want attempt 1 with its error", later)
	}
	if err := s.FailMediaFetch(later[0], "ME-a: could not be fetched"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Message(f.ws, m.ID)
	if got.Media[0] != src[0] || got.Media[1] != src[1] || !strings.Contains(got.MediaError, "larger than 5 MB") || !strings.Contains(got.MediaError, "could not be fetched") {
		t.Errorf("message media %v error %q, want the carrier URLs and both notes", got.Media, got.MediaError)
	}
	if n, _ := s.MediaFetchDepth(); n != 0 {
		t.Errorf("%d fetches queued, want 0", n)
	}
}

// TestMediaSurvivesCompact: compaction copies every kept file, byte for byte.
func TestMediaSurvivesCompact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sb.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, s)
	data := pngBytes(3<<20 + 17)
	m, err := s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"},
		Files: []store.Upload{{Name: "scan.png", Type: "image/png", Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := store.Compact(path, 0); err != nil {
		t.Fatal(err)
	}
	c := openStoreAt(t, path, store.Options{})
	if rec, got, err := c.MediaFile(store.MediaToken(m.Media[0])); err != nil || !bytes.Equal(got, data) || rec.Name != "scan.png" {
		t.Errorf("after compact: %+v, %d bytes, %v; want the file", rec, len(got), err)
	}
}
