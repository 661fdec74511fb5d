package cli

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
)

// uiClient is a browser-like client signed in as the fixture's superuser: cookies kept,
// redirects not followed.
func uiClient(t testing.TB, base string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.PostForm(base+"/login", url.Values{"email": {"ana@example.com"}, "password": {"correct horse"}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %v %v", res, err)
	}
	res.Body.Close()
	return client
}

// broadcastFigures is what the broadcast page's progress panel shows.
type broadcastFigures struct {
	Status                                  string
	Queued, Sent, Delivered, Failed, Cancel int
	Page                                    string
}

var (
	statusAttr = regexp.MustCompile(`data-status="([a-z]+)"`)
	countCell  = regexp.MustCompile(`data-testid="count-([a-z-]+)">(\d+)<`)
)

func readBroadcast(t testing.TB, client *http.Client, base, id string) broadcastFigures {
	t.Helper()
	res, err := client.Get(base + "/broadcasts/" + id + "/progress")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET progress: %d %s", res.StatusCode, raw)
	}
	page := string(raw)
	fig := broadcastFigures{Page: page}
	if m := statusAttr.FindStringSubmatch(page); m != nil {
		fig.Status = m[1]
	}
	for _, m := range countCell.FindAllStringSubmatch(page, -1) {
		n, _ := strconv.Atoi(m[2])
		switch m[1] {
		case "queued":
			fig.Queued = n
		case "sent":
			fig.Sent = n
		case "delivered":
			fig.Delivered = n
		case "failed":
			fig.Failed = n
		case "cancelled":
			fig.Cancel = n
		}
	}
	return fig
}

// waitBroadcast polls the page until cond holds, or fails after d.
func waitBroadcast(t testing.TB, client *http.Client, base, id string, d time.Duration, what string, cond func(broadcastFigures) bool) broadcastFigures {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		fig := readBroadcast(t, client, base, id)
		if cond(fig) {
			return fig
		}
		if time.Now().After(deadline) {
			t.Fatalf("broadcast not %s within %v: %+v", what, d, fig)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeBroadcastPausesAndResumes sends a broadcast to 150 numbers through the binary and a
// Twilio-format server that refuses 30 % of them (error 30007): it pauses by itself; resumed on
// its page, it finishes with exact counters.
func TestServeBroadcastPausesAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary")
	}
	fake := newTwilioFake(t)
	f := newFixture(t)
	// 25 a second: the broadcast takes seconds, so copies are still waiting when 100 are judged.
	addTwilioNumber(t, f, "25")
	rec := phones("+1303", 5550000, 150)
	refused := map[string]bool{}
	for i, p := range rec {
		if i%10 < 3 {
			refused[p] = true
			fake.script(p, fakeAnswer{status: 400, code: 30007, message: "Message filtered"})
		}
	}
	srv := startTwilioServer(t, f, fake)
	client := uiClient(t, srv.base)

	var b struct{ ID string }
	apiOK(t, srv.base, f.token, "send-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "from": twilioPhone,
		"recipients": rec, "text": "Spring sale"}, http.StatusAccepted, &b)

	fig := waitBroadcast(t, client, srv.base, b.ID, 30*time.Second, "paused", func(f broadcastFigures) bool { return f.Status == "paused" })
	if !strings.Contains(fig.Page, `data-testid="broadcast-paused-reason"`) || !strings.Contains(fig.Page, `data-testid="broadcast-resume"`) {
		t.Errorf("the paused page lacks its reason or Resume:\n%s", fig.Page)
	}
	// Copies at the carrier when it paused finish; then nothing more reaches the carrier.
	atPause := waitBroadcast(t, client, srv.base, b.ID, 10*time.Second, "settled", func(f broadcastFigures) bool {
		return f.Sent+f.Failed == len(fake.log())
	})
	if n := atPause.Sent + atPause.Failed; n < 100 || n >= len(rec) {
		t.Fatalf("paused after %d verdicts, want ≥ 100 and copies left waiting (sent %d failed %d)", n, atPause.Sent, atPause.Failed)
	}
	if atPause.Failed*100 <= (atPause.Sent+atPause.Failed)*20 {
		t.Errorf("paused with %d failed of %d: not more than 20 %%", atPause.Failed, atPause.Sent+atPause.Failed)
	}

	// Resume on the page (a form post, as the browser sends it).
	res, err := client.PostForm(srv.base+"/broadcasts/"+b.ID+"/resume", url.Values{})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("resume: %v %v, want 303", res, err)
	}
	res.Body.Close()
	done := waitBroadcast(t, client, srv.base, b.ID, 30*time.Second, "sent", func(f broadcastFigures) bool { return f.Status == "sent" })
	if done.Queued != 150 || done.Sent != 105 || done.Failed != 45 || done.Delivered != 0 || done.Cancel != 0 {
		t.Errorf("finished with queued %d sent %d failed %d delivered %d cancelled %d, want 150/105/45/0/0",
			done.Queued, done.Sent, done.Failed, done.Delivered, done.Cancel)
	}
	// Every recipient reached the carrier exactly once.
	seen := map[string]int{}
	for _, a := range fake.log() {
		seen[a.To]++
	}
	for _, p := range rec {
		if seen[p] != 1 {
			t.Errorf("%s reached the carrier %d times, want 1", p, seen[p])
		}
	}

	// Resuming again is a conflict, answered with the page and its message.
	res, err = client.PostForm(srv.base+"/broadcasts/"+b.ID+"/resume", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusConflict || !strings.Contains(string(raw), "only a paused broadcast can be resumed") {
		t.Errorf("second resume: %d, want 409 with the reason; body %.300s", res.StatusCode, raw)
	}

	// The carrier's delivery receipts for the accepted copies: delivered counts each once.
	statusURL := srv.base + "/carrier/twilio/status"
	for _, a := range fake.log() {
		if refused[a.To] {
			continue
		}
		form := url.Values{"MessageSid": {a.SID}, "MessageStatus": {"delivered"}, "AccountSid": {fakeAccountSID}}
		req, _ := http.NewRequest(http.MethodPost, statusURL, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Twilio-Signature", carrier.TwilioSignature(fakeAuthToken, statusURL, form))
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("status callback: %v %v", res, err)
		}
		res.Body.Close()
	}
	final := readBroadcast(t, client, srv.base, b.ID)
	if final.Status != "sent" || final.Sent != 105 || final.Delivered != 105 || final.Failed != 45 {
		t.Errorf("after the receipts: %s sent %d delivered %d failed %d, want sent 105/105/45", final.Status, final.Sent, final.Delivered, final.Failed)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
}
