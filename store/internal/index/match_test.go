package index

import (
	"slices"
	"strings"
	"testing"
)

// hasWordPrefixed must agree with splitting the field into words and testing each.
func FuzzHasWordPrefixed(f *testing.F) {
	for _, s := range [][2]string{{"anais.wang@example.com", "wa"}, {"mary-jane", "jane"}, {"a b", "a b"},
		{"", ""}, {"  ", ""}, {"x@y", "y"}, {"é.è", "è"}, {"ab", "abc"}, {"a\u2028b", "b"}, {"+1", "1"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, field, p string) {
		want := slices.ContainsFunc(strings.FieldsFunc(field, isWordSep), func(w string) bool { return strings.HasPrefix(w, p) })
		if got := hasWordPrefixed(field, p); got != want {
			t.Fatalf("hasWordPrefixed(%q, %q) = %v, the words of the field say %v", field, p, got, want)
		}
	})
}
