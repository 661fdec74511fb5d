package store_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

func (f *autoFixture) rule(t *testing.T, doc string) store.StoredRule {
	t.Helper()
	r, err := f.s.AddRuleJSON(f.ws, []byte(doc))
	if err != nil {
		t.Fatalf("AddRuleJSON(%s): %v", doc, err)
	}
	return r
}

func (f *autoFixture) entries(t *testing.T, conv, kind string) []store.ConversationEntry {
	t.Helper()
	all, err := f.s.ConversationEntries(f.ws, conv)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.ConversationEntry
	for _, e := range all {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// A rule loop attempt: a rule that replies and labels on every text, and a rule that replies
// when that label is added. The reply does not fire message.received and the label a rule adds
// does not fire label.added: the first rule fires once, the second never, one reply goes.
func TestRuleLoopFiresOnce(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	f.rule(t, `{"name":"Echo","trigger":"message.received","actions":[{"type":"reply","text":"Got it, {{firstName|friend}}"},{"type":"addLabel","label":"echoed"}]}`)
	f.rule(t, `{"name":"Label echo","trigger":"label.added","conditions":[{"field":"label","op":"is","value":"echoed"}],"actions":[{"type":"reply","text":"Labelled"}]}`)
	f.contact(t, "+14155550500", "Ana", "Lima")
	r := f.text(t, "+14155550500", "hello")
	conv := r.Message.ConversationID
	if got := f.autoTexts(t, conv); len(got) != 1 || got[0] != "rule:"+f.mustRuleID(t, "Echo")+": Got it, Ana" {
		t.Fatalf("automatic messages %q", got)
	}
	es := f.entries(t, conv, store.EntryRule)
	if len(es) != 1 || es[0].Rule != "Echo" || es[0].Text != "replied and added the label echoed" {
		t.Fatalf("rule entries %+v", es)
	}
	// A person adding another label does not fire it; adding that label does, once.
	labels := []string{"echoed", "vip"}
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{Labels: &labels}); err != nil {
		t.Fatal(err)
	}
	if es := f.entries(t, conv, store.EntryRule); len(es) != 1 {
		t.Fatalf("the label was on the conversation already: %+v", es)
	}
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{Labels: &[]string{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{Labels: &labels}); err != nil {
		t.Fatal(err)
	}
	if es := f.entries(t, conv, store.EntryRule); len(es) != 2 || es[1].Rule != "Label echo" {
		t.Fatalf("a person's label: %+v", es)
	}
}

func (f *autoFixture) mustRuleID(t *testing.T, name string) string {
	t.Helper()
	rules, err := f.s.Rules(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Rule.Name == name {
			return r.ID
		}
	}
	t.Fatalf("no rule %q", name)
	return ""
}

// Conditions (all and any), the order of rules and "stop further rules"; a rule's reply is
// held to the three-a-day cap and says so in its entry.
func TestRuleConditionsOrderAndStop(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	if _, err := f.s.SetHours(f.ws, "", &store.HoursInput{Week: "mon-fri 09:00-17:00"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.AddProperty(f.ws, "plan", store.PropertyText); err != nil {
		t.Fatal(err)
	}
	vip := f.contact(t, "+14155550600", "Vera", "Ip")
	if _, _, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: vip.Phone(), Properties: map[string]any{"plan": "Gold"}}); err != nil {
		t.Fatal(err)
	}
	f.rule(t, `{"name":"Gold billing","trigger":"message.received","match":"all","stop":true,
		"conditions":[{"field":"text","op":"contains","value":"invoice"},{"field":"property:plan","op":"equals","value":"gold"},{"field":"hours","op":"open"}],
		"actions":[{"type":"addLabel","label":"billing"}]}`)
	f.rule(t, `{"name":"Anything","trigger":"message.received","match":"any",
		"conditions":[{"field":"text","op":"contains","value":"Où est"},{"field":"firstMessage","op":"is","value":true}],
		"actions":[{"type":"reply","text":"Hello"}]}`)
	r := f.text(t, vip.Phone(), "Where is my INVOICE?")
	conv := r.Message.ConversationID
	if es := f.entries(t, conv, store.EntryRule); len(es) != 1 || es[0].Rule != "Gold billing" {
		t.Fatalf("stop after the first rule: %+v", es)
	}
	c, _ := f.s.Conversation(f.ws, conv)
	if len(c.Labels) != 1 || c.Labels[0] != "billing" {
		t.Fatalf("labels %v", c.Labels)
	}
	// Outside hours the first rule does not match; the second matches a folded phrase.
	f.clock.Set(at(t, 4, "20:00"))
	f.text(t, vip.Phone(), "ou EST mon invoice")
	f.text(t, vip.Phone(), "où est-il")
	f.text(t, vip.Phone(), "ou est")
	f.text(t, vip.Phone(), "OU ést encore") // a fourth automatic message in 24 hours: held
	es := f.entries(t, conv, store.EntryRule)
	if len(es) != 5 {
		t.Fatalf("%d rule entries, want 5: %+v", len(es), es)
	}
	if es[4].Text != "did not reply: 3 automatic messages went to this contact in the last 24 hours" {
		t.Fatalf("the fourth reply's entry: %q", es[4].Text)
	}
	if got := f.autoTexts(t, conv); len(got) != 3 {
		t.Fatalf("%d automatic replies, want 3", len(got))
	}
}

// conversation.unanswered counts business minutes from the first text not answered; an answer
// before then cancels it; it fires once per wait.
func TestUnansweredInBusinessHours(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "16:50"))
	if _, err := f.s.SetHours(f.ws, "", &store.HoursInput{Week: "mon-fri 09:00-17:00"}); err != nil {
		t.Fatal(err)
	}
	f.rule(t, `{"name":"Chase","trigger":"conversation.unanswered","unansweredMinutes":15,"businessHoursOnly":true,
		"actions":[{"type":"addLabel","label":"waiting"},{"type":"note","text":"Nobody answered"}]}`)
	r := f.text(t, "+14155550700", "anyone there?")
	conv := r.Message.ConversationID
	f.clock.Set(at(t, 4, "16:59"))
	f.text(t, "+14155550700", "hello??") // the wait started at 16:50 still
	run := func(now time.Time) int {
		t.Helper()
		f.clock.Set(now)
		n, _, err := f.s.RunDue(now, 100)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := run(at(t, 5, "09:04")); n != 0 {
		t.Fatalf("%d due before Tuesday 09:05", n)
	}
	if n := run(at(t, 5, "09:05")); n != 1 {
		t.Fatalf("%d due at Tuesday 09:05 (10 minutes Monday, 5 Tuesday)", n)
	}
	if es := f.entries(t, conv, store.EntryRule); len(es) != 1 || es[0].Text != "added the label waiting and added a note" {
		t.Fatalf("entries %+v", es)
	}
	if n := run(at(t, 8, "09:05")); n != 0 {
		t.Fatalf("fired again: %d", n)
	}
	// A new wait, answered in time: nothing fires.
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550700"}, Text: "Hi!", AuthorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(at(t, 5, "10:00"))
	f.text(t, "+14155550700", "thanks, one more question")
	f.clock.Set(at(t, 5, "10:10"))
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550700"}, Text: "Sure", AuthorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	run(at(t, 5, "10:20"))
	if es := f.entries(t, conv, store.EntryRule); len(es) != 1 {
		t.Fatalf("an answered wait fired: %+v", es)
	}
}

// The first-response target: overdue after 15 minutes, listed by OverdueInbox, until a
// person answers; an automatic reply does not answer.
func TestFirstResponseOverdue(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	if _, err := f.s.SetFirstResponse(f.ws, 15, store.FirstResponseAll); err != nil {
		t.Fatal(err)
	}
	f.rule(t, `{"name":"Ack","trigger":"message.received","actions":[{"type":"reply","text":"We got your text"}]}`)
	r := f.text(t, "+14155550800", "help me please")
	conv := r.Message.ConversationID
	overdue := func() int {
		t.Helper()
		items, _, err := f.s.OverdueInbox(f.ws, store.InboxFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(items)
	}
	f.clock.Set(at(t, 4, "10:14"))
	if n := overdue(); n != 0 {
		t.Fatalf("%d overdue at 14 minutes", n)
	}
	f.clock.Set(at(t, 4, "10:15"))
	if n := overdue(); n != 1 {
		t.Fatalf("%d overdue at 15 minutes (the automatic reply is no answer)", n)
	}
	if n, _, _ := f.s.RunDue(f.clock.Now(), 10); n != 1 {
		t.Fatalf("the overdue moment was not due: %d", n)
	}
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550800"}, Text: "Here", AuthorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	if n := overdue(); n != 0 {
		t.Fatalf("%d overdue after the answer", n)
	}
	if c, _ := f.s.Conversation(f.ws, conv); c.Overdue(f.clock.Now()) || c.AwaitingSince != nil {
		t.Fatalf("answered conversation: %+v", c)
	}
}

// Bad rule documents are refused with the field named and nothing saved.
func TestRuleDocumentRefusals(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	cases := []struct{ doc, field string }{
		{`{"name":"No action","trigger":"message.received","actions":[]}`, "actions"},
		{`{"name":"Too soon","trigger":"conversation.unanswered","unansweredMinutes":0,"actions":[{"type":"close"}]}`, "unansweredMinutes"},
		{`{"name":"Ghost","trigger":"message.received","actions":[{"type":"assign","userId":"01J0000000000000000000000Z"}]}`, "actions[0].userId"},
		{`{"name":"Ghost team","trigger":"message.received","actions":[{"type":"assignTeam","teamId":"nope"}]}`, "actions[0].teamId"},
		{`{"name":"Long","trigger":"message.received","actions":[{"type":"reply","text":"` + strings.Repeat("a", 1700) + `"}]}`, "actions[0].text"},
		{`{"name":"Tag","trigger":"message.received","actions":[{"type":"reply","text":"Hi {{nickname}}"}]}`, "actions[0].text"},
		{`{"name":"Bad op","trigger":"message.received","conditions":[{"field":"text","op":"is","value":"x"}],"actions":[{"type":"close"}]}`, "conditions[0].op"},
		{`{"name":"Unknown","trigger":"whenever","actions":[{"type":"close"}]}`, "trigger"},
		{`[1,2]`, "rule"},
	}
	for _, c := range cases {
		_, err := f.s.AddRuleJSON(f.ws, []byte(c.doc))
		var verr store.ValidationError
		if !errors.As(err, &verr) {
			t.Fatalf("%s: %v, want a validation error", c.doc, err)
		}
		found := false
		for _, fe := range verr {
			found = found || fe.Field == c.field
		}
		if !found {
			t.Fatalf("%s: errors %v, want one on %s", c.doc, verr, c.field)
		}
	}
	if rules, _ := f.s.Rules(f.ws); len(rules) != 0 {
		t.Fatalf("%d rules saved", len(rules))
	}
}

// Several unanswered rules of one wait fire each at its own time, in order, from one entry of
// the due queue; one that says stop ends the others due with it.
func TestUnansweredRulesAtTheirTimes(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	f.rule(t, `{"name":"Five","trigger":"conversation.unanswered","unansweredMinutes":5,"actions":[{"type":"addLabel","label":"five"}]}`)
	f.rule(t, `{"name":"Ten stop","trigger":"conversation.unanswered","unansweredMinutes":10,"stop":true,"actions":[{"type":"addLabel","label":"ten"}]}`)
	f.rule(t, `{"name":"Ten too","trigger":"conversation.unanswered","unansweredMinutes":10,"actions":[{"type":"addLabel","label":"never"}]}`)
	f.rule(t, `{"name":"Twenty","trigger":"conversation.unanswered","unansweredMinutes":20,"actions":[{"type":"addLabel","label":"twenty"}]}`)
	conv := f.text(t, "+14155550901", "hello?").Message.ConversationID
	labels := func(clock string) []string {
		t.Helper()
		now := at(t, 4, clock)
		f.clock.Set(now)
		if _, _, err := f.s.RunDue(now, 100); err != nil {
			t.Fatal(err)
		}
		c, _ := f.s.Conversation(f.ws, conv)
		return c.Labels
	}
	for _, c := range []struct{ clock, want string }{
		{"10:04", ""}, {"10:05", "five"}, {"10:09", "five"}, {"10:10", "five,ten"}, {"10:19", "five,ten"}, {"10:20", "five,ten,twenty"}, {"11:00", "five,ten,twenty"},
	} {
		if got := strings.Join(labels(c.clock), ","); got != c.want {
			t.Fatalf("at %s: labels %q, want %q", c.clock, got, c.want)
		}
	}
}
