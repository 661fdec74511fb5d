package cli

import (
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"switchboard/carrier"
	"switchboard/cluster"
	"switchboard/mail"
)

// config is the server's configuration: flags, each also settable as SWITCHBOARD_<NAME>.
type config struct {
	Addr           string
	Data           string
	BaseURL        string
	BaseURLSet     bool // -base-url (or its variable) was given, not defaulted
	Stage          string
	Provider       string
	Carrier        string
	AccessTokenTTL time.Duration
	HookAllowCIDRs []*net.IPNet
	RateLimit      float64
	LogRequests    bool
	SendRate       float64
	Twilio         twilioConfig
	Telnyx         telnyxConfig
	Backup         backupConfig // scheduled off-site backups (backupScheduler)
	// MaxConnections bounds the open connections (-max-connections), MaxConnsPerIP those of one
	// client address (-max-conns-per-ip, 0: no bound).
	MaxConnections, MaxConnsPerIP int
	// MaxStreamsPerSession and MaxStreamsPerUser bound the open GET /events streams of one
	// session and one user (0: no bound).
	MaxStreamsPerSession, MaxStreamsPerUser int

	// RequireTwoFactor sends every user without two-factor to enrolment (-require-2fa).
	RequireTwoFactor bool
	// Mail is the SMTP server and sender (-smtp-url, -smtp-from); its URL "" sends no e-mail.
	Mail mail.Config
	// Cluster is this node's place in a cluster of nodes (-node-id, -raft-addr, ...).
	Cluster clusterConfig
	// Assist is the installation's model (-assist-url, -assist-model, SWITCHBOARD_ASSIST_KEY).
	Assist assistConfig
}

// mailFlags registers -smtp-url and -smtp-from on fs (serve, and admin test-email).
func mailFlags(fs *flag.FlagSet, m *mail.Config) {
	fs.StringVar(&m.URL, "smtp-url", "", "SMTP server for e-mail: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host:465; empty sends none")
	fs.StringVar(&m.From, "smtp-from", "", `sender of e-mail, e.g. "Switchboard <sms@example.com>"`)
}

// twilioConfig is the Twilio account the twilio adapter uses; the auth token is never logged
// or shown back.
type twilioConfig struct {
	AccountSID string
	AuthToken  string
	BaseURL    string
	// PricingURL is Twilio's Pricing API, which quotes a number's monthly price before it is bought.
	PricingURL string
}

func (t twilioConfig) configured() bool { return t.AccountSID != "" && t.AuthToken != "" }

// twilioFlags registers the Twilio flags on fs (their SWITCHBOARD_* variables apply through
// applyEnv).
func twilioFlags(fs *flag.FlagSet, t *twilioConfig) {
	fs.StringVar(&t.AccountSID, "twilio-account-sid", "", "Twilio account SID (for numbers with carrier twilio)")
	fs.StringVar(&t.AuthToken, "twilio-auth-token", "", "Twilio auth token: signs API calls and verifies callbacks; never logged")
	fs.StringVar(&t.BaseURL, "twilio-base-url", "https://api.twilio.com", "Twilio REST API base URL (tests point it at a local server)")
	fs.StringVar(&t.PricingURL, "twilio-pricing-url", carrier.DefaultTwilioPricingURL, "Twilio Pricing API base URL: quotes a number's monthly price before it is bought")
}

// telnyxConfig is the Telnyx account the telnyx adapter uses: the API key signs sends (never
// logged or shown back), the public key verifies webhooks.
type telnyxConfig struct {
	APIKey    string
	PublicKey string // base64 Ed25519, checked by check
	BaseURL   string
}

func (t telnyxConfig) configured() bool { return t.APIKey != "" }

// telnyxFlags registers the Telnyx flags on fs (their SWITCHBOARD_TELNYX_* variables apply
// through applyEnv).
func telnyxFlags(fs *flag.FlagSet, t *telnyxConfig) {
	fs.StringVar(&t.APIKey, "telnyx-api-key", "", "Telnyx API key (for numbers with carrier telnyx); never logged")
	fs.StringVar(&t.PublicKey, "telnyx-public-key", "", "Telnyx public key (base64 Ed25519, from the portal): verifies webhooks")
	fs.StringVar(&t.BaseURL, "telnyx-base-url", carrier.DefaultTelnyxBaseURL, "Telnyx API base URL (tests point it at a local server)")
}

// check validates the public key's form and normalises the base URL.
func (t *telnyxConfig) check() error {
	t.BaseURL = strings.TrimRight(t.BaseURL, "/")
	if t.PublicKey != "" {
		if _, err := carrier.ParseTelnyxPublicKey(t.PublicKey); err != nil {
			return fmt.Errorf("-telnyx-public-key: %v", err)
		}
	}
	return nil
}

