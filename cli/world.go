package cli

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	offsite "switchboard/backup"
	"switchboard/carrier"
	"switchboard/mail"
	"switchboard/media"
	"switchboard/oauth"
	"switchboard/push"
	"switchboard/store"
	"switchboard/web"
	"switchboard/webhooks"
)

// world is the work that acts on the world: it sends texts, webhooks, e-mail and Web Push, fetches
// media, runs the automations' timers, asks the carriers for the texts and receipts their webhooks
// missed, checks the carrier numbers' wiring, takes backups, builds the report rollups of older
// data and runs the sweeps and schedules. It runs in one process at a time: on one node always, in
// a cluster on the leader only, started when the node becomes the leader and stopped when it stops
// being one (a send in flight then may be sent again by the next leader, never lost: what is queued
// lives in the replicated store). Each start makes the workers afresh, since a stopped worker does
// not start again. A new worker joins by a line in start, and its wake-up by a field of term and a
// line in hooks. What every node does for the requests it serves itself (live streams, the client
// connection bounds) is not here.
type world struct {
	s        *store.Store
	cfg      config
	carriers map[string]carrier.Carrier
	accounts *carrier.Accounts // the carrier accounts in use (flags, else connected in the browser)
	cm       *carrier.Metrics
	recv     *carrier.Receiver // records what the carriers' webhooks and the recovery carry
	guard    *webhooks.Guard
	hookOpts webhooks.Options
	sess     *web.Sessions
	prov     *oauth.Provider
	pushOpts push.Options
	backups  *offsite.Scheduler // nil without -backup-url

	mu     sync.Mutex           // serialises start and stop
	cur    atomic.Pointer[term] // the running workers, nil while stopped (read by the hooks)
	closed bool                 // the server is shutting down: nothing starts again
}

// term is one run of the workers, from a start to its stop.
type term struct {
	hooks *webhooks.Worker
	disp  *carrier.Dispatcher
	sched *carrier.Scheduler
	fetch *media.Fetcher
	mail  *mail.Worker // nil without -smtp-url
	push  *push.Worker
	recov *carrier.Recovery
	due   func() // wakes the automations' due timer
	stops []func()
}

// start starts the workers, unless they run.
func (w *world) start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur.Load() != nil || w.closed {
		return nil
	}
	// A leader takes the carrier connections made while another node led.
	if err := w.accounts.Reload(); err != nil {
		return err
	}
	t := &term{}
	t.hooks = webhooks.New(w.s, w.hookOpts)
	t.hooks.Start()
	t.stops = append(t.stops, t.hooks.Stop)
	t.disp = carrier.NewDispatcher(w.s, carrier.Options{Carriers: w.carriers, DefaultRate: w.cfg.SendRate, Metrics: w.cm})
	if err := t.disp.Start(); err != nil {
		t.stop()
		return err
	}
	t.stops = append(t.stops, t.disp.Stop)
	t.sched = carrier.NewScheduler(w.s, nil)
	t.sched.Start()
	t.stops = append(t.stops, t.sched.Stop)
	// The fetcher signs with the Twilio account in use at each fetch.
	f, err := media.NewFetcher(w.s, media.FetcherOptions{BaseURL: w.cfg.Twilio.BaseURL, Credentials: w.twilioCredentials})
	if err != nil {
		t.stop()
		return err
	}
	t.fetch = f
	f.Start()
	t.stops = append(t.stops, f.Stop)
	if w.cfg.Mail.Enabled() {
		t.mail = mail.NewWorker(w.s, w.cfg.Mail, nil)
		t.mail.Start()
		t.stops = append(t.stops, t.mail.Stop)
	}
	// Web Push: the outbox the store fills in the transactions of inbound texts, mentions and
	// assignments.
	t.push = push.New(w.s, w.pushOpts)
	t.push.Start()
	t.stops = append(t.stops, t.push.Stop)
	// Automations that wait (conversation.unanswered rules, first-response deadlines) run when due.
	wakeDue, stopDue := startDueTimer(w.s, w.s.Now)
	t.due = wakeDue
	t.stops = append(t.stops, stopDue)
	// Delivery history older than the webhook retention goes, at start and then hourly.
	t.every("webhook history purge", time.Hour, true, t.hooks.Purge)
	// Sessions idle or past their maximum age are deleted at start and then hourly.
	t.every("session sweep", time.Hour, true, w.sess.SweepStale)
	// Expired OAuth codes, replay records and grants whose refresh token expired go hourly.
	t.every("oauth sweep", time.Hour, false, func() (int, error) { return 0, w.prov.Sweep() })
	// Workspace message retention: messages older than a workspace's retention days are
	// deleted at start and then hourly, in bounded transactions.
	t.every("retention sweep", time.Hour, true, w.s.SweepRetention)
	// Snoozed conversations reopen when their time passes: checked at start and every 15 s.
	t.every("snooze sweep", 15*time.Second, true, w.s.SweepSnoozed)
	// Contact uploads left a day without their mapping go, file and all, at start and hourly.
	t.every("import upload sweep", time.Hour, true, func() (int, error) { return web.SweepImportUploads(w.s, w.s.Now()) })
	// Expired password reset and e-mail change links go at start and then hourly.
	t.every("expired link sweep", time.Hour, true, func() (int, error) { return w.s.SweepExpiredLinks(w.s.Now()) })
	// The report rollups of data from before them (the migration) or of a workspace whose time
	// zone changed are built in the background, a batch per transaction, while the server serves.
	t.every("report build", 2*time.Second, true, func() (int, error) {
		n, err := w.s.BuildReports(reportBuildSteps)
		if n > 0 {
			slog.Info("report build", "counted", n)
		}
		return 0, err
	})
	// Carriers do not retry a webhook that failed: at start and every 5 minutes the texts and
	// receipts they hold that Switchboard missed (while it was down, or while no node led) are
	// asked for and taken in once, through the receiver the webhooks use. A new leader's
	// recovery is a new one: it asks at once about every send still awaiting its receipt, as
	// after a restart, since the receipts may have come while no node led.
	t.recov = carrier.NewRecovery(w.accounts, w.recv, carrier.RecoveryOptions{})
	t.recov.Start()
	t.stops = append(t.stops, t.recov.Stop)
	// Every hour the Twilio and Telnyx numbers' settings are read at their carrier: a webhook
	// changed there behind Switchboard's back is flagged (switchboard_number_miswired).
	t.every("number check", time.Hour, false, w.accounts.CheckAll)
	// Scheduled off-site backups (-backup-url), listed on /admin/backup.
	if w.backups != nil {
		t.stops = append(t.stops, w.backups.Start(w.cfg.Backup.Every))
	}
	// The hooks reach the workers from now on; a commit that woke nobody while they started
	// is caught by one wake-up each.
	w.cur.Store(t)
	t.wakeAll()
	return nil
}

