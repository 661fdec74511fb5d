package carrier_test

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode"

	"switchboard/carrier"
)

func TestMatchKeyword(t *testing.T) {
	tests := []struct {
		text string
		want carrier.Keyword
	}{
		{"STOP", carrier.KeywordStop},
		{"stop", carrier.KeywordStop},
		{"  Stop\n", carrier.KeywordStop},
		{"\u00a0STOP\u3000", carrier.KeywordStop}, // no-break and ideographic spaces are white space
		{"StopAll", carrier.KeywordStop},
		{"unsubscribe", carrier.KeywordStop},
		{"Cancel", carrier.KeywordStop},
		{"END", carrier.KeywordStop},
		{"quit", carrier.KeywordStop},
		{"START", carrier.KeywordStart},
		{"unstop", carrier.KeywordStart},
		{"Yes", carrier.KeywordStart},
		{"help", carrier.KeywordHelp},
		{"\tINFO ", carrier.KeywordHelp},
		{"", carrier.NoKeyword},
		{"   ", carrier.NoKeyword},
		{"stop please", carrier.NoKeyword},
		{"please stop", carrier.NoKeyword},
		{"STOP!", carrier.KeywordStop},
		{"Stop.", carrier.KeywordStop},
		{" STOP ", carrier.KeywordStop},
		{"stop?!", carrier.KeywordStop},
		{"Stop . !", carrier.KeywordStop},
		{"revoke", carrier.KeywordStop},
		{"OptOut!", carrier.KeywordStop},
		{"opt out", carrier.NoKeyword}, // two words: LikelyOptOut flags it
		{"!STOP", carrier.NoKeyword},   // only trailing punctuation is dropped
		{"Start!", carrier.KeywordStart},
		{"S T O P", carrier.NoKeyword},
		{"STOPP", carrier.NoKeyword},
		{"yes!", carrier.KeywordStart},
		{"ſtop", carrier.NoKeyword},       // long s folds to s in Unicode, not at carriers
		{"\u200bSTOP", carrier.NoKeyword}, // zero-width space is not white space
		{"ＳＴＯＰ", carrier.NoKeyword},       // fullwidth letters
		{"Hi, can I book for Tuesday?", carrier.NoKeyword},
	}
	for _, tc := range tests {
		if got := carrier.MatchKeyword(tc.text); got != tc.want {
			t.Errorf("MatchKeyword(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

var keywordWords = map[string]carrier.Keyword{
	"STOP": carrier.KeywordStop, "STOPALL": carrier.KeywordStop, "UNSUBSCRIBE": carrier.KeywordStop,
	"CANCEL": carrier.KeywordStop, "END": carrier.KeywordStop, "QUIT": carrier.KeywordStop,
	"REVOKE": carrier.KeywordStop, "OPTOUT": carrier.KeywordStop,
	"START": carrier.KeywordStart, "UNSTOP": carrier.KeywordStart, "YES": carrier.KeywordStart,
	"HELP": carrier.KeywordHelp, "INFO": carrier.KeywordHelp,
}

// FuzzMatchKeyword: a text is a keyword exactly when, trimmed of white space and trailing ASCII
// punctuation and upper-cased (ASCII), it is one of the words; never a panic.
func FuzzMatchKeyword(f *testing.F) {
	for _, s := range []string{"STOP", " stop ", "stop please", "Yes", "ſtop", "\xff", "", "help\n\n", "unsubscribe!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := carrier.MatchKeyword(text)
		trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
		trimmed = strings.TrimRightFunc(trimmed, func(r rune) bool { return unicode.IsSpace(r) || r < 0x80 && unicode.IsPunct(r) })
		want := carrier.NoKeyword
		ascii := true
		for _, r := range trimmed {
			if r >= 0x80 {
				ascii = false
			}
		}
		if ascii {
			want = keywordWords[strings.ToUpper(trimmed)]
		}
		if got != want {
			t.Errorf("MatchKeyword(%q) = %v, want %v", text, got, want)
		}
	})
}

func TestTwiML(t *testing.T) {
	tests := []struct{ say, want string }{
		{"", "<Response></Response>"},
		{"Please send us a text message at this number.", "<Response><Say>Please send us a text message at this number.</Say></Response>"},
		{`Tom & Jerry's <b>"shop"</b>`, "<Response><Say>Tom &amp; Jerry&#39;s &lt;b&gt;&#34;shop&#34;&lt;/b&gt;</Say></Response>"},
	}
	for _, tc := range tests {
		if got := carrier.TwiML(tc.say); got != tc.want {
			t.Errorf("TwiML(%q) = %q, want %q", tc.say, got, tc.want)
		}
	}
}

// FuzzTwiML: any greeting gives a well-formed document whose Say holds the greeting (invalid
// XML characters aside, which the encoder replaces).
func FuzzTwiML(f *testing.F) {
	for _, s := range []string{"", "hi", "</Say><Play>x</Play>", "a&b<c>\"'", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, say string) {
		doc := carrier.TwiML(say)
		var r struct {
			XMLName xml.Name `xml:"Response"`
			Say     *string  `xml:"Say"`
			Inner   []struct {
				XMLName xml.Name
			} `xml:",any"`
		}
		if err := xml.Unmarshal([]byte(doc), &r); err != nil {
			t.Fatalf("TwiML(%q) = %q is not XML: %v", say, doc, err)
		}
		if (say == "") != (r.Say == nil) {
			t.Errorf("TwiML(%q) = %q: Say present=%v", say, doc, r.Say != nil)
		}
		if len(r.Inner) != 0 {
			t.Errorf("TwiML(%q) = %q has extra elements %v", say, doc, r.Inner)
		}
		if r.Say != nil && validXMLText(say) && *r.Say != say {
			t.Errorf("TwiML(%q) says %q", say, *r.Say)
		}
	})
}

func validXMLText(s string) bool {
	for _, r := range s {
		if r == '\uFFFD' || !(r == '\t' || r == '\n' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000) {
			return false
		}
	}
	// A lone \r is normalised to \n by XML parsers.
	return !strings.Contains(s, "\r")
}
