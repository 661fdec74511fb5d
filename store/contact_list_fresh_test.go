package store_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"switchboard/store"
)

// listModel is what the contacts list should show, kept beside the store by the test: each
// phone in the workspace with whether it is in the group, opted out, or in a conversation.
type listModel struct {
	contacts map[string]bool // phone -> exists
	group    map[string]bool
	optedOut map[string]bool // kept whether or not a contact has the number
	conv     map[string]bool
}

func (m *listModel) want(flt store.ContactFilter) []string {
	var out []string
	for p, ok := range m.contacts {
		if !ok ||
			(flt.GroupID != "" && !m.group[p]) ||
			(flt.OptedOut != nil && m.optedOut[p] != *flt.OptedOut) ||
			(flt.HasConversation != nil && m.conv[p] != *flt.HasConversation) {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// TestListContactsSeesEachWrite: a filtered list read once (so its sets are kept for the next
// reads) shows, on the very next read, each write that changes who matches: added to and taken
// out of a group, opted out and back in, a new conversation, a new contact with an opted-out
// number, a deleted contact, an erased one, a deleted group. Count and pages both.
func TestListContactsSeesEachWrite(t *testing.T) {
	f := newFixture(t)
	csv := "firstName,phone\n"
	for i := range 150 {
		csv += fmt.Sprintf("N%03d,+1415557%04d\n", i, i)
	}
	importCSV(t, f, csv)
	phone := func(i int) string { return fmt.Sprintf("+1415557%04d", i) }
	g, err := f.s.CreateGroup(f.ws, "VIP")
	if err != nil {
		t.Fatal(err)
	}
	m := &listModel{contacts: map[string]bool{}, group: map[string]bool{}, optedOut: map[string]bool{}, conv: map[string]bool{}}
	for i := range 150 {
		m.contacts[phone(i)] = true
	}

	filters := map[string]store.ContactFilter{
		"group":                  {GroupID: g.ID},
		"group newest":           {GroupID: g.ID, Newest: true},
		"opted out":              {OptedOut: boolp(true)},
		"not opted out":          {OptedOut: boolp(false)},
		"has a conversation":     {HasConversation: boolp(true)},
		"no conversation newest": {HasConversation: boolp(false), Newest: true},
		"group, not opted out":   {GroupID: g.ID, OptedOut: boolp(false)},
	}
	check := func(step string) {
		t.Helper()
		for name, flt := range filters {
			var got []string
			total, cursor := -1, ""
			for {
				p, err := f.s.ListContacts(f.ws, flt, cursor, 40)
				if err != nil {
					t.Fatalf("%s: %s: %v", step, name, err)
				}
				if total == -1 {
					total = p.Total
				}
				for _, c := range p.Contacts {
					got = append(got, c.Phone())
				}
				if cursor = p.Next; cursor == "" {
					break
				}
			}
			slices.Sort(got)
			want := m.want(flt)
			if total != len(want) || !slices.Equal(got, want) {
				t.Errorf("after %s: %s: count %d, %d listed; want %d", step, name, total, len(got), len(want))
			}
		}
	}
	check("the import") // the sets are now kept

	if _, _, err := f.s.AddToGroup(f.ws, "VIP", phone(3)); err != nil {
		t.Fatal(err)
	}
	m.group[phone(3)] = true
	check("adding one to the group")

	ids := allIDs(t, f)
	phoneOf := func(id string) string {
		t.Helper()
		c, err := f.s.Contact(f.ws, id)
		if err != nil {
			t.Fatal(err)
		}
		return c.Phone()
	}
	if _, err := f.s.BulkAddToGroup(f.ws, g.ID, ids[100:]); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[100:] {
		m.group[phoneOf(id)] = true
	}
	check("adding 50 to the group")

	if _, err := f.s.RemoveFromGroup(f.ws, g.ID, ids[149]); err != nil {
		t.Fatal(err)
	}
	m.group[phoneOf(ids[149])] = false
	check("taking one out of the group")

	if _, _, err := f.s.CreateOptOut(f.ws, f.user.ID, phone(5), store.OptOutAdmin); err != nil {
		t.Fatal(err)
	}
	m.optedOut[phone(5)] = true
	check("an opt-out")

	if _, err := f.s.BulkOptOut(f.ws, f.user.ID, store.OptOutAdmin, ids[:10]); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:10] {
		m.optedOut[phoneOf(id)] = true
	}
	check("a bulk opt-out")

	if _, err := f.s.RemoveOptOut(f.ws, phone(5)); err != nil {
		t.Fatal(err)
	}
	m.optedOut[phone(5)] = false
	check("an opt-out lifted")

	// Three numbers of contacts that may be written to (not opted out), outside the group.
	var free []string
	for i := range 150 {
		if p := phone(i); !m.optedOut[p] && !m.group[p] && len(free) < 3 {
			free = append(free, p)
		}
	}
	p7, p8, p9 := free[0], free[1], free[2]
	if _, _, err := f.s.CreateConversation(f.ws, f.number, p7); err != nil {
		t.Fatal(err)
	}
	m.conv[p7] = true
	check("a new conversation")

	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{p8}, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	m.conv[p8] = true
	check("a message to a new number")

	// An opted-out number with no contact, then a contact for it: it lists as opted out.
	if _, _, err := f.s.CreateOptOut(f.ws, f.user.ID, "+14155579999", store.OptOutAdmin); err != nil {
		t.Fatal(err)
	}
	m.optedOut["+14155579999"] = true
	check("an opt-out of a number without a contact")
	if _, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155579999"}); err != nil {
		t.Fatal(err)
	}
	m.contacts["+14155579999"] = true
	check("a contact for an opted-out number")

	if _, err := f.s.DeleteContact(f.ws, phone(3), false); err != nil {
		t.Fatal(err)
	}
	m.contacts[phone(3)] = false
	check("a deleted contact")
	if _, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: phone(3)}); err != nil {
		t.Fatal(err)
	}
	m.contacts[phone(3)], m.group[phone(3)] = true, false // the new contact is in no group
	check("the deleted contact's number added again")

	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{p9, p7}, Text: "to you both"}); err != nil {
		t.Fatal(err)
	}
	m.conv[p9] = true
	check("a group message")

	// The erasure keeps the group conversation, for p9 only.
	if _, err := f.s.DeleteContact(f.ws, p7, true); err != nil {
		t.Fatal(err)
	}
	m.contacts[p7], m.conv[p7] = false, false
	check("an erased contact")
	if _, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: p7}); err != nil {
		t.Fatal(err)
	}
	m.contacts[p7] = true
	check("the erased contact's number added again")

	if err := f.s.DeleteGroup(f.ws, g.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.ListContacts(f.ws, store.ContactFilter{GroupID: g.ID}, "", 10); err == nil {
		t.Error("a deleted group still filters the list")
	}
	g2, err := f.s.CreateGroup(f.ws, "VIP")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := f.s.ListContacts(f.ws, store.ContactFilter{GroupID: g2.ID}, "", 10); err != nil || p.Total != 0 {
		t.Errorf("a new group of the deleted one's name: %d members, %v; want 0", p.Total, err)
	}
}

