package index

import (
	"slices"
	"strings"
	"switchboard/internal/textfold"
	"unicode"
)

// isWordSep reports whether r separates the words of names, companies and emails.
func isWordSep(r rune) bool {
	return unicode.IsSpace(r) || r == '@' || r == '.' || r == '_' || r == '-' || r == '+'
}

// TextWords splits s (folded) into words at white space and @ . _ - +; the words of a
// contact's names, company and email are what text words of a query must prefix.
func TextWords(s string) []string {
	return strings.FieldsFunc(textfold.Fold(s), isWordSep)
}

// Digits returns the decimal digits of s in order.
func Digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Query is a parsed searchText: its words, split into text words and digit words.
type Query struct {
	// Text words must each prefix a word of the contact's first name, last name, company or email.
	Text []string
	// Digit words must each occur in the contact's phone digits.
	Digits []string
	// ExactDigits is set when every piece of the query is a digit word: their digits joined in
	// query order (before de-duplication), so `+1 (202) 555-0147` gives 12025550147. A phone
	// with exactly these digits ranks first.
	ExactDigits string
	// Exact is the trimmed query, folded: an email equal to it ranks first.
	Exact string
}

// Empty reports whether the query has no words: it lists contacts in order, unranked.
func (q Query) Empty() bool { return len(q.Text) == 0 && len(q.Digits) == 0 }

// ParseQuery splits searchText into digit words and text words.
func ParseQuery(searchText string) Query {
	var q Query
	pieces := strings.Fields(searchText)
	for _, p := range pieces {
		stripped := strings.Map(func(r rune) rune {
			switch r {
			case '+', '-', '(', ')', '.':
				return -1
			}
			return r
		}, p)
		if stripped != "" && isASCIIDigits(stripped) {
			q.Digits = append(q.Digits, stripped)
			continue
		}
		q.Text = append(q.Text, TextWords(p)...)
	}
	// Joined before de-duplication: "12 12" is the phone 1212, not 12.
	if len(pieces) > 0 && len(q.Digits) == len(pieces) {
		q.ExactDigits = strings.Join(q.Digits, "")
	}
	q.Text = dropImplied(dedupe(q.Text), strings.HasPrefix)
	q.Digits = dropImplied(dedupe(q.Digits), strings.Contains)
	if len(pieces) > 0 {
		q.Exact = strings.ToLower(strings.TrimSpace(searchText))
	}
	return q
}

// dropImplied removes every word implied by another: a text word that prefixes another text
// word (whatever the longer one prefixes, the shorter one prefixes too), a digit word contained
// in another digit word. in holds no duplicates. The search then does the work of each word
// once, whatever the query repeats.
func dropImplied(in []string, implied func(longer, shorter string) bool) []string {
	if len(in) < 2 {
		return in
	}
	out := in[:0:0]
	for i, w := range in {
		if !slices.ContainsFunc(in, func(o string) bool { return o != w && len(o) > len(w) && implied(o, w) }) {
			out = append(out, in[i])
		}
	}
	return out
}

func isASCIIDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func dedupe(in []string) []string {
	if len(in) < 2 {
		return in
	}
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
