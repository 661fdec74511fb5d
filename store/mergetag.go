package store

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Merge tags put a contact's own data into the text of a broadcast or a single send:
// {{firstName}}, {{lastName}}, {{company}}, {{phone}}, {{email}} and {{<custom property name>}},
// each optionally with a fallback used when the value is empty: {{firstName|there}}.
//
// The syntax, decided once here so the API, the UI and the broadcaster agree:
//   - A tag opens with "{{" and closes at the first "}}" after it.
//   - White space inside the braces is trimmed, around the name and around the fallback:
//     {{ firstName | there }} is {{firstName|there}}. People type it; refusing it helps nobody.
//   - The name is case-sensitive, like the property names it refers to, and has their form:
//     a letter, then letters, digits and _.
//   - "|" separates the fallback; a fallback may hold spaces and single braces but not "{{",
//     "}}" or another "|", and is not empty ({{a|}} is almost always a typo).
//   - A single "{" or "}", and a "}}" that closes no tag, are literal text.

// builtInTags are the tags every workspace has, in the order the error message lists them.
var builtInTags = [...]string{"firstName", "lastName", "company", "phone", "email"}

// tagHelp is the expected form, appended to every parse error so the message says how to fix it.
const tagHelp = "write {{firstName}} or {{firstName|fallback}}"

// Template is a parsed text with merge tags: literal parts and tags, in order. The zero value is
// the empty text.
type Template struct {
	text  string
	parts []tagPart // nil when the text has no tag: it renders to text itself
}

// tagPart is a literal (name == "") or a tag.
type tagPart struct {
	literal  string
	name     string
	fallback string
}

// ParseTemplate parses text with merge tags. A malformed tag is an error whose message (fit for a
// validation error on `text`) quotes the tag, says what is wrong and shows the expected form:
// "{{" without a closing "}}", "{{}}" (no name), "{{a|}}" (empty fallback), a name that is not a
// property name, a "{{" nested inside a tag, a second "|".
func ParseTemplate(text string) (Template, error) {
	t := Template{text: text}
	if !strings.Contains(text, "{{") {
		return t, nil
	}
	rest := text
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			break
		}
		if open > 0 {
			t.parts = append(t.parts, tagPart{literal: rest[:open]})
		}
		body := rest[open+2:]
		end := strings.Index(body, "}}")
		if end < 0 {
			// Only the start is quoted: the rest of a long text says nothing about the tag.
			return Template{}, fmt.Errorf("merge tag %s is not closed with }}: %s", quoteTag(rest[open:]), tagHelp)
		}
		inner := body[:end]
		raw := rest[open : open+2+end+2]
		if strings.Contains(inner, "{{") {
			return Template{}, fmt.Errorf("merge tag %s opens another {{ before it closes: tags cannot be nested; %s", quoteTag(raw), tagHelp)
		}
		part, err := parseTag(inner, raw)
		if err != nil {
			return Template{}, err
		}
		t.parts = append(t.parts, part)
		rest = body[end+2:]
	}
	if rest != "" {
		t.parts = append(t.parts, tagPart{literal: rest})
	}
	return t, nil
}

// parseTag reads the inside of one tag; raw is the whole tag as written, for messages.
func parseTag(inner, raw string) (tagPart, error) {
	name, fallback, hasFallback := strings.Cut(inner, "|")
	name = strings.TrimSpace(name)
	if name == "" {
		return tagPart{}, fmt.Errorf("merge tag %s has no name: %s", quoteTag(raw), tagHelp)
	}
	if !propertyName.MatchString(name) {
		return tagPart{}, fmt.Errorf("merge tag %s has an invalid name: a name starts with a letter and holds only letters, digits and _; %s",
			quoteTag(raw), tagHelp)
	}
	if !hasFallback {
		return tagPart{name: name}, nil
	}
	if strings.Contains(fallback, "|") {
		return tagPart{}, fmt.Errorf("merge tag %s has more than one |: a fallback cannot hold |; %s", quoteTag(raw), tagHelp)
	}
	fallback = strings.TrimSpace(fallback)
	if fallback == "" {
		return tagPart{}, fmt.Errorf("merge tag %s has an empty fallback: write {{%s}} or {{%s|fallback}}", quoteTag(raw), name, name)
	}
	return tagPart{name: name, fallback: fallback}, nil
}

