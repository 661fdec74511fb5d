package carrier

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"switchboard/store"
)

// The inbound recovery. A carrier does not retry a webhook that failed, so a text that arrived
// while Switchboard was down (or whose webhook failed) would never be seen, and a send whose
// receipt came then would stay "sent". At start and every five minutes the recovery asks each
// carrier in use for the texts its numbers received since the last check, and for the status of
// each send still waiting for its receipt, and takes in what it had not seen through the
// Receiver, exactly as the webhooks would have: the carrier's message id is recorded with the
// text in one transaction, so a text is never stored twice, whichever of its webhook and its
// recovery comes first; keywords and opt-outs act, and message.received is raised, as for any
// text.

// Defaults of RecoveryOptions, and the bounds of one check.
const (
	// DefaultRecoveryInterval is how often the carriers are asked.
	DefaultRecoveryInterval = 5 * time.Minute
	// DefaultRecoveryLookback is how far back a check looks at most: the first one after a start
	// looks back this far, or to the last check kept in the store when that is later.
	DefaultRecoveryLookback = 24 * time.Hour
	// recoveryOverlap is how much before the last check each check looks again, for a text the
	// carrier's listing showed late; a text seen twice is recorded once.
	recoveryOverlap = 10 * time.Minute
	// maxListingPages bounds one number's listing in one check: past it the carrier is not
	// paging honestly (100,000 texts to one number in a day is more than it can send).
	maxListingPages = 1000
	// receiptGrace is how long the receipt of a send made since the recovery started is left to
	// its webhook before it is asked for.
	receiptGrace = time.Minute
	// statusesPerCheck bounds the statuses asked for in one check, one request each; the rest
	// wait for the next check. awaitingScan bounds the sends read to choose them.
	statusesPerCheck = 500
	awaitingScan     = 20000
	// twilioListingPageSize keeps a page of Twilio's listing (about a kilobyte a message) well
	// under what the account API reads of an answer.
	twilioListingPageSize = 100
)

// knownFunc reports which of the carrier's message ids are recorded already, so a listing asks
// no more about them.
type knownFunc func(ids []string) (map[string]bool, error)

// listings is what the recovery reads at one carrier, with the account in use.
type listings interface {
	// received lists the texts number received since (as the carrier dates them), except those
	// known says are recorded, as their webhooks would have carried them, with SentAt.
	received(ctx context.Context, number string, since time.Time, known knownFunc) ([]InboundSMS, error)
	// status reads one send's status; false when the carrier no longer has the message.
	status(ctx context.Context, id string) (StatusUpdate, bool, error)
}

// listings is carrier's listings, read with the account in use; false when there is none.
func (a *Accounts) listings(carrier string, twilioPageSize int) (listings, bool) {
	u := a.cur.Load()
	cfg := apiConfig{timeout: a.cfg.Timeout}
	switch {
	case carrier == store.ProviderTwilio && u.twilioFrom != SourceNone:
		return newTwilioListings(u.twilio, a.cfg.TwilioBaseURL, a.client, cfg, twilioPageSize), true
	case carrier == store.ProviderTelnyx && u.telnyxFrom != SourceNone:
		return newTelnyxListings(u.telnyx, a.cfg.TelnyxBaseURL, a.client, cfg), true
	}
	return nil, false
}

// RecoveryOptions configure a Recovery.
type RecoveryOptions struct {
	// Interval is the time between checks (DefaultRecoveryInterval); Lookback how far back a
	// check looks at most (DefaultRecoveryLookback).
	Interval, Lookback time.Duration
	// Now is the clock of the checks' windows; nil is the store's.
	Now func() time.Time
	// Ticks, when set, starts a check at each value instead of a ticker of Interval (tests move
	// an injected clock and tick by hand).
	Ticks <-chan time.Time
	// OnCheck, when set, hears of each check once it is recorded.
	OnCheck func(map[string]store.RecoveryCheck)
	// TwilioPageSize is the PageSize of Twilio's listing (twilioListingPageSize); tests make it
	// small to page.
	TwilioPageSize int
}

