package assist

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"switchboard/store"
)

// rawMax bounds the bytes of an answer kept before cleaning (a model that "thinks" at length
// before its answer is cut there).
const rawMax = 64 << 10

// answer gathers a streamed answer within its limits and says which part of it a person may
// see so far: the text without a leading <think> block, code fence or opening quotation mark,
// at most limit characters.
type answer struct {
	limit int
	raw   strings.Builder
	shown string // the visible text passed on so far
	full  bool   // the limit is reached: read no more
}

func newAnswer(limit int) *answer { return &answer{limit: limit} }

// add takes the next piece of the stream and returns what became visible with it ("" when
// nothing did).
func (a *answer) add(piece string) string {
	if a.full || piece == "" {
		return ""
	}
	// A piece is a JSON string, so whole characters; bytes that are not text become U+FFFD.
	piece = strings.ToValidUTF8(piece, "\uFFFD")
	if a.raw.Len()+len(piece) > rawMax {
		piece = truncateBytes(piece, rawMax-a.raw.Len())
		a.full = true
	}
	a.raw.WriteString(piece)
	v := a.visible()
	if utf8.RuneCountInString(v) >= a.limit {
		a.full = true
	}
	if !strings.HasPrefix(v, a.shown) {
		return "" // the cleaning took back text already shown: the end's whole text corrects it
	}
	out := v[len(a.shown):]
	a.shown = v
	return out
}

// visible is the answer so far as a person may see it while it streams.
func (a *answer) visible() string {
	return truncateRunes(cleanStart(a.raw.String()), a.limit)
}

// final is the whole answer, cleaned, within the limit.
func (a *answer) final() string {
	return strings.TrimSpace(truncateRunes(clean(a.raw.String()), a.limit))
}

// cleanStart drops what a model may put before its answer: white space, a <think>…</think>
// block (nothing is visible while it is open), a code fence's first line and an opening
// quotation mark.
func cleanStart(s string) string {
	s, _ = head(s)
	return s
}

// clean is cleanStart on a whole answer, which also drops the closing fence, the closing
// quotation mark that matches the opening one, and white space at the end.
func clean(s string) string {
	s, closing := head(s)
	s = strings.TrimSpace(s)
	if closing != "" && strings.HasSuffix(s, closing) {
		s = strings.TrimSpace(s[:len(s)-len(closing)])
	}
	return s
}

// head strips the start of an answer and says what would close what it stripped: the fence
// (which may close a quotation inside it) or the quotation mark.
func head(s string) (rest, closing string) {
	s = strings.TrimLeft(s, " \t\r\n")
	if unfinished(s) {
		return "", ""
	}
	if strings.HasPrefix(s, "<think>") {
		end := strings.Index(s, "</think>")
		if end < 0 {
			return "", ""
		}
		s = strings.TrimLeft(s[end+len("</think>"):], " \t\r\n")
		if unfinished(s) {
			return "", ""
		}
	}
	if strings.HasPrefix(s, "```") {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return "", ""
		}
		return s[nl+1:], "```"
	}
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}} {
		if strings.HasPrefix(s, q[0]) {
			return s[len(q[0]):], q[1]
		}
	}
	return s, ""
}

// unfinished says s may still become the opening of a <think> block or a fence: nothing of it
// is visible yet.
func unfinished(s string) bool {
	for _, open := range []string{"<think>", "```"} {
		if len(s) < len(open) && strings.HasPrefix(open, s) {
			return true
		}
	}
	return false
}

// truncateRunes keeps the first n characters of s.
func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// truncateBytes keeps at most n bytes of s, never splitting a character.
func truncateBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// gsmFold maps typography that models like to GSM-7's plain equivalents; letters are left
// alone (their spelling is the writer's).
var gsmFold = strings.NewReplacer(
	"‘", "'", "’", "'", "‚", "'", "‛", "'", "′", "'",
	"“", `"`, "”", `"`, "„", `"`, "‟", `"`, "″", `"`, "«", `"`, "»", `"`,
	"‐", "-", "‑", "-", "‒", "-", "–", "-", "—", "-", "―", "-", "−", "-", "•", "-",
	"…", "...",
	"\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2009", " ", "\u202f", " ",
	"\u200b", "", "\u200c", "", "\u200d", "", "\ufeff", "",
)

// foldGSM replaces typographic punctuation and spaces with GSM-7 ones.
func foldGSM(s string) string { return strings.TrimSpace(gsmFold.Replace(s)) }

// fitsOneSegment asks the store's segment counter, the one the reply box and the carrier
// use, whether text goes as one GSM-7 segment; why says how it does not.
func fitsOneSegment(text string) (ok bool, why string) {
	n := store.Segments(text)
	if store.SMSEncoding(text) != store.EncodingGSM7 {
		for _, r := range text {
			if store.SMSEncoding(string(r)) != store.EncodingGSM7 {
				return false, "not GSM-7: it uses " + strconv.QuoteRune(r)
			}
		}
	}
	if n != 1 {
		return false, strconv.Itoa(utf8.RuneCountInString(text)) + " characters, " + strconv.Itoa(n) + " segments"
	}
	return true, ""
}
