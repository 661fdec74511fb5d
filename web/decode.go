package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"switchboard/store"
)

// Field limits from the API document (counted in Unicode code points).
const (
	maxID         = 45
	maxText       = 1200
	maxName       = 255
	maxSearchText = 255
	maxEmail      = 254
	maxGroup      = 10
)

// fields decodes a JSON object field by field so that every failing field is reported at once,
// a wrongly typed field included. Unknown fields are ignored; null and "" count as absent.
type fields struct {
	raw  map[string]json.RawMessage
	errs store.ValidationError
	seen map[string]bool
}

// parseObject parses body as a JSON object; anything else is a validation error on "body".
func parseObject(body []byte) (*fields, store.ValidationError) {
	var raw map[string]json.RawMessage
	// The common case first: body is one JSON object and nothing but white space around it,
	// which is what json.Unmarshal accepts. Anything else is read again below, for the words
	// of its error.
	if err := json.Unmarshal(body, &raw); err == nil && raw != nil {
		return &fields{raw: raw}, nil
	}
	raw = nil
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		msg := "must be a JSON object"
		if err != nil {
			msg = "is not valid JSON: " + jsonErrorText(err)
		}
		return nil, store.ValidationError{{Field: "body", Message: msg}}
	}
	// Anything after the object but white space (a second value, a stray "]") is refused;
	// dec.More alone lets a closing bracket through.
	if _, err := dec.Token(); err != io.EOF {
		return nil, store.ValidationError{{Field: "body", Message: "must hold exactly one JSON object"}}
	}
	return &fields{raw: raw}, nil
}

func jsonErrorText(err error) string {
	switch e := err.(type) {
	case *json.SyntaxError:
		return fmt.Sprintf("syntax error at byte %d", e.Offset)
	case *json.UnmarshalTypeError:
		return "expected an object, got " + e.Value
	}
	return "unexpected end of input"
}

func (f *fields) fail(name, msg string) {
	if f.seen[name] {
		return
	}
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.seen[name] = true
	f.errs = append(f.errs, store.FieldError{Field: name, Message: msg})
}

// present reports whether name holds something other than null.
func (f *fields) present(name string) bool {
	v, ok := f.raw[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// str returns the string at name; "" when absent. A present non-string fails.
func (f *fields) str(name string, required bool, max int) string {
	var s string
	if f.present(name) {
		var err error
		if s, err = jsonString(f.raw[name]); err != nil {
			f.fail(name, "must be a string")
			return ""
		}
	}
	if s == "" {
		if required {
			f.fail(name, "is required")
		}
		return ""
	}
	if max > 0 && utf8.RuneCountInString(s) > max {
		f.fail(name, fmt.Sprintf("must be at most %d characters", max))
	}
	return s
}

// jsonString decodes a JSON string. The common one, ASCII with no escapes, is its bytes
// between the quotes, as encoding/json would decode it; any other goes through encoding/json.
func jsonString(raw []byte) (string, error) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		inner := raw[1 : n-1]
		plain := true
		for _, c := range inner {
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			return string(inner), nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// optStr is str for fields whose absence differs from a value (create-or-update); "" is absent.
func (f *fields) optStr(name string, max int) *string {
	s := f.str(name, false, max)
	if s == "" {
		return nil
	}
	return &s
}

// phone returns the E.164 number at name.
func (f *fields) phone(name string, required bool) string {
	s := f.str(name, required, 0)
	if s != "" && !store.ValidE164(s) {
		f.fail(name, store.E164Message)
	}
	return s
}

// mediaURL returns the absolute http(s) URL at name.
func (f *fields) mediaURL(name string) string {
	s := f.str(name, false, 0)
	if s != "" && !store.ValidMediaURL(s) {
		f.fail(name, store.MediaURLMessage)
	}
	return s
}

// strs returns the array of strings at name (nil when absent).
func (f *fields) strs(name string, required bool) []string {
	var out []string
	if f.present(name) {
		if err := json.Unmarshal(f.raw[name], &out); err != nil {
			f.fail(name, "must be an array of strings")
			return nil
		}
	}
	if len(out) == 0 && required {
		f.fail(name, "is required")
	}
	return out
}

// phones returns the de-duplicated E.164 numbers at name, in first-seen order.
func (f *fields) phones(name string, required bool) []string {
	list := f.strs(name, required)
	seen := make(map[string]bool, len(list))
	out := make([]string, 0, len(list))
	for i, p := range list {
		if !store.ValidE164(p) {
			f.fail(name, fmt.Sprintf("%s[%d] %s", name, i, store.E164Message))
			return nil
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// object returns the JSON object at name, numbers kept exact; nil when absent.
func (f *fields) object(name string) map[string]any {
	if !f.present(name) {
		return nil
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(f.raw[name]))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		f.fail(name, "must be an object")
		return nil
	}
	return out
}

// base checks developerProvider, userId and (when idField is not "") the workspace id field.
func (f *fields) base(provider, idField string, idRequired bool) string {
	if p := f.str("developerProvider", true, 0); p != "" && p != provider {
		f.fail("developerProvider", fmt.Sprintf("must be %q", provider))
	}
	f.str("userId", false, maxID)
	if idField == "" {
		return ""
	}
	return f.str(idField, idRequired, maxID)
}

// textOrMedia requires text or mediaUrl (the error is on text) and returns both.
func (f *fields) textOrMedia() (string, []string) {
	text := f.str("text", false, maxText)
	media := f.mediaURL("mediaUrl")
	if text == "" && media == "" && !f.seen["text"] && !f.seen["mediaUrl"] {
		f.fail("text", "text or mediaUrl is required")
	}
	if media == "" {
		return text, []string{}
	}
	return text, []string{media}
}

// done returns the collected errors, or nil.
func (f *fields) done() store.ValidationError {
	if len(f.errs) == 0 {
		return nil
	}
	return f.errs
}
