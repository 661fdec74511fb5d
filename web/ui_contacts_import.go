package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/internal/phone"
	"switchboard/store"
	"switchboard/views"
)

// previewRows is how many rows the mapping page shows as they will be stored.
const previewRows = 10

// importDir is where uploaded files wait for their import: beside the database, in the data
// directory.
func (h *Handler) importDir() string { return importDirOf(h.store) }

func importDirOf(s *store.Store) string { return filepath.Join(filepath.Dir(s.DB().Path()), "imports") }

func (h *Handler) importFile(j store.ImportJob) string {
	return filepath.Join(h.importDir(), j.ID+".csv")
}

func (h *Handler) importErrorFile(j store.ImportJob) string {
	return filepath.Join(h.importDir(), j.ID+".errors.csv")
}

// contactImport is GET /contacts/import: the upload form and the last imports.
func (h *Handler) contactImport(w http.ResponseWriter, r *http.Request, u *ui) {
	h.renderImportUpload(w, r, u, http.StatusOK, "")
}

func (h *Handler) renderImportUpload(w http.ResponseWriter, r *http.Request, u *ui, status int, errText string) {
	u.section = "contacts"
	jobs, err := h.store.ImportJobs(u.ws.ID, 10)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v := views.ImportUploadView{Error: errText}
	for _, j := range jobs {
		v.Jobs = append(v.Jobs, h.importJobView(j, u.ws.Location()))
	}
	h.render(w, r, u, status, "Import contacts", views.ImportUpload(v))
}

// utf8Check validates a stream of UTF-8 in chunks (a rune may straddle two).
type utf8Check struct {
	carry []byte
	bad   bool
}

func (c *utf8Check) Write(p []byte) (int, error) {
	b := append(c.carry, p...)
	i := len(b)
	// Keep back an incomplete rune at the end for the next chunk.
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				i = len(b) - k
			}
			break
		}
	}
	if !utf8.Valid(b[:i]) {
		c.bad = true
	}
	c.carry = append(c.carry[:0], b[i:]...)
	return len(p), nil
}

func (c *utf8Check) ok() bool { return !c.bad && len(c.carry) == 0 }

// contactImportUpload is POST /contacts/import: the file (multipart field "file", at most
// 100 MB, UTF-8 CSV with a comma or semicolon) is streamed to the data directory, checked and
// counted; the mapping page follows. A refused file leaves nothing behind.
func (h *Handler) contactImportUpload(w http.ResponseWriter, r *http.Request, u *ui) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(10 * time.Minute)) // 100 MB over a slow line
	r.Body = http.MaxBytesReader(w, r.Body, MaxImportBytes+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		h.renderImportUpload(w, r, u, http.StatusBadRequest, "Choose a CSV file to upload.")
		return
	}
	var part io.Reader
	name := ""
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		if p.FormName() == "file" {
			part, name = p, filepath.Base(p.FileName())
			break
		}
	}
	if part == nil {
		h.renderImportUpload(w, r, u, http.StatusBadRequest, "Choose a CSV file to upload.")
		return
	}
	if err := os.MkdirAll(h.importDir(), 0o700); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	tmp, err := os.CreateTemp(h.importDir(), ".upload-*")
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	defer os.Remove(tmp.Name()) // renamed into place when accepted
	check := &utf8Check{}
	n, err := io.Copy(io.MultiWriter(tmp, check), io.LimitReader(part, MaxImportBytes+1))
	cerr := tmp.Close()
	var tooBig *http.MaxBytesError
	switch {
	case n > MaxImportBytes || errors.As(err, &tooBig):
		h.renderImportUpload(w, r, u, http.StatusRequestEntityTooLarge, "The file is over 100 MB: split it into smaller files and import each.")
		return
	case err != nil:
		h.renderImportUpload(w, r, u, http.StatusBadRequest, "The upload did not complete: try again.")
		return
	case cerr != nil:
		h.uiError(w, r, u, cerr)
		return
	}
	job, errText := h.inspectUpload(tmp.Name(), check)
	if errText != "" {
		h.renderImportUpload(w, r, u, http.StatusUnprocessableEntity, errText)
		return
	}
	job.WorkspaceID, job.UserID, job.FileName = u.ws.ID, u.user.ID, name
	job, err = h.store.CreateImportJob(job)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	if err := os.Rename(tmp.Name(), h.importFile(job)); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/contacts/import/jobs/"+job.ID, http.StatusSeeOther)
}

