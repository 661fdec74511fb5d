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
	// focus is issue 36's table: the figures that still fell short, each beside its target and
	// the SQLite reference, printed again together after the full table.
	focus [][4]string
}

// focusRow adds a row to issue 36's table.
func (r *report) focusRow(figure, measured, sqlite, target string) {
	r.focus = append(r.focus, [4]string{figure, measured, sqlite, target})
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
	if len(r.focus) > 0 {
		fmt.Fprintf(w, "\nIssue 36's figures (each the worst of its runs; load average at the end: %s)\n\n", loadAvg())
		fmt.Fprintln(w, "| figure | measured | SQLite FTS5, same contacts and queries | target |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, row := range r.focus {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
		}
	}
}

// kindFigures are one query kind's worst figures over its runs, and its slowest query.
type kindFigures struct {
	p99, max time.Duration
	slowest  string
}

// focusRows adds issue 36's rows: the name prefixes' p99 and slowest query, the ratios of the
// phone-digit, no-match and two-word p99s to SQLite FTS5's, beside the rows already measured
// (create-conversation against the bare handler, bytes per contact). ours and lite hold each
// kind's figures by kind name; lite is empty when SQLite was not loaded.
func (r *report) focusRows(ours, lite map[string]kindFigures, conv, bytesPerContact, liteBytes string) {
	ref := func(name string, f func(kindFigures) string) string {
		if k, ok := lite[name]; ok {
			return f(k)
		}
		return "not measured (-sqlite=false)"
	}
	names := ours["3-letter prefix"]
	r.focusRow("contact search, 3-letter name prefixes, p99", ms(names.p99), ref("3-letter prefix", func(k kindFigures) string { return "p99 " + ms(k.p99) }), "≤ 10 ms")
	slow := ours["3-letter prefix"]
	if k := ours["1–2-letter prefix"]; k.max > slow.max {
		slow = k
	}
	liteSlow := ref("3-letter prefix", func(k kindFigures) string {
		if k2, ok := lite["1–2-letter prefix"]; ok && k2.max > k.max {
			k = k2
		}
		return fmt.Sprintf("%q %s", k.slowest, ms(k.max))
	})
	r.focusRow("slowest name-prefix query (1–3 letters, every run)", fmt.Sprintf("%q %s", slow.slowest, ms(slow.max)), liteSlow, "max ≤ 25 ms")
	for _, c := range []struct{ kind, figure, target string }{
		{"4 phone digits", "phone-digits search p99 ÷ SQLite FTS5", "≤ 1.0×"},
		{"no match", "no-match search p99 ÷ SQLite FTS5", "≤ 1.0×"},
		{"two word prefixes", "two-word search p99 ÷ SQLite FTS5", "≤ 0.2×"},
	} {
		o, l, ok := ours[c.kind], lite[c.kind], false
		if l, ok = lite[c.kind]; !ok || l.p99 <= 0 {
			r.focusRow(c.figure, "p99 "+ms(o.p99)+" (slowest "+fmt.Sprintf("%q", o.slowest)+")", "not measured", c.target)
			continue
		}
		r.focusRow(c.figure, fmt.Sprintf("%.2f× (p99 %s; slowest %q %s)", float64(o.p99)/float64(l.p99), ms(o.p99), o.slowest, ms(o.max)),
			fmt.Sprintf("p99 %s (slowest %q %s)", ms(l.p99), l.slowest, ms(l.max)), c.target)
	}
	r.focusRow("create-conversation ÷ bare net/http handler", conv, "", "≥ 0.6×")
	r.focusRow("database file ÷ contacts", bytesPerContact, liteBytes, "≤ 400 B")
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
