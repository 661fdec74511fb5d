package carrier_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/carrier"
)

const (
	twilioTestSID   = "AC0123456789abcdef0123456789abcdef"
	twilioTestToken = "tok-3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e"
)

// fakeTwilio speaks the Messages API wire format: it checks the request the way Twilio would and
// answers with whatever the test set, recording what it received.
type fakeTwilio struct {
	t *testing.T

	mu       sync.Mutex
	requests []*http.Request
	forms    []map[string][]string
	problems []string

	answer func(w http.ResponseWriter, r *http.Request)
}

func (f *fakeTwilio) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var problems []string
	if r.Method != http.MethodPost {
		problems = append(problems, "method "+r.Method+", want POST")
	}
	if want := "/2010-04-01/Accounts/" + twilioTestSID + "/Messages.json"; r.URL.Path != want {
		problems = append(problems, fmt.Sprintf("path %q, want %q", r.URL.Path, want))
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
		problems = append(problems, fmt.Sprintf("Content-Type %q, want application/x-www-form-urlencoded", ct))
	}
	user, pass, ok := r.BasicAuth()
	if !ok || user != twilioTestSID || pass != twilioTestToken {
		// Twilio's answer to bad credentials.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"code":20003,"message":"Authenticate","more_info":"https://www.twilio.com/docs/errors/20003","status":401}`)
		problems = append(problems, fmt.Sprintf("basic auth user %q ok=%v, want the account sid and token", user, ok))
	}
	if err := r.ParseForm(); err != nil {
		problems = append(problems, "form: "+err.Error())
	}
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.forms = append(f.forms, r.PostForm)
	f.problems = append(f.problems, problems...)
	f.mu.Unlock()
	if ok && user == twilioTestSID && pass == twilioTestToken {
		f.answer(w, r)
	}
}

func (f *fakeTwilio) check() {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.problems {
		f.t.Errorf("fake Twilio saw: %s", p)
	}
}

