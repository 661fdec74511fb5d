package store

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkContactsListAfterWrite100k is the first page of a filter right after a write that
// changes its set (at 100,000 contacts, the fixture of BenchmarkContactsList100k): a member
// added to or taken out of the group, a number opted out or back in, a conversation with a new
// number (a new contact too). ms/page is the page alone (the write is not timed); compare it
// with the warm-ms/page of BenchmarkContactsList100k.
// Run: go test ./store -run '^$' -bench ContactsListAfterWrite100k -benchtime 20x
func BenchmarkContactsListAfterWrite100k(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 100,000-contact database")
	}
	db := list100kFixture(b)
	s, err := Open(db.path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var ids []string
	err = s.ContactIDs(db.workspace, ContactFilter{GroupID: db.group}, 5, func(chunk []string) error {
		ids = append(ids, chunk...)
		return errBenchStop
	})
	if err != nil && err != errBenchStop {
		b.Fatal(err)
	}
	member, err := s.Contact(db.workspace, ids[0])
	if err != nil {
		b.Fatal(err)
	}
	yes, no := true, false
	toggleGroup := func(i int) error {
		if i%2 == 0 {
			_, err := s.RemoveFromGroup(db.workspace, db.group, member.ID)
			return err
		}
		return s.AddContactToGroup(db.workspace, db.group, member.ID)
	}
	toggleOptOut := func(int) error {
		if _, created, err := s.CreateOptOut(db.workspace, "", member.Phone(), OptOutAdmin); err != nil || created {
			return err
		}
		_, err := s.RemoveOptOut(db.workspace, member.Phone())
		return err
	}
	conv := 0
	newConversation := func(int) error {
		conv++
		_, _, err := s.CreateConversation(db.workspace, "+12025550100", fmt.Sprintf("+1303555%04d", conv))
		return err
	}
	for _, tc := range []struct {
		name  string
		write func(i int) error
		f     ContactFilter
	}{
		{"group", toggleGroup, ContactFilter{GroupID: db.group}},
		{"opted-out", toggleOptOut, ContactFilter{OptedOut: &yes}},
		{"not-opted-out", toggleOptOut, ContactFilter{OptedOut: &no}},
		{"has-conversation", newConversation, ContactFilter{HasConversation: &yes}},
		{"no-conversation-newest", newConversation, ContactFilter{HasConversation: &no, Newest: true}},
		{"group-not-opted-out", toggleOptOut, ContactFilter{GroupID: db.group, OptedOut: &no}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if _, err := s.ListContacts(db.workspace, tc.f, "", 100); err != nil { // the sets are kept
				b.Fatal(err)
			}
			var pages []time.Duration
			i := 0
			for b.Loop() {
				if err := tc.write(i); err != nil {
					b.Fatal(err)
				}
				i++
				t0 := time.Now()
				if _, err := s.ListContacts(db.workspace, tc.f, "", 100); err != nil {
					b.Fatal(err)
				}
				pages = append(pages, time.Since(t0))
			}
			slices.Sort(pages)
			var sum time.Duration
			for _, d := range pages {
				sum += d
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(sum)/float64(len(pages)), "ms/page")
			b.ReportMetric(ms(pages[len(pages)/2]), "median-ms")
			b.ReportMetric(ms(pages[len(pages)-1]), "worst-ms")
		})
	}
}

type stopErr struct{}

func (stopErr) Error() string { return "stop" }

var errBenchStop error = stopErr{}
