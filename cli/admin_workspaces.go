package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"switchboard/store"
)

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
	optional("country", "ISO 3166-1 alpha-2 code (e.g. US, GB): the admin UI reads and shows numbers in its national format", &in.Country)
	optional("quiet-hours", "HH:MM-HH:MM (e.g. 21:00-08:00) when broadcast copies wait, in each contact's time zone; off to turn off", &in.QuietHours)
	a.fs.Func("state-hours", "on or off: broadcast copies to US numbers wait outside the calling hours of the recipient's state", func(v string) error {
		on, err := parseOnOff(v)
		in.StateHours = &on
		return err
	})
	var firstResponse *int
	frHours := ""
	a.fs.Func("first-response", "first-response target, e.g. 15m (0 turns it off): conversations not answered in time are Overdue", func(v string) error {
		n, err := parseFirstResponse(v)
		firstResponse = &n
		return err
	})
	a.fs.Func("first-response-hours", "how the first-response target counts: business (business hours only, the default) or all", func(v string) error {
		frHours = v
		return nil
	})
	a.fs.Func("assist", "on or off: members may send this workspace's conversations to the server's model (-assist-url) for drafts", func(v string) error {
		on, err := parseOnOff(v)
		in.Assist = &on
		return err
	})
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
		if in == (store.WorkspaceSettings{}) && firstResponse == nil && frHours == "" {
			return fmt.Errorf("give a setting to change: --name, --country, --time-zone, --quiet-hours, --state-hours, --retention-days, --assist, --first-response or a reply text")
		}
		if frHours != "" && firstResponse == nil {
			rt, err := s.RoutingOf(*ws)
			if err != nil {
				return err
			}
			firstResponse = &rt.FirstResponse
		}
		if firstResponse != nil {
			if _, err := s.SetFirstResponse(*ws, *firstResponse, frHours); err != nil {
				return err
			}
		}
		if in == (store.WorkspaceSettings{}) {
			fmt.Fprintln(a.stdout, *ws)
			return nil
		}
		w, err := s.UpdateWorkspace(*ws, in)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, w.ID)
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

// parseOnOff reads an on|off flag value (also true/false, yes/no, 1/0).
func parseOnOff(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q: must be on or off", v)
}
