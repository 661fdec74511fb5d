package cli

import (
	"fmt"
	"strconv"
	"strings"

	"switchboard/store"
)

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
