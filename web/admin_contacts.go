package web

import (
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"switchboard/store"
)

// The loopback admin endpoints of `switchboard admin export-contacts` and `import-contacts`
// while a server holds the file: the same guard as /admin/backup (a direct loopback caller with
// the server's backup token from DIR/server.json).

// adminLocal answers and returns false unless r is a direct loopback call with the token (or
// was forwarded by the node of the cluster that checked that).
func (h *Handler) adminLocal(w http.ResponseWriter, r *http.Request) bool {
	if adminVerified(r) {
		return true // the node that forwarded it checked its own token
	}
	if !directLoopback(r) {
		writeError(w, http.StatusForbidden, "the admin endpoints answer only local callers")
		return false
	}
	want := "Bearer " + h.cfg.BackupToken
	if h.cfg.BackupToken == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(want)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		writeError(w, http.StatusUnauthorized, "admin token required")
		return false
	}
	return true
}

// adminExportContacts is GET /admin/contacts/export?workspace=W: the contacts CSV, streamed.
func (h *Handler) adminExportContacts(w http.ResponseWriter, r *http.Request) {
	if !h.adminLocal(w, r) {
		return
	}
	ws := r.URL.Query().Get("workspace")
	if _, err := h.store.Workspace(ws); err != nil {
		writeStoreError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	rc := http.NewResponseController(w)
	if err := h.store.WriteContactsCSV(w, ws, store.ContactFilter{}, func() {
		_ = rc.SetWriteDeadline(time.Now().Add(backupWriteWindow))
	}); err != nil {
		slog.ErrorContext(r.Context(), "export failed", "request_id", requestID(r.Context()), "err", err)
	}
}

// adminImportContacts is POST /admin/contacts/import?workspace=W with the CSV as the body: the
// import of `switchboard admin import-contacts`, run while the server serves. The answer is the
// ImportReport as JSON, or the error as {"error"}. Read and write deadlines move with each
// committed batch, so a long import is not cut off while it progresses.
func (h *Handler) adminImportContacts(w http.ResponseWriter, r *http.Request) {
	if !h.adminLocal(w, r) {
		return
	}
	ws := r.URL.Query().Get("workspace")
	if _, err := h.store.Workspace(ws); err != nil {
		writeStoreError(w, r, err)
		return
	}
	rc := http.NewResponseController(w)
	extend := func() {
		_ = rc.SetReadDeadline(time.Now().Add(backupWriteWindow))
		_ = rc.SetWriteDeadline(time.Now().Add(backupWriteWindow))
	}
	extend()
	// See the CLI's import: fewer collections for a batch job that keeps little.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	body := http.MaxBytesReader(w, r.Body, MaxImportBytes)
	rep, err := h.store.ImportContacts(ws, body, func(store.ImportProgress) { extend() })
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": err.Error(), "report": rep})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rep)
}

// MaxImportBytes is the largest CSV an import takes (the browser's and the CLI's through the
// server).
const MaxImportBytes = 100 << 20

// adminRun is POST /admin/run with {"args": [...], "stdin": "..."}: an admin command line run on
// the server's store, answered {"stdout": ..., "error": ...} (200 either way: the command's
// failure is its own error line).
func (h *Handler) adminRun(w http.ResponseWriter, r *http.Request) {
	if !h.adminLocal(w, r) {
		return
	}
	var in struct {
		Args  []string `json:"args"`
		Stdin string   `json:"stdin"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil || len(in.Args) == 0 {
		writeError(w, http.StatusBadRequest, "want {\"args\": [command, flags...]}")
		return
	}
	out, err := h.cfg.AdminRun(in.Args, in.Stdin)
	res := map[string]string{"stdout": out}
	if err != nil {
		res["error"] = err.Error()
	}
	writeJSON(w, http.StatusOK, res)
}
