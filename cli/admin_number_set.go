package cli

import (
	"fmt"
	"strconv"
	"strings"

	"switchboard/store"
)

// numberChanges are the settings `admin set-number` changes; nil fields stay as they are. Each
// setting is one field here and one line in numberChangeFlags.
type numberChanges struct {
	DailyCap *int
}

func numberChangeFlags(a *adminEnv, c *numberChanges) {
	a.fs.Func("daily-cap", dailyCapUsage, func(v string) error {
		n, err := parseDailyCap(v)
		c.DailyCap = &n
		return err
	})
}

const dailyCapUsage = "texts the number may send per day of the workspace's time zone; broadcast copies beyond it wait for the next day (0 = no cap)"

// parseDailyCap reads --daily-cap: a whole number, 0 or more.
func parseDailyCap(v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number of texts a day (0 = no cap)", v)
	}
	if msg := store.CheckDailyCap(n); msg != "" {
		return 0, fmt.Errorf("%d: %s", n, msg)
	}
	return n, nil
}

// adminSetNumber changes a number's settings; --number is its phone (E.164) or its id.
func adminSetNumber(a *adminEnv, args []string) error {
	number := a.fs.String("number", "", "the number's phone (E.164, e.g. +14155550100) or id")
	var c numberChanges
	numberChangeFlags(a, &c)
	return a.withStore(args, func(s *store.Store) error {
		if err := required("number", *number); err != nil {
			return err
		}
		if c == (numberChanges{}) {
			return fmt.Errorf("give a setting to change: --daily-cap")
		}
		all, err := s.AllNumbers()
		if err != nil {
			return err
		}
		want := strings.TrimSpace(*number)
		var n *store.PhoneNumber
		for i := range all {
			if all[i].Phone == want || all[i].ID == want {
				n = &all[i]
			}
		}
		if n == nil {
			return fmt.Errorf("no number %s in any workspace (list them with list-numbers)", want)
		}
		if c.DailyCap != nil {
			if _, err := s.SetNumberDailyCap(n.WorkspaceID, n.ID, *c.DailyCap); err != nil {
				return err
			}
		}
		fmt.Fprintln(a.stdout, n.ID)
		return nil
	})
}