func twilioJSONAnswer(status int, body string, headers ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

// messageResource is what Twilio answers 201 with (abridged from the Messages API reference).
const messageResource = `{"account_sid":"` + twilioTestSID + `","api_version":"2010-04-01","body":"Hello",` +
	`"date_created":"Sun, 22 Nov 2026 17:00:00 +0000","direction":"twilioOutbound-api","error_code":null,` +
	`"error_message":null,"from":"+14155550100","num_media":"0","num_segments":"1","price":null,` +
	`"sid":"SM1234567890abcdef1234567890abcdef","status":"queued","to":"+14155550123",` +
	`"uri":"/2010-04-01/Accounts/` + twilioTestSID + `/Messages/SM1234567890abcdef1234567890abcdef.json"}`

func newFakeTwilio(t *testing.T, answer func(http.ResponseWriter, *http.Request)) (*fakeTwilio, *carrier.Twilio) {
	t.Helper()
	f := &fakeTwilio{t: t, answer: answer}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	tw := carrier.NewTwilio(carrier.TwilioConfig{
		AccountSID:        twilioTestSID,
		AuthToken:         twilioTestToken,
		BaseURL:           srv.URL + "/",
		StatusCallbackURL: "https://sb.example.com/carrier/twilio/status",
	})
	return f, tw
}

var twilioOutbound = carrier.Outbound{MessageID: "m1", From: "+14155550100", To: "+14155550123", Text: "Hello"}

func TestTwilioSendAccepted(t *testing.T) {
	f, tw := newFakeTwilio(t, twilioJSONAnswer(http.StatusCreated, messageResource))
	if tw.Name() != "twilio" {
		t.Errorf("Name() = %q, want twilio", tw.Name())
	}
	m := twilioOutbound
	m.Media = []string{"https://cdn.example.com/a.jpg", "https://cdn.example.com/b.png?x=1&y=2"}
	id, err := tw.Send(context.Background(), m)
	if err != nil {
		t.Fatalf("Send: %v, want nil", err)
	}
	if id != "SM1234567890abcdef1234567890abcdef" {
		t.Errorf("provider id %q, want the sid of the answer", id)
	}
	f.check()
	if len(f.forms) != 1 {
		t.Fatalf("%d requests, want 1", len(f.forms))
	}
	form := f.forms[0]
	want := map[string][]string{
		"To":             {"+14155550123"},
		"From":           {"+14155550100"},
		"Body":           {"Hello"},
		"MediaUrl":       m.Media,
		"StatusCallback": {"https://sb.example.com/carrier/twilio/status"},
	}
	for k, v := range want {
		if !slices.Equal(form[k], v) {
			t.Errorf("form %s = %q, want %q", k, form[k], v)
		}
	}
	if len(form) != len(want) {
		t.Errorf("form has fields %v, want exactly %v", formNames(form), formNames(want))
	}
}

func formNames(m map[string][]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestTwilioSendMediaOnlyHasNoBody(t *testing.T) {
	f, tw := newFakeTwilio(t, twilioJSONAnswer(http.StatusCreated, messageResource))
	m := twilioOutbound
	m.Text = ""
	m.Media = []string{"https://cdn.example.com/a.jpg"}
	if _, err := tw.Send(context.Background(), m); err != nil {
		t.Fatalf("Send: %v", err)
	}
	f.check()
	if _, ok := f.forms[0]["Body"]; ok {
		t.Errorf("a media-only message sent Body=%q, want no Body field", f.forms[0]["Body"])
	}
	if got := f.forms[0]["MediaUrl"]; !slices.Equal(got, m.Media) {
		t.Errorf("MediaUrl = %q, want %q", got, m.Media)
	}
}

func TestTwilioSendNoStatusCallbackWhenUnset(t *testing.T) {
	f := &fakeTwilio{t: t, answer: twilioJSONAnswer(http.StatusCreated, messageResource)}
	srv := httptest.NewServer(f)
	defer srv.Close()
	tw := carrier.NewTwilio(carrier.TwilioConfig{AccountSID: twilioTestSID, AuthToken: twilioTestToken, BaseURL: srv.URL})
	if _, err := tw.Send(context.Background(), twilioOutbound); err != nil {
		t.Fatalf("Send: %v", err)
	}
	f.check()
	if v, ok := f.forms[0]["StatusCallback"]; ok {
		t.Errorf("StatusCallback = %q with none configured, want absent", v)
	}
}

func TestTwilioSendOutcomes(t *testing.T) {
	httpDate := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name         string
		answer       func(http.ResponseWriter, *http.Request)
		permanent    bool
		reason       string // exact, for permanent errors
		unsubscribed bool
		retryMin     time.Duration
		retryMax     time.Duration
	}{
		{
			name: "invalid To",
			answer: twilioJSONAnswer(400, `{"code":21211,"message":"The 'To' number is not a valid phone number.",`+
				`"more_info":"https://www.twilio.com/docs/errors/21211","status":400}`),
			permanent: true, reason: "twilio 21211: The 'To' number is not a valid phone number.",
		},
		{
			name: "unsubscribed recipient",
			answer: twilioJSONAnswer(400, `{"code":21610,"message":"Attempt to send to unsubscribed recipient",`+
				`"more_info":"https://www.twilio.com/docs/errors/21610","status":400}`),
			permanent: true, reason: "twilio 21610: Attempt to send to unsubscribed recipient", unsubscribed: true,
		},
		{
			name:      "not found",
			answer:    twilioJSONAnswer(404, `{"code":20404,"message":"The requested resource was not found","status":404}`),
			permanent: true, reason: "twilio 20404: The requested resource was not found",
		},
		{
			name:     "429 with Retry-After seconds",
			answer:   twilioJSONAnswer(429, `{"code":20429,"message":"Too Many Requests","status":429}`, "Retry-After", "7"),
			retryMin: 7 * time.Second, retryMax: 7 * time.Second,
		},
		{
			name:     "429 with Retry-After date",
			answer:   twilioJSONAnswer(429, `{"code":20429,"message":"Too Many Requests","status":429}`, "Retry-After", httpDate),
			retryMin: 80 * time.Second, retryMax: 91 * time.Second,
		},
		{
			name:   "429 without Retry-After",
			answer: twilioJSONAnswer(429, `{"code":20429,"message":"Too Many Requests","status":429}`),
		},
		{
			name:     "20429 in a 400",
			answer:   twilioJSONAnswer(400, `{"code":20429,"message":"Too Many Requests","status":400}`, "Retry-After", "3"),
			retryMin: 3 * time.Second, retryMax: 3 * time.Second,
		},
		{
			name:   "21611 queue full",
			answer: twilioJSONAnswer(400, `{"code":21611,"message":"This 'From' number has exceeded the maximum number of queued messages","status":400}`),
		},
		{name: "500", answer: twilioJSONAnswer(500, `{"code":20500,"message":"Internal Server Error","status":500}`)},
		{
			name:     "503 not JSON",
			answer:   twilioJSONAnswer(503, `<html>Service Unavailable</html>`, "Retry-After", "120"),
			retryMin: 2 * time.Minute, retryMax: 2 * time.Minute,
		},
		{name: "201 without sid", answer: twilioJSONAnswer(201, `{"status":"queued"}`)},
		{name: "201 not JSON", answer: twilioJSONAnswer(201, `OK`)},
		{name: "400 not JSON", answer: twilioJSONAnswer(400, `<html>Bad Request</html>`)},
		{name: "201 too large", answer: twilioJSONAnswer(201, `{"sid":"SM1","pad":"`+strings.Repeat("x", 70<<10)+`"}`)},
		{
			name: "closed connection",
			answer: func(w http.ResponseWriter, r *http.Request) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
			},
		},
		{
			name:      "echoes the token back",
			answer:    twilioJSONAnswer(400, `{"code":21212,"message":"Bad From `+twilioTestToken+`","status":400}`),
			permanent: true, reason: "twilio 21212: Bad From [redacted]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, tw := newFakeTwilio(t, tc.answer)
			id, err := tw.Send(context.Background(), twilioOutbound)
			f.check()
			if err == nil {
				t.Fatalf("Send = %q, nil; want an error", id)
			}
			if id != "" {
				t.Errorf("provider id %q with an error, want empty", id)
			}
			if strings.Contains(err.Error(), twilioTestToken) {
				t.Errorf("error %q contains the auth token", err)
			}
			p, isPermanent := carrier.Permanent(err)
			if isPermanent != tc.permanent {
				t.Fatalf("Send error %v (%T): permanent=%v, want %v", err, err, isPermanent, tc.permanent)
			}
			if tc.permanent {
				if p.Reason != tc.reason {
					t.Errorf("reason %q, want %q", p.Reason, tc.reason)
				}
				if p.Unsubscribed != tc.unsubscribed {
					t.Errorf("Unsubscribed=%v, want %v", p.Unsubscribed, tc.unsubscribed)
				}
				return
			}
			var te *carrier.TransientError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is %T, want *carrier.TransientError", err, err)
			}
			if ra := carrier.RetryAfter(err); ra < tc.retryMin || ra > tc.retryMax {
				t.Errorf("RetryAfter = %v, want between %v and %v", ra, tc.retryMin, tc.retryMax)
			}
		})
	}
}

