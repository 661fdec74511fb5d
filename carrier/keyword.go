package carrier

import (
	"encoding/xml"
	"strings"
	"switchboard/store"
	"unicode"
)

// Keyword is the store's keyword family: the type exists once, in store, which acts on it; this
// package recognises the words. The names below keep this package's callers reading naturally.
type Keyword = store.Keyword

// The keyword families. NoKeyword is the zero value: an ordinary text.
const (
	NoKeyword    = store.NoKeyword
	KeywordStop  = store.KeywordStop  // STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT: opt out
	KeywordStart = store.KeywordStart // START, UNSTOP, YES: opt back in
	KeywordHelp  = store.KeywordHelp  // HELP, INFO: the help reply
)

var keywordFamilies = map[string]Keyword{
	"STOP": KeywordStop, "STOPALL": KeywordStop, "UNSUBSCRIBE": KeywordStop,
	"CANCEL": KeywordStop, "END": KeywordStop, "QUIT": KeywordStop,
	"REVOKE": KeywordStop, "OPTOUT": KeywordStop,
	"START": KeywordStart, "UNSTOP": KeywordStart, "YES": KeywordStart,
	"HELP": KeywordHelp, "INFO": KeywordHelp,
}

// MatchKeyword reports the keyword family of an inbound text. The whole text counts, trimmed of
// Unicode white space and of trailing ASCII punctuation, compared case-insensitively: "stop",
// " Stop\n", "Stop." and "stop!!" are KeywordStop, "stop please" is NoKeyword, so a sentence
// that merely contains a keyword never opts anyone out (LikelyOptOut flags those). Case folding
// is ASCII only, as carriers match: Unicode folding would make "ſtop" (long s) a STOP that no
// carrier would honour, leaving the two sides disagreeing about an opt-out.
func MatchKeyword(text string) Keyword {
	t := strings.TrimLeftFunc(text, unicode.IsSpace)
	t = strings.TrimRightFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r < 0x80 && unicode.IsPunct(r) })
	if len(t) > len("UNSUBSCRIBE") {
		return NoKeyword
	}
	for i := 0; i < len(t); i++ {
		if t[i] >= 0x80 {
			return NoKeyword
		}
	}
	return keywordFamilies[strings.ToUpper(t)]
}

// TwiML is the TwiML answer to a callback: "<Response></Response>" when say is empty (sms and
// status callbacks: replies go out through the queue), else
// "<Response><Say>say</Say></Response>" with say XML-escaped (voice: the greeting), so a
// greeting containing "<" or "&" cannot break or inject into the document.
func TwiML(say string) string {
	if say == "" {
		return "<Response></Response>"
	}
	var b strings.Builder
	b.WriteString("<Response><Say>")
	// EscapeText only fails when the writer does; a strings.Builder does not.
	_ = xml.EscapeText(&b, []byte(say))
	b.WriteString("</Say></Response>")
	return b.String()
}