// quoteTag shortens a tag as written for an error message to at most 40 characters (code
// points), so an unclosed "{{" does not quote the rest of a long text; invalid UTF-8 becomes "?".
func quoteTag(raw string) string {
	const max = 40
	n := 0
	for i := range raw {
		if n == max {
			return strings.ToValidUTF8(raw[:i], "?") + "…"
		}
		n++
	}
	return strings.ToValidUTF8(raw, "?")
}

// Tags lists the distinct tag names used, in order of first use; nil when there is none.
func (t Template) Tags() []string {
	var names []string
	for _, p := range t.parts {
		if p.name != "" && !slices.Contains(names, p.name) {
			names = append(names, p.name)
		}
	}
	return names
}

// HasTags reports whether the text has any tag. A text without tags renders to itself, so the
// caller can skip per-recipient work (one text, one segment count for every copy).
func (t Template) HasTags() bool { return t.parts != nil }

// Text is the text as parsed, tags unrendered.
func (t Template) Text() string { return t.text }

// Render fills each tag with value(name), or with its fallback when that value is empty or only
// white space; a tag with neither renders as "". value is called once per tag occurrence. A text
// without tags is returned unchanged.
func (t Template) Render(value func(name string) string) string {
	if t.parts == nil {
		return t.text
	}
	var b strings.Builder
	b.Grow(len(t.text))
	for _, p := range t.parts {
		if p.name == "" {
			b.WriteString(p.literal)
			continue
		}
		v := value(p.name)
		if strings.TrimSpace(v) == "" {
			v = p.fallback
		}
		b.WriteString(v)
	}
	return b.String()
}

// CheckTemplate parses text and checks every tag name against the built-in ones and the
// workspace's custom property names (case-sensitive). It returns "" when the text is fine, else
// the message for a validation error on `text`: the parse error, or the unknown names, e.g.
// "unknown merge tag {{nickname}}: use firstName, lastName, company, phone, email or a custom property".
func CheckTemplate(text string, customProperties []string) string {
	t, err := ParseTemplate(text)
	if err != nil {
		return err.Error()
	}
	var unknown []string
	for _, name := range t.Tags() {
		if !slices.Contains(builtInTags[:], name) && !slices.Contains(customProperties, name) {
			unknown = append(unknown, "{{"+name+"}}")
		}
	}
	switch len(unknown) {
	case 0:
		return ""
	case 1:
		return "unknown merge tag " + unknown[0] + ": use " + knownTagsHelp
	default:
		return "unknown merge tags " + strings.Join(unknown, ", ") + ": use " + knownTagsHelp
	}
}

const knownTagsHelp = "firstName, lastName, company, phone, email or a custom property"

// ContactTagValue is the value of merge tag name for contact c: the built-ins from the Contact's
// fields (phone is c.Phone()), a custom property formatted as text — a number without a trailing
// ".0" (7, 12.5, 1e+21), a boolean as true or false, a date as stored (YYYY-MM-DD). A built-in
// name wins over a custom property of the same name. A missing value, or a nil c, is "".
func ContactTagValue(c *Contact, name string) string {
	if c == nil {
		return ""
	}
	switch name {
	case "firstName":
		return c.FirstName
	case "lastName":
		return c.LastName
	case "company":
		return c.Company
	case "phone":
		return c.Phone()
	case "email":
		return c.Email
	}
	return propertyText(c.Properties[name])
}

// propertyText formats a stored property value. Numbers arrive as float64 once read back from
// bbolt and as json.Number straight from a request; both format the same way so a copy reads
// the same whichever path built it.
func propertyText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return formatNumber(v)
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return string(v)
		}
		return formatNumber(f)
	default:
		return fmt.Sprint(v)
	}
}

// formatNumber writes f the way JavaScript does, which is what people who set the value through
// the API or a spreadsheet expect: no exponent below 1e21, no trailing ".0", no "-0".
func formatNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	if math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
