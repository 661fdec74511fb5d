package store

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"

	"switchboard/store/kv"
)

// ImportBatchSize is how many rows one import transaction writes at most. Each contact, its
// index entries and its events still share one transaction; batching only saves fsyncs and page
// rewrites.
//
// At a million contacts most of a batch's cost is per page it touches, not per row (each page
// read into a node, copied, split and written at the commit): the indexes whose keys land all
// over their range take a batch's entries in a small recent part first (index.SplitIndex).
// Bigger batches touch fewer pages per row; the bound is the file: a commit's old page copies
// stay as free pages, so the file holds about one batch's pages more than its data (before the
// recent parts, 5,000-row batches left 479 B per contact at 1M, 10,000-row ones 511 B, the limit
// being 512).
const ImportBatchSize = 8192

// importFirstBatch is the size of the first batch; each next one doubles up to ImportBatchSize.
// bbolt splits a node only when its transaction commits, and a node's insert shifts the entries
// after it, so thousands of rows into an empty workspace would pile ~20 index entries per row
// into one node and cost quadratic time; small first commits spread the keys over many pages.
const importFirstBatch = 128

// MaxImportErrors caps the rejected rows listed in an ImportReport; Rejected counts them all.
const MaxImportErrors = 1000

// ImportRowError is one rejected row: its 1-based line in the file (the header is line 1; a
// quoted field that spans lines counts each line) and why.
type ImportRowError struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// ImportReport is the outcome of ImportContacts. Rows = Imported + Updated + Rejected unless
// the import stopped on an error (rows read but not yet written have no outcome).
type ImportReport struct {
	Rows     int              `json:"rows"`     // data rows read (the header excluded)
	Imported int              `json:"imported"` // new contacts
	Updated  int              `json:"updated"`  // rows that matched an existing contact by phone
	Rejected int              `json:"rejected"`
	Errors   []ImportRowError `json:"errors"` // the first MaxImportErrors rejected rows, by line
}

// ImportProgress is reported after each committed batch.
type ImportProgress struct {
	Rows     int // data rows done so far
	Imported int
	Updated  int
	Rejected int
}

// The base columns of an import file, matched case-insensitively.
const (
	colFirstName = "firstName"
	colLastName  = "lastName"
	colPhone     = "phone"
	colEmail     = "email"
	colCompany   = "company"
	colTimeZone  = "timeZone" // the contact's IANA time zone (quiet hours)
	colGroups    = "groups"   // group names separated by ";": the contact is added to each (created if missing)
	// The consent columns add an entry (granted) to the number's consent history: consentAt
	// (RFC 3339, not in the future), consentSource (default import), consentMethod.
	colConsentAt     = "consentAt"
	colConsentSource = "consentSource"
	colConsentMethod = "consentMethod"
)

var importBaseColumns = []string{colFirstName, colLastName, colPhone, colEmail, colCompany, colTimeZone, colGroups,
	colConsentAt, colConsentSource, colConsentMethod}

// importColumn is what one CSV column feeds: a base field or a custom property.
type importColumn struct {
	base     string // one of importBaseColumns, or "" for a property
	property string
	typ      string
	country  string // the phone column: the region national numbers are read in
}

// importRow is a validated row waiting for its batch.
type importRow struct {
	line   int
	in     ContactInput
	groups []string
}

