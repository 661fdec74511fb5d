package index_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"switchboard/store/internal/index"
)

func TestMessageWordsFoldAndSplit(t *testing.T) {
	got := index.MessageWords("Olá JOSÉ, your order #A-1234 ships Tuesday; olá!")
	want := []string{"ola", "jose", "your", "order", "a", "1234", "ships", "tuesday"}
	if !slices.Equal(got, want) {
		t.Errorf("MessageWords = %q, want %q", got, want)
	}
	long := index.MessageWords("pneumonoultramicroscopicsilicovolcanoconiosis")
	if len(long) != 1 || len(long[0]) != 24 {
		t.Errorf("a long word is kept as its first 24 bytes: %q", long)
	}
}

// FuzzMessageWords: words are valid UTF-8, non-empty, at most 24 bytes, distinct, and hold
// only letters and digits.
func FuzzMessageWords(f *testing.F) {
	for _, s := range []string{"", "Olá JOSÉ!", "a-b_c.d", "ﬁnance Straße", strings.Repeat("é", 40), "\x00\xff", "１２３４"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seen := map[string]bool{}
		for _, w := range index.MessageWords(s) {
			if w == "" || len(w) > 24 || !utf8.ValidString(w) || seen[w] {
				t.Fatalf("MessageWords(%q) has %q", s, w)
			}
			seen[w] = true
			for _, r := range w {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != utf8.RuneError {
					t.Fatalf("MessageWords(%q): %q holds %q", s, w, r)
				}
			}
		}
	})
}
