package automation

import (
	"slices"
	"strings"
	"unicode"

	"switchboard/internal/textfold"
)

// Facts is what the interpreter may ask about the event a rule is tested against. The store
// answers from the write transaction of the event, reading lazily and once (the text is folded
// once, a group's membership read once), so a rule costs only the questions it asks.
type Facts interface {
	// Number is the conversation's number: its id and phone.
	Number() (id, phone string)
	// Words are the folded words of the message's text (Words), nil without a message.
	Words() []string
	// Property is the contact's custom property as text, and whether it is set (not empty).
	Property(name string) (string, bool)
	InGroup(groupID string) bool
	// HasLabel: the conversation has the label; for label.added, the label was just added.
	HasLabel(label string) bool
	// Open: the number's business hours are open now.
	Open() bool
	// FirstMessage: the message is the first the contact ever sent the workspace.
	FirstMessage() bool
	Assignees() []string
}

// Words folds text the way the search does (case and accents) and splits it into words of
// letters and digits: what "text contains" compares.
func Words(text string) []string {
	return strings.FieldsFunc(textfold.Fold(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// A compiled condition: its kind and its value in the form the test needs.
type cond struct {
	kind  uint8
	str   string   // number, property name, group, label, assignee
	value string   // property equals: the folded value
	words []string // text contains: the folded words of the phrase
	yes   bool     // hours open, firstMessage true
}

const (
	condNumber uint8 = iota
	condText
	condPropEquals
	condPropSet
	condGroup
	condLabel
	condHours
	condFirst
	condAssigneeNone
	condAssigneeIs
)

// Compiled is a rule ready to test: its conditions decoded once.
type Compiled struct {
	Rule  Rule
	conds []cond
	any   bool
}

// Set is a workspace's enabled rules, compiled, in order, by trigger.
type Set struct {
	byTrigger map[string][]*Compiled
	all       []*Compiled
}

// Compile compiles rules (a workspace's, in their order); disabled rules are kept out of the
// triggers' lists but can still be found (Find) to be tested.
func Compile(rules []Rule) *Set {
	s := &Set{byTrigger: map[string][]*Compiled{}}
	for _, r := range rules {
		c := CompileRule(r)
		s.all = append(s.all, c)
		if r.Enabled {
			s.byTrigger[r.Trigger] = append(s.byTrigger[r.Trigger], c)
		}
	}
	return s
}

// CompileRule compiles one rule.
func CompileRule(r Rule) *Compiled {
	c := &Compiled{Rule: r, any: r.Match == "any"}
	for _, k := range r.Conditions {
		v := ValueString(k.Value)
		var cd cond
		switch f := conditionField(k.Field); {
		case f == FieldNumber:
			cd = cond{kind: condNumber, str: v}
		case f == FieldText:
			cd = cond{kind: condText, words: Words(v)}
		case f == FieldProperty && k.Op == OpEquals:
			cd = cond{kind: condPropEquals, str: strings.TrimPrefix(k.Field, FieldProperty), value: textfold.Fold(strings.TrimSpace(v))}
		case f == FieldProperty:
			cd = cond{kind: condPropSet, str: strings.TrimPrefix(k.Field, FieldProperty)}
		case f == FieldGroup:
			cd = cond{kind: condGroup, str: v}
		case f == FieldLabel:
			cd = cond{kind: condLabel, str: v}
		case f == FieldHours:
			cd = cond{kind: condHours, yes: k.Op == OpOpen}
		case f == FieldFirstMessage:
			cd = cond{kind: condFirst, yes: v != "false"}
		case f == FieldAssignee && k.Op == OpNone:
			cd = cond{kind: condAssigneeNone}
		default:
			cd = cond{kind: condAssigneeIs, str: v}
		}
		c.conds = append(c.conds, cd)
	}
	return c
}

// Has reports whether any enabled rule waits for trigger (the store skips gathering facts
// for an event no rule waits for).
func (s *Set) Has(trigger string) bool { return s != nil && len(s.byTrigger[trigger]) > 0 }

// Rules lists the enabled rules of trigger, in order.
func (s *Set) Rules(trigger string) []*Compiled {
	if s == nil {
		return nil
	}
	return s.byTrigger[trigger]
}

// Find is the rule with id (enabled or not), nil when there is none.
func (s *Set) Find(id string) *Compiled {
	if s == nil {
		return nil
	}
	for _, c := range s.all {
		if c.Rule.ID == id {
			return c
		}
	}
	return nil
}

// Run tests the enabled rules of trigger in order against f and calls fire for each that
// matches, which applies its actions; a rule that says stop ends the run once it fired. Facts
// are asked again for each rule, so a rule sees what the rules before it did.
func (s *Set) Run(trigger string, f Facts, fire func(*Compiled) error) error {
	for _, c := range s.Rules(trigger) {
		if !c.Matches(f) {
			continue
		}
		if err := fire(c); err != nil {
			return err
		}
		if c.Rule.Stop {
			return nil
		}
	}
	return nil
}

// Matches reports whether the rule's conditions hold for f: all of them, or any of them
// (match any); a rule without conditions always matches.
func (c *Compiled) Matches(f Facts) bool {
	if len(c.conds) == 0 {
		return true
	}
	for i := range c.conds {
		if c.conds[i].holds(f) == c.any {
			return c.any
		}
	}
	return !c.any
}

func (cd *cond) holds(f Facts) bool {
	switch cd.kind {
	case condNumber:
		id, phone := f.Number()
		return cd.str == id || cd.str == phone
	case condText:
		return containsPhrase(f.Words(), cd.words)
	case condPropEquals:
		v, set := f.Property(cd.str)
		return set && textfold.Fold(strings.TrimSpace(v)) == cd.value
	case condPropSet:
		_, set := f.Property(cd.str)
		return set
	case condGroup:
		return f.InGroup(cd.str)
	case condLabel:
		return f.HasLabel(cd.str)
	case condHours:
		return f.Open() == cd.yes
	case condFirst:
		return f.FirstMessage() == cd.yes
	case condAssigneeNone:
		return len(f.Assignees()) == 0
	case condAssigneeIs:
		return slices.Contains(f.Assignees(), cd.str)
	}
	return false
}

// containsPhrase reports whether phrase's words occur in words one after the other.
func containsPhrase(words, phrase []string) bool {
	if len(phrase) == 0 {
		return false
	}
	for i := 0; i+len(phrase) <= len(words); i++ {
		if words[i] != phrase[0] {
			continue
		}
		if slices.Equal(words[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}
