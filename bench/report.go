package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	_ "modernc.org/sqlite"
)

// ---- reporting ----

type timed struct {
	what string
	d    time.Duration
}

type report struct {
	cores int
	n     int
	rows  [][4]string
	notes []string
}

func (r *report) row(figure, measured, sqlite, target string) {
	for i := range r.rows {
		if r.rows[i][0] == figure {
			if measured != "" {
				r.rows[i][1] = measured
			}
			if sqlite != "" {
				r.rows[i][2] = sqlite
			}
			return
		}
	}
	r.rows = append(r.rows, [4]string{figure, measured, sqlite, target})
}

func (r *report) note(s string) { r.notes = append(r.notes, s) }

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "\nSwitchboard, %d contacts, %d cores, %s\n\n", r.n, r.cores, runtime.Version())
	fmt.Fprintln(w, "| figure | measured | SQLite FTS5, same contacts and queries | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, row := range r.rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
	}
	fmt.Fprintln(w)
	for _, n := range r.notes {
		fmt.Fprintln(w, n)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func percentiles(ds []time.Duration) (p50, p99, maxd time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return at(0.50), at(0.99), s[len(s)-1]
}
