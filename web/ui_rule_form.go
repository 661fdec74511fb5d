package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"switchboard/automation"
	"switchboard/store"
	"switchboard/views"
)

// The rule form works without JavaScript: a condition is one choice that carries its field,
// operator and, for a thing of the workspace (a number, a group, a member), its value
// ("group|in|<id>"), beside a text box for what is typed (a word, a label); an action is
// likewise a choice ("assign|<user id>") and a text box. The form is read into a rule
// document, which the store checks as it checks a file.

// triggerWords names the triggers in the form and the list.
var triggerWords = map[string]string{
	automation.TriggerMessageReceived:     "A message is received",
	automation.TriggerConversationCreated: "A conversation is created",
	automation.TriggerUnanswered:          "A conversation is unanswered for some minutes",
	automation.TriggerLabelAdded:          "A label is added",
	automation.TriggerBroadcastReply:      "A contact replies to a broadcast",
}

// ruleChoices are the form's choices for the workspace.
type ruleChoices struct {
	conditions, actions []views.Option
	snippets            map[string]string // shortcut → text
	propTypes           map[string]string
}

func (h *Handler) ruleChoices(u *ui) (ruleChoices, error) {
	c := ruleChoices{snippets: map[string]string{}, propTypes: map[string]string{}}
	numbers, err := h.store.Numbers(u.ws.ID)
	if err != nil {
		return c, err
	}
	props, err := h.store.Properties(u.ws.ID)
	if err != nil {
		return c, err
	}
	groups, err := h.store.Groups(u.ws.ID)
	if err != nil {
		return c, err
	}
	members, err := h.store.Members(u.ws.ID)
	if err != nil {
		return c, err
	}
	rt, err := h.store.RoutingOf(u.ws.ID)
	if err != nil {
		return c, err
	}
	snippets, err := h.store.Snippets(u.ws.ID)
	if err != nil {
		return c, err
	}
	type who struct{ id, name string }
	var people []who
	for _, m := range members {
		if usr, err := h.store.User(m.UserID); err == nil {
			n := usr.Name
			if n == "" {
				n = usr.Email
			}
			people = append(people, who{m.UserID, n})
		}
	}
	cond := func(v, label string) { c.conditions = append(c.conditions, views.Option{Value: v, Label: label}) }
	act := func(v, label string) { c.actions = append(c.actions, views.Option{Value: v, Label: label}) }
	cond("text|contains|", "Text contains… (a word or phrase)")
	for _, n := range numbers {
		label := u.showPhone(n.Phone)
		if n.Name != "" {
			label += " (" + n.Name + ")"
		}
		cond("number|is|"+n.ID, "Number is "+label)
	}
	for _, p := range props {
		c.propTypes[p.Name] = p.Type
		cond("property:"+p.Name+"|equals|", "Property "+p.Name+" equals…")
		cond("property:"+p.Name+"|set|", "Property "+p.Name+" is set")
	}
	for _, g := range groups {
		cond("group|in|"+g.ID, "Contact is in the group "+g.Name)
	}
	cond("label|is|", "Label is…")
	cond("hours|open|", "Within business hours")
	cond("hours|closed|", "Outside business hours")
	cond("firstMessage|is|true", "It is the contact's first message")
	cond("firstMessage|is|false", "It is not the contact's first message")
	cond("assignee|none|", "No one is assigned")
	for _, p := range people {
		cond("assignee|is|"+p.id, "Assignee is "+p.name)
	}
	for _, p := range people {
		act("assign|"+p.id, "Assign to "+p.name)
	}
	for _, t := range rt.Teams {
		act("assignTeam|"+t.ID, "Assign to a member of "+t.Name+" (round-robin)")
	}
	act("unassign|", "Unassign")
	act("addLabel|", "Add the label…")
	act("removeLabel|", "Remove the label…")
	act("close|", "Close the conversation")
	act("snooze|", "Snooze for… (minutes)")
	act("reply|", "Reply with the text…")
	for _, s := range snippets {
		c.snippets[s.Shortcut] = s.Text
		act("reply|snippet:"+s.Shortcut, "Reply with the snippet /"+s.Shortcut)
	}
	act("note|", "Add an internal note…")
	for _, p := range people {
		act("mention|"+p.id, "Mention "+p.name)
	}
	for _, g := range groups {
		act("addToGroup|"+g.ID, "Add the contact to the group "+g.Name)
	}
	for _, p := range props {
		act("setProperty|"+p.Name, "Set the property "+p.Name+" to…")
	}
	act("flagOptOut|", "Mark a possible opt-out for review")
	return c, nil
}