// ImportContacts reads a CSV file of contacts into the workspace.
//
// The header row names the columns, in any order: firstName, lastName, phone, email and company
// (matched case-insensitively; phone is required) and the workspace's custom properties (matched
// by exact name). A header cell that is neither is an error for the whole file, returned before
// anything is written, as is a repeated or empty column. A property whose name equals a base
// column case-insensitively cannot be imported: the base column wins.
//
// Each data row is matched by phone (E.164, or written in the national format of the
// workspace's country, which is read as a number of that country): a known phone updates that contact, an
// unknown one creates a contact with source "import"; a phone repeated in the file updates the
// contact its earlier row wrote. Cells are trimmed; an empty cell leaves that field as it is.
// Property cells are converted by type: text as written (at most 255 characters), number a JSON
// number that fits a float64, boolean true/false, yes/no or 1/0 (any case), date a real
// calendar date YYYY-MM-DD. A row that fails (phone, email address, names and company at most
// 255 characters, property values, field count, CSV syntax, invalid UTF-8) is rejected with its
// line number and reason and the import goes on.
//
// Rows are written in transactions of ImportBatchSize rows; progress (may be nil) is called
// after each commit. An error stops the import; the report then counts what was committed.
func (s *Store) ImportContacts(workspaceID string, r io.Reader, progress func(ImportProgress)) (ImportReport, error) {
	return s.importContacts(workspaceID, r, progress, nil)
}

// importContacts is ImportContacts calling onReject, when not nil, with every rejected row (the
// report lists only the first MaxImportErrors).
func (s *Store) importContacts(workspaceID string, r io.Reader, progress func(ImportProgress), onReject func(ImportRowError)) (ImportReport, error) {
	rep := ImportReport{Errors: []ImportRowError{}}
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
		return rep, err
	}

	cr := csv.NewReader(skipBOM(r))
	cr.FieldsPerRecord = -1 // a row with the wrong field count is rejected, not fatal
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return rep, ValidationError{{"header", "is missing: the file is empty"}}
	}
	if err != nil {
		return rep, ValidationError{{"header", "is not valid CSV: " + csvErrorText(err)}}
	}
	cols, err := importColumns(header, types, ws.Region())
	if err != nil {
		return rep, err
	}

	// The file is read and checked by a goroutine of its own, one batch ahead of the writer: the
	// parsing overlaps the transactions and their fsyncs. (Folding names into index terms there
	// too was tried: it kept two batches of terms alive and cost more CPU per row than it saved.)
	// It has stopped reading r when this returns.
	done, stopped := make(chan struct{}), make(chan struct{})
	defer func() { close(done); <-stopped }()
	batches := make(chan importBatch, 1)
	go func() {
		defer close(stopped)
		s.readImportBatches(cr, cols, batches, done)
	}()

	reject := func(e ImportRowError) {
		if onReject != nil {
			onReject(e)
		}
		rep.Rejected++
		if len(rep.Errors) < MaxImportErrors {
			rep.Errors = append(rep.Errors, e)
		}
	}
	for b := range batches {
		rep.Rows = b.rowsRead
		for _, e := range b.rejected {
			reject(e)
		}
		if b.err != nil {
			return finishReport(rep), b.err
		}
		if len(b.rows) == 0 {
			continue
		}
		imported, updated, rejected, err := s.writeImportBatch(workspaceID, b.rows)
		if err != nil {
			return finishReport(rep), err
		}
		rep.Imported += imported
		rep.Updated += updated
		for _, e := range rejected {
			reject(e)
		}
		if progress != nil {
			progress(ImportProgress{Rows: rep.Rows, Imported: rep.Imported, Updated: rep.Updated, Rejected: rep.Rejected})
		}
	}
	return finishReport(rep), nil
}

// importBatch is rows read and checked, waiting for their transaction: rowsRead counts every
// data row read so far (the rejected included), rejected are the rows of this batch that
// failed while read, and err ends the import after them.
type importBatch struct {
	rows     []importRow
	rejected []ImportRowError
	rowsRead int
	err      error
}

