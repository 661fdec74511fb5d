package store

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"switchboard/internal/phone"

	"switchboard/store/kv"
)

// The columns and rows of an import file: mapping header cells and validating a row.

// importColumns maps the header cells to base fields and properties; phones written in the
// national format of country (the workspace's) are read as numbers of that country.
func importColumns(header []string, types map[string]string, country string) ([]importColumn, error) {
	cols := make([]importColumn, len(header))
	var errs []string
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		name := h
		switch {
		case h == "":
			errs = append(errs, fmt.Sprintf("column %d has no name", i+1))
			continue
		case baseColumn(h) != "":
			cols[i] = importColumn{base: baseColumn(h)}
			if cols[i].base == colPhone {
				cols[i].country = country
			}
			name = cols[i].base
		case types[h] != "":
			cols[i] = importColumn{property: h, typ: types[h]}
		default:
			errs = append(errs, fmt.Sprintf("unknown column %q (not one of %s or a custom property of this workspace)",
				h, strings.Join(importBaseColumns, ", ")))
			continue
		}
		if seen[name] {
			errs = append(errs, fmt.Sprintf("column %q appears twice", h))
		}
		seen[name] = true
	}
	if !seen[colPhone] {
		errs = append(errs, "the phone column is required")
	}
	if errs != nil {
		return nil, ValidationError{{"header", strings.Join(errs, "; ")}}
	}
	return cols, nil
}

func baseColumn(h string) string {
	for _, c := range importBaseColumns {
		if strings.EqualFold(h, c) {
			return c
		}
	}
	return ""
}

// importRecord validates one data row and turns it into a ContactInput; reason is "" when the
// row is good.
func importRecord(rec []string, cols []importColumn) (ContactInput, []string, string) {
	if len(rec) != len(cols) {
		return ContactInput{}, nil, fmt.Sprintf("has %d fields, the header has %d", len(rec), len(cols))
	}
	in := ContactInput{Source: SourceImport}
	var groups []string
	var problems []string
	for i, col := range cols {
		v := strings.TrimSpace(rec[i])
		if v == "" {
			continue
		}
		field := col.base
		if field == "" {
			field = "properties." + col.property
		}
		if !utf8.ValidString(v) {
			problems = append(problems, field+": is not valid UTF-8")
			continue
		}
		switch col.base {
		case colPhone:
			v = NormalizePhone(v, col.country)
			if c := phone.Foreign(v); c != "" {
				problems = append(problems, fmt.Sprintf("phone: has %q, which is no part of a phone number: write the number with digits only", c))
			} else if !ValidE164(v) {
				problems = append(problems, "phone: "+importPhoneMessage(col.country))
			}
			in.Phone = v
		case colEmail:
			if addr, err := mail.ParseAddress(v); err != nil || addr.Address != v || len(v) > 254 {
				problems = append(problems, "email: must be an email address such as ana@example.com")
			}
			in.Email = &v
		case colTimeZone:
			if !ValidTimeZone(v) {
				problems = append(problems, "timeZone: must be an IANA time zone such as America/New_York")
			}
			in.TimeZone = &v
		case colConsentAt, colConsentSource, colConsentMethod:
			importConsentCell(&in, col.base, v)
		case colGroups:
			for _, g := range strings.Split(v, ";") {
				if g = strings.TrimSpace(g); g == "" {
					continue
				}
				if runeLen(g) > maxGroupName {
					problems = append(problems, fmt.Sprintf("groups: %q is longer than %d characters", g, maxGroupName))
					continue
				}
				groups = append(groups, g)
			}
		case colFirstName, colLastName, colCompany:
			if runeLen(v) > 255 {
				problems = append(problems, col.base+": must be at most 255 characters")
			}
			switch col.base {
			case colFirstName:
				in.FirstName = &v
			case colLastName:
				in.LastName = &v
			default:
				in.Company = &v
			}
		default:
			pv, msg := convertProperty(col.typ, v)
			if msg != "" {
				problems = append(problems, field+": "+msg)
				continue
			}
			if in.Properties == nil {
				in.Properties = map[string]any{}
			}
			in.Properties[col.property] = pv
		}
	}
	if in.Phone == "" && !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, "phone:") }) {
		problems = append([]string{"phone: is required"}, problems...)
	}
	if problems != nil {
		return ContactInput{}, nil, strings.Join(problems, "; ")
	}
	return in, groups, ""
}

