package store_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"switchboard/store"
)

// Bad ranges, numbers, members and teams are refused with the field named; a member who is
// not an admin cannot read another member's figures.
func TestReportRefusesBadQueries(t *testing.T) {
	w := newReportWorld(t, filepath.Join(t.TempDir(), "switchboard.db"))
	base := store.ReportQuery{From: day(2026, 3, 1), To: day(2026, 3, 31), ViewerID: w.admin.ID, Admin: true}
	field := func(err error) string {
		var verr store.ValidationError
		if !errors.As(err, &verr) || len(verr) == 0 {
			return fmt.Sprintf("not a validation error: %v", err)
		}
		return verr[0].Field + ": " + verr[0].Message
	}
	for _, c := range []struct {
		name string
		edit func(q *store.ReportQuery)
		want string
	}{
		{"to before from", func(q *store.ReportQuery) { q.From, q.To = q.To, q.From }, "to: must be on or after from"},
		{"401 days", func(q *store.ReportQuery) { q.To = q.From + 400 }, "to: must be at most 400 days after from, both days included"},
		{"unknown number", func(q *store.ReportQuery) { q.NumberID = w.ws }, "numberId: is not a number of this workspace"},
		{"not an id", func(q *store.ReportQuery) { q.NumberID = "nope" }, "numberId: is not a number of this workspace"},
		{"unknown member", func(q *store.ReportQuery) { q.MemberID = w.main.ID }, "memberId: is not a member of this workspace"},
		{"unknown team", func(q *store.ReportQuery) { q.TeamID = "01KK0000000000000000000000" }, "teamId: is not a team of this workspace"},
	} {
		q := base
		c.edit(&q)
		if _, err := w.s.Report(w.ws, q); field(err) != c.want {
			t.Errorf("%s: %s, want %s", c.name, field(err), c.want)
		}
	}
	q := base
	q.To = q.From + 399
	if _, err := w.s.Report(w.ws, q); err != nil {
		t.Errorf("400 days: %v", err)
	}
	q = base
	q.ViewerID, q.Admin, q.MemberID = w.member.ID, false, w.admin.ID
	if _, err := w.s.Report(w.ws, q); !errors.Is(err, store.ErrForbidden) {
		t.Errorf("a member reading an admin's figures: %v", err)
	}
	q.MemberID = w.member.ID
	if _, err := w.s.Report(w.ws, q); err != nil {
		t.Errorf("a member reading their own figures: %v", err)
	}
	if _, err := w.s.Report("01KK0000000000000000000000", base); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown workspace: %v", err)
	}
}

// Writers at once — inbound texts, answers, closes, broadcasts and their outcomes — share
// transactions in the group commit; the rollups stay exact.
func TestReportRollupsExactUnderConcurrency(t *testing.T) {
	w := newReportWorld(t, filepath.Join(t.TempDir(), "switchboard.db"))
	w.at(t, 2026, 3, 6, 10, 0, 0)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 15 {
				phone := fmt.Sprintf("+1415556%02d%02d", g, i)
				r, err := w.s.ReceiveMessage(w.ws, store.InboundMessage{From: phone, To: w.main.Phone, Text: "hi", Provider: store.ProviderSandbox})
				if err != nil {
					errs <- err
					return
				}
				if i%2 == 0 {
					if _, err := w.s.SendMessage(w.ws, store.SendInput{From: w.main.Phone, To: []string{phone}, Text: "hello", AuthorID: w.member.ID}); err != nil {
						errs <- err
						return
					}
				}
				if err := drainConcurrently(w); err != nil {
					errs <- err
					return
				}
				if i%3 == 0 {
					if _, err := w.s.UpdateConversation(w.ws, r.Message.ConversationID, store.ConversationUpdate{Status: status(store.ConversationClosed), ActorID: w.admin.ID}); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 3 {
			var to []string
			for j := range 20 {
				to = append(to, fmt.Sprintf("+1415557%02d%02d", i, j))
			}
			if _, err := w.s.SendBroadcast(w.ws, store.BroadcastInput{From: w.main.Phone, Recipients: to, Text: "news", AuthorID: w.admin.ID}); err != nil {
				errs <- err
				return
			}
			if err := drainConcurrently(w); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	w.drain(t, delivered)
	checkReports(t, w, "concurrent writers")
	r, err := w.s.Report(w.ws, store.ReportQuery{From: day(2026, 3, 6), To: day(2026, 3, 6), Admin: true})
	must(t, err)
	if r.Totals.Inbound != 120 || r.Totals.Outbound != 64 || r.Totals.Broadcast != 60 || r.Totals.Closed != 40 {
		t.Errorf("in %d, out %d, broadcast %d, closed %d; want 120, 64, 60, 40", r.Totals.Inbound, r.Totals.Outbound, r.Totals.Broadcast, r.Totals.Closed)
	}
}

// drainConcurrently claims what is queued and records its outcome (numbers ending in 7 are
// unreachable), as a dispatcher does beside the writers.
func drainConcurrently(w *reportWorld) error {
	claims, err := w.s.ClaimOutbound(1000, 1000, "", func(*store.PhoneNumber) int { return 1000 })
	if err != nil {
		return err
	}
	var outs []store.Outcome
	for _, c := range claims {
		for _, m := range c.Messages {
			o := store.Outcome{WorkspaceID: m.WorkspaceID, MessageID: m.ID, Provider: store.ProviderSandbox}
			if strings.HasSuffix(m.To, "7") {
				o.Err = "twilio 30003: unreachable"
			} else {
				o.ProviderIDs, o.Delivered = []string{"sandbox-" + m.ID}, true
			}
			outs = append(outs, o)
		}
	}
	return w.s.RecordOutcomes(outs)
}
