package carrier_test

import (
	"testing"

	"switchboard/carrier"
)

func TestLikelyOptOut(t *testing.T) {
	flagged := []string{
		"stop texting me",
		"Please stop texting me!",
		"STOP MESSAGING ME",
		"can you stop sending these",
		"stop the texts",
		"please stop",
		"Stop it",
		"stop please.",
		"I said stop",
		"remove me from your list",
		"Remove my number please",
		"take me off",
		"Take me off your list thanks",
		"unsubscribe me",
		"how do I unsubscribe?",
		"don't text me",
		"Don’t text me again", // typographic apostrophe
		"do not contact me",
		"dont message this number",
		"opt me out",
		"opt out",
		"no more texts please",
		"I don't want these texts",
		"leave me alone",
		"wrong person, lose my number",
		"Don't stop, just remove me", // a stop phrase is negated, a removal is not
	}
	notFlagged := []string{
		"",
		"STOP",        // a keyword: acted on, not flagged
		"Stop.",       // a keyword with punctuation: acted on
		"unsubscribe", // a keyword
		"don't stop",
		"Don't stop texting me, I love the deals",
		"never stop",
		"stop by tomorrow?",
		"Can you stop by the office at 3?",
		"I can't stop laughing",
		"the bus stop is on Main St",
		"yes please",
		"Can I reschedule to Tuesday?",
		"Please text me the address",
		"remove the second item from my order",
		"take the day off",
		"Thanks! See you soon",
		"stopwatch",
		"nonstop flights?",
	}
	for _, s := range flagged {
		if !carrier.LikelyOptOut(s) {
			t.Errorf("LikelyOptOut(%q) = false, want flagged", s)
		}
	}
	for _, s := range notFlagged {
		if carrier.LikelyOptOut(s) {
			t.Errorf("LikelyOptOut(%q) = true, want not flagged", s)
		}
	}
}

// FuzzLikelyOptOut: never a panic, and a keyword is never flagged (it is acted on instead).
func FuzzLikelyOptOut(f *testing.F) {
	for _, s := range []string{"stop texting me", "STOP!", "don't stop", "\xff", "opt-out", "remove me"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if carrier.LikelyOptOut(text) && carrier.MatchKeyword(text) != carrier.NoKeyword {
			t.Errorf("LikelyOptOut(%q) flags a keyword", text)
		}
	})
}
