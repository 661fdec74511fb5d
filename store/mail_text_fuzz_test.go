package store_test

import (
	"strings"
	"testing"
	"unicode"

	"switchboard/store"
)

// FuzzMailText: a name put into an e-mail never brings a line break or another control
// character with it, and its words stay.
func FuzzMailText(f *testing.F) {
	for _, s := range []string{"Ana Lima", "Ana\r\nBcc: x@example.com", "\x00token\x00", "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := store.MailText(s)
		if strings.ContainsFunc(got, unicode.IsControl) {
			t.Fatalf("MailText(%q) = %q holds a control character", s, got)
		}
		for _, w := range strings.FieldsFunc(s, unicode.IsControl) {
			if !strings.Contains(got, w) {
				t.Fatalf("MailText(%q) = %q lost %q", s, got, w)
			}
		}
	})
}
