package store

import (
	"io"
	"strings"

	"switchboard/internal/csvsafe"
)

// ContactExportBase are the first columns of a contacts export; one column per custom
// property follows, then ContactExportTail. The consent columns are the number's current
// consent entry (LatestConsent): its status, when it was given or withdrawn, and its source.
var (
	ContactExportBase = []string{"id", "firstName", "lastName", "phone", "email", "company", "timeZone", "groups"}
	ContactExportTail = []string{"optedOut", "optOutReason", "optedOutAt", "consentStatus", "consentAt", "consentSource", "createdAt"}
)

// WriteContactsCSV writes every contact of the workspace matching f as CSV (the header, then a
// row per contact; groups joined with ";"), streamed: read ExportContacts' chunk at a time, so
// memory does not grow with the number of contacts. beat, when not nil, is called before each
// chunk of rows is written (a server moves its write deadline there).
func (s *Store) WriteContactsCSV(w io.Writer, workspaceID string, f ContactFilter, beat func()) error {
	props, err := s.Properties(workspaceID)
	if err != nil {
		return err
	}
	cw := csvsafe.NewWriter(w) // names, e-mails and properties come from callers: no formulas
	header := append([]string{}, ContactExportBase...)
	for _, p := range props {
		header = append(header, p.Name)
	}
	header = append(header, ContactExportTail...)
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, len(header))
	n := 0
	err = s.ExportContacts(workspaceID, f, func(r ExportRow) error {
		if n%exportChunk == 0 && beat != nil {
			beat()
		}
		n++
		c := &r.Contact
		rec = rec[:0]
		rec = append(rec, c.ID, c.FirstName, c.LastName, c.Phone(), c.Email, c.Company, c.TimeZone, strings.Join(r.Groups, ";"))
		for _, p := range props {
			rec = append(rec, propertyText(c.Properties[p.Name]))
		}
		if r.OptOut != nil {
			rec = append(rec, "true", r.OptOut.Reason, FormatTime(r.OptOut.CreatedAt))
		} else {
			rec = append(rec, "false", "", "")
		}
		if e := r.Consent; e != nil {
			rec = append(rec, e.Status, FormatTime(e.At), e.Source)
		} else {
			rec = append(rec, "", "", "")
		}
		rec = append(rec, FormatTime(c.CreatedAt))
		return cw.Write(rec)
	})
	cw.Flush()
	if err != nil {
		return err
	}
	return cw.Error()
}
