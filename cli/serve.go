package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	netmail "net/mail"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/netutil"

	"switchboard/carrier"
	"switchboard/cluster"
	"switchboard/internal/keyfile"
	"switchboard/oauth"
	"switchboard/push"
	"switchboard/store"
	"switchboard/web"
	"switchboard/webhooks"
)

// serverInfo is written to DIR/server.json while a server runs, so that `switchboard backup`
// can reach the server that holds the database.
type serverInfo struct {
	Addr        string `json:"addr"`
	BackupToken string `json:"backupToken"`
	PID         int    `json:"pid"`
}

func serverInfoPath(dataDir string) string { return filepath.Join(dataDir, "server.json") }

// sessionKeyPath is the file of the session cookie keys (web.SessionConfig.KeyFile).
func sessionKeyPath(dataDir string) string { return filepath.Join(dataDir, "session.key") }

// carrierKeyPath is the file of the key that seals the carrier accounts connected in the browser.
func carrierKeyPath(dataDir string) string { return filepath.Join(dataDir, "carrier.key") }

// pushKeyPath is the file of the Web Push (VAPID) key pair, beside the session key.
func pushKeyPath(dataDir string) string { return filepath.Join(dataDir, "push.key") }

// secretKeyPath is the file of the key that seals the database's two-factor secrets and the
// links of queued e-mail (store.Options.SecretKey). Like session.key it is kept beside the
// database, never in it; unlike it, it survives a restore, since the restored secrets need it.
func secretKeyPath(dataDir string) string { return filepath.Join(dataDir, "secret.key") }

// openStore opens the database of dataDir for writing with the data directory's secret key,
// made on first use.
func openStore(dataDir string, opts store.Options) (*store.Store, error) {
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	key, err := loadSecretKey(dataDir)
	if err != nil {
		return nil, err
	}
	opts.SecretKey = key
	return store.Open(dbPath(dataDir), opts)
}

// loadSecretKey reads DIR/secret.key, made on first use.
func loadSecretKey(dataDir string) ([]byte, error) {
	return keyfile.Load(secretKeyPath(dataDir), store.SecretKeySize, "secret key file",
		"put back the one this database was used with: two-factor secrets cannot be read without it")
}

func serve(args []string, stdout, stderr io.Writer, assets Assets) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg, err := parseServeConfig(args, fs)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	// Log lines are written by a goroutine of their own (lineWriter): a request does not wait
	// for its line's write. What waits is written when serve returns.
	logOut := newLineWriter(stderr)
	defer logOut.Close()
	logger := slog.New(slog.NewTextHandler(logOut, nil))
	slog.SetDefault(logger)

	s, keyless, err := openServeStore(cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// In a cluster the node joins before anything else writes: every write from here on is
	// a log entry, and a node's first start takes its database and keys from another node.
	var node *cluster.Node
	if cfg.Cluster.enabled() {
		if node, err = startNode(ctx, s, cfg, keyless); err != nil {
			return err
		}
		defer node.Close() // after the workers stop, before the store closes
	}
	if !s.SecretKeyMatches() {
		slog.Warn("the secret key does not open this database's secrets: two-factor secrets and links waiting in the mail outbox cannot be read. "+
			"Put back the secret.key this database was used with; else users with two-factor sign in with a recovery code, or an administrator runs admin reset-2fa",
			"file", secretKeyPath(cfg.Data))
	}
	if err := checkCarriers(s, cfg); err != nil {
		return err
	}
	if err := cfg.Assist.connect(context.Background()); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	// A flood of connections waits in the kernel's backlog beyond the bound instead of each
	// holding a goroutine and its buffers.
	ln = netutil.LimitListener(ln, cfg.MaxConnections)

	info := serverInfo{Addr: ln.Addr().String(), BackupToken: store.RandomToken(""), PID: os.Getpid()}
	app, err := build(s, cfg, info.BackupToken, assets, node)
	if err != nil {
		ln.Close()
		return err
	}
	if node != nil {
		node.KeysReady()              // the keys beside the database exist now: a new node may copy them
		node.OnLeader(app.world.lead) // the workers run while this node leads
	}
	// One client cannot take the whole bound either, and idle connections that never signed in
	// go after anonIdle.
	clients := newClientListener(ln, cfg.MaxConnsPerIP, app.registry)
	srv := newHTTPServer(app.handler)
	clients.attach(srv)
	srv.RegisterOnShutdown(app.endStreams) // open GET /events streams end, so Shutdown need not wait for them
	if err := writeServerInfo(cfg.Data, info); err != nil {
		ln.Close()
		app.stop()
		return err
	}
	defer os.Remove(serverInfoPath(cfg.Data))

	printBanner(stdout, cfg, app)
	tuneGC()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(clients) }()
	select {
	case err := <-errc:
		app.stop()
		return err
	case <-ctx.Done():
	}
	slog.Info("shutting down: finishing in-flight requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	app.stop() // workers stop after the HTTP server, before the store closes (deferred)
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	slog.Info("stopped")
	return nil
}

