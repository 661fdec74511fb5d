package web

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
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
// rewritten row by row into the import's own format through a pipe (memory stays flat), every
// skipped row goes to the job's error file, and the job's record follows each committed batch.
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
	ef, err := os.Create(h.importErrorFile(j))
	if err != nil {
		fail("The error file could not be written: " + err.Error())
		return
	}
	defer ef.Close()
	errs := csvsafe.NewWriter(ef) // the file chose its column names: no formulas
	_ = errs.Write([]string{"row", "column", "message"})

	pr, pw := io.Pipe()
	delim, _ := utf8.DecodeRuneInString(j.Delimiter)
	// syntax holds the rows the file's CSV syntax broke, by row: the import sees a row with a
	// wrong field count there and rejects it; the error file gets this message instead.
	var syntaxMu sync.Mutex
	syntax := map[int]string{}
	go func() {
		cr := newImportReader(in, delim)
		cw := csv.NewWriter(pw)
		_, _ = cr.Read()
		err := cw.Write(m.Header())
		for row := 1; err == nil; row++ {
			rec, rerr := cr.Read()
			if errors.Is(rerr, io.EOF) {
				break
			}
			var perr *csv.ParseError
			if rerr != nil && !errors.As(rerr, &perr) {
				err = rerr
				break
			}
			if perr != nil {
				syntaxMu.Lock()
				syntax[row] = "is not valid CSV: " + perr.Err.Error()
				syntaxMu.Unlock()
				rec = nil
			}
			err = cw.Write(m.Row(rec, len(j.Headers)))
		}
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
		pw.CloseWithError(err)
	}()
	listed, unlisted := 0, 0
	rep, err := h.store.ImportContactsWith(j.WorkspaceID, pr, store.ImportOptions{
		Progress: func(p store.ImportProgress) {
			j.Done, j.Created, j.Updated, j.Skipped = p.Rows, p.Imported, p.Updated, p.Rejected
			errs.Flush()
			if err := h.store.SaveImportJob(j); err != nil {
				slog.Error("import job progress", "job", j.ID, "error", err)
			}
		},
		OnReject: func(e store.ImportRowError) {
			if listed >= maxErrorRows {
				unlisted++
				return
			}
			listed++
			row := e.Line - 1 // each row is one line after the header
			syntaxMu.Lock()
			msg, ok := syntax[row]
			syntaxMu.Unlock()
			if ok {
				_ = errs.Write([]string{strconv.Itoa(row), "", msg})
				return
			}
			for _, p := range store.SplitImportReason(e.Reason) {
				col := ""
				if c := m.Source(p[0]); c >= 0 {
					col = j.Headers[c]
				}
				_ = errs.Write([]string{strconv.Itoa(row), col, p[1]})
			}
		},
	})
	_ = pr.CloseWithError(io.ErrClosedPipe) // stops the writer if the import ended early
	if unlisted > 0 {
		_ = errs.Write([]string{"", "", fmt.Sprintf("%d more rows were skipped; the first %d are listed above", unlisted, maxErrorRows)})
	}
	errs.Flush()
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

// importJobView is a job as the pages show it; a job marked running that no goroutine of this
// process runs was cut short by a restart.
func (h *Handler) importJobView(j store.ImportJob) views.ImportJobView {
	v := views.ImportJobView{ID: j.ID, FileName: j.FileName, Status: j.Status, Total: j.Total, Done: j.Done,
		Created: j.Created, Updated: j.Updated, Skipped: j.Skipped, Error: j.Error, When: j.CreatedAt.Format("2006-01-02 15:04")}
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
	h.fragment(w, r, views.ImportProgress(h.importJobView(j)))
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
