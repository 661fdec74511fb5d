package web

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/internal/csvsafe"
	"switchboard/store"
	"switchboard/views"
)

// maxErrorRows is how many skipped rows an import's error file lists; a file of a million bad
// rows would otherwise make an error file larger than the upload. The rows past it are counted
// in one last line.
var maxErrorRows = 100_000

// runImport imports the job's file through its mapping while the server serves: the file is
// rewritten row by row into the import's own format through a pipe (memory stays flat), and
// the job's record follows each committed batch. Once the import ends, the skipped rows are
// written to the job's error file, each with its line in the file and its cells as written.
// Whatever happens, the uploaded file is removed when the import ends.
func (h *Handler) runImport(j store.ImportJob, m *store.Mapping) {
	defer h.imports.Delete(j.ID)
	defer os.Remove(h.importFile(j))
	fail := func(msg string) {
		j.Status, j.Error = store.ImportFailed, msg
		if err := h.store.SaveImportJob(j); err != nil {
			slog.Error("import job", "job", j.ID, "error", err)
		}
	}
	in, err := os.Open(h.importFile(j))
	if err != nil {
		fail("The uploaded file is gone: upload it again.")
		return
	}
	defer in.Close()

	pr, pw := io.Pipe()
	delim, _ := utf8.DecodeRuneInString(j.Delimiter)
	go func() {
		src, err := openImportSource(in, delim)
		cw := csv.NewWriter(pw)
		if err == nil {
			err = cw.Write(m.Header())
		}
		for err == nil {
			rec, rerr := src.next()
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				err = rerr
				break
			}
			cells := rec.cells
			if rec.problem != "" {
				cells = nil // a row of the wrong shape, which the import skips; the error file says why
			}
			err = cw.Write(m.Row(cells, len(j.Headers)))
		}
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
		pw.CloseWithError(err)
	}()
	var skipped []importSkip
	unlisted := 0
	rep, err := h.store.ImportContactsWith(j.WorkspaceID, pr, store.ImportOptions{
		Progress: func(p store.ImportProgress) {
			j.Done, j.Created, j.Updated, j.Skipped = p.Rows, p.Imported, p.Updated, p.Rejected
			if err := h.store.SaveImportJob(j); err != nil {
				slog.Error("import job progress", "job", j.ID, "error", err)
			}
		},
		OnReject: func(e store.ImportRowError) {
			if len(skipped) >= maxErrorRows {
				unlisted++
				return
			}
			skipped = append(skipped, importSkip{row: e.Line - 1, reason: e.Reason}) // each row is one line after the header
		},
	})
	_ = pr.CloseWithError(io.ErrClosedPipe) // stops the writer if the import ended early
	if werr := h.writeImportErrors(j, m, skipped, unlisted); werr != nil {
		slog.Error("import error file", "job", j.ID, "error", werr)
	}
	j.Done, j.Created, j.Updated, j.Skipped = rep.Rows, rep.Imported, rep.Updated, rep.Rejected
	if err != nil {
		slog.Error("import job", "job", j.ID, "error", err)
		fail(fmt.Sprintf("Stopped at row %d: %v. The rows before it are imported.", rep.Rows, err))
		return
	}
	j.Status = store.ImportDone
	if err := h.store.SaveImportJob(j); err != nil {
		slog.Error("import job", "job", j.ID, "error", err)
	}
}

// importSkip is a row the import skipped: its data row and the store's reason.
type importSkip struct {
	row    int
	reason string
}

// maxErrorCell bounds a cell the error file repeats: a cell that swallowed the lines after an
// open quote is cut there, with "…".
const maxErrorCell = 1000

