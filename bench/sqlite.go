package main

import (
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite"

	"switchboard/internal/benchgen"
)

// ---- SQLite FTS5 ----

// sqliteSide loads the same CSV into SQLite: a contacts table and a contentless FTS5 index of
// the names, company, e-mail and every 4-digit run of the phone (prefix indexes 2–4), then runs
// the same queries in the same order (first name, last name, id; at most 100).
func sqliteSide(r *report, dir, csvPath string, n int, kinds []kind) (map[string]kindFigures, string, error) {
	figs := map[string]kindFigures{}
	bytes, err := sqliteLoad(r, dir, csvPath, n, kinds, figs)
	return figs, bytes, err
}

// sqliteLoad is sqliteSide's work: it fills figs with each kind's worst p99 over three runs (after
// one unmeasured pass, as the HTTP side does) and its slowest query, and returns the file's bytes
// per contact.
func sqliteLoad(r *report, dir, csvPath string, n int, kinds []kind, figs map[string]kindFigures) (string, error) {
	path := filepath.Join(dir, "fts.sqlite")
	_ = os.Remove(path)
	defer os.Remove(path)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`PRAGMA journal_mode=WAL`,
		`PRAGMA synchronous=NORMAL`,
		`CREATE TABLE contacts (id INTEGER PRIMARY KEY, first TEXT, last TEXT, phone TEXT, email TEXT, company TEXT, sortkey TEXT)`,
		`CREATE INDEX contacts_order ON contacts (sortkey, id)`,
		`CREATE VIRTUAL TABLE fts USING fts5 (first, last, company, email, grams, content='', prefix='2 3 4', tokenize='unicode61 remove_diacritics 2')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			return "", fmt.Errorf("%s: %w", stmt, err)
		}
	}
	f, err := os.Open(csvPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	rows, err := readCSV(f)
	if err != nil {
		return "", err
	}
	start := time.Now()
	tx, err := db.Begin()
	if err != nil {
		return "", err
	}
	ins, err := tx.Prepare(`INSERT INTO contacts (id, first, last, phone, email, company, sortkey) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return "", err
	}
	insFTS, err := tx.Prepare(`INSERT INTO fts (rowid, first, last, company, email, grams) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return "", err
	}
	for i, row := range rows {
		id := i + 1
		first, last, phone, email, company := row[0], row[1], row[2], row[3], row[4]
		sortkey := strings.ToLower(benchgen.EmailPart(first)) + "\x01" + strings.ToLower(benchgen.EmailPart(last))
		if _, err := ins.Exec(id, first, last, phone, email, company, sortkey); err != nil {
			return "", err
		}
		if _, err := insFTS.Exec(id, first, last, company, email, grams(phone)); err != nil {
			return "", err
		}
	}
	if err := tx.Commit(); err != nil {
		return "", err
	}
	load := time.Since(start)
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return "", err
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	r.row("import", "", fmt.Sprintf("%.0f rows/s load", float64(n)/load.Seconds()), "")
	liteBytes := fmt.Sprintf("%.0f B", float64(info.Size())/float64(n))
	r.row("database file ÷ contacts", "", liteBytes, "")
	q, err := db.Prepare(`SELECT c.id, c.first, c.last, c.phone, c.email, c.company FROM fts JOIN contacts c ON c.id = fts.rowid
		WHERE fts MATCH ? ORDER BY c.sortkey, c.id LIMIT 100`)
	if err != nil {
		return "", err
	}
	for _, k := range kinds {
		var f kindFigures
		var worstP50 time.Duration
		for pass := range 4 {
			var ds []time.Duration
			for _, text := range k.queries {
				m := ftsQuery(text)
				t0 := time.Now()
				if m != "" {
					rs, err := q.Query(m)
					if err != nil {
						return "", fmt.Errorf("%q: %w", m, err)
					}
					for rs.Next() {
						var id int
						var a, b, c, d, e string
						if err := rs.Scan(&id, &a, &b, &c, &d, &e); err != nil {
							return "", err
						}
					}
					rs.Close()
				}
				d := time.Since(t0)
				ds = append(ds, d)
				if pass > 0 && d > f.max {
					f.max, f.slowest = d, text
				}
			}
			if pass > 0 {
				p50, p99, _ := percentiles(ds)
				worstP50, f.p99 = max(worstP50, p50), max(f.p99, p99)
			}
		}
		figs[k.name] = f
		r.row("search "+k.name+" ("+k.example+")", "", fmt.Sprintf("worst of 3 runs: p50 %s p99 %s max %s (in process)", ms(worstP50), ms(f.p99), ms(f.max)), "")
	}
	return liteBytes, nil
}

// grams is every 4-digit run of a phone's digits, as FTS5 tokens.
func grams(phone string) string {
	d := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, phone)
	var g []string
	for i := 0; i+4 <= len(d); i++ {
		g = append(g, "g"+d[i:i+4])
	}
	return strings.Join(g, " ")
}

// ftsQuery turns a search text into an FTS5 query with Switchboard's word rules: text words are
// prefixes of a word of the names, company or e-mail; a 4-digit word is a gram of the phone.
func ftsQuery(text string) string {
	var parts []string
	for _, piece := range strings.Fields(text) {
		digits := strings.Map(func(r rune) rune {
			if strings.ContainsRune("+-().", r) {
				return -1
			}
			return r
		}, piece)
		if digits != "" && strings.Trim(digits, "0123456789") == "" {
			if len(digits) >= 4 {
				parts = append(parts, `grams:"g`+digits[:4]+`"`)
			}
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(piece), func(r rune) bool { return strings.ContainsRune(" @._-+'&/", r) }) {
			parts = append(parts, `{first last company email}:"`+strings.ReplaceAll(w, `"`, `""`)+`"*`)
		}
	}
	return strings.Join(parts, " AND ")
}

// readCSV reads the generated file's rows without its header.
func readCSV(r io.Reader) ([][]string, error) {
	cr := csv.NewReader(r)
	all, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, errors.New("empty CSV")
	}
	return all[1:], nil
}
