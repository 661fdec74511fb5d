package store

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"

	"switchboard/internal/phone"
)

// A browser import maps each column of the uploaded file to an import target: a base column, a
// custom property ("property:" + name), a consent column, or ignore. The mapped file is then
// read by the import as if its header had named the targets.

// Import targets besides the base columns and the properties.
const (
	TargetIgnore        = "ignore"
	TargetConsentAt     = "consentAt"
	TargetConsentSource = "consentSource"
	TargetConsentMethod = "consentMethod"
	targetProperty      = "property:"
)

// ImportBaseColumns are the base targets but the consent columns, in the order the mapping
// offers them.
func ImportBaseColumns() []string {
	var out []string
	for _, c := range importBaseColumns {
		if !contains(ConsentTargets, c) {
			out = append(out, c)
		}
	}
	return out
}

// ConsentTargets are the consent columns a file may map: a row with consentAt adds a granted
// entry to its number's consent history.
var ConsentTargets = []string{TargetConsentAt, TargetConsentSource, TargetConsentMethod}

// PropertyTarget is the target of custom property name.
func PropertyTarget(name string) string { return targetProperty + name }

// SniffCSV checks the start of an uploaded file and picks its delimiter: the file must be UTF-8
// text (a BOM is allowed; a rune cut at the end of head is not an error) without NUL bytes, and
// its first line's comma or semicolon count, outside quotes, decides (a tie is a comma).
func SniffCSV(head []byte) (rune, error) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(head)) == 0 {
		return 0, fmt.Errorf("the file is empty")
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return 0, fmt.Errorf("the file is not CSV text (it holds binary data)")
	}
	if !validUTF8Prefix(head) {
		return 0, fmt.Errorf("the file is not UTF-8 text: save it as “CSV UTF-8” and upload it again")
	}
	commas, semis, quoted := 0, 0, false
	for _, c := range head {
		if c == '"' {
			quoted = !quoted
		}
		if quoted {
			continue
		}
		if c == '\n' || c == '\r' {
			break
		}
		switch c {
		case ',':
			commas++
		case ';':
			semis++
		}
	}
	if semis > commas {
		return ';', nil
	}
	return ',', nil
}

// validUTF8Prefix reports whether b is valid UTF-8 but for an incomplete rune at its very end.
func validUTF8Prefix(b []byte) bool {
	if utf8.Valid(b) {
		return true
	}
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.Valid(b[:len(b)-i]) {
			r, _ := utf8.DecodeRune(b[len(b)-i:])
			return r == utf8.RuneError && !utf8.FullRune(b[len(b)-i:])
		}
	}
	return false
}

// guesses maps a folded header (lower case, no spaces, dashes, dots or underscores) to its
// target.
var guesses = map[string]string{
	"firstname": colFirstName, "first": colFirstName, "givenname": colFirstName, "fname": colFirstName, "name": colFirstName, "forename": colFirstName,
	"lastname": colLastName, "last": colLastName, "surname": colLastName, "familyname": colLastName, "lname": colLastName,
	"phone": colPhone, "phonenumber": colPhone, "mobile": colPhone, "mobilephone": colPhone, "mobilenumber": colPhone, "cell": colPhone,
	"cellphone": colPhone, "tel": colPhone, "telephone": colPhone, "number": colPhone, "msisdn": colPhone, "sms": colPhone,
	"email": colEmail, "emailaddress": colEmail, "mail": colEmail,
	"company": colCompany, "organization": colCompany, "organisation": colCompany, "business": colCompany, "companyname": colCompany,
	"timezone": colTimeZone, "tz": colTimeZone, "zone": colTimeZone,
	"groups": colGroups, "group": colGroups, "tags": colGroups, "lists": colGroups, "list": colGroups,
	"consentat": TargetConsentAt, "consentdate": TargetConsentAt, "optinat": TargetConsentAt, "optindate": TargetConsentAt, "consentedat": TargetConsentAt,
	"consentsource": TargetConsentSource, "optinsource": TargetConsentSource,
	"consentmethod": TargetConsentMethod, "optinmethod": TargetConsentMethod,
}

func foldHeader(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '.', '\t':
			return -1
		}
		return r
	}, h)
}

