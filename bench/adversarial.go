package main

import (
	"fmt"
	"strings"
)

// adversarialKinds are the searchText classes a hostile or careless caller sends (each at most
// 255 characters): 127 one-digit words, the same word repeated, two-letter and two-digit words,
// long unicode, punctuation, every character class at once. Their target is the same p99 as
// every search, and a max of 50 ms.
func adversarialKinds() []kind {
	oneDigits := func(start int) string {
		var w []string
		for i := range 127 {
			w = append(w, fmt.Sprint((start+i*7)%10))
		}
		return strings.Join(w, " ")
	}
	twoLetters := func(start int) string {
		var w []string
		for i := range 85 {
			w = append(w, string(rune('a'+(start+i)%26))+string(rune('a'+(start+i*7)%26)))
		}
		return strings.Join(w, " ")
	}
	twoDigits := func(start int) string {
		var w []string
		for i := range 85 {
			w = append(w, fmt.Sprintf("%02d", (start+i*13)%100))
		}
		return strings.Join(w, " ")
	}
	cut := func(s string) string {
		r := []rune(s)
		for len(string(r)) > 255 {
			r = r[:len(r)-1]
		}
		return strings.TrimSpace(string(r))
	}
	var digits, letters, repeated, unicode, punct, mixed []string
	for i := range 10 {
		digits = append(digits, oneDigits(i))
		// Short ones too: a few digits, which most phones hold, and many, which few do.
		digits = append(digits, []string{"7", "1 3", "0 2 4 6 8", "9 8 7 6 5 4 3", "5 5", "2", "4 0", "6 1 8", "3 9 2 7", "0 1 2 3 4 5 6 7 8 9"}[i])
		letters = append(letters, twoLetters(i))
		letters = append(letters, twoDigits(i))
	}
	for _, w := range []string{"a", "ma", "mat", "maria", "1", "12", "555", "0147", "a@b", "x"} {
		repeated = append(repeated, cut(strings.Repeat(w+" ", 255/(len(w)+1))))
	}
	for _, w := range []string{"é", "中文", "Ωμέγα", "😀", "ß", "İ", "ﬁ", "Müller", "Łódź", "ñandú"} {
		unicode = append(unicode, cut(strings.Repeat(w, 255)), cut(strings.Repeat(w+" ", 255)))
	}
	for _, p := range []string{"-", "+", "()", ".", "@", "_", "@.", "+-().", "-_-", "..."} {
		punct = append(punct, cut(strings.Repeat(p, 255)), cut(strings.Repeat(p+" ", 255)))
	}
	classes := []string{"a", "Z", "7", "42", "é", "中", "😀", "+", "(", ")", "-", ".", "@", "_", "%", "\"", "'", "\\", "*", "mat", "0147"}
	for i := range 10 {
		var b strings.Builder
		for j := 0; b.Len() < 250; j++ {
			b.WriteString(classes[(i+j*3)%len(classes)])
			b.WriteString([]string{" ", ".", "-", ""}[(i+j)%4])
		}
		mixed = append(mixed, cut(b.String()))
	}
	return []kind{
		{"adversarial: one-digit words, 1 to 127", "7; 1 8 5 2 …", digits},
		{"adversarial: 85 two-letter or two-digit words", "ah bo cv …", letters},
		{"adversarial: one word repeated to 255 chars", "ma ma ma …", repeated},
		{"adversarial: 255 chars of unicode", "éééé…", unicode},
		{"adversarial: punctuation", "@.@.@.…", punct},
		{"adversarial: every character class", "a Z 7 42 é 中 😀 + ( …", mixed},
	}
}
