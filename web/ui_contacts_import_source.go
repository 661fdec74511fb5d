package web

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// importSource reads an uploaded import file record by record, as the mapping's preview, the
// import and its error file see it: each record with its data row (1 = the first after the
// header), the line of the file it starts on, its cells as written, and what is wrong with its
// shape, in words a person can act on.
//
// Quotes are read leniently (a quote inside an unquoted cell, as in Robert "Bob" Smith, is
// kept as written), but a quote that opens a cell and is not closed on its line swallows the
// lines after it into that cell: such a record is found by reading its bytes again strictly,
// and refused with the lines it ran over, instead of importing the next rows as part of a name.
//
// It reads through the upload's bounds: a row longer than maxImportRow is errRowTooLong.
type importSource struct {
	f      *os.File
	ir     *importReader
	cr     *csv.Reader // ir's
	header []string
	row    int
	end    int64 // the reader's offset after the last record
}

// sourceRecord is one record of an import file.
type sourceRecord struct {
	row, line int
	cells     []string
	problem   string // "" when the record has the header's shape
}

// importReadAhead is the buffer an uploaded file is read through.
const importReadAhead = 1 << 16

// newImportReader reads an uploaded file: its BOM skipped, any field count (a short row is the
// row's error, not the file's), each row within maxImportRow.
func newImportReader(r io.Reader, delim rune) *importReader {
	lim := &rowLimit{r: r}
	br := bufio.NewReaderSize(lim, importReadAhead)
	ir := &importReader{lim: lim}
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		_, _ = br.Discard(3)
		ir.bom = 3
	}
	ir.cr = csv.NewReader(br)
	ir.cr.Comma, ir.cr.FieldsPerRecord, ir.cr.LazyQuotes = delim, -1, true
	return ir
}

// openImportSource reads f from its start: its header, and then its records through next.
func openImportSource(f *os.File, delim rune) (*importSource, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	s := &importSource{f: f, ir: newImportReader(f, delim)}
	s.cr = s.ir.cr
	header, err := s.ir.Read()
	if err != nil {
		return nil, err
	}
	s.header = make([]string, len(header))
	for i, h := range header {
		s.header[i] = strings.TrimSpace(h)
	}
	s.end = s.cr.InputOffset()
	return s, nil
}

// next is the file's next record; io.EOF after the last, errRowTooLong for a row over the bound,
// another error when the file cannot be read.
func (s *importSource) next() (sourceRecord, error) {
	start := s.end
	rec, err := s.ir.Read()
	if errors.Is(err, io.EOF) {
		return sourceRecord{}, io.EOF
	}
	var perr *csv.ParseError
	if err != nil && !errors.As(err, &perr) {
		return sourceRecord{}, err
	}
	s.end = s.cr.InputOffset()
	s.row++
	r := sourceRecord{row: s.row, cells: append([]string(nil), rec...)}
	if perr != nil {
		r.line = perr.StartLine
		r.problem = "is not valid CSV: " + perr.Err.Error()
		return r, nil
	}
	r.line, _ = s.cr.FieldPos(0)
	if i := s.openQuote(rec, start); i >= 0 {
		last, _ := s.cr.FieldPos(len(rec) - 1)
		last += strings.Count(strings.TrimRight(rec[len(rec)-1], "\r\n"), "\n")
		col := fmt.Sprintf("column %d", i+1)
		if i < len(s.header) && s.header[i] != "" {
			col = fmt.Sprintf("the %q cell", s.header[i])
		}
		line, _ := s.cr.FieldPos(i)
		r.problem = fmt.Sprintf("has a quote that opens %s on line %d and is not closed on that line, so lines %d to %d were read as one row: close the quote or remove it",
			col, line, r.line, max(last, line+1))
		return r, nil
	}
	if len(rec) != len(s.header) {
		r.problem = fmt.Sprintf("has %d %s where the header has %d", len(rec), pluralWord(len(rec), "cell"), len(s.header))
	}
	return r, nil
}

// openQuote is the index of the cell of rec (read from offset start) whose opening quote ran
// past its line, or -1: a record whose cells hold a line break is read again, strictly, from
// its own bytes; if that does not give back one record of the same cells, a quote was left open. A cell with a line
// break inside closed quotes (an address over two lines) passes.
func (s *importSource) openQuote(rec []string, start int64) int {
	first := -1
	for i, c := range rec {
		if strings.ContainsAny(c, "\r\n") {
			first = i
			break
		}
	}
	if first < 0 {
		return -1
	}
	n := s.end - start
	if n <= 0 || n > maxImportRow {
		return first
	}
	raw := make([]byte, n)
	if _, err := s.f.ReadAt(raw, s.ir.bom+start); err != nil {
		return first
	}
	strict := csv.NewReader(bytes.NewReader(raw))
	strict.Comma, strict.FieldsPerRecord = s.cr.Comma, -1
	got, err := strict.ReadAll()
	if err != nil || len(got) != 1 || len(got[0]) != len(rec) {
		return first
	}
	for i := range rec {
		if got[0][i] != rec[i] {
			return first
		}
	}
	return -1
}