// wakeAll wakes every worker of the term once.
func (t *term) wakeAll() {
	t.hooks.Wake()
	t.disp.Wake()
	t.sched.Wake()
	t.fetch.Wake()
	if t.mail != nil {
		t.mail.Wake()
	}
	t.push.Wake()
	t.due()
}

// every runs a sweep of the term on a timer.
func (t *term) every(name string, interval time.Duration, atStart bool, run func() (int, error)) {
	t.stops = append(t.stops, sweeper{name: name, interval: interval, atStart: atStart, run: run}.start())
}

// stop stops the workers in reverse order of their start, if they run.
func (w *world) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t := w.cur.Swap(nil); t != nil {
		t.stop()
	}
}

// close stops the workers for good (the server shuts down).
func (w *world) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.stop()
}

func (t *term) stop() {
	for i := len(t.stops) - 1; i >= 0; i-- {
		t.stops[i]()
	}
}

// lead starts the workers when the node becomes the leader and stops them when it stops being
// one (cluster.Start's callback).
func (w *world) lead(leader bool) {
	if !leader {
		w.stop()
		return
	}
	if err := w.start(); err != nil {
		slog.Error("start the workers", "err", err)
	}
}

// wake returns a hook that calls fn with the running workers, and does nothing while they are
// stopped (a follower's commits wake nothing: the leader's workers learn of the work).
func (w *world) wake(fn func(t *term)) func() {
	return func() {
		if t := w.cur.Load(); t != nil {
			fn(t)
		}
	}
}

// hooks are the store's wake-ups of the workers.
func (w *world) hooks() store.Hooks {
	return store.Hooks{
		Events:   w.wake(func(t *term) { t.hooks.Wake() }),
		Outbox:   w.wake(func(t *term) { t.disp.Wake() }),
		Schedule: w.wake(func(t *term) { t.sched.Wake() }),
		Media:    w.wake(func(t *term) { t.fetch.Wake() }),
		Mail: w.wake(func(t *term) {
			if t.mail != nil {
				t.mail.Wake()
			}
		}),
		Push: w.wake(func(t *term) { t.push.Wake() }),
		Due:  w.wake(func(t *term) { t.due() }),
	}
}

// twilioCredentials are the credentials media fetches sign with: the Twilio account in use's
// API key when it has one, else its account SID and auth token.
func (w *world) twilioCredentials() (string, string, bool) {
	t, ok := w.accounts.Twilio()
	if t.APIKeySID != "" {
		return t.APIKeySID, t.APIKeySecret, ok
	}
	return t.AccountSID, t.AuthToken, ok
}

// mailer is the e-mail the browser session sends (reset links, invitations): the running mail
// worker's, woken through the store's hook.
type mailer struct{ w *world }

func (m mailer) Enabled() bool { return m.w.cfg.Mail.Enabled() }
func (m mailer) Wake()         { m.w.hooks().Mail() }
