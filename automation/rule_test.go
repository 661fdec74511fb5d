package automation

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

const fullRule = `{"name":"New patients","enabled":true,"trigger":"message.received","unansweredMinutes":0,"businessHoursOnly":false,"match":"any",
"conditions":[{"field":"number","op":"is","value":"+14155550100"},{"field":"text","op":"contains","value":"new patient"},
{"field":"property:plan","op":"equals","value":3},{"field":"property:plan","op":"set"},{"field":"group","op":"in","value":"G1"},
{"field":"label","op":"is","value":"vip"},{"field":"hours","op":"closed"},{"field":"firstMessage","op":"is","value":true},
{"field":"assignee","op":"none"},{"field":"assignee","op":"is","value":"U1"}],
"actions":[{"type":"assign","userId":"U1"},{"type":"assignTeam","teamId":"T1"},{"type":"unassign"},{"type":"addLabel","label":"new"},
{"type":"removeLabel","label":"old"},{"type":"close"},{"type":"snooze","minutes":60},{"type":"reply","text":"Hi {{firstName|there}}"},
{"type":"note","text":"check"},{"type":"mention","userId":"U1"},{"type":"addToGroup","groupId":"G1"},
{"type":"setProperty","name":"plan","value":true},{"type":"flagOptOut"}],"stop":true}`