// inspectUpload sniffs the saved file, reads its header and counts its rows; errText says why
// the file is refused.
func (h *Handler) inspectUpload(path string, check *utf8Check) (store.ImportJob, string) {
	var j store.ImportJob
	f, err := os.Open(path)
	if err != nil {
		return j, "The upload could not be read: try again."
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	k, _ := io.ReadFull(f, head)
	delim, err := store.SniffCSV(head[:k])
	if err != nil {
		return j, capitalize(err.Error()) + "."
	}
	if !check.ok() {
		return j, "The file is not UTF-8 text: save it as “CSV UTF-8” and upload it again."
	}
	src, err := openImportSource(f, delim)
	if errors.Is(err, errRowTooLong) {
		return j, rowTooLong(0)
	}
	if err != nil {
		return j, "The file is not CSV: its first line could not be read as column names."
	}
	if why := checkHeader(src.header); why != "" {
		return j, why
	}
	j.Headers, j.Delimiter = src.header, string(delim)
	for {
		_, err := src.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errRowTooLong) {
			return j, rowTooLong(j.Total + 1)
		}
		if err != nil {
			return j, "The upload could not be read: try again."
		}
		j.Total++
	}
	if j.Total == 0 {
		return j, "The file has column names but no rows."
	}
	return j, ""
}

// contactImportJob is GET /contacts/import/jobs/{job}: the mapping with its guesses and preview while
// it waits, else its progress.
func (h *Handler) contactImportJob(w http.ResponseWriter, r *http.Request, u *ui) {
	j, ok := h.importJobOf(w, r, u)
	if !ok {
		return
	}
	if j.Status != store.ImportMapping {
		u.section = "contacts"
		h.render(w, r, u, http.StatusOK, "Import "+j.FileName, views.ImportProgressPage(h.importJobView(j, u.ws.Location())))
		return
	}
	props, err := h.propertyNames(u)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.renderMapping(w, r, u, j, store.GuessMapping(j.Headers, props), http.StatusOK, "")
}

func (h *Handler) propertyNames(u *ui) ([]string, error) {
	props, err := h.store.Properties(u.ws.ID)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(props))
	for i, p := range props {
		names[i] = p.Name
	}
	return names, nil
}

func (h *Handler) importJobOf(w http.ResponseWriter, r *http.Request, u *ui) (store.ImportJob, bool) {
	j, err := h.store.ImportJobByID(u.ws.ID, r.PathValue("job"))
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			h.notFound(w, r, u, "such import")
		} else {
			h.uiError(w, r, u, err)
		}
		return j, false
	}
	return j, true
}

// renderMapping shows the mapping form with targets and the first rows as they would be stored.
func (h *Handler) renderMapping(w http.ResponseWriter, r *http.Request, u *ui, j store.ImportJob, targets []string, status int, errText string) {
	u.section = "contacts"
	props, err := h.propertyNames(u)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v := views.ImportMappingView{ID: j.ID, FileName: j.FileName, Total: j.Total, Error: errText, Delimiter: j.Delimiter}
	for _, t := range store.ImportBaseColumns() {
		v.Targets = append(v.Targets, views.Option{Value: t, Label: t})
	}
	for _, p := range props {
		v.Targets = append(v.Targets, views.Option{Value: store.PropertyTarget(p), Label: "Property: " + p})
	}
	for _, t := range store.ConsentTargets {
		v.Targets = append(v.Targets, views.Option{Value: t, Label: "Consent: " + t})
	}
	v.Targets = append(v.Targets, views.Option{Value: store.TargetIgnore, Label: "Ignore"})
	for i, hd := range j.Headers {
		v.Columns = append(v.Columns, views.ImportColumn{Index: i, Header: hd, Target: targets[i]})
	}
	if m, err := store.NewMapping(targets, props, u.ws.Region()); err != nil {
		if v.Error == "" {
			v.Error = mappingMessage(err)
		}
	} else if rows, err := h.previewFile(u, j, m); err != nil {
		v.Error = "The preview could not be made: " + err.Error()
	} else {
		v.Header, v.Preview, v.CanStart = m.Header(), rows, true
	}
	h.render(w, r, u, status, "Map "+j.FileName, views.ImportMapping(v))
}