// Recovery asks the carriers for what their webhooks may have missed; Start runs it, Stop ends
// it (and Start may run it again: on a cluster it runs on the leader only).
type Recovery struct {
	a    *Accounts
	r    *Receiver
	s    *store.Store
	opts RecoveryOptions

	run    sync.Mutex // Start and Stop
	cancel context.CancelFunc
	done   chan struct{}

	// checking makes checks one at a time; asked, which it guards, is when each send waiting for
	// its receipt was last asked about, so a send whose receipt does not come is asked less and
	// less often (each wait as long as its age when last asked). It lives in memory only: after
	// a start every such send is asked about again, which is what a restart needs.
	checking sync.Mutex
	asked    map[string]map[string]time.Time // carrier → message id → when
	// born is when this recovery was made: a send accepted before it (by an earlier process)
	// may have had its receipt missed already, so it is asked about at once.
	born time.Time
}

// NewRecovery builds the recovery of the accounts a in use, recording through r.
func NewRecovery(a *Accounts, r *Receiver, opts RecoveryOptions) *Recovery {
	if opts.Interval <= 0 {
		opts.Interval = DefaultRecoveryInterval
	}
	if opts.Lookback <= 0 {
		opts.Lookback = DefaultRecoveryLookback
	}
	if opts.Now == nil {
		opts.Now = r.store.Now
	}
	if opts.TwilioPageSize <= 0 {
		opts.TwilioPageSize = twilioListingPageSize
	}
	return &Recovery{a: a, r: r, s: r.store, opts: opts, asked: map[string]map[string]time.Time{}, born: opts.Now()}
}

// Start checks at once, then every Interval, until Stop. Starting a running recovery does
// nothing.
func (rc *Recovery) Start() {
	rc.run.Lock()
	defer rc.run.Unlock()
	if rc.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	rc.cancel, rc.done = cancel, done
	go func() {
		defer close(done)
		ticks := rc.opts.Ticks
		if ticks == nil {
			t := time.NewTicker(rc.opts.Interval)
			defer t.Stop()
			ticks = t.C
		}
		for {
			rc.Check(ctx)
			select {
			case <-ctx.Done():
				return
			case <-ticks:
			}
		}
	}()
}

// Stop ends the checks, cutting short one under way (what it recorded stays, and the next
// start looks back to the last check that finished). Stopping a stopped recovery does nothing.
func (rc *Recovery) Stop() {
	rc.run.Lock()
	defer rc.run.Unlock()
	if rc.cancel == nil {
		return
	}
	rc.cancel()
	<-rc.done
	rc.cancel, rc.done = nil, nil
}

// Check asks every carrier with an account in use, records each one's check and returns them.
// A carrier that fails (no answer, an error, garbage) is logged, counted and noted on its check;
// the next check tries again from the last one that succeeded.
func (rc *Recovery) Check(ctx context.Context) map[string]store.RecoveryCheck {
	rc.checking.Lock()
	defer rc.checking.Unlock()
	out := map[string]store.RecoveryCheck{}
	numbers, err := rc.s.AllNumbers()
	if err != nil {
		slog.Error("inbound recovery: numbers", "err", err)
		return out
	}
	for _, carrier := range []string{store.ProviderTwilio, store.ProviderTelnyx} {
		src, ok := rc.a.listings(carrier, rc.opts.TwilioPageSize)
		if !ok {
			continue
		}
		var phones []string
		for _, n := range numbers {
			if n.Active && n.CarrierName() == carrier {
				phones = append(phones, n.Phone)
			}
		}
		c, err := rc.checkCarrier(ctx, carrier, src, phones)
		if ctx.Err() != nil {
			return out // stopping: the next start looks back to the last check that finished
		}
		if err != nil {
			c = rc.failed(carrier, c, err)
		}
		kept, err := rc.s.RecordRecoveryCheck(carrier, c)
		if err != nil {
			slog.Error("inbound recovery: record the check", "carrier", carrier, "err", err)
			continue
		}
		out[carrier] = kept
		if kept.Error == "" {
			rc.r.metrics.recoveryLastOK.WithLabelValues(carrier).Set(float64(kept.At.UnixMilli()) / 1000)
		}
	}
	if rc.opts.OnCheck != nil {
		rc.opts.OnCheck(out)
	}
	return out
}