// readImportBatches reads cr's data rows into batches until the file ends (the channel is
// then closed) or done is closed. Batches start at importFirstBatch rows and double up to
// ImportBatchSize.
func (s *Store) readImportBatches(cr *csv.Reader, cols []importColumn, out chan<- importBatch, done <-chan struct{}) {
	defer close(out)
	send := func(b importBatch) bool {
		select {
		case out <- b:
			return true
		case <-done:
			return false
		}
	}
	size, rows := importFirstBatch, 0
	b := importBatch{}
	lastOffset := cr.InputOffset()
	for {
		select {
		case <-done:
			return
		default:
		}
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var perr *csv.ParseError
		if err != nil && !errors.As(err, &perr) {
			// A read error of the underlying reader: what was committed stays.
			b.rowsRead, b.err = rows, fmt.Errorf("store: import: read: %w", err)
			send(b)
			return
		}
		if cr.InputOffset() == lastOffset {
			// Defensive: encoding/csv always consumes input; a reader that did not would loop.
			b.rowsRead, b.err = rows, fmt.Errorf("store: import: the CSV reader stopped advancing after %d rows", rows)
			send(b)
			return
		}
		lastOffset = cr.InputOffset()
		rows++
		if perr != nil {
			b.rejected = append(b.rejected, ImportRowError{perr.StartLine, "is not valid CSV: " + csvErrorText(perr)})
			continue
		}
		line, _ := cr.FieldPos(0)
		in, groups, reason := importRecord(rec, cols)
		if reason == "" && in.Consent != nil {
			if _, errs := in.Consent.check("consent.", s.Now()); errs != nil {
				reason = importConsentNames.Replace(rowReason(errs))
			}
		}
		if reason != "" {
			b.rejected = append(b.rejected, ImportRowError{line, reason})
			continue
		}
		b.rows = append(b.rows, importRow{line, in, groups})
		if len(b.rows) >= size {
			b.rowsRead = rows
			if !send(b) {
				return
			}
			b = importBatch{rows: make([]importRow, 0, min(2*size, ImportBatchSize))}
			size = min(2*size, ImportBatchSize)
		}
	}
	b.rowsRead = rows
	send(b)
}

// writeImportBatch writes rows in one transaction: each creates or updates its contact (by
// phone), adds its consent entry and its groups. Rows the store refuses come back as rejected.
func (s *Store) writeImportBatch(workspaceID string, rows []importRow) (imported, updated int, rejected []ImportRowError, err error) {
	err = s.updateNow(func(tx *wtx) error {
		imported, updated, rejected = 0, 0, nil
		// New contacts' postings are written term by term at the end of the batch.
		tx.postings = tx.idx.NewImportBuf()
		// Read the types once per batch: a property removed since the header check makes
		// its rows fail here instead of writing an unknown key.
		types, err := propertyTypes(tx.Tx, workspaceID)
		if err != nil {
			return err
		}
		groups := importGroups{}
		for i := range rows {
			c, created, err := s.upsertContact(tx, workspaceID, rows[i].in, types)
			var verr ValidationError
			switch {
			case errors.As(err, &verr):
				rejected = append(rejected, ImportRowError{rows[i].line, rowReason(verr)})
				continue
			case err != nil:
				return fmt.Errorf("store: import line %d: %w", rows[i].line, err)
			case created:
				imported++
			default:
				updated++
			}
			if ci := rows[i].in.Consent; ci != nil {
				// Checked when the row was read; recorded with the contact's write.
				entry, _ := ci.check("consent.", s.Now())
				if err := s.addConsent(tx.Tx, workspaceID, c.Phone(), entry); err != nil {
					return fmt.Errorf("store: import line %d: %w", rows[i].line, err)
				}
			}
			for _, name := range rows[i].groups {
				if err := groups.add(s, tx, workspaceID, name, c.ID); err != nil {
					return fmt.Errorf("store: import line %d: %w", rows[i].line, err)
				}
			}
		}
		if err := groups.flush(s, tx.Tx); err != nil {
			return err
		}
		return tx.postings.Flush(tx.Tx, &tx.sets)
	})
	return imported, updated, rejected, err
}

// finishReport orders the listed errors by line: rows rejected while writing are found after
// those rejected while reading.
func finishReport(rep ImportReport) ImportReport {
	slices.SortStableFunc(rep.Errors, func(a, b ImportRowError) int { return a.Line - b.Line })
	return rep
}
