package assist

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"  Hello there.  ":                    "Hello there.",
		`"Hello there."`:                      "Hello there.",
		"“Hello there.”":                      "Hello there.",
		"<think>the user wants…</think>\nHi!": "Hi!",
		"<think>never closed":                 "",
		"```\nHi!\n```":                       "Hi!",
		"```text\nHi!\n```":                   "Hi!",
		`"`:                                   "",
		`"Yes," she said`:                     `Yes," she said`,
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFoldGSM(t *testing.T) {
	in := "“Don’t worry” — we’re open… see you\u00a0soon"
	got := foldGSM(in)
	if got != `"Don't worry" - we're open... see you soon` {
		t.Fatalf("foldGSM = %q", got)
	}
	if ok, why := fitsOneSegment(got); !ok {
		t.Fatalf("the folded text does not fit: %s", why)
	}
	if ok, why := fitsOneSegment(in); ok || !strings.Contains(why, "not GSM-7") {
		t.Fatalf("the typographic text fits (%v, %q): the counter should call it UCS-2", ok, why)
	}
}

// FuzzAnswer splits an answer into arbitrary pieces: what streams is always the start of what a
// person may see, never more than the limit, and the end is valid text within it.
func FuzzAnswer(f *testing.F) {
	f.Add("<think>a</think> \"Hello, world\"", uint8(3))
	f.Add("```\nx\n```", uint8(1))
	f.Add("“quoted”", uint8(2))
	f.Add(strings.Repeat("é", 100), uint8(7))
	f.Fuzz(func(t *testing.T, s string, step uint8) {
		s = strings.ToValidUTF8(s, "\uFFFD") // the stream's JSON decoding makes every piece valid
		n := int(step%16) + 1
		a := newAnswer(20)
		var streamed strings.Builder
		for i := 0; i < len(s); {
			j := min(i+n, len(s))
			for j < len(s) && !utf8.RuneStart(s[j]) {
				j++
			}
			streamed.WriteString(a.add(s[i:j]))
			i = j
		}
		if utf8.RuneCountInString(streamed.String()) > 20 {
			t.Fatalf("streamed %q: over the limit", streamed.String())
		}
		if !strings.HasPrefix(a.visible(), streamed.String()) {
			t.Fatalf("streamed %q is not the start of the visible %q", streamed.String(), a.visible())
		}
		fin := a.final()
		if !utf8.ValidString(fin) || utf8.RuneCountInString(fin) > 20 || strings.HasPrefix(fin, "<think>") {
			t.Fatalf("final %q", fin)
		}
		if folded := foldGSM(fin); utf8.RuneCountInString(folded) > 3*utf8.RuneCountInString(fin) {
			t.Fatalf("folding grew %q to %q", fin, folded)
		}
	})
}
