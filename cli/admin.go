package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
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
}

// open opens the store, refusing at once when a server holds the file.
func (a *adminEnv) open() (*store.Store, error) {
	s, err := store.Open(dbPath(*a.data), store.Options{Timeout: 200 * time.Millisecond})
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("%s is held by a running server: stop it first (a backup works while it runs: switchboard backup FILE)", dbPath(*a.data))
	}
	return s, err
}

// withStore parses args, opens the store and runs fn.
func (a *adminEnv) withStore(args []string, fn func(s *store.Store) error) error {
	if err := a.fs.Parse(args); err != nil {
		return err
	}
	s, err := a.open()
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
		"add-number":       {"--workspace W --phone +1… [--name N] [--carrier sandbox|twilio] [--rate R]", adminAddNumber},
		"list-numbers":     {"[--workspace W]", adminListNumbers},
		"list-workspaces":  {"", adminListWorkspaces},
		"list-users":       {"", adminListUsers},
		"set-workspace":    {"--workspace W [--name N] [--time-zone Z] [--quiet-hours HH:MM-HH:MM|off] [--retention-days D] [--stop-reply T] [--start-reply T] [--help-reply T] [--voice-greeting T]", adminSetWorkspace},
		"create-group":     {"--workspace W --name N", adminCreateGroup},
		"add-to-group":     {"--workspace W --group G --phone +1…", adminAddToGroup},
		"remove-member":    {"--workspace W --user U", adminRemoveMember}, // admin_members.go
		"add-property":     {"--workspace W --name N --type text|number|boolean|date", adminAddProperty},
		"create-token":     {"--user U [--name N]", adminCreateToken},
		"revoke-token":     {"--token T", adminRevokeToken},
		"import-contacts":  {"--workspace W FILE.csv", adminImportContacts},
		"compact":          {"", adminCompact},

		// Accounts (admin_accounts.go).
		"reset-password": {"--user U [--password-stdin] [--base-url URL]", adminResetPassword},
		"reset-2fa":      {"--user U", adminReset2FA},
		"test-email":     {"--to ADDR [-smtp-url URL -smtp-from F]", adminTestEmail},

		// Webhooks (admin_webhooks.go).
		"list-subscriptions":  {"[--workspace W]", adminListSubscriptions},
		"list-deliveries":     {"--subscription S [--limit N] [--attempts]", adminListDeliveries},
		"redeliver":           {"--delivery D", adminRedeliver},
		"enable-subscription": {"--subscription S", adminEnableSubscription},

		// OAuth clients and grants (admin_oauth.go).
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
	env := &adminEnv{fs: fs, data: dataFlag(fs), stdin: os.Stdin, stdout: stdout, stderr: stderr}
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

func adminCreateUser(a *adminEnv, args []string) error {
	email := a.fs.String("email", "", "email address (sign-in name)")
	name := a.fs.String("name", "", "display name")
	password := a.fs.String("password", "", "password (8 to 72 bytes); empty: no password sign-in")
	fromStdin := a.fs.Bool("password-stdin", false, "read the password from standard input (not kept in shell history)")
	super := a.fs.Bool("superuser", false, "may administer everything")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("email", *email, "name", *name); err != nil {
			return err
		}
		if *fromStdin {
			if *password != "" {
				return errors.New("--password and --password-stdin exclude each other")
			}
			p, err := readPassword(a.stdin)
			if err != nil {
				return err
			}
			*password = p
		}
		u, err := s.CreateUser(store.NewUser{Email: *email, Name: *name, Password: *password, Superuser: *super})
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, u.ID)
		return nil
	})
}

func adminCreateWorkspace(a *adminEnv, args []string) error {
	name := a.fs.String("name", "", "workspace name")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("name", *name); err != nil {
			return err
		}
		w, err := s.CreateWorkspace(*name)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, w.ID)
		return nil
	})
}

func adminAddMember(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	user := a.fs.String("user", "", "user id")
	role := a.fs.String("role", "member", "member or admin")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "user", *user); err != nil {
			return err
		}
		if *role != "member" && *role != "admin" {
			return fmt.Errorf("--role must be member or admin")
		}
		m, err := s.AddMember(*ws, *user, *role)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, m.ID)
		return nil
	})
}