// applyEnv sets every flag of fs that has a SWITCHBOARD_<NAME> variable (except -data, which
// dataFlag reads), before the command line is parsed so that flags win.
func applyEnv(fs *flag.FlagSet) error {
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := os.LookupEnv(envName(f.Name)); ok && f.Name != "data" {
			if err := f.Value.Set(v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%s=%q: %v", envName(f.Name), v, err)
			}
		}
	})
	return envErr
}

// envName maps a flag name to its environment variable: base-url → SWITCHBOARD_BASE_URL.
func envName(flagName string) string {
	return "SWITCHBOARD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// dataFlag registers -data on fs with the SWITCHBOARD_DATA default.
func dataFlag(fs *flag.FlagSet) *string {
	def := "./data"
	if v := os.Getenv(envName("data")); v != "" {
		def = v
	}
	return fs.String("data", def, "data directory (the database is DIR/switchboard.db)")
}

func dbPath(dataDir string) string { return filepath.Join(dataDir, "switchboard.db") }

// parseServeConfig reads flags over environment variables over defaults.
func parseServeConfig(args []string, fs *flag.FlagSet) (config, error) {
	var c config
	var cidrs string
	data := dataFlag(fs)
	fs.StringVar(&c.Addr, "addr", ":8080", "listen address")
	fs.StringVar(&c.BaseURL, "base-url", "", "public URL, used in OAuth redirects and carrier callbacks (default http://localhost:PORT)")
	fs.StringVar(&c.Stage, "stage", "v1", "stage path segment of the integration API")
	fs.StringVar(&c.Provider, "provider", "zapier", "developerProvider value and {provider} path segment")
	fs.StringVar(&c.Carrier, "carrier", "sandbox", "carrier adapter: sandbox, twilio or telnyx")
	fs.DurationVar(&c.AccessTokenTTL, "access-token-ttl", 24*time.Hour, "OAuth access token lifetime")
	fs.StringVar(&cidrs, "hook-allow-cidrs", "", "comma-separated CIDRs webhook URLs may reach despite the SSRF guard (e.g. 127.0.0.0/8)")
	fs.Float64Var(&c.RateLimit, "rate-limit", 100, "integration API requests per second per token (burst twice that); 0 turns it off")
	fs.BoolVar(&c.LogRequests, "log-requests", true, "log one line per HTTP request")
	fs.Float64Var(&c.SendRate, "send-rate", 1, "messages per second per number for numbers without a rate of their own (0 = unlimited; sandbox numbers default to unlimited)")
	twilioFlags(fs, &c.Twilio)
	telnyxFlags(fs, &c.Telnyx)
	backupFlags(fs, &c.Backup, true)
	fs.IntVar(&c.MaxConnections, "max-connections", 10_000, "most open client connections; more wait to be accepted")
	fs.IntVar(&c.MaxConnsPerIP, "max-conns-per-ip", 256, "most open connections of one client address (an IPv6 /64); more are closed at once; 0 = no bound")
	fs.IntVar(&c.MaxStreamsPerSession, "max-streams-per-session", 10, "most open live streams (GET /events, one per browser tab) of one session; more get 429; 0 = no bound")
	fs.IntVar(&c.MaxStreamsPerUser, "max-streams-per-user", 30, "most open live streams of one user, all sessions together; more get 429; 0 = no bound")
	fs.BoolVar(&c.RequireTwoFactor, "require-2fa", false, "require two-factor sign-in for every user")
	mailFlags(fs, &c.Mail)
	clusterFlags(fs, &c.Cluster)
	assistFlags(fs, &c.Assist)
	// Environment first, so that flags given on the command line win.
	if err := applyEnv(fs); err != nil {
		return c, err
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c.Data = *data
	nets, err := parseCIDRs(cidrs)
	if err != nil {
		return c, err
	}
	c.HookAllowCIDRs = nets
	if c.RateLimit < 0 {
		return c, fmt.Errorf("-rate-limit must be 0 or more")
	}
	if c.AccessTokenTTL <= 0 {
		return c, fmt.Errorf("-access-token-ttl must be positive")
	}
	if c.Carrier != "sandbox" && c.Carrier != "twilio" && c.Carrier != "telnyx" {
		return c, fmt.Errorf("-carrier must be sandbox, twilio or telnyx")
	}
	if err := c.Mail.Check(); err != nil {
		return c, err
	}
	if err := c.Assist.check(); err != nil {
		return c, err
	}
	if c.MaxConnections < 1 {
		return c, fmt.Errorf("-max-connections must be 1 or more")
	}
	if c.MaxConnsPerIP < 0 || c.MaxStreamsPerSession < 0 || c.MaxStreamsPerUser < 0 {
		return c, fmt.Errorf("-max-conns-per-ip, -max-streams-per-session and -max-streams-per-user must be 0 (no bound) or more")
	}
	if c.SendRate < 0 {
		return c, fmt.Errorf("-send-rate must be 0 or more messages per second")
	}
	if (c.Twilio.AccountSID == "") != (c.Twilio.AuthToken == "") {
		return c, fmt.Errorf("-twilio-account-sid and -twilio-auth-token go together: set both or neither")
	}
	if err := c.Backup.check(); err != nil {
		return c, err
	}
	if err := c.Cluster.check(); err != nil {
		return c, err
	}
	c.Twilio.BaseURL = strings.TrimRight(c.Twilio.BaseURL, "/")
	c.Twilio.PricingURL = strings.TrimRight(c.Twilio.PricingURL, "/")
	if err := c.Telnyx.check(); err != nil {
		return c, err
	}
	c.Stage = strings.Trim(c.Stage, "/")
	if c.Stage == "" || strings.Contains(c.Stage, "/") {
		return c, fmt.Errorf("-stage must be one path segment such as v1")
	}
	c.BaseURLSet = c.BaseURL != ""
	if c.BaseURL == "" {
		_, port, _ := net.SplitHostPort(c.Addr)
		if port == "" {
			port = "8080"
		}
		c.BaseURL = "http://localhost:" + port
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c, nil
}

func parseCIDRs(s string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		_, n, err := net.ParseCIDR(part)
		if err != nil {
			return nil, fmt.Errorf("-hook-allow-cidrs: %q is not a CIDR such as 10.0.0.0/8", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// clusterConfig is this node's place in a cluster (§26): all empty on one node.
type clusterConfig struct {
	NodeID   string
	RaftAddr string
	Peers    string
	Join     string
	KeyFile  string
	peers    []cluster.Peer
}

// clusterFlags registers the cluster flags on fs.
func clusterFlags(fs *flag.FlagSet, c *clusterConfig) {
	fs.StringVar(&c.NodeID, "node-id", "", "this node's id in a cluster, e.g. n1 (cluster flags unset: one node)")
	fs.StringVar(&c.RaftAddr, "raft-addr", "", "HOST:PORT where this node's peer channel (raft, the cluster API) listens")
	fs.StringVar(&c.Peers, "raft-peers", "", "every node of a new cluster, this one included: ID=HOST:PORT,... (the addresses the others dial)")
	fs.StringVar(&c.Join, "join", "", "HOST:PORT of a running node's -raft-addr: join its cluster (instead of -raft-peers)")
	fs.StringVar(&c.KeyFile, "cluster-key-file", "", "file holding the cluster key: 64 hexadecimal characters, the same on every node")
}

// seeds reports whether this node's database and keys are the ones the other nodes copy at a
// cluster's first start: it is the first of -raft-peers.
func (c clusterConfig) seeds() bool { return len(c.peers) > 0 && c.peers[0].ID == c.NodeID }

func (c clusterConfig) enabled() bool {
	return c.NodeID != "" || c.RaftAddr != "" || c.Peers != "" || c.Join != "" || c.KeyFile != ""
}

// check validates the cluster flags: all of -node-id, -raft-addr and -cluster-key-file, and at
// most one of -raft-peers and -join.
func (c *clusterConfig) check() error {
	if !c.enabled() {
		return nil
	}
	if c.NodeID == "" || c.RaftAddr == "" || c.KeyFile == "" {
		return fmt.Errorf("a cluster node needs -node-id, -raft-addr and -cluster-key-file (and -raft-peers or -join)")
	}
	if c.Peers != "" && c.Join != "" {
		return fmt.Errorf("-raft-peers starts a new cluster and -join joins a running one: give one of them")
	}
	if _, _, err := net.SplitHostPort(c.RaftAddr); err != nil {
		return fmt.Errorf("-raft-addr: %v", err)
	}
	peers, err := cluster.ParsePeers(c.Peers)
	if err != nil {
		return err
	}
	c.peers = peers
	if c.Peers != "" && !slices.ContainsFunc(peers, func(p cluster.Peer) bool { return p.ID == c.NodeID }) {
		return fmt.Errorf("-raft-peers must list this node (-node-id %s) too", c.NodeID)
	}
	return nil
}
