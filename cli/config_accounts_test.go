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
