package web

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/store"
)

// Bounds of an uploaded file, checked once when it is uploaded, so that no page view or import
// of it holds more than a little of it in memory: the mapping page renders a control per
// column and reads its first rows; a file beyond them is refused, saying which bound it broke.
const (
	// MaxImportColumns is the most columns a file may have.
	MaxImportColumns = 200
	// maxColumnName is the longest column name, in characters.
	maxColumnName = 255
	// maxImportRow is the longest row in bytes (every cell of it, the header included).
	maxImportRow = 64 << 10
	// importWait is how long an upload waits for its mapping before it is removed.
	importWait = 24 * time.Hour
)

var errRowTooLong = errors.New("row too long")

// rowLimit is the reader under an import's CSV reader: it fails once more than twice a row's
// bound plus the read-ahead has been read since the row began (reset), so that one endless row
// cannot fill the memory before the exact check after each row.
type rowLimit struct {
	r io.Reader
	n int
}

func (l *rowLimit) Read(p []byte) (int, error) {
	if l.n > 2*maxImportRow+importReadAhead {
		return 0, errRowTooLong
	}
	n, err := l.r.Read(p)
	l.n += n
	return n, err
}

// importReader reads an uploaded file's records, holding at most about one row's bound of it.
type importReader struct {
	cr   *csv.Reader
	lim  *rowLimit
	bom  int64 // the bytes of the byte order mark skipped before the first row
	last int64 // input offset where the next row begins
}

// Read returns the next record (see csv.Reader.Read); a row longer than maxImportRow is
// errRowTooLong.
func (ir *importReader) Read() ([]string, error) {
	ir.lim.n = 0
	rec, err := ir.cr.Read()
	off := ir.cr.InputOffset()
	size := off - ir.last
	ir.last = off
	if errors.Is(err, errRowTooLong) || (err == nil && size > maxImportRow) {
		return nil, errRowTooLong
	}
	return rec, err
}

// checkHeader says why a file's column names are refused, "" when they are not.
func checkHeader(header []string) string {
	if len(header) > MaxImportColumns {
		return fmt.Sprintf("The file has %d columns; an import takes at most %d. Remove the columns you do not need and upload it again.",
			len(header), MaxImportColumns)
	}
	for i, h := range header {
		if utf8.RuneCountInString(h) > maxColumnName {
			return fmt.Sprintf("The name of column %d is longer than %d characters: is the first line the column names?", i+1, maxColumnName)
		}
	}
	return ""
}

// rowTooLong is the refusal of a file whose row n (counted after the header; 0 is the header)
// is too long.
func rowTooLong(n int) string {
	what := fmt.Sprintf("Row %d", n)
	if n == 0 {
		what = "The first line (the column names)"
	}
	return fmt.Sprintf("%s is longer than %d KB: check that the file is CSV, with its quotes closed.", what, maxImportRow>>10)
}

// SweepImportUploads removes the uploads that waited longer than a day for their mapping, by
// now: their jobs fail, saying to upload the file again, and their files are deleted; so are
// partial uploads a crash left behind. It returns how many jobs it removed. A timer of serve
// calls it hourly.
func SweepImportUploads(s *store.Store, now time.Time) (int, error) {
	jobs, err := s.ExpireImportUploads(now.Add(-importWait),
		"The file waited more than a day for its columns to be mapped and was removed: upload it again.")
	if err != nil {
		return 0, err
	}
	dir := importDirOf(s)
	for _, j := range jobs {
		if err := os.Remove(filepath.Join(dir, j.ID+".csv")); err != nil && !errors.Is(err, os.ErrNotExist) {
			return len(jobs), err
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return len(jobs), err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".upload-") {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > time.Hour {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return len(jobs), nil
}
