package store

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"switchboard/automation"
	"switchboard/store/kv"
)

// A workspace's rules are kept, in their order, in its routing. Every way in — the rules page,
// its import, `admin add-rule --file` — goes through the rule document's own checks
// (automation.Decode) and then its references to the workspace (Check): a rule that fails
// either is refused whole, with the fields named, and nothing is saved.

// ruleRefs answers automation.Refs from a transaction.
type ruleRefs struct {
	tx    *kv.Tx
	ws    string
	rt    *Routing
	types map[string]string
}

func (r *ruleRefs) Member(id string) bool { return isMember(r.tx, r.ws, id) }
func (r *ruleRefs) Team(id string) bool   { _, ok := r.rt.Team(id); return ok }
func (r *ruleRefs) Group(id string) bool {
	_, err := getGroup(r.tx, r.ws, id)
	return err == nil
}

func (r *ruleRefs) Number(idOrPhone string) bool {
	if idxFirst(r.tx.Bucket(bNumberPhone), r.ws, idOrPhone) != "" {
		return true
	}
	return r.tx.Bucket(bNumbers).Get(wsKeyChecked(r.ws, idOrPhone)) != nil
}

func (r *ruleRefs) Property(name string) bool { _, ok := r.types[name]; return ok }

func (r *ruleRefs) PropertyValue(name string, value json.RawMessage) string {
	typ, ok := r.types[name]
	if !ok {
		return name + " is not a custom property of this workspace"
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(value)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "must be a value of " + name
	}
	return ValidateProperty(typ, v)
}

func (r *ruleRefs) ReplyText(text string) string {
	msg, _ := checkAutoText(r.tx, r.ws, text)
	return msg
}

// problems turns a document's problems into a validation error.
func problems(ps automation.Problems) ValidationError {
	out := make(ValidationError, 0, len(ps))
	for _, p := range ps {
		out = append(out, FieldError{p.Field, p.Message})
	}
	return out
}

// normalizeRule runs rule through the document's checks, as if written and read back: a rule
// a form built is held to what a file is.
func normalizeRule(rule automation.Rule) (automation.Rule, ValidationError) {
	doc, err := json.Marshal(rule)
	if err != nil {
		return rule, ValidationError{{"rule", "cannot be written: " + err.Error()}}
	}
	got, ps := automation.Decode(doc)
	if len(ps) > 0 {
		return got, problems(ps)
	}
	return got, nil
}

// checkRuleRefs checks rule's references to the workspace.
func checkRuleRefs(tx *kv.Tx, ws string, rt *Routing, rule *automation.Rule) (ValidationError, error) {
	types, err := propertyTypes(tx, ws)
	if err != nil {
		return nil, err
	}
	if ps := rule.Check(&ruleRefs{tx: tx, ws: ws, rt: rt, types: types}); len(ps) > 0 {
		return problems(ps), nil
	}
	return nil, nil
}

// Rules lists the workspace's rules in their order.
func (s *Store) Rules(workspaceID string) ([]StoredRule, error) {
	rt, err := s.RoutingOf(workspaceID)
	return rt.Rules, err
}

// AddRuleJSON adds the rule a document describes (the rule JSON) at the end of the list.
func (s *Store) AddRuleJSON(workspaceID string, doc []byte) (StoredRule, error) {
	rule, ps := automation.Decode(doc)
	if len(ps) > 0 {
		return StoredRule{}, problems(ps)
	}
	return s.AddRule(workspaceID, rule)
}

// AddRule adds rule at the end of the workspace's list.
func (s *Store) AddRule(workspaceID string, rule automation.Rule) (StoredRule, error) {
	added, err := s.addRules(workspaceID, []automation.Rule{rule}, "")
	if err != nil {
		return StoredRule{}, err
	}
	return added[0], nil
}

// ImportRules adds the rules of a document — one rule or an array of them, as "Export all"
// writes — at the end of the list: all of them, or none when one fails (its fields named
// rules[i].… in an array).
func (s *Store) ImportRules(workspaceID string, doc []byte) ([]StoredRule, error) {
	rules, ps := automation.DecodeList(doc)
	if len(ps) > 0 {
		return nil, problems(ps)
	}
	prefix := ""
	if len(rules) > 1 || strings.HasPrefix(strings.TrimSpace(string(doc)), "[") {
		prefix = "rules[%d]."
	}
	return s.addRules(workspaceID, rules, prefix)
}

