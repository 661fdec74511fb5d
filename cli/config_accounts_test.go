package cli

import (
	"flag"
	"io"
	"testing"
)

func TestMaxConnectionsFlag(t *testing.T) {
	parse := func(args ...string) (config, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		return parseServeConfig(args, fs)
	}
	c, err := parse()
	if err != nil || c.MaxConnections != 10_000 || c.RequireTwoFactor {
		t.Fatalf("defaults: %+v %v, want 10000 connections and no 2FA requirement", c.MaxConnections, err)
	}
	if c, err = parse("-max-connections", "50", "-require-2fa"); err != nil || c.MaxConnections != 50 || !c.RequireTwoFactor {
		t.Fatalf("flags: %d %v %v", c.MaxConnections, c.RequireTwoFactor, err)
	}
	if _, err := parse("-max-connections", "0"); err == nil {
		t.Fatal("expected -max-connections 0 to be refused")
	}
}

// TestClientBoundFlags: the per-client connection and per-session and per-user stream bounds
// have safe defaults, read SWITCHBOARD_* variables, take 0 for no bound and refuse negatives.
func TestClientBoundFlags(t *testing.T) {
	parse := func(args ...string) (config, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		return parseServeConfig(args, fs)
	}
	c, err := parse()
	if err != nil || c.MaxConnsPerIP != 256 || c.MaxStreamsPerSession != 10 || c.MaxStreamsPerUser != 30 {
		t.Fatalf("defaults: %d %d %d %v, want 256 connections per client, 10 streams per session, 30 per user",
			c.MaxConnsPerIP, c.MaxStreamsPerSession, c.MaxStreamsPerUser, err)
	}
	t.Setenv("SWITCHBOARD_MAX_CONNS_PER_IP", "0")
	t.Setenv("SWITCHBOARD_MAX_STREAMS_PER_USER", "5")
	if c, err = parse("-max-streams-per-session", "0"); err != nil || c.MaxConnsPerIP != 0 || c.MaxStreamsPerSession != 0 || c.MaxStreamsPerUser != 5 {
		t.Fatalf("env and flags: %d %d %d %v", c.MaxConnsPerIP, c.MaxStreamsPerSession, c.MaxStreamsPerUser, err)
	}
	if streamBound(0) >= 0 || streamBound(7) != 7 {
		t.Fatal("a stream flag of 0 must lift the bound in web's terms")
	}
	if _, err := parse("-max-conns-per-ip", "-1"); err == nil {
		t.Fatal("expected -max-conns-per-ip -1 to be refused")
	}
}