func TestTwilioSendContextDeadline(t *testing.T) {
	release := make(chan struct{})
	f, tw := newFakeTwilio(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := tw.Send(ctx, twilioOutbound)
	if err == nil {
		t.Fatal("Send past its deadline returned nil, want a transient error")
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("Send took %v, want it to stop at the context deadline", time.Since(start))
	}
	if _, ok := carrier.Permanent(err); ok {
		t.Errorf("deadline error %v is permanent, want transient", err)
	}
	var te *carrier.TransientError
	if !errors.As(err, &te) {
		t.Errorf("deadline error is %T, want *carrier.TransientError", err)
	}
	if strings.Contains(err.Error(), twilioTestToken) {
		t.Errorf("error %q contains the auth token", err)
	}
	f.check()
}

func TestTwilioSendClientTimeout(t *testing.T) {
	release := make(chan struct{})
	f := &fakeTwilio{t: t, answer: func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	defer close(release)
	tw := carrier.NewTwilio(carrier.TwilioConfig{
		AccountSID: twilioTestSID, AuthToken: twilioTestToken, BaseURL: srv.URL,
		HTTPClient: &http.Client{Timeout: 100 * time.Millisecond},
	})
	_, err := tw.Send(context.Background(), twilioOutbound)
	var te *carrier.TransientError
	if !errors.As(err, &te) {
		t.Fatalf("client timeout gave %v (%T), want *carrier.TransientError", err, err)
	}
}

func TestTwilioSendNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there now
	tw := carrier.NewTwilio(carrier.TwilioConfig{AccountSID: twilioTestSID, AuthToken: twilioTestToken, BaseURL: base})
	_, err := tw.Send(context.Background(), twilioOutbound)
	var te *carrier.TransientError
	if !errors.As(err, &te) {
		t.Fatalf("refused connection gave %v (%T), want *carrier.TransientError", err, err)
	}
	if strings.Contains(err.Error(), twilioTestToken) {
		t.Errorf("error %q contains the auth token", err)
	}
}

func TestTwilioSendEndlessAnswer(t *testing.T) {
	// A server that never stops talking must not make Send read forever or hold it all.
	f, tw := newFakeTwilio(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		chunk := []byte(strings.Repeat(" ", 32<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := tw.Send(context.Background(), twilioOutbound)
		done <- err
	}()
	select {
	case err := <-done:
		var te *carrier.TransientError
		if !errors.As(err, &te) {
			t.Errorf("endless answer gave %v (%T), want *carrier.TransientError", err, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Send still reading an endless answer after 10 s")
	}
	f.check()
}

func TestTwilioSendNothingToSend(t *testing.T) {
	f, tw := newFakeTwilio(t, twilioJSONAnswer(http.StatusCreated, messageResource))
	m := twilioOutbound
	m.Text = ""
	_, err := tw.Send(context.Background(), m)
	if _, ok := carrier.Permanent(err); !ok {
		t.Errorf("empty message gave %v, want a permanent error", err)
	}
	if len(f.forms) != 0 {
		t.Errorf("empty message reached Twilio %d times, want 0", len(f.forms))
	}
}

func TestTwilioDefaultClientDoesNotFollowRedirects(t *testing.T) {
	var hits int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	tw := carrier.NewTwilio(carrier.TwilioConfig{AccountSID: twilioTestSID, AuthToken: twilioTestToken, BaseURL: srv.URL})
	_, err := tw.Send(context.Background(), twilioOutbound)
	var te *carrier.TransientError
	if !errors.As(err, &te) {
		t.Fatalf("redirect gave %v (%T), want *carrier.TransientError", err, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 1 {
		t.Errorf("server hit %d times, want 1 (no redirect followed)", hits)
	}
}