func adminAddNumber(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	phone := a.fs.String("phone", "", "E.164 number, e.g. +14155550100")
	name := a.fs.String("name", "", "label shown in dropdowns")
	carrierName := a.fs.String("carrier", "", "sandbox or twilio (default $SWITCHBOARD_CARRIER, else sandbox)")
	rate := a.fs.String("rate", "", "messages per second, 0 = unlimited (default: the server's -send-rate; sandbox: unlimited)")
	var tw twilioConfig
	twilioFlags(a.fs, &tw)
	if err := applyEnv(a.fs); err != nil {
		return err
	}
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "phone", *phone); err != nil {
			return err
		}
		in := store.NumberInput{Phone: *phone, Name: *name, Carrier: *carrierName}
		if in.Carrier == "" {
			in.Carrier = os.Getenv(envName("carrier"))
		}
		if in.Carrier == store.ProviderTwilio && !tw.configured() {
			return fmt.Errorf("--carrier twilio needs the Twilio credentials: set SWITCHBOARD_TWILIO_ACCOUNT_SID and SWITCHBOARD_TWILIO_AUTH_TOKEN (or --twilio-account-sid and --twilio-auth-token), as for serve")
		}
		if *rate != "" {
			r, err := strconv.ParseFloat(*rate, 64)
			if err != nil {
				return fmt.Errorf("--rate %q is not a number of messages per second", *rate)
			}
			in.Rate = &r
		}
		n, err := s.CreateNumber(*ws, in)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, n.ID)
		return nil
	})
}

// adminListNumbers prints one tab-separated row per number: id, workspace, phone, name, carrier,
// rate ("default" when the server's -send-rate applies), active or inactive.
func adminListNumbers(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "only this workspace's numbers")
	return a.withStore(args, func(s *store.Store) error {
		var list []store.PhoneNumber
		var err error
		if *ws != "" {
			if _, err := s.Workspace(*ws); err != nil {
				return err
			}
			list, err = s.Numbers(*ws)
		} else {
			list, err = s.AllNumbers()
		}
		if err != nil {
			return err
		}
		for _, n := range list {
			rate := "default"
			if n.Rate != nil {
				rate = strconv.FormatFloat(*n.Rate, 'f', -1, 64)
			}
			state := "active"
			if !n.Active {
				state = "inactive"
			}
			fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n.ID, n.WorkspaceID, n.Phone, n.Name, n.CarrierName(), rate, state)
		}
		return nil
	})
}

// adminListWorkspaces prints one tab-separated row per workspace: id, name.
func adminListWorkspaces(a *adminEnv, args []string) error {
	return a.withStore(args, func(s *store.Store) error {
		list, err := s.Workspaces()
		if err != nil {
			return err
		}
		for _, w := range list {
			fmt.Fprintf(a.stdout, "%s\t%s\n", w.ID, w.Name)
		}
		return nil
	})
}

// adminListUsers prints one tab-separated row per user: id, email, name, superuser or user.
func adminListUsers(a *adminEnv, args []string) error {
	return a.withStore(args, func(s *store.Store) error {
		list, err := s.Users()
		if err != nil {
			return err
		}
		for _, u := range list {
			kind := "user"
			if u.Superuser {
				kind = "superuser"
			}
			fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\n", u.ID, u.Email, u.Name, kind)
		}
		return nil
	})
}

