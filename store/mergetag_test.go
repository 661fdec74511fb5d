package store_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"switchboard/store"
)

// tagValues is a contact's tag values for rendering tests.
var tagValues = map[string]string{"firstName": "Ana", "lastName": "", "company": "Globex", "tier": "gold", "blank": " \t"}

func tagValue(name string) string { return tagValues[name] }

func TestTemplateParseAndRender(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		tags       []string
		want       string // rendered with tagValues
	}{
		{"no tags", "Hello there", nil, "Hello there"},
		{"empty text", "", nil, ""},
		{"one tag", "Hi {{firstName}}!", []string{"firstName"}, "Hi Ana!"},
		{"tag only", "{{firstName}}", []string{"firstName"}, "Ana"},
		{"adjacent tags", "{{firstName}}{{company}}", []string{"firstName", "company"}, "AnaGlobex"},
		{"repeated tag listed once", "{{firstName}} and {{firstName}}", []string{"firstName"}, "Ana and Ana"},
		{"tags in order of first use", "{{company}} {{firstName}} {{company}}", []string{"company", "firstName"}, "Globex Ana Globex"},
		{"fallback unused when value set", "Hi {{firstName|there}}", []string{"firstName"}, "Hi Ana"},
		{"fallback used when value empty", "Hi {{lastName|there}}", []string{"lastName"}, "Hi there"},
		{"fallback with spaces", "Hi {{lastName|dear friend}}", []string{"lastName"}, "Hi dear friend"},
		{"empty without fallback renders nothing", "Hi {{lastName}}.", []string{"lastName"}, "Hi ."},
		{"blank value uses the fallback", "Hi {{blank|there}}", []string{"blank"}, "Hi there"},
		{"blank value without fallback renders nothing", "[{{blank}}]", []string{"blank"}, "[]"},
		{"unknown to the renderer renders nothing", "[{{nickname}}]", []string{"nickname"}, "[]"},
		{"white space trimmed", "Hi {{ firstName }}", []string{"firstName"}, "Hi Ana"},
		{"white space around fallback trimmed", "Hi {{ lastName | there }}", []string{"lastName"}, "Hi there"},
		{"newlines inside braces trimmed", "{{\n\tfirstName\n}}", []string{"firstName"}, "Ana"},
		{"custom property", "Tier: {{tier}}", []string{"tier"}, "Tier: gold"},
		{"case-sensitive names", "{{FirstName|x}}", []string{"FirstName"}, "x"},
		{"single braces are literal", "a { b } c {x} }", nil, "a { b } c {x} }"},
		{"stray closing braces are literal", "done }} here", nil, "done }} here"},
		{"brace before a closed tag", "{ {{firstName}} }", []string{"firstName"}, "{ Ana }"},
		{"brace right after a tag", "{{firstName}}}", []string{"firstName"}, "Ana}"},
		{"single brace in fallback", "{{lastName|:-}}", []string{"lastName"}, ":-"},
		{"opening brace in fallback", "{{lastName|{x}}", []string{"lastName"}, "{x"},
		{"digits and underscore in name", "{{a_1}}", []string{"a_1"}, ""},
		{"unicode around tags", "¡Hola {{firstName}}! 👋", []string{"firstName"}, "¡Hola Ana! 👋"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := store.ParseTemplate(tc.text)
			if err != nil {
				t.Fatalf("ParseTemplate(%q): want no error, got %v", tc.text, err)
			}
			if got := tpl.Tags(); !slices.Equal(got, tc.tags) {
				t.Errorf("Tags() = %q, want %q", got, tc.tags)
			}
			if got := tpl.HasTags(); got != (tc.tags != nil) {
				t.Errorf("HasTags() = %v, want %v", got, tc.tags != nil)
			}
			if got := tpl.Render(tagValue); got != tc.want {
				t.Errorf("Render = %q, want %q", got, tc.want)
			}
			if got := tpl.Text(); got != tc.text {
				t.Errorf("Text() = %q, want %q", got, tc.text)
			}
		})
	}
}

func TestTemplateMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // substrings of the message
	}{
		{"open without close", "Hi {{firstName", []string{"{{firstName", "not closed", "{{firstName}} or {{firstName|fallback}}"}},
		{"bare open", "{{", []string{"{{ is not closed", "{{firstName}}"}},
		{"open after a good tag", "{{firstName}} {{", []string{"not closed"}},
		{"no name", "Hi {{}}", []string{"merge tag {{}} has no name: write {{firstName}} or {{firstName|fallback}}"}},
		{"only spaces", "{{   }}", []string{"has no name"}},
		{"fallback without name", "{{|there}}", []string{"has no name"}},
		{"empty fallback", "{{a|}}", []string{"merge tag {{a|}} has an empty fallback: write {{a}} or {{a|fallback}}"}},
		{"blank fallback", "{{firstName|  }}", []string{"empty fallback"}},
		{"two pipes", "{{firstName|a|b}}", []string{"more than one |"}},
		{"space in name", "{{first name}}", []string{"{{first name}}", "invalid name", "letters, digits and _"}},
		{"dash in name", "{{first-name}}", []string{"invalid name"}},
		{"leading digit", "{{1abc}}", []string{"invalid name"}},
		{"dotted name", "{{properties.tier}}", []string{"invalid name"}},
		{"triple braces", "{{{firstName}}}", []string{"invalid name"}},
		{"name too long", "{{a" + strings.Repeat("b", 64) + "}}", []string{"invalid name", "…"}},
		{"nested", "{{firstName {{lastName}}", []string{"opens another {{", "nested"}},
		{"nested in fallback", "{{firstName|{{x}}}}", []string{"nested"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := store.ParseTemplate(tc.text)
			if err == nil {
				t.Fatalf("ParseTemplate(%q): want an error, got none", tc.text)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParseTemplate(%q) error %q: want it to contain %q", tc.text, err, w)
				}
			}
			if got := store.CheckTemplate(tc.text, nil); got != err.Error() {
				t.Errorf("CheckTemplate = %q, want the parse error %q", got, err)
			}
		})
	}
}

