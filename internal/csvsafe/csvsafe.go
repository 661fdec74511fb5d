// Package csvsafe writes CSV that a spreadsheet opens as data, never as formulas. Every CSV the
// product hands out (contact and message exports, the import's error file) holds text that
// customers, API callers or uploaded files chose; a cell that a spreadsheet would read as a
// formula (=HYPERLINK(…), a DDE call) is written with a leading apostrophe, as OWASP's CSV
// injection advice says. Numbers and phone numbers (+14155550123, -12.5), which can name no
// function or cell, stay as they are, so exported phones read back unchanged.
package csvsafe

import (
	"encoding/csv"
	"io"
	"strings"
)

// triggers are the first characters that make a spreadsheet read a cell as a formula.
const triggers = "=+-@\t\r"

// numeric is what a cell may hold and still be a plain number or phone number.
const numeric = "0123456789+-.,() "

// Cell is s as a spreadsheet will take it as text: s itself, or s behind an apostrophe when it
// starts like a formula and is not just a number.
func Cell(s string) string {
	if s == "" || !strings.ContainsRune(triggers, rune(s[0])) {
		return s
	}
	if s[0] == '+' || s[0] == '-' {
		if strings.ContainsAny(s, "0123456789") && !strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune(numeric, r) }) {
			return s
		}
	}
	return "'" + s
}

// Writer is a csv.Writer whose every cell goes through Cell.
type Writer struct {
	w   *csv.Writer
	buf []string
}

// NewWriter writes comma-separated records to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: csv.NewWriter(w)} }

// Write writes one record, its cells neutralised; record itself is not changed.
func (w *Writer) Write(record []string) error {
	w.buf = w.buf[:0]
	for _, c := range record {
		w.buf = append(w.buf, Cell(c))
	}
	return w.w.Write(w.buf)
}

// Flush writes what is buffered to the underlying writer.
func (w *Writer) Flush() { w.w.Flush() }

// Error is the first error of a Write or Flush.
func (w *Writer) Error() error { return w.w.Error() }
