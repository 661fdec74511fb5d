package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"switchboard/store"
	"switchboard/webhooks"
)

// Outcomes of a push, the label of switchboard_push_sent_total.
const (
	OutcomeSent    = "sent"    // the push service took it
	OutcomeRetry   = "retry"   // 429, 5xx or no answer: tried again later
	OutcomeGone    = "gone"    // 404 or 410: the subscription is deleted
	OutcomeFailed  = "failed"  // refused for good, or still failing after 24 hours
	OutcomeDropped = "dropped" // the subscription's session had lapsed: not sent
)

// send makes one attempt at a due push and records its outcome in the store.
func (w *Worker) send(d store.DuePush) {
	now := w.opts.Now()
	log := slog.With("push_id", d.Job.ID, "user_id", d.Job.UserID, "host", host(d.Sub.Endpoint))
	if alive := w.opts.SessionAlive; alive != nil && (d.Session.ID == "" || !alive(d.Session)) {
		// The session lapsed and the sweep has not deleted it yet: end it now, which deletes
		// the subscription and what is queued for it, rather than push to a signed-out phone.
		err := w.store.EndUserSession(d.Sub.UserID, d.Sub.SessionID)
		if errors.Is(err, store.ErrNotFound) {
			err = w.store.PushGone(d.Sub.ID)
		}
		w.record(log, OutcomeDropped, err)
		return
	}
	if !d.Sub.ExpiresAt.IsZero() && now.After(d.Sub.ExpiresAt) {
		w.record(log, OutcomeGone, w.store.PushGone(d.Sub.ID))
		return
	}
	if now.Sub(d.Job.CreatedAt) >= GiveUpAfter {
		log.Warn("push: dropped after 24 hours of failures", "last_error", d.Job.LastError)
		w.record(log, OutcomeFailed, w.store.PushDropped(d.Job.ID))
		return
	}
	status, retryAfter, err := w.post(d)
	switch {
	case err == nil && status >= 200 && status < 300:
		w.record(log, OutcomeSent, w.store.PushSent(d.Job.ID, w.opts.Now()))
	case err == nil && (status == http.StatusNotFound || status == http.StatusGone):
		log.Info("push: the push service no longer knows this device; its subscription is deleted", "status", status)
		w.record(log, OutcomeGone, w.store.PushGone(d.Sub.ID))
	case errors.Is(err, errPermanent) || (err == nil && status != http.StatusTooManyRequests && status < 500):
		log.Warn("push: refused by the push service", "status", status, "error", err)
		w.record(log, OutcomeFailed, w.store.PushDropped(d.Job.ID))
	default:
		if w.ctx.Err() != nil {
			return // stopping: the job stays due and goes after the next start
		}
		reason := fmt.Sprintf("HTTP %d", status)
		if err != nil {
			reason = err.Error()
		}
		delay := w.retryDelay(d.Job.Attempts+1, retryAfter)
		if at := w.opts.Now().Add(delay); at.Sub(d.Job.CreatedAt) < GiveUpAfter {
			log.Info("push: will retry", "attempt", d.Job.Attempts+1, "in", delay.Round(time.Second), "reason", reason)
			w.record(log, OutcomeRetry, w.store.PushRetry(d.Job.ID, at, reason))
			return
		}
		log.Warn("push: dropped: the push service did not take it within 24 hours", "reason", reason)
		w.record(log, OutcomeFailed, w.store.PushDropped(d.Job.ID))
	}
}

func (w *Worker) record(log *slog.Logger, outcome string, err error) {
	if err != nil {
		log.Error("push: record the outcome", "outcome", outcome, "error", err)
		return
	}
	w.metrics.outcome(outcome)
}

// errPermanent marks a push that cannot be made at all (its keys do not work): no retry helps.
var errPermanent = errors.New("push: cannot encrypt for this device")

// post sends the encrypted push and returns the push service's status and Retry-After.
func (w *Worker) post(d store.DuePush) (status int, retryAfter time.Duration, err error) {
	ua, err1 := decodeKey(d.Sub.P256dh)
	auth, err2 := decodeKey(d.Sub.Auth)
	if err1 != nil || err2 != nil {
		return 0, 0, errPermanent
	}
	body, err := encrypt(d.Job.Payload, ua, auth)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", errPermanent, err)
	}
	authz, err := w.vapid.authorization(d.Sub.Endpoint)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", errPermanent, err)
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Sub.Endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", errPermanent, err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("Content-Encoding", "aes128gcm")
	req.Header.Set("TTL", strconv.Itoa(TTL))
	req.Header.Set("Urgency", d.Job.Urgency)
	req.Header.Set("Topic", d.Job.ConversationID) // a ULID: 26 characters of the URL-safe alphabet
	req.Header.Set("Authorization", authz)
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so the connection is reused
	retryAfter, _ = webhooks.ParseRetryAfter(resp.Header.Get("Retry-After"), w.opts.Now())
	return resp.StatusCode, retryAfter, nil
}

// retryDelay is the wait before try attempt+1: 10 s doubling to at most an hour, ±20 %, and
// never sooner than the push service's Retry-After.
func (w *Worker) retryDelay(attempt int, retryAfter time.Duration) time.Duration {
	d := firstRetry
	for i := 1; i < attempt && d < maxRetry; i++ {
		d *= 2
	}
	d = min(d, maxRetry)
	d = time.Duration(float64(d) * (0.8 + 0.4*w.opts.Rand()))
	return max(d, retryAfter)
}

// host is the endpoint's host, for logs: the rest of an endpoint identifies the device.
func host(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Host
	}
	return ""
}