// newHTTPServer sets the limits that keep a slow or stalled client from holding a connection
// and its goroutine: headers within 10 s; the whole request, body included, within
// 30 s (a 1 MiB body at 35 KB/s); the answer within 60 s. GET /admin/backup moves its own write
// deadline forward while it streams, since a copy may take longer.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// app is the wired server: the HTTP handler and the background workers.
type app struct {
	handler  http.Handler
	world    *world
	registry *prometheus.Registry // /metrics
	stops    []func()
	setupURL string
	// endStreams ends the open event streams (web.Config.Done) when the server shuts down.
	endStreams func()
}

// stop stops the workers in reverse order of their start.
func (a *app) stop() {
	for i := len(a.stops) - 1; i >= 0; i-- {
		a.stops[i]()
	}
}

// build wires the parts: store → web, plus the workers that deliver what the store queues
// (world), which run at once on one node and on the leader only in a cluster (node not nil).
func build(s *store.Store, cfg config, backupToken string, assets Assets, node *cluster.Node) (*app, error) {
	reg := prometheus.NewRegistry()
	a := &app{registry: reg}
	wcfg := web.Config{
		Stage: cfg.Stage, Provider: cfg.Provider, RateLimit: cfg.RateLimit, LogRequests: cfg.LogRequests,
		Registry: reg, BackupToken: backupToken, OpenAPI: assets.OpenAPI,
		MaxStreamsPerSession: streamBound(cfg.MaxStreamsPerSession), MaxStreamsPerUser: streamBound(cfg.MaxStreamsPerUser),
	}
	// One SSRF guard for both checks of a hook URL: at subscribe time and in the delivery dialer.
	guard := webhooks.NewGuard(cfg.HookAllowCIDRs)
	wcfg.ValidateHookURL = guard.ValidateURL
	w := &world{s: s, cfg: cfg, guard: guard, hookOpts: webhooks.Options{Guard: guard, Registry: reg}}
	// The carrier: the dispatcher sends what the store queues, the receiver records
	// what comes back through the /carrier/ callbacks. The Twilio and Telnyx adapters send
	// with the account in use at each send: the flags', else the one connected in the browser
	// (its secrets sealed with the key in DIR/carrier.key, never in the database).
	if node != nil {
		// Every node must hold the same carrier key before another copies the keys: the
		// leader that seals a connection and the one that later opens it may differ.
		if err := carrier.MakeKeyFile(carrierKeyPath(cfg.Data)); err != nil {
			return nil, err
		}
	}
	accounts, err := carrier.NewAccounts(s, carrierAccounts(cfg))
	if err != nil {
		return nil, err
	}
	w.accounts = accounts
	w.carriers = map[string]carrier.Carrier{store.ProviderSandbox: carrier.Sandbox{},
		store.ProviderTwilio: accounts.Carrier(store.ProviderTwilio), store.ProviderTelnyx: accounts.Carrier(store.ProviderTelnyx)}
	wcfg.Accounts = accounts
	w.cm = carrier.NewMetrics(reg, s)
	// Media (MMS): kept files' URLs start with the public URL, so carriers can fetch them, and
	// inbound Twilio media are fetched into the store from its durable queue.
	s.SetPublicURL(cfg.BaseURL)
	// The store wakes each worker after a commit that gave it work (the stream broker's hook is
	// web's).
	s.SetHooks(w.hooks())
	w.recv = carrier.NewReceiver(s, w.cm)
	wcfg.Receiver = w.recv
	wcfg.BaseURL = cfg.BaseURL
	if cfg.BaseURLSet {
		wcfg.APIServer = cfg.BaseURL
	}
	// The browser session (sign-in, sign-out, /setup) and /static/ are web's; the OAuth
	// authorization server asks the session who is signed in, and web routes its
	// endpoints.
	// The cookie keys live in a file beside the database, never in it: a backup of the database
	// cannot sign a session cookie.
	scfg := web.SessionConfig{BaseURL: cfg.BaseURL, KeyFile: sessionKeyPath(cfg.Data), RequireTwoFactor: cfg.RequireTwoFactor}
	if node != nil {
		scfg.SetupToken = node.SetupToken()
	}
	if cfg.Mail.Enabled() {
		// E-mail (invitations, reset links, notifications) goes through the store's outbox; the
		// mail worker sends it.
		scfg.Mail = mailer{w}
	}
	sess, err := web.NewSessions(s, scfg)
	if err != nil {
		return nil, err
	}
	prov, err := oauth.New(s, oauth.Config{AccessTokenTTL: cfg.AccessTokenTTL, Session: sess})
	if err != nil {
		return nil, err
	}
	w.sess, w.prov = sess, prov
	wcfg.Sessions = sess
	// Web Push: the VAPID key lives beside the session key, never in the database; the worker
	// sends the push outbox the store fills in the transactions of inbound texts, mentions and
	// assignments, and never to a session that lapsed.
	pushKey, err := push.LoadKey(pushKeyPath(cfg.Data))
	if err != nil {
		return nil, err
	}
	pushGuard := push.NewGuard(guard)
	w.pushOpts = push.Options{Key: pushKey, Subject: pushSubject(cfg), Guard: pushGuard, Registry: reg,
		SessionAlive: sess.Alive}
	wcfg.PushKey, wcfg.CheckPushEndpoint = pushKey.PublicKey(), pushGuard.Check
	wcfg.OAuth = prov // its endpoints, and its clients on the superuser pages
	wcfg.Static = assets.Static
	if a.setupURL, err = sess.SetupURL(); err != nil {
		return nil, err
	}
	// Scheduled off-site backups (-backup-url), listed on /admin/backup.
	if w.backups, err = backupScheduler(s, cfg.Backup, reg, &wcfg); err != nil {
		return nil, err
	}
	if node != nil {
		if err := node.Register(reg); err != nil {
			return nil, err
		}
		wcfg.Cluster = node
		wcfg.AdminRun = func(args []string, stdin string) (string, error) { return adminLive(s, args, stdin) }
	}
	streams := make(chan struct{})
	a.endStreams = sync.OnceFunc(func() { close(streams) })
	wcfg.Done = streams
	wcfg.Assist = cfg.Assist.client // nil without -assist-url
	a.handler = web.New(s, wcfg)
	// The workers start now on one node; in a cluster the node starts them when it leads.
	if node == nil {
		if err := w.start(); err != nil {
			return nil, err
		}
	}
	a.world = w
	a.stops = append(a.stops, w.close)
	return a, nil
}