func TestTemplateErrorQuotesAShortPiece(t *testing.T) {
	text := "Hi {{firstName " + strings.Repeat("long text ", 500)
	_, err := store.ParseTemplate(text)
	if err == nil {
		t.Fatal("want an error for an unclosed tag")
	}
	if n := len([]rune(err.Error())); n > 200 {
		t.Errorf("message is %d characters, want it short: %q", n, err)
	}
}

func TestCheckTemplate(t *testing.T) {
	custom := []string{"tier", "birthday"}
	for _, tc := range []struct{ text, want string }{
		{"Hello", ""},
		{"{{firstName}} {{lastName}} {{company}} {{phone}} {{email}}", ""},
		{"{{tier|standard}} {{birthday}}", ""},
		{"Hi {{nickname}}", "unknown merge tag {{nickname}}: use firstName, lastName, company, phone, email or a custom property"},
		{"{{Tier}}", "unknown merge tag {{Tier}}: use firstName, lastName, company, phone, email or a custom property"},
		{"{{a}} {{firstName}} {{b|x}} {{a}}", "unknown merge tags {{a}}, {{b}}: use firstName, lastName, company, phone, email or a custom property"},
	} {
		if got := store.CheckTemplate(tc.text, custom); got != tc.want {
			t.Errorf("CheckTemplate(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestContactTagValue(t *testing.T) {
	c := &store.Contact{
		FirstName: "Ana", LastName: "López", Company: "Globex", Email: "ana@example.com",
		InboundChannels: []store.InboundChannel{{Address: "+14155550100"}, {Address: "+14155550123", IsDefault: true}},
		Properties: map[string]any{
			"tier": "gold", "score": 12.5, "count": float64(7), "neg": -0.0, "big": 1e21, "small": 0.000001,
			"fromAPI": json.Number("7.0"), "odd": json.Number("x"),
			"vip": true, "churned": false, "birthday": "2028-02-29", "firstName": "shadowed",
		},
	}
	for name, want := range map[string]string{
		"firstName": "Ana", "lastName": "López", "company": "Globex", "email": "ana@example.com",
		"phone": "+14155550123",
		"tier":  "gold", "score": "12.5", "count": "7", "neg": "0", "big": "1e+21", "small": "0.000001",
		"fromAPI": "7", "odd": "x",
		"vip": "true", "churned": "false", "birthday": "2028-02-29",
		"missing": "",
	} {
		if got := store.ContactTagValue(c, name); got != want {
			t.Errorf("ContactTagValue(%s) = %q, want %q", name, got, want)
		}
	}
	if got := store.ContactTagValue(nil, "firstName"); got != "" {
		t.Errorf("ContactTagValue(nil) = %q, want \"\"", got)
	}
	if got := store.ContactTagValue(&store.Contact{}, "phone"); got != "" {
		t.Errorf("phone of a contact without channels = %q, want \"\"", got)
	}
}

func TestTemplateRendersAContact(t *testing.T) {
	tpl, err := store.ParseTemplate("Hi {{firstName|there}}, your {{tier}} points: {{score|0}}")
	if err != nil {
		t.Fatal(err)
	}
	c := &store.Contact{Properties: map[string]any{"tier": "gold", "score": float64(40)}}
	got := tpl.Render(func(name string) string { return store.ContactTagValue(c, name) })
	if want := "Hi there, your gold points: 40"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}

func TestTemplateZeroValue(t *testing.T) {
	var tpl store.Template
	if tpl.HasTags() || tpl.Tags() != nil || tpl.Render(tagValue) != "" {
		t.Errorf("zero Template: want the empty text, got HasTags %v Tags %q Render %q", tpl.HasTags(), tpl.Tags(), tpl.Render(tagValue))
	}
}

func BenchmarkTemplateRender(b *testing.B) {
	tpl, err := store.ParseTemplate("Hi {{firstName|there}}, {{company}} has a deal for you. Reply STOP to opt out.")
	if err != nil {
		b.Fatal(err)
	}
	c := &store.Contact{FirstName: "Ana", Company: "Globex"}
	value := func(name string) string { return store.ContactTagValue(c, name) }
	b.ReportAllocs()
	for b.Loop() {
		_ = tpl.Render(value)
	}
}

func TestSingleSendRendersMergeTags(t *testing.T) {
	f := newFixture(t)
	f.contact(t, "+14155550123", "Ana", "Lima")
	m := send(t, f, "+14155550123", "Hi {{firstName}} {{lastName}}!")
	if m.Text != "Hi Ana Lima!" || m.Segments != 1 {
		t.Errorf("rendered %q segments %d", m.Text, m.Segments)
	}
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "{{nope}}"})
	wantFields(t, err, "text")
}
