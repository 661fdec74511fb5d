package carrier

import (
	"regexp"
	"strings"
)

// likelyOptOutPhrases are ways of asking to stop that are not a keyword. They are written for
// recall on requests aimed at the sender ("stop texting me", "take me off your list") while
// leaving ordinary uses of the same words alone ("stop by tomorrow?", "don't stop"): a false
// positive only costs a label and a banner, a miss can cost a TCPA suit, and nothing here is
// acted on without a person clicking "Opt out".
var likelyOptOutPhrases = []*regexp.Regexp{
	// "stop texting me", "please stop messaging", "stop sending these"
	regexp.MustCompile(`\bstop\s+(texting|txting|messaging|msging|sending|contacting|spamming|bothering|calling|emailing)\b`),
	// "stop the texts", "stop these messages"
	regexp.MustCompile(`\bstop\s+(the|these|those|your|all|all the|all these)\s+(texts?|txts?|messages?|msgs?|sms|spam)\b`),
	// a text that ends in a bare request: "please stop", "stop it", "STOP PLEASE", "stop now!!"
	regexp.MustCompile(`(^|\b(please|pls|plz|just|ok|okay|can you|could you|will you|you need to|i said)\s+)stop(\s+(it|now|please|pls|plz|already|immediately|asap|this))*\s*[.!?]*$`),
	// "remove me", "remove my number from your list", "delete me", "take me off", "take my number off"
	regexp.MustCompile(`\b(remove|delete|take|drop|erase)\s+(me|my\s+(number|phone|cell|info|details|contact))\b`),
	// "unsubscribe me", "how do I unsubscribe", "unsub"
	regexp.MustCompile(`\b(unsubscribe|unsub)\b`),
	// "opt me out", "opt out", "opt-out"
	regexp.MustCompile(`\bopt(\s+me)?[\s-]*out\b`),
	// "don't text me", "do not message this number", "never contact me again"
	regexp.MustCompile(`\b(don'?t|do\s+not|dont|never|no\s+longer)\s+(text|txt|message|msg|sms|contact|send)\s+(me|this\s+number|us|to\s+me)\b`),
	// "no more texts", "no more messages please"
	regexp.MustCompile(`\bno\s+more\s+(texts?|txts?|messages?|msgs?|sms|spam)\b`),
	// "I don't want these texts", "I do not want your messages"
	regexp.MustCompile(`\b(don'?t|do\s+not|dont)\s+want\s+(these|your|any|the|any\s+more|anymore)?\s*(texts?|messages?|msgs?)\b`),
	// "leave me alone", "lose my number"
	regexp.MustCompile(`\b(leave\s+me\s+alone|lose\s+my\s+number)\b`),
}

// negatedStop is "don't stop", "do not stop", "never stop": not a request to stop.
var negatedStop = regexp.MustCompile(`\b(don'?t|dont|do\s+not|never|can'?t|cannot|won'?t)\s+stop\b`)

// LikelyOptOut reports whether an inbound text that is not a keyword reads like a request to
// stop texting, in other words than the keywords. Such a text is flagged for a person (the label
// "possible opt-out"), never acted on: the keywords alone opt a number out automatically. A
// keyword itself ("STOP.") is not flagged: MatchKeyword acts on it.
func LikelyOptOut(text string) bool {
	if MatchKeyword(text) != NoKeyword {
		return false
	}
	t := strings.ToLower(strings.Join(strings.Fields(text), " "))
	t = strings.NewReplacer("\u2019", "'", "\u2018", "'", "`", "'").Replace(t)
	if len(t) > 1000 {
		t = t[:1000]
	}
	negated := negatedStop.MatchString(t)
	for i, re := range likelyOptOutPhrases {
		if negated && i <= 2 {
			// The three stop phrases do not count in a text that says not to stop ("don't
			// stop texting me"); the other phrases still do ("don't stop, just remove me").
			continue
		}
		if re.MatchString(t) {
			return true
		}
	}
	return false
}
