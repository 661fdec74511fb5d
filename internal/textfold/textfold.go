// Package textfold folds text for matching: the one implementation of case- and
// accent-insensitive comparison, used by the store's contact search and by the benchmark
// generator (whose generated emails must match what a search for the name finds).
package textfold

import (
	"strings"
	"sync"
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
	if out, ok := foldLatin(s); ok {
		return out
	}
	return foldSlow(s)
}

// foldSlow is Fold's definition, for any text.
func foldSlow(s string) string {
	// Tabs and newlines are control characters, but they separate words like a space does.
	s = strings.Map(spaceControl, s)
	t := chains.Get().(transform.Transformer)
	out, _, err := transform.String(t, s) // String resets t first
	chains.Put(t)
	if err != nil {
		out = s
	}
	out = folder.String(out)
	return strings.Map(foldSpecial, out)
}

// chains keeps the decomposition chains foldSlow uses: a chain holds buffers of a few KB, too
// many to make for each name a search reads.
var chains = sync.Pool{New: func() any {
	return transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), runes.Remove(runes.In(unicode.Cc)), norm.NFC)
}}

// latinFirst and latinEnd bound the runes latin maps: Latin-1 Supplement and Latin Extended-A
// and -B, the letters of most names written in Latin script (José, Zoë, Łukasz, Đorđe).
const latinFirst, latinEnd = 0x80, 0x250

// latin holds, for each rune from latinFirst to latinEnd, what foldSlow makes of it alone when
// that is printable ASCII (possibly empty: a control character), with ok set; runes that fold
// to anything else (µ to μ, ¼ to 1⁄4) are not ok. Text made of printable ASCII and ok runes folds
// rune by rune: each such rune decomposes to ASCII and combining marks, the marks are dropped,
// and nothing is left to compose across runes, so folding the whole equals joining the parts.
var latin = func() (t [latinEnd - latinFirst]struct {
	s  string
	ok bool
}) {
	for r := rune(latinFirst); r < latinEnd; r++ {
		if f := foldSlow(string(r)); printableASCII(f) {
			t[r-latinFirst].s, t[r-latinFirst].ok = f, true
		}
	}
	return t
}()

// foldLatin folds s rune by rune when every rune is printable ASCII or an ok rune of latin;
// ok is false otherwise (s is then folded whole).
func foldLatin(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7f:
			b.WriteByte(byte(unicode.ToLower(r)))
		case r >= latinFirst && r < latinEnd && latin[r-latinFirst].ok:
			b.WriteString(latin[r-latinFirst].s)
		default:
			return "", false // invalid UTF-8 (utf8.RuneError) is not in the table either
		}
	}
	return b.String(), true
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
