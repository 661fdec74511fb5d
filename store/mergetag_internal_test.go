package store

import (
	"strings"
	"testing"
)

// FuzzParseTemplate: parsing never panics; a parsed text renders with every value empty and no
// fallbacks to text holding no "{{" (every "{{" of the input belonged to a tag); a text without
// tags renders to itself; and rendering each tag back as {{name}} or {{name|fallback}} parses to
// the same tags.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{
		"", "Hello", "Hi {{firstName}}!", "{{firstName|there}}", "{{ firstName | dear friend }}",
		"{{", "{{}}", "{{a|}}", "{{a|b|c}}", "{{first name}}", "{{{a}}}", "{{a {{b}}", "}}{{a}}{",
		"{ } {x}", "{{a|{x}}{", "{{a}}}}", "\xff{{a}}\xfe", "{{é}}", "{{a|\x00}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tpl, err := ParseTemplate(text)
		if err != nil {
			if tpl.HasTags() || tpl.Text() != "" {
				t.Fatalf("ParseTemplate(%q) failed (%v) but returned a template", text, err)
			}
			if err.Error() == "" {
				t.Fatalf("ParseTemplate(%q): empty error message", text)
			}
			return
		}
		empty := func(string) string { return "" }
		if !tpl.HasTags() {
			if got := tpl.Render(empty); got != text {
				t.Fatalf("tag-free %q rendered to %q", text, got)
			}
			if strings.Contains(text, "{{") {
				t.Fatalf("%q holds {{ but parsed without tags", text)
			}
			return
		}
		bare := Template{text: tpl.text}
		var canon strings.Builder
		for _, p := range tpl.parts {
			q := p
			q.fallback = ""
			bare.parts = append(bare.parts, q)
			if p.name == "" {
				canon.WriteString(p.literal)
			} else if p.fallback == "" {
				canon.WriteString("{{" + p.name + "}}")
			} else {
				canon.WriteString("{{" + p.name + "|" + p.fallback + " }}") // the space keeps a fallback ending in } apart from the closing }}
			}
		}
		if got := bare.Render(empty); strings.Contains(got, "{{") {
			t.Fatalf("%q rendered with empty values and no fallbacks to %q, which holds {{", text, got)
		}
		again, err := ParseTemplate(canon.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon.String(), text, err)
		}
		if a, b := strings.Join(again.Tags(), ","), strings.Join(tpl.Tags(), ","); a != b {
			t.Fatalf("canonical form %q has tags %s, the original %q has %s", canon.String(), a, text, b)
		}
		vals := func(name string) string { return "<" + name + ">" }
		if a, b := again.Render(vals), tpl.Render(vals); a != b {
			t.Fatalf("canonical form renders %q, the original %q renders %q", a, text, b)
		}
	})
}