func mappingMessage(err error) string {
	var verr store.ValidationError
	if errors.As(err, &verr) && len(verr) > 0 {
		return capitalize(verr[0].Message) + "."
	}
	return err.Error()
}

// previewFile reads the first rows of the job's file through the mapping and the import's rules.
func (h *Handler) previewFile(u *ui, j store.ImportJob, m *store.Mapping) ([]views.ImportPreviewRow, error) {
	f, err := os.Open(h.importFile(j))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	delim, _ := utf8.DecodeRuneInString(j.Delimiter)
	src, err := openImportSource(f, delim)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	var shape []string   // per row, what is wrong with its shape ("" when nothing)
	var shown [][]string // per row of the wrong shape, its cells as written
	for len(rows) < previewRows {
		rec, err := src.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		cells := rec.cells
		if rec.problem != "" {
			cells = nil // a row the import will skip for its shape
			// Shown as written, cut or padded to the header's cells.
			written := make([]string, len(j.Headers))
			copy(written, rec.cells)
			shown = append(shown, m.Row(written, len(j.Headers)))
		} else {
			shown = append(shown, nil)
		}
		rows = append(rows, m.Row(cells, len(j.Headers)))
		shape = append(shape, rec.problem)
	}
	got, err := h.store.PreviewImport(u.ws.ID, m.Header(), rows)
	if err != nil {
		return nil, err
	}
	out := make([]views.ImportPreviewRow, len(got))
	for i, g := range got {
		cells := rows[i]
		if shape[i] != "" {
			g.Problem, cells = shape[i], shown[i]
		}
		if g.Problem == "" {
			cells = make([]string, len(m.Header()))
			for k, col := range m.Header() {
				switch col {
				case "firstName":
					cells[k] = g.FirstName
				case "lastName":
					cells[k] = g.LastName
				case "phone":
					cells[k] = g.Phone
				case "email":
					cells[k] = g.Email
				case "company":
					cells[k] = g.Company
				case "timeZone":
					cells[k] = g.TimeZone
				case "groups":
					cells[k] = strings.Join(g.Groups, "; ")
				case store.TargetConsentAt, store.TargetConsentSource, store.TargetConsentMethod:
					cells[k] = rows[i][k] // checked by the import, stored in the consent history
				default:
					if v, ok := g.Properties[col]; ok {
						cells[k] = fmt.Sprint(v)
					}
				}
			}
		}
		if len(cells) > len(m.Header()) {
			cells = cells[:len(m.Header())]
		}
		for k, col := range m.Header() {
			if col == "phone" && k < len(cells) {
				cells[k] = phone.Format(cells[k], u.ws.Region()) // as the pages write numbers
			}
		}
		out[i] = views.ImportPreviewRow{Row: i + 1, Cells: cells, Problem: g.Problem}
	}
	return out, nil
}

// contactImportMap is POST /contacts/import/jobs/{job}: the mapping (col.N = target) to preview again
// (action=preview) or to start the import with (action=start).
func (h *Handler) contactImportMap(w http.ResponseWriter, r *http.Request, u *ui) {
	j, ok := h.importJobOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	if j.Status != store.ImportMapping {
		http.Redirect(w, r, "/contacts/import/jobs/"+j.ID, http.StatusSeeOther)
		return
	}
	targets := make([]string, len(j.Headers))
	for i := range targets {
		targets[i] = r.PostForm.Get("col." + strconv.Itoa(i))
		if targets[i] == "" {
			targets[i] = store.TargetIgnore
		}
	}
	props, err := h.propertyNames(u)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	m, err := store.NewMapping(targets, props, u.ws.Region())
	if err != nil || r.PostForm.Get("action") != "start" {
		status := http.StatusOK
		if err != nil {
			status = http.StatusUnprocessableEntity
		}
		h.renderMapping(w, r, u, j, targets, status, "")
		return
	}
	j.Mapping, j.Status = targets, store.ImportRunning
	if err := h.store.SaveImportJob(j); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.imports.Store(j.ID, true)
	go h.runImport(j, m)
	http.Redirect(w, r, "/contacts/import/jobs/"+j.ID, http.StatusSeeOther)
}