// GuessMapping proposes a target for each header: a custom property of the same name (any
// case), else a known name of a base or consent column, else ignore. A target already taken by
// an earlier column is not proposed again.
func GuessMapping(headers, properties []string) []string {
	out := make([]string, len(headers))
	taken := map[string]bool{}
	for i, h := range headers {
		t := TargetIgnore
		for _, p := range properties {
			if strings.EqualFold(strings.TrimSpace(h), p) && baseColumn(p) == "" {
				t = PropertyTarget(p)
			}
		}
		if t == TargetIgnore {
			if g, ok := guesses[foldHeader(h)]; ok {
				t = g
			}
		}
		if taken[t] && t != TargetIgnore {
			t = TargetIgnore
		}
		taken[t] = true
		out[i] = t
	}
	return out
}

// Mapping is a checked column mapping of an uploaded file.
type Mapping struct {
	targets []string // per column
	header  []string // the import header of the kept columns
	keep    []int    // the columns the import reads, in header order
	phone   int      // the phone column
	country string
}

// NewMapping checks targets (one per column of the file): each a base column, a property of
// the workspace, a consent column or ignore; none twice but ignore; phone exactly once.
func NewMapping(targets, properties []string, country string) (*Mapping, error) {
	m := &Mapping{targets: targets, phone: -1, country: country}
	seen := map[string]bool{}
	var problems []string
	for i, t := range targets {
		switch {
		case t == TargetIgnore || t == "":
			continue
		case seen[t]:
			problems = append(problems, fmt.Sprintf("column %d: %s is already mapped to another column", i+1, targetLabel(t)))
			continue
		case strings.HasPrefix(t, targetProperty):
			name := strings.TrimPrefix(t, targetProperty)
			if !contains(properties, name) {
				problems = append(problems, fmt.Sprintf("column %d: there is no custom property %q", i+1, name))
				continue
			}
			m.header, m.keep = append(m.header, name), append(m.keep, i)
		case baseColumn(t) == t: // the base and consent columns
			if t == colPhone {
				m.phone = i
			}
			m.header, m.keep = append(m.header, t), append(m.keep, i)
		default:
			problems = append(problems, fmt.Sprintf("column %d: unknown target %q", i+1, t))
			continue
		}
		seen[t] = true
	}
	if m.phone < 0 {
		problems = append([]string{"map one column to phone: it identifies each contact"}, problems...)
	}
	if problems != nil {
		return nil, ValidationError{{"mapping", strings.Join(problems, "; ")}}
	}
	return m, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func targetLabel(t string) string { return strings.TrimPrefix(t, targetProperty) }

// Header is the import header of the mapped file.
func (m *Mapping) Header() []string { return m.header }

// Source is the file column that feeds import column field ("properties.x" for a property), -1
// for none: an error names the column the user knows.
func (m *Mapping) Source(field string) int {
	field = strings.TrimPrefix(field, "properties.")
	for i, h := range m.header {
		if h == field {
			return m.keep[i]
		}
	}
	return -1
}

// Row is record as the import reads it: the kept columns in header order, line breaks inside a
// cell turned into spaces (so that each row is one line and the import's line numbers count
// rows), and the phone in E.164 when it is a number of the workspace's country written in its
// national format. A record with the wrong number of fields is given one field too many, so
// that the import rejects it for its field count.
func (m *Mapping) Row(rec []string, want int) []string {
	if len(rec) != want {
		return make([]string, len(m.header)+1)
	}
	out := make([]string, len(m.keep))
	for i, c := range m.keep {
		v := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(rec[c])
		if c == m.phone {
			v = NormalizePhone(v, m.country)
		}
		out[i] = v
	}
	return out
}

// NormalizePhone turns a number written in the national format of country (or with its
// international prefix) into E.164; anything else (a letter or an extension in it included) is
// returned trimmed, as written, for the import to refuse with its own message.
func NormalizePhone(v, country string) string {
	v = strings.TrimSpace(v)
	if v == "" || ValidE164(v) || phone.Foreign(v) != "" {
		return v
	}
	n, err := phonenumbers.Parse(v, country)
	if err != nil || !phonenumbers.IsPossibleNumber(n) {
		return v
	}
	if e := phonenumbers.Format(n, phonenumbers.E164); ValidE164(e) {
		return e
	}
	return v
}
