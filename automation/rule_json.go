package automation

import (
	"bytes"
	"encoding/json"
)

// Writing a rule document: the keys in the document's order, an action's own fields only, so
// an export reads back to the same rule.

// MarshalJSON writes the rule document: its fields in the document's order, without the id.
func (r Rule) MarshalJSON() ([]byte, error) {
	conds := r.Conditions
	if conds == nil {
		conds = []Condition{}
	}
	acts := r.Actions
	if acts == nil {
		acts = []Action{}
	}
	return json.Marshal(struct {
		Name              string      `json:"name"`
		Enabled           bool        `json:"enabled"`
		Trigger           string      `json:"trigger"`
		UnansweredMinutes int         `json:"unansweredMinutes"`
		BusinessHoursOnly bool        `json:"businessHoursOnly"`
		Match             string      `json:"match"`
		Conditions        []Condition `json:"conditions"`
		Actions           []Action    `json:"actions"`
		Stop              bool        `json:"stop"`
	}{r.Name, r.Enabled, r.Trigger, r.UnansweredMinutes, r.BusinessHoursOnly, r.Match, conds, acts, r.Stop})
}

// UnmarshalJSON reads a document written by MarshalJSON (stored rules), with Decode's checks.
func (r *Rule) UnmarshalJSON(b []byte) error {
	got, ps := Decode(b)
	if len(ps) > 0 {
		return ps
	}
	got.ID = r.ID
	*r = got
	return nil
}

// MarshalJSON writes {field, op, value}, without value when the operator takes none.
func (c Condition) MarshalJSON() ([]byte, error) {
	if len(c.Value) == 0 {
		return json.Marshal(struct {
			Field string `json:"field"`
			Op    string `json:"op"`
		}{c.Field, c.Op})
	}
	return json.Marshal(struct {
		Field string          `json:"field"`
		Op    string          `json:"op"`
		Value json.RawMessage `json:"value"`
	}{c.Field, c.Op, c.Value})
}

// MarshalJSON writes the action's type and its own fields only, in the document's order.
func (a Action) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	t, _ := json.Marshal(a.Type)
	b.Write(t)
	for _, f := range actionFields[a.Type] {
		var v any
		switch f {
		case "userId":
			v = a.UserID
		case "teamId":
			v = a.TeamID
		case "label":
			v = a.Label
		case "minutes":
			v = a.Minutes
		case "text":
			v = a.Text
		case "groupId":
			v = a.GroupID
		case "name":
			v = a.Name
		case "value":
			v = a.Value
			if len(a.Value) == 0 {
				v = nil
			}
		}
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"` + f + `":`)
		b.Write(enc)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ValueString is a condition's or action's value as text: a string as it is, a number or a
// boolean as JSON writes it; "" when there is none.
func ValueString(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
