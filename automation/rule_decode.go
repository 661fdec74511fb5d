package automation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Reading a rule document: every key known, every value of its type and one the document
// allows, each problem named by its field like a JSON path.

// maxDocument bounds a rule document (a file given to add-rule, an import).
const maxDocument = 256 << 10

// Decode reads one rule document, checking its shapes: every field known, of its type, every
// value one the document allows. References to the workspace's data (members, teams, groups,
// properties, numbers) are checked by Check. The problems name their fields.
func Decode(data []byte) (Rule, Problems) {
	var raw map[string]json.RawMessage
	if len(data) > maxDocument {
		return Rule{}, Problems{{"rule", fmt.Sprintf("is larger than %d KiB", maxDocument>>10)}}
	}
	if err := strictObject(data, &raw); err != nil {
		return Rule{}, Problems{{"rule", "must be a JSON object: " + err.Error()}}
	}
	return decodeRule(raw, "")
}

// DecodeList reads a rule document or an array of them (what "Export all" writes).
func DecodeList(data []byte) ([]Rule, Problems) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		r, ps := Decode(data)
		return []Rule{r}, ps
	}
	if len(data) > maxDocument*4 {
		return nil, Problems{{"rules", fmt.Sprintf("is larger than %d KiB", maxDocument>>8)}}
	}
	var list []json.RawMessage
	if err := json.Unmarshal(trimmed, &list); err != nil {
		return nil, Problems{{"rules", "must be a JSON array of rules: " + cleanJSONError(err)}}
	}
	if len(list) == 0 || len(list) > MaxRules {
		return nil, Problems{{"rules", fmt.Sprintf("must hold 1 to %d rules", MaxRules)}}
	}
	var out []Rule
	var ps Problems
	for i, item := range list {
		var raw map[string]json.RawMessage
		prefix := fmt.Sprintf("rules[%d]", i)
		if err := strictObject(item, &raw); err != nil {
			ps.add(prefix, "must be a JSON object")
			continue
		}
		r, rp := decodeRule(raw, prefix+".")
		ps = append(ps, rp...)
		out = append(out, r)
	}
	sortProblems(ps)
	return out, ps
}

// strictObject decodes a JSON object, refusing anything else (null, an array, a scalar).
func strictObject(data []byte, into *map[string]json.RawMessage) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return fmt.Errorf("not an object")
	}
	if err := json.Unmarshal(trimmed, into); err != nil {
		return fmt.Errorf("%s", cleanJSONError(err))
	}
	return nil
}

// cleanJSONError drops the package prefix of a JSON error.
func cleanJSONError(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}

var ruleKeys = []string{"name", "enabled", "trigger", "unansweredMinutes", "businessHoursOnly", "match", "conditions", "actions", "stop"}