// writeImportErrors writes the job's error file: the columns row, column, message and line,
// then the file's own columns with the skipped row's cells as written, so the file can be
// fixed and imported again, and "cells past the header" for a row of too many; one line per
// problem. A row whose shape is wrong (its cells, its quotes) says so instead of what the
// import made of it. Cells that a spreadsheet would run as a formula are written as text (an
// apostrophe before them), as in every CSV the product hands out. It reads the upload once more,
// in order, and replaces the error file whole when done.
func (h *Handler) writeImportErrors(j store.ImportJob, m *store.Mapping, skipped []importSkip, unlisted int) error {
	if len(skipped) == 0 && unlisted == 0 {
		return nil
	}
	slices.SortStableFunc(skipped, func(a, b importSkip) int { return a.row - b.row })
	in, err := os.Open(h.importFile(j))
	if err != nil {
		return err
	}
	defer in.Close()
	delim, _ := utf8.DecodeRuneInString(j.Delimiter)
	src, err := openImportSource(in, delim)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(h.importDir(), ".errors-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())    // renamed into place when complete
	errs := csvsafe.NewWriter(tmp) // the upload chose its column names and cells: no formulas
	header := append(append([]string{"row", "column", "message", "line"}, j.Headers...), "cells past the header")
	// line is a line of the error file, as wide as its header: the row's cells under the file's
	// columns, any past them joined in the last column, so every reader takes the file.
	line := func(at []string, cells []string) []string {
		out := append(slices.Clone(at), cells[:min(len(cells), len(j.Headers))]...)
		for len(out) < len(header)-1 {
			out = append(out, "")
		}
		more := ""
		if len(cells) > len(j.Headers) {
			more = strings.Join(cells[len(j.Headers):], j.Delimiter)
		}
		return append(out, more)
	}
	_ = errs.Write(header)
	var rec sourceRecord
	for _, sk := range skipped {
		for rec.row < sk.row {
			if rec, err = src.next(); err != nil {
				tmp.Close()
				return fmt.Errorf("row %d: %w", sk.row, err)
			}
		}
		cells := make([]string, len(rec.cells))
		for i, c := range rec.cells {
			if utf8.RuneCountInString(c) > maxErrorCell {
				c = string([]rune(c)[:maxErrorCell]) + "…"
			}
			cells[i] = c
		}
		at := []string{strconv.Itoa(sk.row), "", "", strconv.Itoa(rec.line)}
		if rec.problem != "" {
			at[2] = rec.problem
			_ = errs.Write(line(at, cells))
			continue
		}
		for _, p := range store.SplitImportReason(sk.reason) {
			at[1], at[2] = "", p[1]
			if c := m.Source(p[0]); c >= 0 {
				at[1] = j.Headers[c]
			}
			_ = errs.Write(line(at, cells))
		}
	}
	if unlisted > 0 {
		_ = errs.Write(line([]string{"", "", fmt.Sprintf("%d more rows were skipped; the first %d are listed above", unlisted, maxErrorRows)}, nil))
	}
	errs.Flush()
	if err := errors.Join(errs.Error(), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), h.importErrorFile(j))
}

// importJobView is a job as the pages show it; a job marked running that no goroutine of this
// process runs was cut short by a restart.
func (h *Handler) importJobView(j store.ImportJob, loc *time.Location) views.ImportJobView {
	v := views.ImportJobView{ID: j.ID, FileName: j.FileName, Status: j.Status, Total: j.Total, Done: j.Done,
		Created: j.Created, Updated: j.Updated, Skipped: j.Skipped, Error: j.Error, When: fmtTime(j.CreatedAt, loc)}
	if _, running := h.imports.Load(j.ID); j.Status == store.ImportRunning && !running {
		v.Status = store.ImportFailed
		v.Error = fmt.Sprintf("Stopped at row %d when the server stopped. The rows before it are imported; import the file again to finish (rows already in are updated, not duplicated).", j.Done)
	}
	if _, err := os.Stat(h.importErrorFile(j)); err == nil && j.Skipped > 0 {
		v.HasErrors = true
	}
	return v
}

// contactImportProgress is GET /contacts/import/jobs/{job}/progress: the progress fragment that the
// page polls while the import runs.
func (h *Handler) contactImportProgress(w http.ResponseWriter, r *http.Request, u *ui) {
	j, ok := h.importJobOf(w, r, u)
	if !ok {
		return
	}
	h.fragment(w, r, views.ImportProgress(h.importJobView(j, u.ws.Location())))
}

// contactImportErrors is GET /contacts/import/jobs/{job}/errors.csv: the skipped rows.
func (h *Handler) contactImportErrors(w http.ResponseWriter, r *http.Request, u *ui) {
	j, ok := h.importJobOf(w, r, u)
	if !ok {
		return
	}
	f, err := os.Open(h.importErrorFile(j))
	if err != nil {
		h.notFound(w, r, u, "error file for this import")
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="import-errors-`+j.ID+`.csv"`)
	_, _ = io.Copy(w, f)
}
