package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"switchboard/assist"
	"switchboard/store"
	"switchboard/views"
)

// assistView is what the thread shows of the installation's model: the assist buttons when the
// server has one and the workspace has it on.
func (h *Handler) assistView(u *ui, c store.Conversation) views.AssistView {
	if h.cfg.Assist == nil || !u.ws.Assist {
		return views.AssistView{}
	}
	return views.AssistView{Host: h.cfg.Assist.Host(), Notes: !c.IsGroup()}
}

// threadAssist is POST /inbox/{conversation}/assist (kind, draft): one job of the
// installation's model, answered as a text/event-stream that the thread's script reads. Events:
// begin, delta and end (JSON of assist.Event: where the text goes and the text), then error
// ({"error": plain words}) or done. A refusal before the stream starts is a JSON error: 403 when
// the workspace has Assist off, 409 while the user's previous request runs, 422 for a job that
// cannot be done. When the page goes (Cancel), the request's context ends and with it the
// model's request.
func (h *Handler) threadAssist(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	if h.assistView(u, c).Host == "" {
		writeError(w, http.StatusForbidden, "Assist is off for "+u.ws.Name+": an admin turns it on in the workspace settings.")
		return
	}
	kind, ok := assist.ParseKind(r.PostForm.Get("kind"))
	if !ok {
		writeError(w, http.StatusUnprocessableEntity, "unknown assist action: use suggest, summarize, translate or shorten")
		return
	}
	draft := strings.TrimSpace(r.PostForm.Get("draft"))
	if utf8.RuneCountInString(draft) > maxText {
		writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("The draft is longer than %d characters.", maxText))
		return
	}
	job, err := h.assistJob(u, c, kind, draft, r.Header.Get("Accept-Language"))
	if err == nil {
		err = job.Check()
	}
	var plainErr *assist.Error
	if errors.As(err, &plainErr) {
		writeError(w, http.StatusUnprocessableEntity, plainErr.Msg)
		return
	}
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	release, ok := h.assists.tryEnter(u.user.ID)
	if !ok {
		writeError(w, http.StatusConflict, "Assist is already running for you (here or in another tab): wait for it, or cancel it.")
		return
	}
	defer release()
	h.streamAssist(w, r, job)
}

// streamAssist runs the job and streams its events; the writes are bounded by the job's own
// timeout, and the server's read timeout no longer applies (the page's going still ends it).
func (h *Handler) streamAssist(w http.ResponseWriter, r *http.Request, job assist.Job) {
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(h.cfg.Assist.Timeout() + streamWriteTimeout))
	w.WriteHeader(http.StatusOK)
	send := func(event string, data any) {
		b, _ := json.Marshal(data) // strings and flags always encode
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		_ = rc.Flush()
	}
	started := time.Now()
	err := h.cfg.Assist.Do(r.Context(), job, func(e assist.Event) {
		send(e.Type, assistEvent{Target: string(e.Target), Title: e.Title, Savable: e.Savable, Checked: e.Checked, Text: e.Text, Notice: e.Notice})
	})
	var plainErr *assist.Error
	switch {
	case err == nil:
		send("done", struct{}{})
	case errors.As(err, &plainErr):
		slog.WarnContext(r.Context(), "assist", "request_id", requestID(r.Context()), "kind", job.Kind,
			"took", time.Since(started).Round(time.Millisecond), "error", plainErr.Detail)
		send("error", errorBody{plainErr.Msg})
	case errors.Is(err, context.Canceled):
		slog.InfoContext(r.Context(), "assist cancelled", "request_id", requestID(r.Context()), "kind", job.Kind)
	default:
		slog.ErrorContext(r.Context(), "assist", "request_id", requestID(r.Context()), "error", err)
		send("error", errorBody{"Assist failed. Please try again."})
	}
}

// assistEvent is an assist.Event as the page reads it.
type assistEvent struct {
	Target  string `json:"target"`
	Title   string `json:"title,omitempty"`
	Savable bool   `json:"savable,omitempty"`
	Checked bool   `json:"checked,omitempty"`
	Text    string `json:"text"`
	Notice  string `json:"notice,omitempty"`
}

// assistJob gathers what a job may carry, and nothing else: the conversation's latest
// assist.MaxMessages messages (no comment, activity entry, number or file address), the
// contact's name, the workspace's name, the draft for the kinds that rewrite it, and the
// user's language from the browser's Accept-Language.
func (h *Handler) assistJob(u *ui, c store.Conversation, kind assist.Kind, draft, acceptLanguage string) (assist.Job, error) {
	msgs, err := h.store.ListMessages(u.ws.ID, store.MessageFilter{ConversationID: c.ID, Limit: assist.MaxMessages})
	if err != nil {
		return assist.Job{}, err
	}
	slices.Reverse(msgs) // oldest first
	th := assist.Thread{Workspace: u.ws.Name}
	for _, m := range msgs {
		am := assist.Message{Inbound: !m.Outbound, At: m.CreatedAt, Text: m.Text, Files: len(m.Media)}
		if m.Outbound && (m.Status == "scheduled" || m.Status == "failed" || m.Status == "cancelled") {
			am.Status = m.Status
		}
		th.Messages = append(th.Messages, am)
	}
	var names []string
	for _, a := range c.Addresses {
		if ct, err := h.store.ContactByPhone(u.ws.ID, a); err == nil {
			if n := strings.TrimSpace(ct.FirstName + " " + ct.LastName); n != "" {
				names = append(names, n)
			}
		}
	}
	th.Contact = strings.Join(names, ", ")
	j := assist.Job{Kind: kind, Thread: th, Language: userLanguage(acceptLanguage)}
	if kind == assist.Translate || kind == assist.Shorten {
		j.Draft = draft
	}
	return j, nil
}

// userLanguage is the browser's first choice of language, English when it names none.
func userLanguage(accept string) assist.Language {
	tags, _, err := language.ParseAcceptLanguage(accept)
	if err != nil || len(tags) == 0 || tags[0] == language.Und {
		return assist.Language{Tag: "en", Name: "English"}
	}
	name := display.English.Tags().Name(tags[0])
	if name == "" {
		name = tags[0].String()
	}
	return assist.Language{Tag: tags[0].String(), Name: name}
}