// checkCarrier is one carrier's check: its numbers' texts, then its sends' statuses.
// What it recovered is on the check whether it fails or not.
func (rc *Recovery) checkCarrier(ctx context.Context, carrier string, src listings, phones []string) (store.RecoveryCheck, error) {
	now := rc.opts.Now()
	c := store.RecoveryCheck{At: now, Since: now.Add(-rc.opts.Lookback)}
	prev, err := rc.s.RecoveryChecks()
	if err != nil {
		return c, err
	}
	if last := prev[carrier].LastOK; !last.IsZero() && last.Add(-recoveryOverlap).After(c.Since) {
		c.Since = last.Add(-recoveryOverlap)
	}
	known := func(ids []string) (map[string]bool, error) { return rc.s.KnownProviderIDs(carrier, ids) }
	var texts []InboundSMS
	var listErr error
	for _, phone := range phones {
		got, err := src.received(ctx, phone, c.Since, known)
		if err != nil {
			listErr = err
			break
		}
		texts = append(texts, got...)
	}
	// In the order they were sent, so that a STOP and a START act in the contact's order. What
	// was listed is taken in even when a later number's listing failed.
	slices.SortStableFunc(texts, func(a, b InboundSMS) int { return a.SentAt.Compare(b.SentAt) })
	for _, in := range texts {
		res, err := rc.r.Inbound(carrier, in)
		switch {
		case err == nil && !res.Duplicate:
			c.Texts++
			rc.r.metrics.recovered.WithLabelValues(carrier).Inc()
			if res.StaleKeyword {
				slog.Info("inbound recovery: a recovered keyword was not acted on, consent having changed since it was sent", "carrier", carrier, "id", in.MessageSID)
			}
		case err == nil:
		case refused(err):
			slog.Warn("inbound recovery: listed text not recorded", "carrier", carrier, "id", in.MessageSID, "reason", err.Error())
		default:
			return c, err
		}
	}
	if listErr != nil {
		return c, listErr
	}
	if err := rc.statuses(ctx, carrier, src, now, &c); err != nil {
		return c, err
	}
	if _, err := rc.s.SweepAwaiting(carrier, now.Add(-rc.opts.Lookback)); err != nil {
		return c, err
	}
	if c.Texts > 0 || c.Statuses > 0 {
		slog.Info("inbound recovery", "carrier", carrier, "texts", c.Texts, "statuses", c.Statuses, "since", c.Since)
	}
	return c, nil
}

// statuses asks the carrier, one send at a time, for the status of the sends still waiting for
// their receipt that are due, and applies what it says as the status webhook would.
func (rc *Recovery) statuses(ctx context.Context, carrier string, src listings, now time.Time, c *store.RecoveryCheck) error {
	waiting, err := rc.s.AwaitingReceipts(carrier, now.Add(-rc.opts.Lookback), awaitingScan)
	if err != nil {
		return err
	}
	still := make(map[string]time.Time, len(waiting))
	defer func() { rc.asked[carrier] = still }()
	asked := 0
	for _, m := range waiting {
		last, seen := rc.asked[carrier][m.ID]
		if seen {
			still[m.ID] = last
		}
		young := !m.SentAt.Before(rc.born) && now.Sub(*m.SentAt) < receiptGrace // its webhook may be on its way
		if asked == statusesPerCheck || young || (seen && now.Sub(last) < last.Sub(*m.SentAt)) {
			continue
		}
		u, found, err := src.status(ctx, m.ProviderID)
		if err != nil {
			return err
		}
		asked++
		still[m.ID] = now
		if !found {
			continue
		}
		moved, err := rc.r.applyStatus(carrier, u)
		if err != nil {
			return err
		}
		if moved {
			c.Statuses++
			delete(still, m.ID)
		}
	}
	return nil
}

// failed notes why carrier's check failed, logs and counts it.
func (rc *Recovery) failed(carrier string, c store.RecoveryCheck, err error) store.RecoveryCheck {
	rc.r.metrics.recoveryFailures.WithLabelValues(carrier).Inc()
	slog.Warn("inbound recovery failed; the next check tries again", "carrier", carrier, "err", err.Error(), "texts", c.Texts)
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		// The next check is what tries again, not the person reading it.
		c.Error = strings.TrimSuffix(apiErr.Error(), " Try again in a moment.")
	} else {
		c.Error = "Switchboard could not record what " + label(carrier) + " listed; the server log says why."
	}
	return c
}

// refused reports whether recording a listed text was refused for a reason a retry will not
// change (its number is no longer one of ours, its sender is no phone number), as a webhook's
// would be answered 200 and logged.
func refused(err error) bool {
	var verrs store.ValidationError
	var se *store.Error
	var pe *ParseError
	return errors.Is(err, ErrUnknownNumber) || errors.As(err, &verrs) || errors.As(err, &se) || errors.As(err, &pe)
}
