package store

import (
	"bytes"
	"io"
	"strings"
	"time"

	"switchboard/store/kv"
)

// ImportJob is a contact import started in the browser: its file waits in the data directory
// while the job runs in the background, and the record holds its mapping and its progress.
type ImportJob struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	UserID      string    `json:"userId"`
	FileName    string    `json:"fileName"`
	Delimiter   string    `json:"delimiter"` // "," or ";"
	Headers     []string  `json:"headers"`
	Mapping     []string  `json:"mapping,omitempty"` // per column: an ImportTarget
	Status      string    `json:"status"`
	Total       int       `json:"total"` // data rows in the file
	Done        int       `json:"done"`  // rows read and settled (created, updated or skipped)
	Created     int       `json:"created"`
	Updated     int       `json:"updated"`
	Skipped     int       `json:"skipped"`
	Error       string    `json:"error,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Import job statuses.
const (
	ImportMapping = "mapping" // uploaded, waiting for its column mapping
	ImportRunning = "running"
	ImportDone    = "done"
	ImportFailed  = "failed"
)

// CreateImportJob records an uploaded file waiting for its mapping.
func (s *Store) CreateImportJob(j ImportJob) (ImportJob, error) {
	now := s.Now()
	j.ID, j.Status, j.CreatedAt, j.UpdatedAt = s.NewID(), ImportMapping, now, now
	err := s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, j.WorkspaceID); err != nil {
			return tx.refuse(err)
		}
		return putJSON(tx.Bucket(bImportJobs), wsKey(j.WorkspaceID, j.ID), j)
	})
	return j, err
}

// ImportJobByID returns a job of the workspace.
func (s *Store) ImportJobByID(workspaceID, id string) (ImportJob, error) {
	var j ImportJob
	err := s.view(func(tx *kv.Tx) error {
		ok, err := getJSON(tx.Bucket(bImportJobs), wsKeyChecked(workspaceID, id), &j)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "import not found")
		}
		return err
	})
	return j, err
}

// ImportJobs lists the workspace's last limit import jobs, newest first.
func (s *Store) ImportJobs(workspaceID string, limit int) ([]ImportJob, error) {
	out := []ImportJob{}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		return reverseScan(tx.Bucket(bImportJobs), idKey(workspaceID), func(k []byte) (bool, error) {
			var j ImportJob
			if _, err := getJSON(tx.Bucket(bImportJobs), k, &j); err != nil {
				return true, err
			}
			out = append(out, j)
			return len(out) >= limit, nil
		})
	})
	return out, err
}

// SaveImportJob writes a job's mapping, status and progress.
func (s *Store) SaveImportJob(j ImportJob) error {
	j.UpdatedAt = s.Now()
	return s.update(func(tx *wtx) error {
		k := wsKeyChecked(j.WorkspaceID, j.ID)
		if tx.Bucket(bImportJobs).Get(k) == nil {
			return tx.refuse(errorf(ErrNotFound, "import not found"))
		}
		return putJSON(tx.Bucket(bImportJobs), k, j)
	})
}

// ExpireImportUploads marks failed, with the reason why, every job still waiting for its mapping
// that was uploaded before before, and returns them (their files are the caller's to delete).
func (s *Store) ExpireImportUploads(before time.Time, why string) ([]ImportJob, error) {
	var out []ImportJob
	err := s.update(func(tx *wtx) error {
		out = out[:0]
		b := tx.Bucket(bImportJobs)
		var keys [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var j ImportJob
			if err := jsonUnmarshal(v, &j); err != nil {
				return err
			}
			if j.Status == ImportMapping && j.CreatedAt.Before(before) {
				keys = append(keys, bytes.Clone(k))
				out = append(out, j)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i, k := range keys {
			out[i].Status, out[i].Error, out[i].UpdatedAt = ImportFailed, why, s.Now()
			if err := putJSON(b, k, out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// ImportOptions are a mapped import's hooks.
type ImportOptions struct {
	Progress func(ImportProgress) // after each committed batch
	OnReject func(ImportRowError) // every rejected row, in the order found
}

// ImportContactsWith is ImportContacts with both hooks: the browser's import lists every
// rejected row in its error file, not only the first MaxImportErrors.
func (s *Store) ImportContactsWith(workspaceID string, r io.Reader, o ImportOptions) (ImportReport, error) {
	return s.importContacts(workspaceID, r, o.Progress, o.OnReject)
}

// ImportPreviewRow is one row of a mapped file as the import would store it.
type ImportPreviewRow struct {
	FirstName, LastName, Phone, Email, Company, TimeZone string
	Groups                                               []string
	Properties                                           map[string]any
	Problem                                              string // why the row would be skipped, "" when it imports
}

// PreviewImport checks rows under header (import column names, as ImportContacts reads them)
// by the import's own rules, writing nothing. An unusable header is a ValidationError.
func (s *Store) PreviewImport(workspaceID string, header []string, rows [][]string) ([]ImportPreviewRow, error) {
	var types map[string]string
	var ws Workspace
	if err := s.view(func(tx *kv.Tx) error {
		var err error
		if ws, err = getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		types, err = propertyTypes(tx, workspaceID)
		return err
	}); err != nil {
		return nil, err
	}
	cols, err := importColumns(header, types, ws.Region())
	if err != nil {
		return nil, err
	}
	out := make([]ImportPreviewRow, 0, len(rows))
	for _, rec := range rows {
		in, groups, reason := importRecord(rec, cols)
		out = append(out, ImportPreviewRow{FirstName: deref(in.FirstName), LastName: deref(in.LastName), Phone: in.Phone,
			Email: deref(in.Email), Company: deref(in.Company), TimeZone: deref(in.TimeZone), Groups: groups,
			Properties: in.Properties, Problem: reason})
	}
	return out, nil
}

// SplitImportReason splits a rejection reason ("field: message; field: message") into its
// problems, each with the field it names ("" when none does).
func SplitImportReason(reason string) [][2]string {
	var out [][2]string
	for _, p := range strings.Split(reason, "; ") {
		field, msg, ok := strings.Cut(p, ": ")
		if !ok || strings.ContainsAny(field, " ") {
			field, msg = "", p
		}
		out = append(out, [2]string{field, msg})
	}
	return out
}