// adminSetWorkspace changes a workspace's settings; only the flags given change. A reply set to
// "" sends no reply.
func adminSetWorkspace(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	var in store.WorkspaceSettings
	optional := func(name, usage string, dst **string) {
		a.fs.Func(name, usage, func(v string) error { *dst = &v; return nil })
	}
	optional("name", "new name", &in.Name)
	optional("stop-reply", `reply to STOP (default "<workspace>: you are unsubscribed…"; "" sends none)`, &in.StopReply)
	optional("start-reply", `reply to START ("" sends none)`, &in.StartReply)
	optional("help-reply", `reply to HELP ("" sends none)`, &in.HelpReply)
	optional("voice-greeting", "what callers hear", &in.VoiceGreeting)
	optional("time-zone", "IANA time zone of contacts whose own is unknown, e.g. America/New_York", &in.TimeZone)
	optional("quiet-hours", "HH:MM-HH:MM (e.g. 21:00-08:00) when broadcast copies wait, in each contact's time zone; off to turn off", &in.QuietHours)
	a.fs.Func("retention-days", "delete messages older than this many days (0 keeps them)", func(v string) error {
		d, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not a whole number of days", v)
		}
		in.RetentionDays = &d
		return nil
	})
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws); err != nil {
			return err
		}
		if in == (store.WorkspaceSettings{}) {
			return fmt.Errorf("give a setting to change: --name, --time-zone, --quiet-hours, --retention-days or a reply text")
		}
		w, err := s.UpdateWorkspace(*ws, in)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, w.ID)
		return nil
	})
}

// adminCreateGroup prints the new group's id.
func adminCreateGroup(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	name := a.fs.String("name", "", "group name (unique in the workspace)")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "name", *name); err != nil {
			return err
		}
		g, err := s.CreateGroup(*ws, *name)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, g.ID)
		return nil
	})
}

// adminAddToGroup puts the contact of a phone (created when missing) into a group given by id or
// name (created when no group has that name) and prints the contact's id.
func adminAddToGroup(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	group := a.fs.String("group", "", "group id or name")
	phone := a.fs.String("phone", "", "E.164 number of the contact")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "group", *group, "phone", *phone); err != nil {
			return err
		}
		name := *group
		if g, err := s.Group(*ws, *group); err == nil {
			name = g.Name
		}
		c, _, err := s.AddToGroup(*ws, name, *phone)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, c.ID)
		return nil
	})
}

func adminAddProperty(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	name := a.fs.String("name", "", "property name (letters, digits, _)")
	typ := a.fs.String("type", "", "text, number, boolean or date")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "name", *name, "type", *typ); err != nil {
			return err
		}
		p, err := s.AddProperty(*ws, *name, *typ)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, p.ID)
		return nil
	})
}

func adminCreateToken(a *adminEnv, args []string) error {
	user := a.fs.String("user", "", "user id the token acts as")
	name := a.fs.String("name", "", "a label for the token")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("user", *user); err != nil {
			return err
		}
		_, plain, err := s.CreateToken(*user, *name)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, plain)
		return nil
	})
}

func adminRevokeToken(a *adminEnv, args []string) error {
	token := a.fs.String("token", "", "the token to revoke")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("token", *token); err != nil {
			return err
		}
		t, err := s.RevokeToken(*token)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, t.ID)
		return nil
	})
}

func adminImportContacts(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws); err != nil {
			return err
		}
		if a.fs.NArg() != 1 {
			return fmt.Errorf("give exactly one CSV file after the flags")
		}
		f, err := os.Open(a.fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		// An import is a batch job that allocates a little per row and keeps little: a higher
		// collection target trades some memory for fewer collections (a quarter of an import's
		// CPU at the default).
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		start := time.Now()
		rep, err := s.ImportContacts(*ws, f, func(p store.ImportProgress) {
			fmt.Fprintf(a.stderr, "\rimported %d rows (%s)", p.Rows, time.Since(start).Round(time.Second))
		})
		fmt.Fprintln(a.stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "imported %d, updated %d, rejected %d\n", rep.Imported, rep.Updated, rep.Rejected)
		for _, e := range rep.Errors {
			fmt.Fprintf(a.stdout, "line %d: %s\n", e.Line, e.Reason)
		}
		return nil
	})
}

// adminCompact rewrites the database file with bbolt's compaction while no server holds it.
func adminCompact(a *adminEnv, args []string) error {
	if err := a.fs.Parse(args); err != nil {
		return err
	}
	if a.fs.NArg() != 0 {
		return fmt.Errorf("compact takes no arguments")
	}
	path := dbPath(*a.data)
	if _, err := os.Stat(path); err != nil {
		return err
	}
	rep, err := store.Compact(path, 200*time.Millisecond)
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("%s is held by a running server: stop it first", path)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "compacted %s: %d → %d bytes\n", path, rep.Before, rep.After)
	return nil
}
