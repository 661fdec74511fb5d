package index_test

import (
	"slices"
	"strings"
	"switchboard/internal/textfold"
	"testing"
	"unicode"

	"switchboard/store/internal/index"
)

func TestTextWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"ana.lopez+vip@mail.example.com", []string{"ana", "lopez", "vip", "mail", "example", "com"}},
		{"Ann-Marie  O'Neil", []string{"ann", "marie", "o'neil"}},
		{"snake_case", []string{"snake", "case"}},
		{"  ", nil},
		{"@.-_+", nil},
		{"José\tNúñez", []string{"jose", "nunez"}},
	} {
		if got := index.TextWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("TextWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		in          string
		text        []string
		digits      []string
		exactDigits string
	}{
		{"", nil, nil, ""},
		{"   ", nil, nil, ""},
		{"José", []string{"jose"}, nil, ""},
		{"555-01", nil, []string{"55501"}, "55501"},
		{"(415)", nil, []string{"415"}, "415"},
		// "1" is implied by "5550123" (a phone holding one holds the other): dropped.
		{"+1 (415) 555.0123", nil, []string{"415", "5550123"}, "14155550123"},
		{"+1 (202) 555-0147", nil, []string{"202", "5550147"}, "12025550147"},
		{"+1 - 202", nil, []string{"1", "202"}, ""}, // "-" is no digit word, so not every piece is one
		{"+14155550123", nil, []string{"14155550123"}, "14155550123"},
		{"ana 0123", []string{"ana"}, []string{"0123"}, ""},
		{"0123 ana", []string{"ana"}, []string{"0123"}, ""},
		{"ana@example.com", []string{"ana", "example", "com"}, nil, ""},
		{"a1", []string{"a1"}, nil, ""},
		{"12a", []string{"12a"}, nil, ""},
		{"1_2", []string{"1", "2"}, nil, ""}, // _ is not dropped from digit words
		{"+", nil, nil, ""},
		{"()", []string{"()"}, nil, ""}, // not a digit word, and ( ) do not split text
		{"Ana ana ANA", []string{"ana"}, nil, ""},
		{"12 12", nil, []string{"12"}, "1212"}, // joined before de-duplication
		{"１２３", []string{"123"}, nil, ""},      // full-width digits are not ASCII digits
		// Words implied by another are dropped: a text word prefixing another text word, a
		// digit word inside another digit word.
		{"an ana anabel bo", []string{"anabel", "bo"}, nil, ""},
		{"anabel an", []string{"anabel"}, nil, ""},
		{"1 12 123 9", nil, []string{"123", "9"}, "1121239"},
		{"1 2 1 2 1 2", nil, []string{"1", "2"}, "121212"},
		{"ana 1", []string{"ana"}, []string{"1"}, ""},
	} {
		q := index.ParseQuery(tc.in)
		if !slices.Equal(q.Text, tc.text) || !slices.Equal(q.Digits, tc.digits) || q.ExactDigits != tc.exactDigits {
			t.Errorf("ParseQuery(%q) = text %q digits %q exact %q, want text %q digits %q exact %q",
				tc.in, q.Text, q.Digits, q.ExactDigits, tc.text, tc.digits, tc.exactDigits)
		}
		if want := len(tc.text) == 0 && len(tc.digits) == 0; q.Empty() != want {
			t.Errorf("ParseQuery(%q).Empty() = %v, want %v", tc.in, q.Empty(), want)
		}
	}
}

var searchSeeds = []string{
	"", " ", "José Núñez", "555-01", "(415) 555.0123", "+14155550123", "ana.lopez+vip@mail.example.com",
	"\x00", "a\x00b", "\xff\xfe", "İstanbul", "ǅ", "ﬃ", "ß", "\u0301", "a\u0345", "Ⅻ", "①②", "１２３",
	"\t\n\v\f\r", "a\u00a0b", "\u2028", "ꭰ", "ᏸ", "\U0001F600", "٣٤٥", "x@y", "---", "..1..",
	"+1 (202) 555-0147", "12 12", "1 x 2", "+1 - 202",
}

func isSep(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("@._-+", r) }

func isASCIIDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// checkWord fails unless w is a usable text word: non-empty, no separator, no control
// character, and already folded.
func checkWord(t *testing.T, src, w string) {
	t.Helper()
	if w == "" {
		t.Fatalf("%q gave an empty text word", src)
	}
	if strings.ContainsFunc(w, isSep) {
		t.Fatalf("%q gave text word %q, which holds a separator", src, w)
	}
	if strings.ContainsFunc(w, unicode.IsControl) {
		t.Fatalf("%q gave text word %q, which holds a control character", src, w)
	}
	if f := textfold.Fold(w); f != w {
		t.Fatalf("%q gave text word %q, which folds again to %q", src, w, f)
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range searchSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := index.ParseQuery(s)
		for _, w := range q.Text {
			checkWord(t, s, w)
		}
		for _, d := range q.Digits {
			if !isASCIIDigits(d) {
				t.Fatalf("ParseQuery(%q) digit word %q is not all ASCII digits", s, d)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(q.Text)))) != len(q.Text) {
			t.Fatalf("ParseQuery(%q) text words %q repeat", s, q.Text)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(q.Digits)))) != len(q.Digits) {
			t.Fatalf("ParseQuery(%q) digit words %q repeat", s, q.Digits)
		}
		// ExactDigits is the pieces' digits joined when every piece is a digit word, else "".
		wantExact := ""
		for _, p := range strings.Fields(s) {
			d := strings.NewReplacer("+", "", "-", "", "(", "", ")", "", ".", "").Replace(p)
			if !isASCIIDigits(d) {
				wantExact = ""
				break
			}
			wantExact += d
		}
		if q.ExactDigits != wantExact {
			t.Fatalf("ParseQuery(%q) ExactDigits %q, want %q", s, q.ExactDigits, wantExact)
		}
		if q.Empty() != (len(q.Text) == 0 && len(q.Digits) == 0) {
			t.Fatalf("ParseQuery(%q).Empty() = %v with text %q digits %q", s, q.Empty(), q.Text, q.Digits)
		}
		// A query without separators or digit pieces is the text words of its own fold.
		if len(strings.Fields(s)) == 1 && len(q.Digits) == 0 && !slices.Equal(q.Text, dedupe(index.TextWords(s))) {
			t.Fatalf("ParseQuery(%q) text %q, want TextWords %q", s, q.Text, index.TextWords(s))
		}
	})
}

func dedupe(in []string) []string {
	var out []string
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func FuzzTextWords(f *testing.F) {
	for _, s := range searchSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := index.TextWords(s)
		for _, w := range words {
			checkWord(t, s, w)
		}
		// Words re-joined with a separator split the same way again.
		if again := index.TextWords(strings.Join(words, " ")); !slices.Equal(again, words) {
			t.Fatalf("TextWords(%q) = %q, but those words joined give %q", s, words, again)
		}
	})
}