// TestListContactsSeesWritesUnderConcurrency: writers opting numbers out while others read
// the list each find their own number on the very read after their write, and the last read
// counts them all (run with -race).
func TestListContactsSeesWritesUnderConcurrency(t *testing.T) {
	f := newFixture(t)
	csv := "firstName,phone\n"
	for i := range 40 {
		csv += fmt.Sprintf("N%03d,+1415558%04d\n", i, i)
	}
	importCSV(t, f, csv)
	optedOut := store.ContactFilter{OptedOut: boolp(true)}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			p := fmt.Sprintf("+1415558%04d", i)
			if _, _, err := f.s.CreateOptOut(f.ws, f.user.ID, p, store.OptOutAdmin); err != nil {
				t.Error(err)
				return
			}
			page, err := f.s.ListContacts(f.ws, optedOut, "", 100)
			if err != nil {
				t.Error(err)
				return
			}
			if !slices.ContainsFunc(page.Contacts, func(c store.Contact) bool { return c.Phone() == p }) {
				t.Errorf("%s opted out, then not in the opted-out list of %d", p, page.Total)
			}
		})
		wg.Go(func() {
			if _, err := f.s.ListContacts(f.ws, store.ContactFilter{OptedOut: boolp(false)}, "", 10); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p, err := f.s.ListContacts(f.ws, optedOut, "", 100); err != nil || p.Total != 40 || len(p.Contacts) != 40 {
		t.Errorf("after every opt-out: %d opted out (%d listed), %v; want 40", p.Total, len(p.Contacts), err)
	}
}