func decodeRule(raw map[string]json.RawMessage, prefix string) (Rule, Problems) {
	var ps Problems
	r := Rule{Enabled: true, Match: "all"}
	for k := range raw {
		if !slices.Contains(ruleKeys, k) {
			ps.add(prefix+k, "is not a field of a rule (fields: %s)", strings.Join(ruleKeys, ", "))
		}
	}
	str := func(key string, dst *string) bool {
		v, ok := raw[key]
		if !ok || isNull(v) {
			return false
		}
		if err := json.Unmarshal(v, dst); err != nil {
			ps.add(prefix+key, "must be a string")
			return false
		}
		return true
	}
	boolean := func(key string, dst *bool) {
		if v, ok := raw[key]; ok && !isNull(v) {
			if err := json.Unmarshal(v, dst); err != nil {
				ps.add(prefix+key, "must be true or false")
			}
		}
	}
	str("name", &r.Name)
	r.Name = strings.TrimSpace(r.Name)
	switch n := utf8.RuneCountInString(r.Name); {
	case n == 0:
		ps.add(prefix+"name", "is required")
	case n > MaxNameLen:
		ps.add(prefix+"name", "must be at most %d characters", MaxNameLen)
	}
	boolean("enabled", &r.Enabled)
	boolean("businessHoursOnly", &r.BusinessHoursOnly)
	boolean("stop", &r.Stop)
	if str("trigger", &r.Trigger) || r.Trigger == "" {
		if !slices.Contains(Triggers, r.Trigger) {
			ps.add(prefix+"trigger", "must be one of %s", strings.Join(Triggers, ", "))
		}
	}
	if str("match", &r.Match) && r.Match != "all" && r.Match != "any" {
		ps.add(prefix+"match", "must be all or any")
	}
	if v, ok := raw["unansweredMinutes"]; ok && !isNull(v) {
		n, okInt := wholeNumber(v)
		if !okInt {
			ps.add(prefix+"unansweredMinutes", "must be a whole number of minutes")
		}
		r.UnansweredMinutes = n
	}
	if r.Trigger == TriggerUnanswered {
		if r.UnansweredMinutes < 1 || r.UnansweredMinutes > MaxUnanswered {
			ps.add(prefix+"unansweredMinutes", "must be from 1 to %d minutes for conversation.unanswered", MaxUnanswered)
		}
	} else if r.UnansweredMinutes != 0 {
		ps.add(prefix+"unansweredMinutes", "is only for the conversation.unanswered trigger")
	}
	if r.BusinessHoursOnly && r.Trigger != TriggerUnanswered {
		ps.add(prefix+"businessHoursOnly", "is only for the conversation.unanswered trigger")
	}
	if v, ok := raw["conditions"]; ok && !isNull(v) {
		var list []json.RawMessage
		if err := json.Unmarshal(v, &list); err != nil {
			ps.add(prefix+"conditions", "must be an array of conditions")
		} else if len(list) > MaxConditions {
			ps.add(prefix+"conditions", "must hold at most %d conditions", MaxConditions)
		} else {
			for i, item := range list {
				c, cp := decodeCondition(item, fmt.Sprintf("%sconditions[%d]", prefix, i))
				ps = append(ps, cp...)
				r.Conditions = append(r.Conditions, c)
			}
		}
	}
	if v, ok := raw["actions"]; !ok || isNull(v) {
		ps.add(prefix+"actions", "a rule needs at least one action")
	} else {
		var list []json.RawMessage
		switch err := json.Unmarshal(v, &list); {
		case err != nil:
			ps.add(prefix+"actions", "must be an array of actions")
		case len(list) == 0:
			ps.add(prefix+"actions", "a rule needs at least one action")
		case len(list) > MaxActions:
			ps.add(prefix+"actions", "must hold at most %d actions", MaxActions)
		default:
			for i, item := range list {
				a, ap := decodeAction(item, fmt.Sprintf("%sactions[%d]", prefix, i))
				ps = append(ps, ap...)
				r.Actions = append(r.Actions, a)
			}
		}
	}
	sortProblems(ps)
	return r, ps
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// wholeNumber reads a JSON number that is a whole number within int32.
func wholeNumber(v json.RawMessage) (int, bool) {
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || f != float64(int64(f)) || f < -1<<31 || f > 1<<31-1 {
		return 0, false
	}
	return int(f), true
}

// scalar reports whether v is a JSON string, number or boolean.
func scalar(v json.RawMessage) bool {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return false
	}
	switch x.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

// fieldOps is which operators each condition field takes, and whether they need a value.
var fieldOps = map[string][]string{
	FieldNumber: {OpIs}, FieldText: {OpContains}, FieldProperty: {OpEquals, OpSet}, FieldGroup: {OpIn},
	FieldLabel: {OpIs}, FieldHours: {OpOpen, OpClosed}, FieldFirstMessage: {OpIs}, FieldAssignee: {OpNone, OpIs},
}

// opTakesValue: the operators that compare with a value (firstMessage's "is" takes a boolean).
var opTakesValue = map[string]bool{OpIs: true, OpContains: true, OpEquals: true, OpIn: true}

// conditionField is the key of fieldOps a condition field belongs to ("property:" for any
// property), "" when it is none.
func conditionField(f string) string {
	if strings.HasPrefix(f, FieldProperty) {
		return FieldProperty
	}
	if _, ok := fieldOps[f]; ok {
		return f
	}
	return ""
}

func decodeCondition(item json.RawMessage, at string) (Condition, Problems) {
	var ps Problems
	var raw map[string]json.RawMessage
	var c Condition
	if err := strictObject(item, &raw); err != nil {
		ps.add(at, "must be an object {field, op, value}")
		return c, ps
	}
	for k := range raw {
		if k != "field" && k != "op" && k != "value" {
			ps.add(at+"."+k, "is not a field of a condition (fields: field, op, value)")
		}
	}
	get := func(key string) string {
		var s string
		if v, ok := raw[key]; ok && json.Unmarshal(v, &s) != nil {
			ps.add(at+"."+key, "must be a string")
		}
		return s
	}
	c.Field, c.Op = get("field"), get("op")
	kind := conditionField(c.Field)
	if kind == "" {
		ps.add(at+".field", "must be number, text, property:NAME, group, label, hours, firstMessage or assignee")
		return c, ps
	}
	if kind == FieldProperty && !ValidPropertyName(strings.TrimPrefix(c.Field, FieldProperty)) {
		ps.add(at+".field", "property:NAME needs a property's name after the colon, e.g. property:plan")
	}
	ops := fieldOps[kind]
	if !slices.Contains(ops, c.Op) {
		ps.add(at+".op", "must be %s for %s", strings.Join(ops, " or "), c.Field)
		return c, ps
	}
	v, has := raw["value"]
	if has && isNull(v) {
		has = false
	}
	switch {
	case kind == FieldFirstMessage:
		if !has {
			c.Value = json.RawMessage("true") // "the contact's first message" reads as is true
			break
		}
		var b bool
		if json.Unmarshal(v, &b) != nil {
			ps.add(at+".value", "must be true or false")
		}
		c.Value = json.RawMessage(strconv.FormatBool(b))
	case opTakesValue[c.Op]:
		if !has {
			ps.add(at+".value", "is required for %s %s", c.Field, c.Op)
			break
		}
		if kind == FieldProperty {
			if !scalar(v) {
				ps.add(at+".value", "must be a string, number or boolean")
				break
			}
			c.Value = compact(v)
			break
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			ps.add(at+".value", "must be a string")
			break
		}
		s = strings.TrimSpace(s)
		switch n := utf8.RuneCountInString(s); {
		case n == 0:
			ps.add(at+".value", "is required for %s %s", c.Field, c.Op)
		case n > MaxConditionValue:
			ps.add(at+".value", "must be at most %d characters", MaxConditionValue)
		case kind == FieldText && len(Words(s)) == 0:
			ps.add(at+".value", "must hold a word (letters or digits)")
		}
		c.Value, _ = json.Marshal(s)
	case has:
		ps.add(at+".value", "%s %s takes no value", c.Field, c.Op)
	}
	return c, ps
}

func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// ValidPropertyName is the form of a custom property's name: a letter, then letters, digits
// and _ (the store's rule, repeated here so a document is checked without the store).
func ValidPropertyName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if i == 0 && !letter || !letter && r != '_' && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func decodeAction(item json.RawMessage, at string) (Action, Problems) {
	var ps Problems
	var raw map[string]json.RawMessage
	var a Action
	if err := strictObject(item, &raw); err != nil {
		ps.add(at, "must be an object with a type")
		return a, ps
	}
	if v, ok := raw["type"]; !ok || json.Unmarshal(v, &a.Type) != nil {
		ps.add(at+".type", "is required: one of %s", strings.Join(ActionTypes, ", "))
		return a, ps
	}
	fields, ok := actionFields[a.Type]
	if !ok {
		ps.add(at+".type", "must be one of %s", strings.Join(ActionTypes, ", "))
		return a, ps
	}
	for k := range raw {
		if k != "type" && !slices.Contains(fields, k) {
			if len(fields) == 0 {
				ps.add(at+"."+k, "%s takes no other field", a.Type)
			} else {
				ps.add(at+"."+k, "is not a field of %s (fields: %s)", a.Type, strings.Join(fields, ", "))
			}
		}
	}
	str := func(key string, max int) string {
		v, ok := raw[key]
		var s string
		if !ok || isNull(v) {
			ps.add(at+"."+key, "is required for %s", a.Type)
			return ""
		}
		if json.Unmarshal(v, &s) != nil {
			ps.add(at+"."+key, "must be a string")
			return ""
		}
		if key != "text" {
			s = strings.TrimSpace(s)
		}
		switch n := utf8.RuneCountInString(s); {
		case strings.TrimSpace(s) == "":
			ps.add(at+"."+key, "is required for %s", a.Type)
		case n > max:
			ps.add(at+"."+key, "must be at most %d characters", max)
		}
		return s
	}
	switch a.Type {
	case ActAssign, ActMention:
		a.UserID = str("userId", 64)
	case ActAssignTeam:
		a.TeamID = str("teamId", 64)
	case ActAddLabel, ActRemoveLabel:
		a.Label = str("label", MaxLabelLen)
	case ActSnooze:
		v, ok := raw["minutes"]
		n, whole := 0, false
		if ok {
			n, whole = wholeNumber(v)
		}
		if !whole || n < 1 || n > MaxSnooze {
			ps.add(at+".minutes", "must be a whole number of minutes from 1 to %d", MaxSnooze)
		}
		a.Minutes = n
	case ActReply:
		// Filled in, a text may grow to MaxFilledReply; one longer than that is not sent.
		a.Text = str("text", MaxReplyLen)
	case ActNote:
		a.Text = str("text", MaxNoteLen)
	case ActAddToGroup:
		a.GroupID = str("groupId", 64)
	case ActSetProperty:
		a.Name = str("name", 64)
		if a.Name != "" && !ValidPropertyName(a.Name) {
			ps.add(at+".name", "must be a custom property's name")
		}
		v, ok := raw["value"]
		switch {
		case !ok || isNull(v):
			ps.add(at+".value", "is required for setProperty")
		case !scalar(v):
			ps.add(at+".value", "must be a string, number or boolean")
		default:
			a.Value = compact(v)
		}
	}
	return a, ps
}

func sortProblems(ps Problems) {
	slices.SortStableFunc(ps, func(a, b Problem) int { return strings.Compare(a.Field, b.Field) })
}