// reportBuildSteps bounds one run of the report build (each step a short transaction), so that a
// shutdown waits at most for one run.
const reportBuildSteps = 40

// streamBound maps a stream flag (0: no bound) to web.Config's (0: the default, less: none).
func streamBound(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// carrierAccounts is the carrier accounts' configuration: the flags' accounts, when given, win
// over those connected in the browser.
func carrierAccounts(cfg config) carrier.AccountsConfig {
	c := carrier.AccountsConfig{KeyFile: carrierKeyPath(cfg.Data), TwilioBaseURL: cfg.Twilio.BaseURL, TwilioPricingURL: cfg.Twilio.PricingURL,
		TelnyxBaseURL: cfg.Telnyx.BaseURL, PublicURL: cfg.BaseURL, PublicURLSet: cfg.BaseURLSet}
	if cfg.Twilio.configured() {
		c.Twilio = carrier.TwilioAccount{AccountSID: cfg.Twilio.AccountSID, AuthToken: cfg.Twilio.AuthToken}
	}
	if cfg.Telnyx.configured() {
		c.Telnyx = carrier.TelnyxAccount{APIKey: cfg.Telnyx.APIKey, PublicKey: cfg.Telnyx.PublicKey}
	}
	return c
}

// connectedAccount reports whether carrier has an account connected in the browser.
func connectedAccount(s *store.Store, carrier string) bool {
	_, ok, _ := s.CarrierAccountOf(carrier)
	return ok
}

// pushSubject is the contact a push service may use about this server's pushes (VAPID sub):
// the public URL when it is https, else the -smtp-from address, else the public URL anyway.
func pushSubject(cfg config) string {
	if strings.HasPrefix(cfg.BaseURL, "https://") {
		return cfg.BaseURL
	}
	if a, err := netmail.ParseAddress(cfg.Mail.From); err == nil {
		return "mailto:" + a.Address
	}
	return cfg.BaseURL
}

// checkCarriers refuses to start when a number uses a carrier this server has no account for:
// none in the flags and none connected in the browser.

func checkCarriers(s *store.Store, cfg config) error {
	numbers, err := s.AllNumbers()
	if err != nil {
		return err
	}
	twilio, telnyx := cfg.Twilio.configured() || connectedAccount(s, store.ProviderTwilio),
		(cfg.Telnyx.configured() && cfg.Telnyx.PublicKey != "") || connectedAccount(s, store.ProviderTelnyx)
	for _, n := range numbers {
		if n.CarrierName() == store.ProviderTwilio && !twilio {
			return fmt.Errorf("number %s uses the twilio carrier, but the Twilio credentials are not set: "+
				"set SWITCHBOARD_TWILIO_ACCOUNT_SID and SWITCHBOARD_TWILIO_AUTH_TOKEN (or -twilio-account-sid and -twilio-auth-token)", n.Phone)
		}
		// A Telnyx number needs the API key to send and the public key to believe its webhooks
		// (inbound texts and receipts): without either it would fail silently.
		if n.CarrierName() == store.ProviderTelnyx && !telnyx {
			return fmt.Errorf("number %s uses the telnyx carrier, but the Telnyx keys are not set: "+
				"set SWITCHBOARD_TELNYX_API_KEY and SWITCHBOARD_TELNYX_PUBLIC_KEY (or -telnyx-api-key and -telnyx-public-key)", n.Phone)
		}
	}
	return nil
}

func writeServerInfo(dataDir string, info serverInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if err := os.WriteFile(serverInfoPath(dataDir), data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", serverInfoPath(dataDir), err)
	}
	return nil
}

// printBanner writes the banner in one write, so a reader of the pipe sees it whole.
func printBanner(out io.Writer, cfg config, a *app) {
	w := new(strings.Builder)
	fmt.Fprintf(w, "Switchboard is listening on %s\n", cfg.Addr)
	fmt.Fprintf(w, "  integration API: %s/%s/integrations/developer/%s/<action>\n", cfg.BaseURL, cfg.Stage, cfg.Provider)
	fmt.Fprintf(w, "  admin UI:        %s/inbox (sign in at %s/login)\n", cfg.BaseURL, cfg.BaseURL)
	fmt.Fprintf(w, "  health:          %s/healthz  %s/readyz  %s/metrics\n", cfg.BaseURL, cfg.BaseURL, cfg.BaseURL)
	fmt.Fprintf(w, "  OAuth 2.0:       %s/oauth/authorize  %s/oauth/token  %s/oauth/revoke\n", cfg.BaseURL, cfg.BaseURL, cfg.BaseURL)
	fmt.Fprintf(w, "  OAuth discovery: %s/.well-known/oauth-authorization-server\n", cfg.BaseURL)
	fmt.Fprintf(w, "  carrier:         %s/carrier/twilio/sms  …/status  …/voice (Twilio), %s/carrier/telnyx/webhook (Telnyx), %s/carrier/sandbox/sms (sandbox)\n", cfg.BaseURL, cfg.BaseURL, cfg.BaseURL)
	fmt.Fprintf(w, "  data:            %s\n", dbPath(cfg.Data))
	if b := cfg.Backup; b.URL != "" {
		fmt.Fprintf(w, "  backups:         every %s to %s, keeping the newest %d\n", b.Every, b.URL, b.Keep)
	}
	if m := cfg.Assist.client; m != nil {
		fmt.Fprintf(w, "  assist:          model %s at %s, for the workspaces that turn it on in their settings\n", m.Model(), m.Host())
	}
	if a.setupURL != "" {
		fmt.Fprintf(w, "No admin yet. Finish setup (one-time link): %s\n", a.setupURL)
	}
	io.WriteString(out, w.String())
}