// Every field, condition and action of the document reads, and writes back the same document.
func TestDecodeRoundTrip(t *testing.T) {
	r, ps := Decode([]byte(fullRule))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	if len(r.Conditions) != 10 || len(r.Actions) != 13 || !r.Stop || r.Match != "any" {
		t.Fatalf("decoded %+v", r)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal([]byte(fullRule), &a)
	_ = json.Unmarshal(out, &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("round trip:\n%s\n%s", ja, jb)
	}
	// The document's keys come in its order.
	if !strings.HasPrefix(string(out), `{"name":"New patients","enabled":true,"trigger":"message.received","unansweredMinutes":0,"businessHoursOnly":false,"match":"any","conditions":[`) {
		t.Fatalf("order: %s", out)
	}
}

// Defaults: enabled, match all, firstMessage true.
func TestDecodeDefaults(t *testing.T) {
	r, ps := Decode([]byte(`{"name":"x","trigger":"conversation.created","conditions":[{"field":"firstMessage","op":"is"}],"actions":[{"type":"close"}]}`))
	if len(ps) > 0 || !r.Enabled || r.Match != "all" || string(r.Conditions[0].Value) != "true" {
		t.Fatalf("%+v %v", r, ps)
	}
}

func TestDecodeRefusals(t *testing.T) {
	cases := []struct{ doc, field string }{
		{`null`, "rule"},
		{`{"name":"x","trigger":"message.received","actions":[{"type":"close"}],"extra":1}`, "extra"},
		{`{"trigger":"message.received","actions":[{"type":"close"}]}`, "name"},
		{`{"name":"x","actions":[{"type":"close"}]}`, "trigger"},
		{`{"name":"x","trigger":"message.received"}`, "actions"},
		{`{"name":"x","trigger":"message.received","actions":{}}`, "actions"},
		{`{"name":"x","trigger":"message.received","match":"some","actions":[{"type":"close"}]}`, "match"},
		{`{"name":"x","trigger":"conversation.unanswered","actions":[{"type":"close"}]}`, "unansweredMinutes"},
		{`{"name":"x","trigger":"conversation.unanswered","unansweredMinutes":1.5,"actions":[{"type":"close"}]}`, "unansweredMinutes"},
		{`{"name":"x","trigger":"message.received","unansweredMinutes":5,"actions":[{"type":"close"}]}`, "unansweredMinutes"},
		{`{"name":"x","trigger":"message.received","businessHoursOnly":true,"actions":[{"type":"close"}]}`, "businessHoursOnly"},
		{`{"name":"x","trigger":"message.received","conditions":[{"field":"color","op":"is","value":"x"}],"actions":[{"type":"close"}]}`, "conditions[0].field"},
		{`{"name":"x","trigger":"message.received","conditions":[{"field":"hours","op":"open","value":"x"}],"actions":[{"type":"close"}]}`, "conditions[0].value"},
		{`{"name":"x","trigger":"message.received","conditions":[{"field":"text","op":"contains"}],"actions":[{"type":"close"}]}`, "conditions[0].value"},
		{`{"name":"x","trigger":"message.received","conditions":[{"field":"text","op":"contains","value":"!!"}],"actions":[{"type":"close"}]}`, "conditions[0].value"},
		{`{"name":"x","trigger":"message.received","conditions":[{"field":"property:","op":"set"}],"actions":[{"type":"close"}]}`, "conditions[0].field"},
		{`{"name":"x","trigger":"message.received","conditions":[{"field":"firstMessage","op":"is","value":"yes"}],"actions":[{"type":"close"}]}`, "conditions[0].value"},
		{`{"name":"x","trigger":"message.received","actions":[{"type":"fly"}]}`, "actions[0].type"},
		{`{"name":"x","trigger":"message.received","actions":[{"type":"close","label":"x"}]}`, "actions[0].label"},
		{`{"name":"x","trigger":"message.received","actions":[{"type":"assign"}]}`, "actions[0].userId"},
		{`{"name":"x","trigger":"message.received","actions":[{"type":"snooze","minutes":0}]}`, "actions[0].minutes"},
		{`{"name":"x","trigger":"message.received","actions":[{"type":"reply","text":"` + strings.Repeat("é", MaxReplyLen+1) + `"}]}`, "actions[0].text"},
		{`{"name":"x","trigger":"message.received","actions":[{"type":"setProperty","name":"plan","value":{"a":1}}]}`, "actions[0].value"},
	}
	for _, c := range cases {
		_, ps := Decode([]byte(c.doc))
		if !slices.ContainsFunc(ps, func(p Problem) bool { return p.Field == c.field }) {
			t.Fatalf("%s: problems %v, want one on %s", c.doc, ps, c.field)
		}
		if !slices.IsSortedFunc(ps, func(a, b Problem) int { return strings.Compare(a.Field, b.Field) }) {
			t.Fatalf("%s: problems not sorted: %v", c.doc, ps)
		}
	}
}

func TestDecodeList(t *testing.T) {
	rules, ps := DecodeList([]byte(`[{"name":"a","trigger":"message.received","actions":[{"type":"close"}]},{"name":"b","trigger":"nope","actions":[{"type":"close"}]}]`))
	if len(rules) != 2 || len(ps) != 1 || ps[0].Field != "rules[1].trigger" {
		t.Fatalf("%v %v", rules, ps)
	}
}

// facts for the interpreter's tests.
type testFacts struct {
	words    []string
	props    map[string]string
	labels   []string
	open     bool
	first    bool
	assigned []string
	asked    map[string]int
}

func (f *testFacts) Number() (string, string) { return "N1", "+14155550100" }
func (f *testFacts) Words() []string          { f.asked["words"]++; return f.words }
func (f *testFacts) Property(n string) (string, bool) {
	v, ok := f.props[n]
	return v, ok && v != ""
}
func (f *testFacts) InGroup(g string) bool  { return g == "G1" }
func (f *testFacts) HasLabel(l string) bool { return slices.Contains(f.labels, l) }
func (f *testFacts) Open() bool             { return f.open }
func (f *testFacts) FirstMessage() bool     { return f.first }
func (f *testFacts) Assignees() []string    { return f.assigned }

func mustDecode(t *testing.T, doc string) Rule {
	t.Helper()
	r, ps := Decode([]byte(doc))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return r
}

func TestInterpreter(t *testing.T) {
	f := &testFacts{words: Words("Hello, I'm a NEW Patient at Café Zoë"), props: map[string]string{"plan": "Gold"}, asked: map[string]int{}}
	cases := []struct {
		cond string
		want bool
	}{
		{`{"field":"text","op":"contains","value":"new patient"}`, true},
		{`{"field":"text","op":"contains","value":"patient new"}`, false},
		{`{"field":"text","op":"contains","value":"cafe zoe"}`, true},
		{`{"field":"text","op":"contains","value":"pat"}`, false},
		{`{"field":"number","op":"is","value":"N1"}`, true},
		{`{"field":"number","op":"is","value":"+14155550100"}`, true},
		{`{"field":"property:plan","op":"equals","value":"gold"}`, true},
		{`{"field":"property:plan","op":"set"}`, true},
		{`{"field":"property:tier","op":"set"}`, false},
		{`{"field":"group","op":"in","value":"G1"}`, true},
		{`{"field":"hours","op":"closed"}`, true},
		{`{"field":"firstMessage","op":"is","value":false}`, true},
		{`{"field":"assignee","op":"none"}`, true},
	}
	for _, c := range cases {
		r := CompileRule(mustDecode(t, `{"name":"x","trigger":"message.received","conditions":[`+c.cond+`],"actions":[{"type":"close"}]}`))
		if got := r.Matches(f); got != c.want {
			t.Fatalf("%s: %v, want %v", c.cond, got, c.want)
		}
	}
	all := CompileRule(mustDecode(t, `{"name":"x","trigger":"message.received","conditions":[{"field":"hours","op":"open"},{"field":"label","op":"is","value":"vip"}],"actions":[{"type":"close"}]}`))
	anyOf := CompileRule(mustDecode(t, `{"name":"x","trigger":"message.received","match":"any","conditions":[{"field":"hours","op":"open"},{"field":"label","op":"is","value":"vip"}],"actions":[{"type":"close"}]}`))
	f.labels = []string{"vip"}
	if all.Matches(f) || !anyOf.Matches(f) {
		t.Fatal("all and any")
	}
	// Run: in order, disabled rules skipped, stop ends the run.
	set := Compile([]Rule{
		mustDecode(t, `{"name":"a","trigger":"message.received","actions":[{"type":"close"}]}`),
		mustDecode(t, `{"name":"b","enabled":false,"trigger":"message.received","actions":[{"type":"close"}]}`),
		mustDecode(t, `{"name":"c","trigger":"message.received","stop":true,"actions":[{"type":"close"}]}`),
		mustDecode(t, `{"name":"d","trigger":"message.received","actions":[{"type":"close"}]}`),
		mustDecode(t, `{"name":"e","trigger":"label.added","actions":[{"type":"close"}]}`),
	})
	var fired []string
	_ = set.Run(TriggerMessageReceived, f, func(c *Compiled) error { fired = append(fired, c.Rule.Name); return nil })
	if strings.Join(fired, "") != "ac" || !set.Has(TriggerLabelAdded) || set.Has(TriggerUnanswered) {
		t.Fatalf("fired %v", fired)
	}
}

// A rule document never makes the decoder panic; what it accepts writes out and reads back to
// the same rule.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(fullRule))
	f.Add([]byte(`{"name":"x","trigger":"conversation.unanswered","unansweredMinutes":15,"businessHoursOnly":true,"actions":[{"type":"close"}]}`))
	f.Add([]byte(`[{"name":"a"}]`))
	f.Add([]byte(`{"conditions":[{"field":"property:x","op":"equals","value":1e400}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, ps := DecodeList(data)
		if len(ps) > 0 {
			return
		}
		for _, r := range rules {
			out, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("a decoded rule does not encode: %v", err)
			}
			again, ps := Decode(out)
			if len(ps) > 0 {
				t.Fatalf("%s does not decode again: %v", out, ps)
			}
			out2, _ := json.Marshal(again)
			if string(out) != string(out2) {
				t.Fatalf("round trip:\n%s\n%s", out, out2)
			}
			CompileRule(again)
		}
	})
}
