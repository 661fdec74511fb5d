package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"switchboard/store"
)

// The webhook admin commands: inspect subscriptions and their delivery log, redeliver, and
// re-enable a subscription disabled after 5 days of failures. Like every admin command they work
// on the data file while no server holds it; a server started later sends what they queue.

func adminListSubscriptions(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "only this workspace's subscriptions")
	return a.withStore(args, func(s *store.Store) error {
		if *ws != "" {
			if _, err := s.Workspace(*ws); err != nil {
				return err
			}
		}
		subs, err := s.Subscriptions(*ws)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tWORKSPACE\tEVENT\tSTATE\tFAILING SINCE\tCREATED\tHOOK URL")
		for _, sub := range subs {
			failing := "-"
			if sub.FailingSince != nil {
				failing = store.FormatTime(*sub.FailingSince)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sub.ID, sub.WorkspaceID, sub.EventName, subState(sub),
				failing, store.FormatTime(sub.CreatedAt), sub.HookURL)
		}
		return tw.Flush()
	})
}

func subState(sub store.Subscription) string {
	if sub.Active {
		return "active"
	}
	if sub.DisabledAt != nil {
		return "disabled " + store.FormatTime(*sub.DisabledAt)
	}
	return "disabled"
}

func adminListDeliveries(a *adminEnv, args []string) error {
	subID := a.fs.String("subscription", "", "subscription id")
	limit := a.fs.Int("limit", 100, "newest deliveries to show; 0 shows every one kept (30 days)")
	attempts := a.fs.Bool("attempts", false, "list each delivery's attempts under it")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("subscription", *subID); err != nil {
			return err
		}
		if *limit < 0 {
			return fmt.Errorf("--limit must be 0 or more")
		}
		// A deleted subscription (410, unsubscribe) still has its log, so only an id that
		// names nothing at all is an error.
		ds, err := s.SubscriptionDeliveries(*subID, *limit)
		if err != nil {
			return err
		}
		if len(ds) == 0 {
			if _, err := s.FindSubscription(*subID); err != nil {
				return err
			}
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tEVENT\tSTATUS\tATTEMPTS\tLAST STATUS\tNEXT/DONE\tCREATED\tLAST ERROR")
		for _, d := range ds {
			when := store.FormatTime(d.NextAt)
			if d.DoneAt != nil {
				when = store.FormatTime(*d.DoneAt)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", d.ID, d.EventName, d.Status, d.Attempts,
				statusText(d.LastStatus), when, store.FormatTime(d.CreatedAt), oneLine(d.LastError))
			if !*attempts {
				continue
			}
			as, err := s.DeliveryAttempts(d.ID)
			if err != nil {
				return err
			}
			for _, at := range as {
				fmt.Fprintf(tw, "  attempt %s\t%s\t%s\t%dms\t\t\t\t%s\n", at.ID, store.FormatTime(at.At),
					statusText(at.StatusCode), at.LatencyMS, oneLine(firstOf(at.Error, at.Response)))
			}
		}
		return tw.Flush()
	})
}

func statusText(code int) string {
	if code == 0 {
		return "-"
	}
	return fmt.Sprint(code)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// oneLine keeps a table row on one line: a response snippet may hold anything.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

func adminRedeliver(a *adminEnv, args []string) error {
	id := a.fs.String("delivery", "", "delivery id (the webhook-id header)")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("delivery", *id); err != nil {
			return err
		}
		d, err := s.Redeliver(*id)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, d.ID)
		fmt.Fprintln(a.stderr, "queued for delivery now; a running server sends it (start one if none is running)")
		return nil
	})
}

func adminEnableSubscription(a *adminEnv, args []string) error {
	id := a.fs.String("subscription", "", "subscription id")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("subscription", *id); err != nil {
			return err
		}
		before, err := s.FindSubscription(*id)
		if err != nil {
			return err
		}
		sub, changed, err := s.EnableSubscription(*id)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, sub.ID)
		switch {
		case !changed:
			fmt.Fprintln(a.stderr, "already active; nothing changed")
		case before.Active:
			fmt.Fprintln(a.stderr, "was active; its failure record is cleared (the 5-day count starts again)")
		default:
			fmt.Fprintln(a.stderr, "enabled; deliveries cancelled while it was disabled stay cancelled (redeliver --delivery D brings one back)")
		}
		return nil
	})
}
