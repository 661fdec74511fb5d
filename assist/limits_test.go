package assist_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"switchboard/assist"
	"switchboard/assist/assisttest"
	"switchboard/store"
)

// TestHugeAnswerIsCut: a model that streams 10 MB gives a draft cut at the limit, and the
// stream is cut there too: the server cannot write its 10 MB.
func TestHugeAnswerIsCut(t *testing.T) {
	srv := assisttest.New(t, func(assisttest.Request) assisttest.Answer {
		return assisttest.Answer{Chunks: []string{"Start "}, Huge: 10 << 20}
	})
	c := newClient(t, srv, nil)
	evs, err := collect(t, c, context.Background(), assist.Job{Kind: assist.Suggest, Thread: thread(1)})
	if err != nil {
		t.Fatal(err)
	}
	end := evs[len(evs)-1]
	if n := utf8.RuneCountInString(end.Text); n != assist.DefaultLimit || !strings.Contains(end.Notice, "cut at 1200 characters") {
		t.Fatalf("the end has %d characters and notice %q, want %d and a cut notice", n, end.Notice, assist.DefaultLimit)
	}
	shown := 0
	for _, e := range evs {
		if e.Type == "delta" {
			shown += utf8.RuneCountInString(e.Text)
		}
	}
	if shown > assist.DefaultLimit {
		t.Fatalf("%d characters streamed, more than the limit", shown)
	}
	waitLeft(t, srv)
	sent := srv.Sent(0)
	if sent > 5<<20 {
		t.Fatalf("the server wrote %d bytes: the stream was not cut at the limit", sent)
	}
	t.Logf("the server wrote %d of its 10 MB before the stream was cut", sent)
}

// TestEndlessLineIsBounded: one data line that never ends is cut at MaxBody bytes with a plain
// error, not read into memory whole.
func TestEndlessLineIsBounded(t *testing.T) {
	srv := assisttest.New(t, func(assisttest.Request) assisttest.Answer {
		return assisttest.Answer{HugeLine: 10 << 20}
	})
	c := newClient(t, srv, func(cfg *assist.Config) { cfg.MaxBody = 256 << 10 })
	_, err := collect(t, c, context.Background(), assist.Job{Kind: assist.Suggest, Thread: thread(1)})
	var ae *assist.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Msg, "too large") {
		t.Fatalf("%v, want a plain \"too large\" error", err)
	}
}