// jsonNumber is the JSON number grammar (RFC 8259 §6).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// convertProperty turns a cell into a property value of type typ, or says why it cannot.
func convertProperty(typ, v string) (any, string) {
	switch typ {
	case PropertyText:
		if runeLen(v) > 255 {
			return nil, "must be at most 255 characters"
		}
		return v, ""
	case PropertyNumber:
		// Kept as written (json.Number, like the API's decoder); it must also fit a float64 so
		// that the stored record decodes again.
		var f float64
		if !jsonNumber.MatchString(v) || json.Unmarshal([]byte(v), &f) != nil {
			return nil, "must be a number such as 42 or -1.5"
		}
		return json.Number(v), ""
	case PropertyBoolean:
		switch strings.ToLower(v) {
		case "true", "yes", "1":
			return true, ""
		case "false", "no", "0":
			return false, ""
		}
		return nil, "must be true or false"
	case PropertyDate:
		if !ValidDate(v) {
			return nil, "must be a calendar date YYYY-MM-DD"
		}
		return v, ""
	}
	return nil, fmt.Sprintf("has an unknown type %q", typ)
}

// rowReason is a write-time validation failure as one reason line.
func rowReason(v ValidationError) string {
	parts := make([]string, len(v))
	for i, e := range v {
		parts[i] = e.Field + ": " + e.Message
	}
	return strings.Join(parts, "; ")
}

func csvErrorText(err error) string {
	var perr *csv.ParseError
	if errors.As(err, &perr) {
		return perr.Err.Error()
	}
	return err.Error()
}

// skipBOM drops a UTF-8 byte order mark, which spreadsheet exports often start with.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 1<<16)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		_, _ = br.Discard(3)
	}
	return br
}

// importGroups are the groups one import batch adds members to: each is found (or created) once
// and written once at the end of the batch, with its new size.
type importGroups map[string]*Group // by groupNameTerm

func (ig importGroups) add(s *Store, tx *wtx, workspaceID, name, contactID string) error {
	term := groupNameTerm(name)
	g := ig[term]
	if g == nil {
		if id := idxFirst(tx.Bucket(bGroupName), workspaceID, term); id != "" {
			found, err := getGroup(tx.Tx, workspaceID, id)
			if err != nil {
				return err
			}
			g = &found
		} else {
			created, err := s.insertGroup(tx.Tx, workspaceID, strings.TrimSpace(name))
			if err != nil {
				return err
			}
			g = &created
		}
		ig[term] = g
	}
	k := memberKey(workspaceID, g.ID, contactID)
	if hasKey(tx.Bucket(bGroupMembers), k) {
		return nil
	}
	groupMemberChanged(tx, workspaceID, g.ID, contactID)
	if err := tx.Bucket(bGroupMembers).Put(k, nil); err != nil {
		return err
	}
	g.Size++
	return tx.Bucket(bContactGroups).Put(memberKey(workspaceID, contactID, g.ID), nil)
}

func (ig importGroups) flush(s *Store, tx *kv.Tx) error {
	now := s.Now()
	for _, g := range ig {
		g.UpdatedAt = now
		if err := putJSON(tx.Bucket(bGroups), wsKey(g.WorkspaceID, g.ID), g); err != nil {
			return err
		}
	}
	return nil
}

// importPhoneMessage says what an import's phone cell takes: E.164, or the national format of
// the workspace's country.
func importPhoneMessage(country string) string {
	msg := "must be a phone number such as +14155550123"
	if ex := phone.Example(country); ex != "" {
		msg += " or, for " + phone.Country(country) + ", " + ex
	}
	return msg
}
