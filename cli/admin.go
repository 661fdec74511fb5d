package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"switchboard/store"
)

// adminCommand is one `switchboard admin NAME`: it parses its own flags, works on the data
// file while no server holds it, prints what it created alone on stdout.
type adminCommand struct {
	usage string
	run   func(a *adminEnv, args []string) error
}

// adminEnv is what every admin command gets: its flag set (with -data) and the output streams.
type adminEnv struct {
	fs     *flag.FlagSet
	data   *string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// argv is the command line after `admin`, for a run through the server holding the file.
	argv []string
	// live is the running server's store when the server runs the command (adminLive).
	live *store.Store
}

// errHeld says a server holds the file: the command runs through it (runThroughServer).
var errHeld = errors.New("held by a running server")

// open opens the store; errHeld when a server holds the file.
func (a *adminEnv) open() (*store.Store, error) {
	s, err := openStore(*a.data, store.Options{Timeout: 200 * time.Millisecond})
	if errors.Is(err, store.ErrLocked) {
		return nil, errHeld
	}
	return s, err
}

// withStore parses args, opens the store and runs fn. When a server holds the file (one node,
// or a node of a cluster), the server runs the command on its own store, so the command works
// while it serves and, in a cluster, writes through the leader.
func (a *adminEnv) withStore(args []string, fn func(s *store.Store) error) error {
	if err := a.fs.Parse(args); err != nil {
		return err
	}
	if a.live != nil {
		return fn(a.live)
	}
	s, err := a.open()
	if errors.Is(err, errHeld) {
		return a.runThroughServer()
	}
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

// required fails when any named flag value is empty.
func required(pairs ...string) error {
	var missing []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.TrimSpace(pairs[i+1]) == "" {
			missing = append(missing, "--"+pairs[i])
		}
	}
	if missing != nil {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return nil
}

func adminCommands() map[string]adminCommand {
	return map[string]adminCommand{
		"create-user":      {"--email E --name N [--password P | --password-stdin] [--superuser]", adminCreateUser},
		"create-workspace": {"--name N", adminCreateWorkspace},
		"add-member":       {"--workspace W --user U", adminAddMember},
		"add-number":       {"--workspace W --phone +1… [--name N] [--carrier sandbox|twilio|telnyx] [--rate R] [--daily-cap N] [--type T] [--registration S] [--brand-id B] [--campaign-id C] [--verification-id V]", adminAddNumber},
		"set-number":       {"[--workspace W] (--number ID|+1… | --phone +1…) [--daily-cap N] [--type local|toll-free|short-code] [--registration unregistered|pending|approved|rejected] [--brand-id B] [--campaign-id C] [--verification-id V] [--teams ID,ID] [--default-team ID] [--default-assignee USER]", adminSetNumber},
		"list-numbers":     {"[--workspace W]", adminListNumbers},
		"list-workspaces":  {"", adminListWorkspaces},
		"list-users":       {"", adminListUsers},
		"set-workspace":    {"--workspace W [--name N] [--country CC] [--time-zone Z] [--quiet-hours HH:MM-HH:MM|off] [--state-hours on|off] [--assist on|off] [--retention-days D] [--stop-reply T] [--start-reply T] [--help-reply T] [--voice-greeting T] [--first-response 15m|0 [--first-response-hours business|all]]", adminSetWorkspace},
		"create-group":     {"--workspace W --name N", adminCreateGroup},
		"add-to-group":     {"--workspace W --group G --phone +1…", adminAddToGroup},
		"remove-member":    {"--workspace W --user U", adminRemoveMember},
		"add-property":     {"--workspace W --name N --type text|number|boolean|date", adminAddProperty},
		"create-token":     {"--user U [--name N]", adminCreateToken},
		"revoke-token":     {"--token T", adminRevokeToken},
		"import-contacts":  {"--workspace W FILE.csv", adminImportContactsAny},
		"export-contacts":  {"--workspace W", adminExportContacts},
		"compact":          {"", adminCompact},

		// Routing and automations.
		"set-hours":        {`--workspace W [--number ID] --week "mon-fri 09:00-17:00; sat 10:00-13:00" [--holidays 2026-12-25,2027-01-01]`, adminSetHours},
		"set-auto-reply":   {"--workspace W [--number ID] [--after-hours TEXT] [--greeting TEXT]", adminSetAutoReply},
		"create-team":      {"--workspace W --name N --members ID,ID [--assign off|round-robin|least-busy] [--capacity 20]", adminCreateTeam},
		"add-rule":         {"--workspace W --file rule.json", adminAddRule},
		"set-availability": {"--user ID available|away", adminSetAvailability},

		// Accounts: password and two-factor resets, the e-mail check.
		"reset-password": {"--user U [--password-stdin] [--base-url URL]", adminResetPassword},
		"reset-2fa":      {"--user U", adminReset2FA},
		"test-email":     {"--to ADDR [-smtp-url URL -smtp-from F]", adminTestEmail},

		// Webhooks: subscriptions and their deliveries.
		"list-subscriptions":  {"[--workspace W]", adminListSubscriptions},
		"list-deliveries":     {"--subscription S [--limit N] [--attempts]", adminListDeliveries},
		"redeliver":           {"--delivery D", adminRedeliver},
		"enable-subscription": {"--subscription S", adminEnableSubscription},

		// OAuth clients and grants.
		"create-oauth-client": {"--name N --redirect-uri U [--redirect-uri U2] [--public]", adminCreateOAuthClient},
		"list-oauth-clients":  {"", adminListOAuthClients},
		"delete-oauth-client": {"--client C", adminDeleteOAuthClient},
		"rotate-oauth-secret": {"--client C", adminRotateOAuthSecret},
		"list-grants":         {"--user U", adminListGrants},
		"revoke-grant":        {"--grant G", adminRevokeGrant},
	}
}

func admin(args []string, stdout, stderr io.Writer) error {
	cmds := adminCommands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		names := make([]string, 0, len(cmds))
		for n := range cmds {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(stdout, "Usage: switchboard admin COMMAND [-data DIR] [flags]")
		for _, n := range names {
			fmt.Fprintf(stdout, "  %-22s %s\n", n, cmds[n].usage)
		}
		if len(args) == 0 {
			return ErrUsage
		}
		return nil
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		return fmt.Errorf("unknown admin command %q (see 'switchboard admin help')", args[0])
	}
	fs := flag.NewFlagSet("admin "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: switchboard admin %s [-data DIR] %s\n", args[0], cmd.usage)
		fs.PrintDefaults()
	}
	env := &adminEnv{fs: fs, data: dataFlag(fs), stdin: os.Stdin, stdout: stdout, stderr: stderr, argv: args}
	err := cmd.run(env, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return describe(err)
}

// describe turns validation errors into one readable line per field.
func describe(err error) error {
	var verrs store.ValidationError
	if errors.As(err, &verrs) {
		parts := make([]string, len(verrs))
		for i, e := range verrs {
			parts[i] = "--" + e.Field + " " + e.Message
		}
		return errors.New(strings.Join(parts, "; "))
	}
	return err
}
