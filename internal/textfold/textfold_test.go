package textfold_test

import (
	"strings"
	"switchboard/internal/textfold"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"José", "jose"},
		{"JOSÉ", "jose"},
		{"Jose\u0301", "jose"}, // decomposed accent
		{"Ñandú", "nandu"},
		{"Zoë", "zoe"},
		{"Ångström", "angstrom"},
		{"Øystein", "oystein"},
		{"Łukasz", "lukasz"},
		{"Đorđe", "dorde"},
		{"Straße", "strasse"},
		{"ＡＢＣ", "abc"}, // full-width letters
		{"Ana\x00Maria", "anamaria"},
		{"", ""},
	} {
		if got := textfold.Fold(tc.in); got != tc.want {
			t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzFold(f *testing.F) {
	for _, s := range foldSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := textfold.Fold(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Fold(%q) = %q, not valid UTF-8", s, got)
		}
		if strings.ContainsRune(got, 0) || strings.ContainsFunc(got, unicode.IsControl) {
			t.Fatalf("Fold(%q) = %q holds a control character", s, got)
		}
		if strings.ContainsFunc(got, func(r rune) bool { return unicode.Is(unicode.Mn, r) }) {
			t.Fatalf("Fold(%q) = %q still holds a combining mark", s, got)
		}
		if again := textfold.Fold(got); again != got {
			t.Fatalf("Fold is not idempotent: Fold(%q) = %q, Fold(%q) = %q", s, got, got, again)
		}
		if up := textfold.Fold(strings.ToUpper(s)); utf8.ValidString(s) && isASCII(s) && up != got {
			t.Fatalf("Fold(%q) = %q but Fold of its upper case = %q", s, got, up)
		}
	})
}

// foldSeeds are texts that stress folding: controls, invalid UTF-8, ligatures, compatibility
// forms, letters whose case folding differs from lowering.
var foldSeeds = []string{
	"", " ", "José Núñez", "555-01", "(415) 555.0123", "+14155550123", "ana.lopez+vip@mail.example.com",
	"\x00", "a\x00b", "\xff\xfe", "İstanbul", "ǅ", "ﬃ", "ß", "\u0301", "a\u0345", "Ⅻ", "①②", "１２３",
	"\t\n\v\f\r", "a\u00a0b", "\u2028", "ꭰ", "ᏸ", "\U0001F600", "٣٤٥", "x@y", "---", "..1..",
	"+1 (202) 555-0147", "12 12", "1 x 2", "+1 - 202",
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
