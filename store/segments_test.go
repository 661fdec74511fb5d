package store_test

import (
	"strings"
	"testing"
	"unicode/utf16"

	"switchboard/store"
)

func TestSegments(t *testing.T) {
	r := strings.Repeat
	emoji := "😀" // outside the BMP: two UTF-16 units
	tests := []struct {
		name     string
		text     string
		encoding string
		want     int
	}{
		{"empty", "", "GSM-7", 0},
		{"one char", "a", "GSM-7", 1},
		{"160 a", r("a", 160), "GSM-7", 1},
		{"161 a", r("a", 161), "GSM-7", 2},
		{"306 a", r("a", 306), "GSM-7", 2},
		{"307 a", r("a", 307), "GSM-7", 3},
		{"459 a", r("a", 459), "GSM-7", 3},
		{"460 a", r("a", 460), "GSM-7", 4},
		{"accents in the basic set", r("é", 160), "GSM-7", 1},
		{"basic set specials", "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./:;<=>?¡ÄÖÑÜ§¿äöñüà", "GSM-7", 1},
		{"80 euro is 160 septets", r("€", 80), "GSM-7", 1},
		{"81 euro is 162 septets", r("€", 81), "GSM-7", 2},
		{"159 a and an escape", r("a", 159) + "^", "GSM-7", 2},
		{"158 a and an escape", r("a", 158) + "{", "GSM-7", 1},
		{"every extension char", "^{}\\[~]|€\f", "GSM-7", 1},
		// 152 + 2 + 152 = 306 septets, two parts by arithmetic, but the escape pair cannot
		// straddle the first boundary: [152][€ + 151][1].
		{"escape at a part boundary", r("a", 152) + "€" + r("a", 152), "GSM-7", 3},
		{"escape just inside a part", r("a", 151) + "€" + r("a", 153), "GSM-7", 2},
		{"70 zhe", r("ж", 70), "UCS-2", 1},
		{"71 zhe", r("ж", 71), "UCS-2", 2},
		{"134 zhe", r("ж", 134), "UCS-2", 2},
		{"135 zhe", r("ж", 135), "UCS-2", 3},
		{"one non-GSM char makes it all UCS-2", r("a", 69) + "ж", "UCS-2", 1},
		{"71 with one non-GSM char", r("a", 70) + "ж", "UCS-2", 2},
		{"curly quote is not GSM-7", r("a", 100) + "’", "UCS-2", 2},
		{"35 emoji are 70 units", r(emoji, 35), "UCS-2", 1},
		{"36 emoji are 72 units", r(emoji, 36), "UCS-2", 2},
		// 66 + 2 + 66 = 134 units, two parts by arithmetic, but the pair cannot straddle the
		// boundary: [66][😀 + 65][1].
		{"surrogate pair at a part boundary", r("ж", 66) + emoji + r("ж", 66), "UCS-2", 3},
		{"surrogate pair just inside a part", r("ж", 65) + emoji + r("ж", 67), "UCS-2", 2},
		{"invalid UTF-8", "\xff", "UCS-2", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := store.SMSEncoding(tc.text); got != tc.encoding {
				t.Errorf("SMSEncoding = %q, want %q", got, tc.encoding)
			}
			if got := store.Segments(tc.text); got != tc.want {
				t.Errorf("Segments = %d, want %d", got, tc.want)
			}
		})
	}
}

// units is the text's length in the encoding's units: septets (extension characters are two)
// for GSM-7, UTF-16 code units for UCS-2.
func units(text string) int {
	if store.SMSEncoding(text) == store.EncodingUCS2 {
		return len(utf16.Encode([]rune(text)))
	}
	n := 0
	for _, r := range text {
		n++
		if strings.ContainsRune("^{}\\[~]|€\f", r) {
			n++
		}
	}
	return n
}

// FuzzSegments: no panic; a non-empty text is at least one segment; the count is at least what
// the arithmetic demands and at most one more part per character pair that had to move, so never
// more than the arithmetic over parts one unit smaller.
func FuzzSegments(f *testing.F) {
	for _, s := range []string{"", "a", strings.Repeat("a", 161), strings.Repeat("€", 81), "😀ж", strings.Repeat("a", 152) + "€" + strings.Repeat("a", 152), "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n := store.Segments(text)
		if text == "" {
			if n != 0 {
				t.Fatalf("Segments(\"\") = %d, want 0", n)
			}
			return
		}
		u := units(text)
		single, part := 160, 153
		if store.SMSEncoding(text) == store.EncodingUCS2 {
			single, part = 70, 67
		}
		switch {
		case n < 1:
			t.Errorf("Segments(%q) = %d, want at least 1", text, n)
		case u <= single && n != 1:
			t.Errorf("Segments(%q) = %d for %d units, want 1", text, n, u)
		case u > single && n < (u+part-1)/part:
			t.Errorf("Segments(%q) = %d for %d units, want at least %d", text, n, u, (u+part-1)/part)
		case u > single && n > (u+part-2)/(part-1):
			// A moved pair wastes at most one unit per part.
			t.Errorf("Segments(%q) = %d for %d units, want at most %d", text, n, u, (u+part-2)/(part-1))
		}
		// Appending never takes fewer segments.
		if m := store.Segments(text + "a"); m < n {
			t.Errorf("Segments(%q+\"a\") = %d < Segments(%q) = %d", text, m, text, n)
		}
	})
}
