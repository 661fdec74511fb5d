// Package textfold folds text for matching: the one implementation of case- and
// accent-insensitive comparison, used by the store's contact search and by the benchmark
// generator (whose generated emails must match what a search for the name finds).
package textfold

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

var folder = cases.Fold()

// Fold makes s case- and accent-insensitive: compatibility decomposition, combining marks
// dropped, case folded, white-space control characters (tab, newline) made spaces and other
// control characters removed.
func Fold(s string) string {
	if printableASCII(s) {
		// The common case, and the one imports and searches do millions of times: no
		// decomposition, no marks, no controls, and folding is lowering.
		return strings.ToLower(s)
	}
	// Tabs and newlines are control characters, but they separate words like a space does.
	s = strings.Map(spaceControl, s)
	t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), runes.Remove(runes.In(unicode.Cc)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	out = folder.String(out)
	return strings.Map(foldSpecial, out)
}

// printableASCII reports whether s holds only the bytes 0x20 to 0x7e.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// foldSpecial maps letters that have no decomposition to their base letter.
func foldSpecial(r rune) rune {
	switch r {
	case 'ø':
		return 'o'
	case 'đ', 'ð':
		return 'd'
	case 'ł':
		return 'l'
	case 'ħ':
		return 'h'
	case 'ı':
		return 'i'
	case 0:
		return -1
	}
	// cases.Fold folds lower-case Cherokee to upper case and upper case to lower case, so the
	// two cases would not meet; lowering its result once more makes them meet.
	return unicode.ToLower(r)
}

// spaceControl maps white-space control characters (tab, newline, …) to a space.
func spaceControl(r rune) rune {
	if r < 0xa0 && unicode.IsSpace(r) {
		return ' '
	}
	return r
}
