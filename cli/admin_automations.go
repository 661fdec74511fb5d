package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"switchboard/store"
)

// Headless set-up of routing and automations: business hours, automatic replies, teams, rules
// and availability (the number's access is set-number's, the first-response target
// set-workspace's).

// adminSetHours sets the business hours of a workspace, or of one of its numbers (--number),
// and prints the workspace's or number's id, the week and the holidays as stored, tab-separated.
// A flag not given keeps its value; --week "" is always open.
func adminSetHours(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	number := a.fs.String("number", "", "a number's id or phone: its own hours instead of the workspace's")
	var week, holidays *string
	a.fs.Func("week", `weekly hours, e.g. "mon-fri 09:00-17:00; sat 10:00-13:00" ("" is always open)`, func(v string) error { week = &v; return nil })
	a.fs.Func("holidays", "dates closed all day, e.g. 2026-12-25,2027-01-01 (\"\" for none)", func(v string) error { holidays = &v; return nil })
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws); err != nil {
			return err
		}
		if week == nil && holidays == nil {
			return fmt.Errorf("give --week, --holidays or both")
		}
		rt, err := s.RoutingOf(*ws)
		if err != nil {
			return err
		}
		id, current := *ws, rt.Hours
		if *number != "" {
			n, err := findNumber(s, *ws, *number)
			if err != nil {
				return err
			}
			id, current = n.ID, rt.HoursOf(n.ID)
		}
		in := store.HoursInput{Week: current.Week.String(), Holidays: strings.Join(current.Holidays, ",")}
		if week != nil {
			in.Week = *week
		}
		if holidays != nil {
			in.Holidays = *holidays
		}
		numberID := ""
		if id != *ws {
			numberID = id
		}
		h, err := s.SetHours(*ws, numberID, &in)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s\t%s\t%s\n", id, h.Week.String(), strings.Join(h.Holidays, ","))
		return nil
	})
}

// adminSetAutoReply sets the after-hours reply and the greeting of a workspace, or of one of
// its numbers (--number); an empty text turns one off, a flag not given keeps it. It prints
// the workspace's or number's id.
func adminSetAutoReply(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	number := a.fs.String("number", "", "a number's id or phone: its own replies instead of the workspace's")
	var after, greeting *string
	a.fs.Func("after-hours", "the reply to the first text of a closed period, with merge tags and {{nextOpen}} (\"\" turns it off)",
		func(v string) error { after = &v; return nil })
	a.fs.Func("greeting", "the reply to the first text from a number never seen before (\"\" turns it off)",
		func(v string) error { greeting = &v; return nil })
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws); err != nil {
			return err
		}
		if after == nil && greeting == nil {
			return fmt.Errorf("give --after-hours, --greeting or both")
		}
		id, numberID := *ws, ""
		if *number != "" {
			n, err := findNumber(s, *ws, *number)
			if err != nil {
				return err
			}
			id, numberID = n.ID, n.ID
		}
		if _, err := s.SetAutoReplies(*ws, numberID, after, greeting, false); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, id)
		return nil
	})
}

// adminCreateTeam adds a team and prints its id.
func adminCreateTeam(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	name := a.fs.String("name", "", "team name (unique in the workspace)")
	members := a.fs.String("members", "", "user ids (or e-mails) of members, comma-separated")
	assign := a.fs.String("assign", store.AssignOff, "auto-assignment: off, round-robin or least-busy")
	capacity := a.fs.Int("capacity", store.DefaultCapacity, "open conversations a member holds before auto-assignment passes them by")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "name", *name); err != nil {
			return err
		}
		ids, err := userIDs(s, *members)
		if err != nil {
			return err
		}
		t, err := s.CreateTeam(*ws, store.TeamInput{Name: *name, Members: ids, Assign: *assign, Capacity: *capacity})
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, t.ID)
		return nil
	})
}

// userIDs reads a comma-separated list of user ids or e-mails as user ids.
func userIDs(s *store.Store, list string) ([]string, error) {
	var out []string
	for _, v := range splitComma(list) {
		if strings.Contains(v, "@") {
			u, err := s.UserByEmail(v)
			if err != nil {
				return nil, fmt.Errorf("no user with the e-mail %s", v)
			}
			v = u.ID
		}
		out = append(out, v)
	}
	return out, nil
}

func splitComma(list string) []string {
	var out []string
	for _, v := range strings.Split(list, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// teamIDs reads a comma-separated list of team ids or names of the workspace as team ids.
func teamIDs(rt store.Routing, list string) []string {
	var out []string
	for _, v := range splitComma(list) {
		for _, t := range rt.Teams {
			if strings.EqualFold(t.Name, v) {
				v = t.ID
			}
		}
		out = append(out, v)
	}
	return out
}

// adminAddRule adds the rule a JSON file describes (the rule JSON; "-" reads standard input)
// and prints its id. A document that breaks the rule's shapes is refused with each field named.
func adminAddRule(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	file := a.fs.String("file", "", "the rule's JSON file (- for standard input)")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "file", *file); err != nil {
			return err
		}
		var doc []byte
		var err error
		if *file == "-" {
			doc, err = io.ReadAll(io.LimitReader(a.stdin, 1<<20))
		} else {
			doc, err = os.ReadFile(*file)
		}
		if err != nil {
			return err
		}
		r, err := s.AddRuleJSON(*ws, doc)
		var verrs store.ValidationError
		if errors.As(err, &verrs) {
			parts := make([]string, len(verrs))
			for i, e := range verrs {
				parts[i] = e.Field + ": " + e.Message
			}
			return fmt.Errorf("%s: %s", *file, strings.Join(parts, "; "))
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, r.ID)
		return nil
	})
}

// adminSetAvailability records a user's availability (available or away) and prints it.
func adminSetAvailability(a *adminEnv, args []string) error {
	user := a.fs.String("user", "", "user id or e-mail")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("user", *user); err != nil {
			return err
		}
		if a.fs.NArg() != 1 {
			return fmt.Errorf("give the availability: available or away")
		}
		ids, err := userIDs(s, *user)
		if err != nil {
			return err
		}
		if len(ids) != 1 {
			return fmt.Errorf("give one user to --user")
		}
		state := strings.ToLower(a.fs.Arg(0))
		if err := s.SetAvailability(ids[0], state); err != nil {
			var verrs store.ValidationError
			if errors.As(err, &verrs) {
				return fmt.Errorf("%q: the availability is available or away", a.fs.Arg(0))
			}
			return err
		}
		fmt.Fprintln(a.stdout, state)
		return nil
	})
}

// parseFirstResponse reads --first-response: a duration of whole minutes (15m, 1h30m), or a
// number of minutes; 0 turns the target off.
func parseFirstResponse(v string) (int, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("%q: the target is 0 (off) or more minutes", v)
		}
		return n, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d%time.Minute != 0 {
		return 0, fmt.Errorf("%q is not a target in whole minutes: write e.g. 15m, 1h30m or 0 (off)", v)
	}
	return int(d / time.Minute), nil
}
