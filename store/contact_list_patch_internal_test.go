package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// patchFix is a workspace with its number, 60 contacts (+1415556 00xx, in creation order in
// ids) and the group "Club" of every third, with the list's sets kept by a first read.
type patchFix struct {
	s             *Store
	ws, number, g string
	ids, phones   []string
	next          int // the next new phone
}

func newPatchFix(t *testing.T) *patchFix {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "patch.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	f := &patchFix{s: s, ws: w.ID, number: "+14155550100", next: 100}
	if _, err := s.AddNumber(w.ID, f.number, "Main"); err != nil {
		t.Fatal(err)
	}
	g, err := s.CreateGroup(w.ID, "Club")
	if err != nil {
		t.Fatal(err)
	}
	f.g = g.ID
	csv := "firstName,phone,groups\n"
	for i := range 60 {
		grp := ""
		if i%3 == 0 {
			grp = "Club"
		}
		csv += fmt.Sprintf("N%02d,+141555600%02d,%s\n", i, i, grp)
	}
	if rep, err := s.ImportContacts(w.ID, strings.NewReader(csv), nil); err != nil || rep.Rejected > 0 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	err = s.ContactIDs(w.ID, ContactFilter{}, 1000, func(ids []string) error {
		f.ids = append(f.ids, ids...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range f.ids {
		c, err := s.Contact(w.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		f.phones = append(f.phones, c.Phone())
	}
	f.check(t, "the import")
	return f
}

func (f *patchFix) filters() map[string]ContactFilter {
	yes, no := true, false
	return map[string]ContactFilter{
		"group": {GroupID: f.g}, "group newest": {GroupID: f.g, Newest: true},
		"opted out": {OptedOut: &yes}, "not opted out": {OptedOut: &no},
		"has a conversation": {HasConversation: &yes}, "no conversation newest": {HasConversation: &no, Newest: true},
		"group, not opted out": {GroupID: f.g, OptedOut: &no},
	}
}

// answer is the count and every contact listed, page after page.
func (f *patchFix) answer(t *testing.T, flt ContactFilter) (int, []string) {
	t.Helper()
	total, cursor := -1, ""
	var ids []string
	for {
		p, err := f.s.ListContacts(f.ws, flt, cursor, 7)
		if err != nil {
			t.Fatal(err)
		}
		if total == -1 {
			total = p.Total
		}
		for _, c := range p.Contacts {
			ids = append(ids, c.ID)
		}
		if cursor = p.Next; cursor == "" {
			return total, ids
		}
	}
}

// fresh is answer from sets built afresh (the kept ones are set aside meanwhile).
func (f *patchFix) fresh(t *testing.T, flt ContactFilter) (int, []string) {
	t.Helper()
	kept := f.s.idx
	f.s.idx = index.New(&indexLayout, setMembers, kept.Bounds)
	defer func() { f.s.idx = kept }()
	return f.answer(t, flt)
}

// check: every filter answers with its kept sets what it answers with fresh ones.
func (f *patchFix) check(t *testing.T, step string) {
	t.Helper()
	for name, flt := range f.filters() {
		n, ids := f.answer(t, flt)
		wn, wids := f.fresh(t, flt)
		if n != wn || !slices.Equal(ids, wids) {
			t.Errorf("after %s: %s: count %d, %d listed; a fresh build: %d, %d listed", step, name, n, len(ids), wn, len(wids))
		}
	}
}

func (f *patchFix) key(kind index.SetKind) index.SetKey {
	k := index.SetKey{WS: string(idKey(f.ws)), Kind: kind}
	if kind == index.SetGroup {
		k.Group = f.g
	}
	return k
}

// kept reports whether the set of kind is kept and exact for the latest snapshot: the write
// before patched it rather than leaving it to be rebuilt.
func (f *patchFix) kept(kind index.SetKind) bool {
	ok := false
	_ = f.s.view(func(tx *kv.Tx) error {
		_, ok = f.s.idx.KeptSet(tx, f.key(kind))
		return nil
	})
	return ok
}

func (f *patchFix) newPhone() string {
	f.next++
	return fmt.Sprintf("+14155570%03d", f.next)
}

// TestEachWritePatchesTheKeptSets: after each kind of write that changes who matches a filter,
// the sets it changed are still kept (patched, so the next page builds nothing) and every
// filter's count and pages are what sets built afresh give.
func TestEachWritePatchesTheKeptSets(t *testing.T) {
	f := newPatchFix(t)
	in := func(i int) InboundMessage {
		return InboundMessage{From: f.phones[i], To: f.number, Text: "stop", Keyword: KeywordStop}
	}
	optedOut, inGroup := f.newPhone(), f.newPhone()
	yes := true
	steps := []struct {
		name  string
		write func() error
		kinds []index.SetKind // the sets it changes
	}{
		{"adding one to the group", func() error { return f.s.AddContactToGroup(f.ws, f.g, f.ids[1]) }, []index.SetKind{index.SetGroup}},
		{"adding by phone to the group", func() error { _, _, err := f.s.AddToGroup(f.ws, "Club", f.phones[2]); return err }, []index.SetKind{index.SetGroup}},
		{"a bulk add to the group", func() error { _, err := f.s.BulkAddToGroup(f.ws, f.g, f.ids[4:12]); return err }, []index.SetKind{index.SetGroup}},
		{"taking one out of the group", func() error { _, err := f.s.RemoveFromGroup(f.ws, f.g, f.ids[0]); return err }, []index.SetKind{index.SetGroup}},
		{"a bulk removal from the group", func() error { _, err := f.s.BulkRemoveFromGroup(f.ws, f.g, f.ids[5:8]); return err }, []index.SetKind{index.SetGroup}},
		{"an import into the group, one contact new", func() error {
			csv := fmt.Sprintf("phone,groups\n%s,Club\n%s,Club\n", f.phones[13], f.newPhone())
			_, err := f.s.ImportContacts(f.ws, strings.NewReader(csv), nil)
			return err
		}, []index.SetKind{index.SetGroup, index.SetOptedOut, index.SetConversation}},
		{"an opt-out", func() error { _, _, err := f.s.CreateOptOut(f.ws, "", f.phones[14], OptOutAdmin); return err }, []index.SetKind{index.SetOptedOut}},
		{"a bulk opt-out", func() error { _, err := f.s.BulkOptOut(f.ws, "", OptOutAdmin, f.ids[15:25]); return err }, []index.SetKind{index.SetOptedOut}},
		{"a STOP keyword", func() error { _, err := f.s.ReceiveMessage(f.ws, in(30)); return err }, []index.SetKind{index.SetOptedOut, index.SetConversation}},
		{"a START keyword", func() error {
			m := in(30)
			m.Text, m.Keyword = "start", KeywordStart
			_, err := f.s.ReceiveMessage(f.ws, m)
			return err
		}, []index.SetKind{index.SetOptedOut}},
		{"a carrier's unsubscribed code", func() error {
			m, err := f.s.SendMessage(f.ws, SendInput{From: f.number, To: []string{f.phones[33]}, Text: "hi"})
			if err != nil {
				return err
			}
			if _, err := f.s.ClaimOutbound(100, 100, "", func(*PhoneNumber) int { return 1000 }); err != nil {
				return err
			}
			err = f.s.RecordOutcomes([]Outcome{{WorkspaceID: f.ws, MessageID: m.ID, Provider: "twilio",
				Err: "twilio 21610: Attempt to send to unsubscribed recipient", Unsubscribed: true}})
			if _, ids := f.answer(t, ContactFilter{OptedOut: &yes}); err == nil && !slices.Contains(ids, f.ids[33]) {
				err = fmt.Errorf("%s not opted out by the carrier's code", f.phones[33])
			}
			return err
		}, []index.SetKind{index.SetOptedOut, index.SetConversation}},
		{"an opt-out lifted", func() error { _, err := f.s.RemoveOptOut(f.ws, f.phones[14]); return err }, []index.SetKind{index.SetOptedOut}},
		{"a new conversation", func() error { _, _, err := f.s.CreateConversation(f.ws, f.number, f.phones[40]); return err }, []index.SetKind{index.SetConversation}},
		{"a message to a new number", func() error {
			_, err := f.s.SendMessage(f.ws, SendInput{From: f.number, To: []string{f.newPhone()}, Text: "hi"})
			return err
		}, []index.SetKind{index.SetConversation, index.SetOptedOut}},
		{"an opt-out of a number without a contact", func() error {
			_, _, err := f.s.CreateOptOut(f.ws, "", optedOut, OptOutAdmin)
			return err
		}, []index.SetKind{index.SetOptedOut}},
		{"a contact for that number", func() error { _, err := f.s.CreateContact(f.ws, ContactInput{Phone: optedOut}); return err }, []index.SetKind{index.SetOptedOut, index.SetConversation}},
		{"a deleted contact (in the group, opted out)", func() error { _, err := f.s.DeleteContact(f.ws, f.phones[9], false); return err }, []index.SetKind{index.SetGroup, index.SetOptedOut, index.SetConversation}},
		{"a bulk delete", func() error { _, err := f.s.BulkDeleteContacts(f.ws, f.ids[42:46]); return err }, []index.SetKind{index.SetGroup, index.SetOptedOut, index.SetConversation}},
		{"an erased contact (with a conversation)", func() error { _, err := f.s.DeleteContact(f.ws, f.phones[40], true); return err }, []index.SetKind{index.SetConversation, index.SetOptedOut}},
		{"the erased number added again", func() error { _, err := f.s.CreateContact(f.ws, ContactInput{Phone: f.phones[40]}); return err }, []index.SetKind{index.SetConversation, index.SetOptedOut}},
		{"a group message (a new number in it)", func() error {
			_, err := f.s.SendMessage(f.ws, SendInput{From: f.number, To: []string{f.phones[50], f.phones[51], inGroup}, Text: "hi all"})
			return err
		}, []index.SetKind{index.SetConversation, index.SetOptedOut}},
		{"a number in a group conversation deleted", func() error { _, err := f.s.DeleteContact(f.ws, f.phones[51], false); return err }, []index.SetKind{index.SetConversation, index.SetOptedOut, index.SetGroup}},
		{"and added again", func() error { _, err := f.s.CreateContact(f.ws, ContactInput{Phone: f.phones[51]}); return err }, []index.SetKind{index.SetConversation, index.SetOptedOut}},
		{"a new number with no conversation", func() error { _, err := f.s.CreateContact(f.ws, ContactInput{Phone: f.newPhone()}); return err }, []index.SetKind{index.SetConversation, index.SetOptedOut}},
	}
	for _, st := range steps {
		if err := st.write(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		for _, k := range st.kinds {
			if !f.kept(k) {
				t.Errorf("after %s: the set of kind %d was dropped, not patched", st.name, k)
			}
		}
		f.check(t, st.name)
	}
}

// TestKeptSetsMatchAFreshBuildAfterRandomWrites: random writes of every kind (group messages
// too), one after the other; after each, every filter answers as sets built afresh do, and no
// set had to be rebuilt.
func TestKeptSetsMatchAFreshBuildAfterRandomWrites(t *testing.T) {
	f := newPatchFix(t)
	rng := rand.New(rand.NewPCG(7, 19))
	phones := slices.Clone(f.phones)
	for range 10 {
		phones = append(phones, f.newPhone()) // numbers that no contact has yet
	}
	contact := func(p string) (string, bool) {
		c, err := f.s.ContactByPhone(f.ws, p)
		return c.ID, err == nil
	}
	for step := range 150 {
		p := phones[rng.IntN(len(phones))]
		id, exists := contact(p)
		var name string
		var err error
		switch op := rng.IntN(10); {
		case op == 0 && exists:
			name, err = "add to group", f.s.AddContactToGroup(f.ws, f.g, id)
		case op == 1 && exists:
			name = "remove from group"
			_, err = f.s.RemoveFromGroup(f.ws, f.g, id)
		case op == 2:
			name = "opt out"
			_, _, err = f.s.CreateOptOut(f.ws, "", p, OptOutAdmin)
		case op == 3:
			name = "opt in"
			_, err = f.s.RemoveOptOut(f.ws, p)
		case op == 4:
			name = "conversation"
			_, _, err = f.s.CreateConversation(f.ws, f.number, p)
		case op == 5 && !exists:
			name = "create"
			_, err = f.s.CreateContact(f.ws, ContactInput{Phone: p})
		case op == 6 && exists:
			name = "delete"
			_, err = f.s.DeleteContact(f.ws, p, false)
		case op == 7 && exists:
			name = "erase"
			_, err = f.s.DeleteContact(f.ws, p, true)
		case op == 9:
			name = "group message"
			_, err = f.s.SendMessage(f.ws, SendInput{From: f.number, To: []string{p, phones[rng.IntN(len(phones))]}, Text: "hi"})
			if isRefusal(err) {
				continue // an opted-out recipient, or the same number twice
			}
		case op == 8:
			name = "import"
			_, err = f.s.ImportContacts(f.ws, strings.NewReader("phone,groups\n"+p+",Club\n"), nil)
		default:
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %s %s: %v", step, name, p, err)
		}
		step := fmt.Sprintf("step %d (%s %s)", step, name, p)
		for _, k := range []index.SetKind{index.SetGroup, index.SetOptedOut, index.SetConversation} {
			if !f.kept(k) {
				t.Errorf("after %s: the set of kind %d was dropped, not patched", step, k)
			}
		}
		f.check(t, step)
	}
}

// TestKeptSetsUnderConcurrentWrites: writers of every kind at once (their writes share batched
// transactions) while readers page the filters; each writer finds its own write on its next
// read, and in the end every filter answers as sets built afresh do (run with -race).
func TestKeptSetsUnderConcurrentWrites(t *testing.T) {
	f := newPatchFix(t)
	yes := true
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for i := range 25 {
				// Each writer owns the contacts w, w+4, w+8, … so that its checks are its own.
				n := w + 4*rng.IntN(15)
				p, id := f.phones[n], f.ids[n]
				has := func(flt ContactFilter) bool {
					ok := false
					err := f.s.ContactIDs(f.ws, flt, 1000, func(ids []string) error {
						ok = ok || slices.Contains(ids, id)
						return nil
					})
					if err != nil {
						t.Error(err)
					}
					return ok
				}
				switch i % 3 {
				case 0:
					if err := f.s.AddContactToGroup(f.ws, f.g, id); err != nil {
						t.Error(err)
					} else if !has(ContactFilter{GroupID: f.g}) {
						t.Errorf("writer %d: %s added to the group, then not in it", w, p)
					}
				case 1:
					if _, _, err := f.s.CreateOptOut(f.ws, "", p, OptOutAdmin); err != nil {
						t.Error(err)
					} else if !has(ContactFilter{OptedOut: &yes}) {
						t.Errorf("writer %d: %s opted out, then not in the opted-out list", w, p)
					}
				default:
					if _, err := f.s.RemoveOptOut(f.ws, p); err != nil {
						t.Error(err)
					}
					if _, err := f.s.RemoveFromGroup(f.ws, f.g, id); err != nil {
						t.Error(err)
					}
					if _, _, err := f.s.CreateConversation(f.ws, f.number, p); err != nil {
						t.Error(err)
					} else if !has(ContactFilter{HasConversation: &yes}) {
						t.Errorf("writer %d: a conversation with %s, then not in the list", w, p)
					}
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 30 {
				for _, flt := range f.filters() {
					if _, err := f.s.ListContacts(f.ws, flt, "", 10); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	f.check(t, "the concurrent writes")
}