// ruleFormOf fills the form from a rule.
func ruleFormOf(r automation.Rule) views.RuleFormView {
	v := views.RuleFormView{ID: r.ID, Name: r.Name, Enabled: r.Enabled, Trigger: r.Trigger, Business: r.BusinessHoursOnly,
		Match: r.Match, Stop: r.Stop}
	if r.UnansweredMinutes > 0 {
		v.Minutes = strconv.Itoa(r.UnansweredMinutes)
	}
	for _, c := range r.Conditions {
		val := automation.ValueString(c.Value)
		p := views.RulePart{Kind: c.Field + "|" + c.Op + "|"}
		switch c.Field {
		case automation.FieldNumber, automation.FieldGroup, automation.FieldAssignee, automation.FieldFirstMessage:
			p.Kind += val
		default:
			p.Value = val
		}
		v.Conditions = append(v.Conditions, p)
	}
	for _, a := range r.Actions {
		p := views.RulePart{Kind: a.Type + "|"}
		switch a.Type {
		case automation.ActAssign, automation.ActMention:
			p.Kind += a.UserID
		case automation.ActAssignTeam:
			p.Kind += a.TeamID
		case automation.ActAddToGroup:
			p.Kind += a.GroupID
		case automation.ActSetProperty:
			p.Kind, p.Value = p.Kind+a.Name, automation.ValueString(a.Value)
		case automation.ActAddLabel, automation.ActRemoveLabel:
			p.Value = a.Label
		case automation.ActSnooze:
			p.Value = strconv.Itoa(a.Minutes)
		case automation.ActReply, automation.ActNote:
			p.Value = a.Text
		}
		v.Actions = append(v.Actions, p)
	}
	return v
}

