package benchgen_test

import (
	"testing"

	"switchboard/internal/benchgen"
)

// EmailPart folds a name as the contact search does, so a generated email's local part is what
// a search for the name's folded words finds.
func TestEmailPartFoldsLikeSearch(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"José", "jose"},
		{"Łukasz", "lukasz"},
		{"Weiß", "weiss"},
		{"O'Neil-Smith", "oneilsmith"},
	} {
		if got := benchgen.EmailPart(tc.in); got != tc.want {
			t.Errorf("EmailPart(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
