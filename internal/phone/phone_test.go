package phone

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, country, want string }{
		{"(415) 555-0123", "US", "+14155550123"},
		{"415.555.0123", "US", "+14155550123"},
		{"4155550123", "", "+14155550123"}, // no country: the default, US
		{"+1 415 555 0123", "GB", "+14155550123"},
		{"020 7183 8750", "GB", "+442071838750"},
		{"+44 20 7183 8750", "US", "+442071838750"},
		{"011 44 20 7183 8750", "US", "+442071838750"}, // dialled abroad from the US
		{"030 123456", "DE", "+4930123456"},
	} {
		got, err := Parse(c.in, c.country)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q, %q) = %q, %v; want %q", c.in, c.country, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, country string }{
		{"", "US"}, {"hello", "US"}, {"555-0123", "US"}, {"123", "GB"}, {"(415) 555-01234567", "US"}, {"+999 123", "US"},
		// An extension or a vanity letter: a text cannot dial it, so it is not read as the digits before.
		{"(415) 555-0958x", "US"}, {"415 555 0958 ext. 5", "US"}, {"1-800-FLOWERS", "US"}, {"415#555#0123", "US"},
	} {
		if got, err := Parse(c.in, c.country); err == nil {
			t.Errorf("Parse(%q, %q) = %q, want an error", c.in, c.country, got)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct{ in, country, want string }{
		{"+14155550123", "US", "(415) 555-0123"},
		{"+14155550123", "", "(415) 555-0123"},
		{"+442071838750", "US", "+44 20 7183 8750"},
		{"+442071838750", "GB", "020 7183 8750"},
		{"+14155550123", "GB", "+1 415-555-0123"},
		{"not a number", "US", "not a number"},
	} {
		if got := Format(c.in, c.country); got != c.want {
			t.Errorf("Format(%q, %q) = %q, want %q", c.in, c.country, got, c.want)
		}
	}
}

func TestValidCountry(t *testing.T) {
	for _, c := range []string{"US", "GB", "DE", "BR", "JP"} {
		if !ValidCountry(c) {
			t.Errorf("ValidCountry(%q) = false", c)
		}
	}
	for _, c := range []string{"", "us", "USA", "XX", "ZZ", "001", "U"} {
		if ValidCountry(c) {
			t.Errorf("ValidCountry(%q) = true", c)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"(415) 555-0123", "+44 20 7183 8750", "", "+", "0000", "+1 (415) 555-0123 ext. 5"} {
		f.Add(s, "US")
	}
	f.Fuzz(func(t *testing.T, s, country string) {
		e, err := Parse(s, country)
		if err != nil {
			return
		}
		// What Parse accepts is E.164 and reads back as itself.
		if again, err := Parse(e, country); err != nil || again != e {
			t.Fatalf("Parse(%q) = %q, which parses as %q, %v", s, e, again, err)
		}
	})
}
