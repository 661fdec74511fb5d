package textfold

import "testing"

// The rune-by-rune path must give what folding the whole text gives: every rune of the table's
// range alone, after and before ASCII, and beside every other rune of the range.
func TestFoldLatinEqualsWhole(t *testing.T) {
	var rs []rune
	for r := rune(0x20); r < 0x7f; r += 7 {
		rs = append(rs, r)
	}
	for r := rune(latinFirst); r < latinEnd; r++ {
		rs = append(rs, r)
	}
	checked := 0
	for _, a := range rs {
		for _, b := range rs {
			s := string([]rune{'x', a, b, 'Y'})
			if got, want := Fold(s), foldSlow(s); got != want {
				t.Fatalf("Fold(%q) = %q, folding the whole gives %q", s, got, want)
			}
			checked++
		}
	}
	ok := 0
	for _, e := range latin {
		if e.ok {
			ok++
		}
	}
	// Most of the range folds to ASCII (letters with marks, controls): 315 runes of 464. A table
	// that covered nothing would make this test vacuous.
	if ok < 300 {
		t.Fatalf("only %d runes of U+0080–U+024F fold rune by rune", ok)
	}
	t.Logf("%d pairs checked", checked)
}

func FuzzFoldLatinEqualsWhole(f *testing.F) {
	for _, s := range []string{"José Núñez", "Anaïs", "maëlle.owen@example.com", "Ǆemal", "ŉ", "µ", "¼", "a\u0085b", "\u00a0", "Æsir ĳ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Fold(s), foldSlow(s); got != want {
			t.Fatalf("Fold(%q) = %q, folding the whole gives %q", s, got, want)
		}
	})
}