func TestShortenChecksBeforeOffering(t *testing.T) {
	long := strings.Repeat("Thanks for writing to us today. ", 8)
	fits := "We can see you Tuesday at 10 - reply YES to confirm."
	t.Run("a second try that fits", func(t *testing.T) {
		tries := 0
		srv := assisttest.New(t, func(assisttest.Request) assisttest.Answer {
			tries++
			if tries == 1 {
				return assisttest.Reply(long) // two segments: never offered
			}
			return assisttest.Reply("“We can see you Tuesday at 10 — reply YES to confirm.”")
		})
		c := newClient(t, srv, nil)
		evs, err := collect(t, c, context.Background(), assist.Job{Kind: assist.Shorten, Thread: thread(2), Draft: long})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 || !evs[0].Checked || evs[1].Type != "end" {
			t.Fatalf("events %+v, want a checked begin and an end, no pieces", evs)
		}
		if evs[1].Text != fits || store.Segments(evs[1].Text) != 1 || store.SMSEncoding(evs[1].Text) != store.EncodingGSM7 {
			t.Fatalf("offered %q (%d segments, %s), want %q", evs[1].Text, store.Segments(evs[1].Text), store.SMSEncoding(evs[1].Text), fits)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 || !strings.Contains(reqs[0].User(), "The team's draft: \"Thanks") || !strings.Contains(reqs[1].User(), "Your previous rewrite") {
			t.Fatalf("requests %d; the second should say why the first did not fit", len(reqs))
		}
	})
	t.Run("never fits", func(t *testing.T) {
		srv := assisttest.New(t, func(assisttest.Request) assisttest.Answer {
			return assisttest.Reply("Ваш визит во вторник")
		})
		c := newClient(t, srv, nil)
		evs, err := collect(t, c, context.Background(), assist.Job{Kind: assist.Shorten, Thread: thread(2), Draft: long})
		var ae *assist.Error
		if !errors.As(err, &ae) || !strings.Contains(ae.Msg, "not GSM-7") || len(evs) != 1 {
			t.Fatalf("%v, events %+v: want a plain refusal and nothing offered", err, evs)
		}
	})
	t.Run("already one segment", func(t *testing.T) {
		srv := assisttest.New(t, func(assisttest.Request) assisttest.Answer { return assisttest.Reply("x") })
		c := newClient(t, srv, nil)
		evs, err := collect(t, c, context.Background(), assist.Job{Kind: assist.Shorten, Thread: thread(2), Draft: fits})
		if err != nil || evs[len(evs)-1].Text != fits || len(srv.Requests()) != 0 {
			t.Fatalf("%v, %+v, %d requests: want the draft back and nothing sent", err, evs, len(srv.Requests()))
		}
	})
}

func TestTranslate(t *testing.T) {
	srv := assisttest.New(t, func(r assisttest.Request) assisttest.Answer {
		if strings.Contains(r.System(), "translate the customer's message") {
			return assisttest.Reply("Can I move my appointment?")
		}
		return assisttest.Reply("Sí, ", "el martes a las 10.")
	})
	c := newClient(t, srv, nil)
	th := thread(2)
	th.Messages[0].Text = "¿Puedo cambiar mi cita?"
	lang := assist.Language{Tag: "en-GB", Name: "English (United Kingdom)"}
	evs, err := collect(t, c, context.Background(), assist.Job{Kind: assist.Translate, Thread: th, Draft: "Yes, Tuesday at 10.", Language: lang})
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	for _, e := range evs {
		if e.Type == "begin" && e.Target == assist.Note && e.Title != "Their latest message, in English (United Kingdom)" {
			t.Errorf("the note's title is %q", e.Title)
		}
		if e.Type == "end" {
			ends = append(ends, string(e.Target)+":"+e.Text)
		}
	}
	if strings.Join(ends, "|") != "note:Can I move my appointment?|draft:Sí, el martes a las 10." {
		t.Fatalf("ends %q", ends)
	}
	reqs := srv.Requests()
	if !strings.Contains(reqs[0].System(), "into English (United Kingdom)") || !strings.Contains(reqs[0].User(), `Text to translate (the customer's latest message): "¿Puedo cambiar mi cita?"`) {
		t.Errorf("the first request does not ask for the contact's text in the person's language:\n%s\n%s", reqs[0].System(), reqs[0].User())
	}
	if !strings.Contains(reqs[1].User(), `The team's draft: "Yes, Tuesday at 10."`) {
		t.Errorf("the second request does not carry the draft:\n%s", reqs[1].User())
	}
	// Nothing to translate: refused before anything is sent.
	th.Messages = th.Messages[1:] // the team's alone
	if _, err := collect(t, c, context.Background(), assist.Job{Kind: assist.Translate, Thread: th}); err == nil || !strings.Contains(err.Error(), "Nothing to translate") {
		t.Fatalf("%v, want \"Nothing to translate\"", err)
	}
	if len(srv.Requests()) != 2 {
		t.Fatal("a refused job sent a request")
	}
}

// FuzzModelAnswer feeds arbitrary bytes to the client as the model's streamed answer: it
// never panics, and what it hands back is valid text within the limit.
func FuzzModelAnswer(f *testing.F) {
	for _, seed := range []string{
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<think>x</think>\\\"Hello\\\"\"}}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"```\\nhi\\n```\"}}]}\n\n",
		"data: {\"error\":\"x\"}\n\n", "event: x\ndata: 1\n\n", "data: \xff\xfe\n\n", "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := assist.New(assist.Config{URL: "http://127.0.0.1:1/v1", Model: "m", Limit: 50,
			HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []assist.Kind{assist.Suggest, assist.Shorten} {
			j := assist.Job{Kind: kind, Thread: thread(2), Draft: strings.Repeat("long draft ", 20)}
			err := c.Do(context.Background(), j, func(e assist.Event) {
				if !utf8.ValidString(e.Text) || utf8.RuneCountInString(e.Text) > 50 {
					t.Fatalf("event text %q: invalid or over the limit", e.Text)
				}
				if kind == assist.Shorten && e.Type == "end" {
					if store.Segments(e.Text) != 1 || store.SMSEncoding(e.Text) != store.EncodingGSM7 {
						t.Fatalf("offered %q, which is not one GSM-7 segment", e.Text)
					}
				}
			})
			var ae *assist.Error
			if err != nil && !errors.As(err, &ae) {
				t.Fatalf("%v is not a plain error", err)
			}
		}
	})
}

type bodyTransport []byte

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(string(b))), Request: r}, nil
}
