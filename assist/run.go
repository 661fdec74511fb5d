package assist

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/openai/openai-go/v3"
)

// Target is where a job's text goes on the page.
type Target string

const (
	// Draft is the reply box: the text is only ever a draft there, sent by a person or not at all.
	Draft Target = "draft"
	// Note is shown beside the reply box (a summary, a translation of the contact's text).
	Note Target = "note"
)

// Event is one step of a job as the page hears of it: a text begins, grows by a piece, ends.
type Event struct {
	Type   string // "begin", "delta" or "end"
	Target Target
	// Title names a note at its beginning ("Summary"); Savable says the person may save it as
	// an internal note; Checked says a draft is checked before it is shown, so no delta comes.
	Title   string
	Savable bool
	Checked bool
	// Text is a piece (delta) or the whole text, cleaned and within the limit (end).
	Text string
	// Notice, at the end, is what the person should know of the text ("cut at 1200 characters").
	Notice string
}

// Do runs a job, telling emit of each step as it happens. Its errors are *Error (a plain
// message) except when ctx ends first: then it returns ctx's error and the model's request is
// cancelled with it. The whole job is bounded by the timeout.
func (c *Client) Do(ctx context.Context, j Job, emit func(Event)) error {
	if err := j.Check(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	switch j.Kind {
	case Suggest:
		return c.stream(ctx, j, "suggest", Event{Target: Draft}, emit)
	case Summarize:
		return c.stream(ctx, j, "summarize", Event{Target: Note, Title: "Summary", Savable: true}, emit)
	case Translate:
		if _, ok := j.lastInbound(); ok {
			lang := j.Language.Name
			if lang == "" {
				lang = "English"
			}
			title := "Their latest message, in " + lang
			if err := c.stream(ctx, j, "translate-inbound", Event{Target: Note, Title: title}, emit); err != nil {
				return err
			}
		}
		if j.Draft == "" {
			return nil
		}
		return c.stream(ctx, j, "translate-draft", Event{Target: Draft}, emit)
	default:
		return c.shorten(ctx, j, emit)
	}
}

// stream asks for one text and passes it on piece by piece.
func (c *Client) stream(ctx context.Context, j Job, step string, begin Event, emit func(Event)) error {
	begin.Type = "begin"
	emit(begin)
	text, cut, err := c.complete(ctx, j, step, "", func(piece string) {
		emit(Event{Type: "delta", Target: begin.Target, Text: piece})
	})
	if err != nil {
		return err
	}
	end := Event{Type: "end", Target: begin.Target, Text: text}
	if cut {
		end.Notice = "The model's answer was cut at " + strconv.Itoa(c.cfg.Limit) + " characters."
	}
	emit(end)
	return nil
}

// shorten rewrites the draft until it fits one GSM-7 segment, at most twice, and offers only a
// rewrite that the segment counter accepts.
func (c *Client) shorten(ctx context.Context, j Job, emit func(Event)) error {
	emit(Event{Type: "begin", Target: Draft, Checked: true})
	if ok, _ := fitsOneSegment(j.Draft); ok {
		emit(Event{Type: "end", Target: Draft, Text: j.Draft,
			Notice: "The draft already fits one segment: nothing was sent to the model."})
		return nil
	}
	extra, why := "", ""
	for range 2 {
		text, _, err := c.complete(ctx, j, "shorten", extra, nil)
		if err != nil {
			return err
		}
		text = foldGSM(text)
		var ok bool
		if ok, why = fitsOneSegment(text); ok {
			emit(Event{Type: "end", Target: Draft, Text: text,
				Notice: "Fits one segment: " + strconv.Itoa(len([]rune(text))) + " characters, GSM-7."})
			return nil
		}
		extra = "Your previous rewrite, " + quote(text) + ", was " + why + ". Rewrite the draft again: shorter, plain characters only.\n"
	}
	return plain("The model's rewrite still does not fit one segment (" + why + "). Nothing was changed: shorten the draft by hand, or try again.")
}

// complete makes one streaming chat completion and gathers its text within the limits: it
// stops reading (and so ends the request) once the limit is reached. cut says the text was
// cut there.
func (c *Client) complete(ctx context.Context, j Job, step, extra string, onPiece func(string)) (string, bool, error) {
	system, user := j.messages(step, extra)
	stream := c.chat.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    c.cfg.Model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(user)},
	})
	defer stream.Close()
	a := newAnswer(c.cfg.Limit)
	for !a.full && stream.Next() {
		for _, ch := range stream.Current().Choices {
			if ch.Index != 0 {
				continue
			}
			if piece := a.add(ch.Delta.Content); piece != "" && onPiece != nil {
				onPiece(piece)
			}
		}
	}
	cut := a.full
	if err := stream.Err(); err != nil && !cut {
		if !errors.Is(err, errTooLarge) || a.visible() == "" {
			return "", false, c.failure(ctx, err)
		}
		cut = true // what came before the bound is kept, like an answer cut at the limit
	}
	text := a.final()
	if text == "" {
		return "", false, &Error{Msg: "The model answered nothing usable. Try again; if it keeps happening, ask your administrator to check the model.",
			Detail: "empty answer"}
	}
	return text, cut, nil
}

// failure puts why a request failed in words a person can act on.
func (c *Client) failure(ctx context.Context, err error) error {
	switch ctx.Err() {
	case context.DeadlineExceeded:
		return &Error{Msg: "The model did not answer within " + seconds(c.cfg.Timeout) + ", so the request was stopped. Try again in a moment; if it keeps happening, the model server is too slow or too busy.",
			Detail: "timeout"}
	case context.Canceled:
		return ctx.Err() // the person cancelled or left: nobody to tell
	}
	detail := c.redact(err.Error())
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		code := apiErr.StatusCode
		status := strconv.Itoa(code) + " " + http.StatusText(code)
		switch {
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			return &Error{Msg: "The model server refused the key (" + status + "). Ask your administrator to check SWITCHBOARD_ASSIST_KEY.", Detail: detail}
		case code == http.StatusNotFound:
			return &Error{Msg: "The model server does not know the model " + quote(c.cfg.Model) + " (" + status + "). Ask your administrator to check -assist-model.", Detail: detail}
		case code == http.StatusTooManyRequests || code >= 500:
			return &Error{Msg: "The model server is not able to answer right now (" + status + "). Try again in a moment.", Detail: detail}
		default:
			return &Error{Msg: "The model server refused the request (" + status + ").", Detail: detail}
		}
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return &Error{Msg: "The model server cannot be reached right now. Try again in a moment; if it keeps happening, ask your administrator.", Detail: detail}
	}
	if errors.Is(err, errTooLarge) {
		return &Error{Msg: "The model's answer was too large and was cut off before any text came.", Detail: detail}
	}
	return &Error{Msg: "The model's answer could not be read: the server did not answer like an OpenAI-compatible one.", Detail: detail}
}

// seconds writes a duration as "30 s" (or "0.2 s").
func seconds(d time.Duration) string {
	return fmt.Sprintf("%g s", d.Seconds())
}
