package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/carrier"

	"switchboard/internal/testutil"
)

// TestServeInboundMMSKept: serve fetches an inbound Twilio MMS's media from the Twilio API in
// use (-twilio-base-url) with the account's credentials, keeps it, lists its URL under the public
// URL in list-messages-action and serves it without sign-in; a media URL on another host is
// left as given and never requested.
func TestServeInboundMMSKept(t *testing.T) {
	photo := append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0}, bytes.Repeat([]byte{7}, 4000)...)
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != fakeAccountSID || p != fakeAuthToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write(photo)
	}))
	defer fake.Close()
	var foreignHits atomic.Int32
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { foreignHits.Add(1) }))
	defer foreign.Close()

	f := newFixture(t)
	addTwilioNumber(t, f, "")
	addr := "127.0.0.1:" + testutil.FreePort(t)
	base := "http://" + addr
	srv := startServer(t, addr, nil, "-addr", addr, "-data", f.data, "-base-url", base, "-log-requests=false",
		"-twilio-base-url", fake.URL, "-twilio-account-sid", fakeAccountSID, "-twilio-auth-token", fakeAuthToken)
	twilioURL := fake.URL + "/2010-04-01/Accounts/" + fakeAccountSID + "/Messages/MM1/Media/ME1"
	foreignURL := foreign.URL + "/x.jpg"
	form := url.Values{"MessageSid": {"MM0000000000000000000000000000001"}, "From": {"+14155550123"}, "To": {twilioPhone},
		"Body": {"my x-ray"}, "NumMedia": {"2"}, "MediaUrl0": {twilioURL}, "MediaUrl1": {foreignURL}}
	hook := srv.base + "/carrier/twilio/sms"
	req, _ := http.NewRequest(http.MethodPost, hook, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", carrier.TwilioSignature(fakeAuthToken, hook, form))
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("inbound MMS: %v %v", res, err)
	}
	res.Body.Close()
	var got []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var msgs []struct {
			Media []string `json:"media"`
		}
		apiOK(t, srv.base, f.token, "list-messages-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "limit": 1}, http.StatusOK, &msgs)
		if len(msgs) == 1 && len(msgs[0].Media) == 2 && strings.HasPrefix(msgs[0].Media[0], base+"/media/") {
			got = msgs[0].Media
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("list-messages media %v after 10 s, want the kept file's URL first", msgs)
		}
	}
	if got[1] != foreignURL || foreignHits.Load() != 0 {
		t.Errorf("media %v, foreign host asked %d times: want its URL kept as given and never requested", got, foreignHits.Load())
	}
	res, err = http.Get(got[0])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/jpeg" || !bytes.Equal(body, photo) {
		t.Errorf("GET %s: %d %q, %d bytes; want the photo", got[0], res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}
}