func (s *Store) addRules(workspaceID string, rules []automation.Rule, prefix string) ([]StoredRule, error) {
	var out []StoredRule
	var errs ValidationError
	norm := make([]automation.Rule, len(rules))
	for i, r := range rules {
		got, verr := normalizeRule(r)
		errs = append(errs, numbered(verr, prefix, i)...)
		norm[i] = got
	}
	if errs != nil {
		sortFieldErrors(errs)
		return nil, errs
	}
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		out, errs = nil, nil // a batch may run this again
		for i := range norm {
			verr, err := checkRuleRefs(tx.Tx, workspaceID, rt, &norm[i])
			if err != nil {
				return err
			}
			errs = append(errs, numbered(verr, prefix, i)...)
		}
		if errs != nil {
			sortFieldErrors(errs)
			return errs
		}
		if len(rt.Rules)+len(norm) > automation.MaxRules {
			return errorf(ErrConflict, "a workspace has at most %d rules", automation.MaxRules)
		}
		for _, r := range norm {
			sr := StoredRule{ID: s.NewID(), Rule: r}
			sr.Rule.ID = sr.ID
			rt.Rules = append(rt.Rules, sr)
			out = append(out, sr)
		}
		return nil
	})
	return out, err
}

// numbered prefixes each field with prefix (a format with the rule's index), when not "".
func numbered(errs ValidationError, prefix string, i int) ValidationError {
	if prefix == "" || errs == nil {
		return errs
	}
	p := strings.Replace(prefix, "%d", strconv.Itoa(i), 1)
	out := make(ValidationError, len(errs))
	for j, e := range errs {
		out[j] = FieldError{p + e.Field, e.Message}
	}
	return out
}

// UpdateRule replaces the rule id with rule, in its place in the list.
func (s *Store) UpdateRule(workspaceID, id string, rule automation.Rule) (StoredRule, error) {
	norm, verr := normalizeRule(rule)
	if verr != nil {
		return StoredRule{}, verr
	}
	var out StoredRule
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		i := slices.IndexFunc(rt.Rules, func(r StoredRule) bool { return r.ID == id })
		if i < 0 {
			return errorf(ErrNotFound, "rule not found")
		}
		verr, err := checkRuleRefs(tx.Tx, workspaceID, rt, &norm)
		if err != nil {
			return err
		}
		if verr != nil {
			return verr
		}
		norm.ID = id
		out = StoredRule{ID: id, Rule: norm}
		rt.Rules[i] = out
		return nil
	})
	return out, err
}

// DeleteRule removes the rule id.
func (s *Store) DeleteRule(workspaceID, id string) error {
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		i := slices.IndexFunc(rt.Rules, func(r StoredRule) bool { return r.ID == id })
		if i < 0 {
			return errorf(ErrNotFound, "rule not found")
		}
		rt.Rules = slices.Delete(rt.Rules, i, i+1)
		return nil
	})
	return err
}

// SetRuleEnabled turns the rule id on or off.
func (s *Store) SetRuleEnabled(workspaceID, id string, on bool) error {
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		i := slices.IndexFunc(rt.Rules, func(r StoredRule) bool { return r.ID == id })
		if i < 0 {
			return errorf(ErrNotFound, "rule not found")
		}
		rt.Rules[i].Rule.Enabled = on
		return nil
	})
	return err
}

// MoveRule moves the rule id by delta places in the list (-1 up, +1 down), within its ends.
func (s *Store) MoveRule(workspaceID, id string, delta int) error {
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		i := slices.IndexFunc(rt.Rules, func(r StoredRule) bool { return r.ID == id })
		if i < 0 {
			return errorf(ErrNotFound, "rule not found")
		}
		j := min(max(i+delta, 0), len(rt.Rules)-1)
		r := rt.Rules[i]
		rt.Rules = slices.Delete(rt.Rules, i, i+1)
		rt.Rules = slices.Insert(rt.Rules, j, r)
		return nil
	})
	return err
}