// readRuleForm reads the posted form into its view (as typed) and a rule; rows maps the
// rule's condition and action indexes back to the form's rows, for the errors.
func readRuleForm(r *http.Request, c ruleChoices) (views.RuleFormView, automation.Rule, map[string]string) {
	get := func(k string) string { return r.PostForm.Get(k) }
	v := views.RuleFormView{Name: get("name"), Enabled: get("enabled") == "on", Trigger: get("trigger"),
		Minutes: strings.TrimSpace(get("minutes")), Business: get("business") == "on", Match: get("match"), Stop: get("stop") == "on"}
	rule := automation.Rule{Name: v.Name, Enabled: v.Enabled, Trigger: v.Trigger, Match: v.Match, Stop: v.Stop,
		BusinessHoursOnly: v.Business && v.Trigger == automation.TriggerUnanswered}
	rows := map[string]string{}
	formErrs := map[string]string{}
	if v.Trigger == automation.TriggerUnanswered {
		n, err := strconv.Atoi(v.Minutes)
		if err != nil {
			formErrs["unansweredMinutes"] = "Must be a whole number of minutes, at least 1"
		}
		rule.UnansweredMinutes = n
	}
	count := func(k string) int {
		n, _ := strconv.Atoi(get(k))
		return min(max(n, 0), automation.MaxActions+10)
	}
	for i := range count("crows") {
		p := views.RulePart{Kind: get("cond-kind-" + strconv.Itoa(i)), Value: get("cond-value-" + strconv.Itoa(i))}
		v.Conditions = append(v.Conditions, p)
		if p.Kind == "" {
			continue
		}
		parts := strings.SplitN(p.Kind, "|", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		cond := automation.Condition{Field: parts[0], Op: parts[1]}
		switch {
		case parts[0] == automation.FieldFirstMessage:
			cond.Value = json.RawMessage(strconv.FormatBool(parts[2] != "false"))
		case parts[2] != "":
			cond.Value, _ = json.Marshal(parts[2])
		case parts[1] == automation.OpContains || parts[1] == automation.OpEquals || parts[1] == automation.OpIs:
			cond.Value, _ = json.Marshal(strings.TrimSpace(p.Value))
		}
		rows[fmt.Sprintf("conditions[%d]", len(rule.Conditions))] = "cond-" + strconv.Itoa(i)
		rule.Conditions = append(rule.Conditions, cond)
	}
	for i := range count("arows") {
		p := views.RulePart{Kind: get("act-kind-" + strconv.Itoa(i)), Value: get("act-value-" + strconv.Itoa(i))}
		v.Actions = append(v.Actions, p)
		if p.Kind == "" {
			continue
		}
		typ, ref, _ := strings.Cut(p.Kind, "|")
		a := automation.Action{Type: typ}
		val := strings.TrimSpace(p.Value)
		row := "act-" + strconv.Itoa(i)
		switch typ {
		case automation.ActAssign, automation.ActMention:
			a.UserID = ref
		case automation.ActAssignTeam:
			a.TeamID = ref
		case automation.ActAddToGroup:
			a.GroupID = ref
		case automation.ActAddLabel, automation.ActRemoveLabel:
			a.Label = val
		case automation.ActSnooze:
			n, err := strconv.Atoi(val)
			if err != nil {
				formErrs[row] = "Give the minutes to snooze for, a whole number"
			}
			a.Minutes = n
		case automation.ActReply:
			a.Text = p.Value
			if shortcut, ok := strings.CutPrefix(ref, "snippet:"); ok {
				a.Text = c.snippets[shortcut]
			}
		case automation.ActNote:
			a.Text = p.Value
		case automation.ActSetProperty:
			a.Name = ref
			a.Value = propertyJSON(c.propTypes[ref], val)
		}
		rows[fmt.Sprintf("actions[%d]", len(rule.Actions))] = row
		rule.Actions = append(rule.Actions, a)
	}
	for k, msg := range formErrs {
		rows["!"+k] = msg
	}
	return v, rule, rows
}

// propertyJSON is a typed value as JSON for a property of type typ: a number or a boolean
// when it reads as one, else a string (which the store's check then refuses for its type).
func propertyJSON(typ, val string) json.RawMessage {
	switch typ {
	case store.PropertyNumber:
		if _, err := strconv.ParseFloat(val, 64); err == nil {
			return json.RawMessage(val)
		}
	case store.PropertyBoolean:
		if val == "true" || val == "false" {
			return json.RawMessage(val)
		}
	}
	b, _ := json.Marshal(val)
	return b
}

var partField = regexp.MustCompile(`^(conditions|actions)\[(\d+)\]`)

// placeRuleErrors puts a store's (or the form's) errors where the form shows them: a
// condition's or action's beside its row, the others by field.
func placeRuleErrors(v *views.RuleFormView, errs map[string]string, rows map[string]string) {
	v.Errors = map[string]string{}
	rowErr := func(row, msg string) {
		prefix, idx, _ := strings.Cut(row, "-")
		i, _ := strconv.Atoi(idx)
		parts := v.Conditions
		if prefix == "act" {
			parts = v.Actions
		}
		if i < len(parts) && parts[i].Error == "" {
			parts[i].Error = msg
		}
	}
	for k, msg := range rows {
		if row, ok := strings.CutPrefix(k, "!"); ok {
			if strings.HasPrefix(row, "act-") || strings.HasPrefix(row, "cond-") {
				rowErr(row, msg)
			} else {
				v.Errors[row] = msg
			}
		}
	}
	for field, msg := range errs {
		if m := partField.FindStringSubmatch(field); m != nil {
			if row, ok := rows[m[0]]; ok {
				rowErr(row, msg)
				continue
			}
		}
		if _, dup := v.Errors[field]; !dup {
			v.Errors[field] = msg
		}
	}
}

// padRows gives the form at least extra empty rows of conditions and actions after theirs.
func padRows(v *views.RuleFormView, extra int) {
	trim := func(ps []views.RulePart) []views.RulePart {
		return slices.DeleteFunc(ps, func(p views.RulePart) bool { return p.Kind == "" && p.Value == "" && p.Error == "" })
	}
	v.Conditions, v.Actions = trim(v.Conditions), trim(v.Actions)
	for range extra {
		if len(v.Conditions) < automation.MaxConditions {
			v.Conditions = append(v.Conditions, views.RulePart{})
		}
		if len(v.Actions) < automation.MaxActions {
			v.Actions = append(v.Actions, views.RulePart{})
		}
	}
}

// withChoices adds the form's choices, keeping a rule's own values the choices lack (a number
// given by its phone in an imported file) as choices of their own.
func withChoices(v *views.RuleFormView, c ruleChoices) {
	for _, t := range automation.Triggers {
		v.Triggers = append(v.Triggers, views.Option{Value: t, Label: triggerWords[t]})
	}
	v.ConditionChoices, v.ActionChoices = slices.Clone(c.conditions), slices.Clone(c.actions)
	keep := func(list *[]views.Option, parts []views.RulePart) {
		for _, p := range parts {
			if p.Kind != "" && !slices.ContainsFunc(*list, func(o views.Option) bool { return o.Value == p.Kind }) {
				*list = append(*list, views.Option{Value: p.Kind, Label: strings.ReplaceAll(p.Kind, "|", " ")})
			}
		}
	}
	keep(&v.ConditionChoices, v.Conditions)
	keep(&v.ActionChoices, v.Actions)
}
