package store_test

import (
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// reportWorld is a workspace in New York with an admin, a member and two numbers, on a clock the
// workload moves by hand: the world every reports test drives.
type reportWorld struct {
	s              *store.Store
	path           string // the store's file
	clk            *testutil.Clock
	ws             string
	admin, member  store.User
	main, second   store.PhoneNumber
	loc            *time.Location
	convs          map[string]string // contact phone → its conversation with the main number
	broadcast      string            // the first broadcast's id
	cancelledBcast string            // the broadcast cancelled with copies still queued
	team           string            // the front desk's team (the member), once the automations run
	otherTeam      string            // the billing team (the admin), the billing number limited to it
}

// reportStart is 09:00 in New York on Friday 6 March 2026, two days before the spring DST change.
var reportStart = time.Date(2026, 3, 6, 14, 0, 0, 0, time.UTC)

// newReportWorld opens a store at path on a clock at reportStart and sets up the world.
func newReportWorld(t testing.TB, path string) *reportWorld {
	t.Helper()
	clk := testutil.NewClock(reportStart)
	return newReportWorldOn(t, openStoreAt(t, path, store.Options{Now: clk.Now}), path, clk)
}

// newReportWorldOn sets up the world in s, a store at path on clk (at reportStart).
func newReportWorldOn(t testing.TB, s *store.Store, path string, clk *testutil.Clock) *reportWorld {
	t.Helper()
	w := &reportWorld{s: s, path: path, clk: clk, convs: map[string]string{}}
	w.loc, _ = time.LoadLocation("America/New_York")
	ws, err := s.CreateWorkspace("Acme Dental")
	must(t, err)
	w.ws = ws.ID
	_, err = s.UpdateWorkspace(w.ws, store.WorkspaceSettings{TimeZone: ptr("America/New_York")})
	must(t, err)
	w.admin, err = s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana Lima"})
	must(t, err)
	w.member, err = s.CreateUser(store.NewUser{Email: "bo@example.com", Name: "Bo Chen"})
	must(t, err)
	_, err = s.AddMember(w.ws, w.admin.ID, "admin")
	must(t, err)
	_, err = s.AddMember(w.ws, w.member.ID, "member")
	must(t, err)
	w.main, err = s.AddNumber(w.ws, "+14155550100", "Front desk")
	must(t, err)
	w.second, err = s.AddNumber(w.ws, "+14155550101", "Billing")
	must(t, err)
	return w
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// at moves the clock to a wall time in New York.
func (w *reportWorld) at(t testing.TB, y int, mo time.Month, d, h, mi, s int) {
	t.Helper()
	w.clk.Set(time.Date(y, mo, d, h, mi, s, 0, w.loc))
}

// in receives a text from phone on number n.
func (w *reportWorld) in(t testing.TB, n store.PhoneNumber, phone, text string, kw store.Keyword) store.InboundResult {
	t.Helper()
	r, err := w.s.ReceiveMessage(w.ws, store.InboundMessage{From: phone, To: n.Phone, Text: text, Provider: store.ProviderSandbox, Keyword: kw})
	must(t, err)
	if n.ID == w.main.ID {
		w.convs[phone] = r.Message.ConversationID
	}
	return r
}

// out sends a text from n to phone as user (an empty user sends as the API with no author).
func (w *reportWorld) out(t testing.TB, n store.PhoneNumber, phone, text, user string) store.Message {
	t.Helper()
	m, err := w.s.SendMessage(w.ws, store.SendInput{From: n.Phone, To: []string{phone}, Text: text, AuthorID: user})
	must(t, err)
	if n.ID == w.main.ID {
		w.convs[phone] = m.ConversationID
	}
	return m
}

// drain claims every queued message and records what fate says of each: "delivered", "sent"
// (accepted; a receipt comes later), "retry", or a carrier error ("twilio 30007: …").
func (w *reportWorld) drain(t testing.TB, fate func(m store.Message) string) {
	t.Helper()
	for range 10 {
		_, _, err := w.s.PromoteDue(w.clk.Now(), 1000)
		must(t, err)
		claims, err := w.s.ClaimOutbound(1000, 1000, "", func(*store.PhoneNumber) int { return 1000 })
		must(t, err)
		if len(claims) == 0 {
			return
		}
		var outs []store.Outcome
		for _, c := range claims {
			for _, m := range c.Messages {
				o := store.Outcome{WorkspaceID: m.WorkspaceID, MessageID: m.ID, Provider: store.ProviderSandbox}
				switch f := fate(m); f {
				case "delivered":
					o.ProviderIDs, o.Delivered = []string{"sandbox-" + m.ID}, true
				case "sent":
					o.ProviderIDs = []string{"sandbox-" + m.ID}
				case "retry":
					o.Err, o.RetryAt = "twilio 20429: too many requests", w.clk.Now().Add(time.Minute)
				default:
					o.Err, o.Unsubscribed = f, strings.Contains(f, "21610")
				}
				outs = append(outs, o)
			}
		}
		must(t, w.s.RecordOutcomes(outs))
	}
}

func delivered(store.Message) string { return "delivered" }

// update changes a conversation as user.
func (w *reportWorld) update(t testing.TB, conv, user string, u store.ConversationUpdate) {
	t.Helper()
	u.ActorID = user
	_, err := w.s.UpdateConversation(w.ws, conv, u)
	must(t, err)
}

func status(s string) *string { return &s }

// runReportWorkload drives every write path the reports count, over several New York days
// (across midnight and the spring DST change), calling check after each step.
func runReportWorkload(t testing.TB, w *reportWorld, check func(step string)) {
	t.Helper()
	const ana, bo, cy, di, ed, fay, gus = "+14155550111", "+14155550112", "+14155550113", "+14155550114", "+14155550115", "+14155550116", "+14155550117"

	// Friday: contacts write in, the team answers; one answer fails, one is retried.
	w.at(t, 2026, 3, 6, 9, 5, 0)
	w.in(t, w.main, ana, "Hi, can I book a cleaning?", store.NoKeyword)
	w.in(t, w.main, bo, "Do you take new patients?", store.NoKeyword)
	w.in(t, w.second, cy, "Question about my bill", store.NoKeyword)
	w.clk.Advance(2 * time.Minute)
	w.in(t, w.main, ana, "Tuesday would suit me", store.NoKeyword)
	w.clk.Advance(7*time.Minute + 30*time.Second)
	w.out(t, w.main, ana, "Tuesday at 10 works. See you then!", w.member.ID)
	w.clk.Advance(time.Minute)
	w.out(t, w.main, ana, "Reply C to confirm.", w.member.ID)
	w.clk.Advance(40 * time.Minute)
	w.out(t, w.second, cy, "Your balance is $0.", w.admin.ID)
	w.out(t, w.main, di, "Your crown is ready.", w.admin.ID) // the team writes first
	w.drain(t, func(m store.Message) string {
		switch m.To {
		case cy:
			return "twilio 30007: filtered"
		case di:
			return "retry"
		}
		return delivered(m)
	})
	w.clk.Advance(2 * time.Minute)
	w.drain(t, func(store.Message) string { return "sent" })
	check("sends, outcomes and a retry")

	// Receipts come in; a conversation is assigned, closed, reopened by the contact, closed again.
	w.clk.Advance(time.Minute)
	m, _, err := w.s.StatusUpdate(store.ProviderSandbox, "sandbox-"+w.lastOutbound(t, di).ID, store.MessageDelivered, "")
	must(t, err)
	if m.Status != store.MessageDelivered {
		t.Fatalf("receipt: status %s", m.Status)
	}
	w.update(t, w.convs[ana], w.admin.ID, store.ConversationUpdate{AssignedUserIDs: &[]string{w.member.ID}})
	w.clk.Advance(3 * time.Hour)
	w.update(t, w.convs[ana], w.member.ID, store.ConversationUpdate{Status: status(store.ConversationClosed)})
	w.update(t, w.convs[bo], w.admin.ID, store.ConversationUpdate{AssignedUserIDs: &[]string{w.admin.ID, w.member.ID}})
	w.at(t, 2026, 3, 6, 23, 59, 58)
	w.in(t, w.main, ana, "Actually, can we make it 11?", store.NoKeyword)
	check("receipts, assignments and closes")

	// Across midnight: the answer lands on Saturday; keywords; a closed conversation reopened by hand.
	w.at(t, 2026, 3, 7, 0, 0, 3)
	w.out(t, w.main, ana, "11 is fine.", w.member.ID)
	w.out(t, w.main, bo, "Yes we do!", w.admin.ID)
	w.update(t, w.convs[ana], w.member.ID, store.ConversationUpdate{Status: status(store.ConversationClosed)})
	w.clk.Advance(time.Hour)
	w.in(t, w.main, ed, "HELP", store.KeywordHelp)
	w.in(t, w.main, bo, "STOP", store.KeywordStop)
	w.clk.Advance(time.Hour)
	w.update(t, w.convs[ana], w.admin.ID, store.ConversationUpdate{Status: status(store.ConversationOpen)})
	w.clk.Advance(30 * time.Minute)
	w.update(t, w.convs[ana], w.admin.ID, store.ConversationUpdate{Status: status(store.ConversationClosed), AssignedUserIDs: &[]string{}})
	w.drain(t, delivered)
	check("midnight, keywords and a reopen by hand")

	// Sunday is the spring DST change: 02:00–03:00 does not exist in New York.
	w.at(t, 2026, 3, 8, 1, 30, 0)
	w.in(t, w.main, fay, "Are you open Monday?", store.NoKeyword)
	w.at(t, 2026, 3, 8, 3, 30, 0)
	w.in(t, w.second, fay, "And is my bill paid?", store.NoKeyword)
	w.out(t, w.main, fay, "Yes, from 8.", w.admin.ID)
	w.in(t, w.main, bo, "START", store.KeywordStart)
	w.update(t, w.convs[fay], w.admin.ID, store.ConversationUpdate{Status: status(store.ConversationSnoozed), SnoozeUntil: ptrTime(w.clk.Now().Add(2 * time.Hour))})
	w.clk.Advance(3 * time.Hour)
	_, err = w.s.SweepSnoozed()
	must(t, err)
	w.drain(t, delivered)
	check("the DST day and a snooze")

	// Monday: a broadcast to six numbers, one opted out, with receipts, failures, replies and a STOP.
	w.at(t, 2026, 3, 9, 10, 0, 0)
	_, _, err = w.s.CreateOptOut(w.ws, w.admin.ID, gus, store.OptOutAPI)
	must(t, err)
	b, err := w.s.SendBroadcast(w.ws, store.BroadcastInput{Name: "Spring check-ups", From: w.main.Phone,
		Recipients: []string{ana, bo, di, ed, gus, "+14155550118", "+14155550119"}, Text: "Spring check-ups are open: reply to book.", AuthorID: w.admin.ID})
	must(t, err)
	w.broadcast = b.ID
	w.drain(t, func(m store.Message) string {
		switch m.To {
		case "+14155550118":
			return "twilio 21610: unsubscribed"
		case "+14155550119":
			return "twilio 30003: unreachable"
		case di:
			return "sent"
		}
		return delivered(m)
	})
	w.clk.Advance(20 * time.Minute)
	w.in(t, w.main, ed, "Book me please", store.NoKeyword)
	w.in(t, w.main, ed, "Any time after 3", store.NoKeyword)
	w.in(t, w.main, di, "STOP", store.KeywordStop)
	_, _, err = w.s.StatusUpdate(store.ProviderSandbox, "sandbox-"+w.lastCopy(t, di).ID, store.MessageFailed, "twilio 30005")
	must(t, err)
	w.out(t, w.main, ed, "Booked for Thursday at 4.", w.member.ID)
	w.drain(t, delivered)
	check("a broadcast with its outcomes, replies and opt-outs")

	// Tuesday: messages sent later (one cancelled by the contact's text, one by hand), a blocked
	// number, a group text, a comment, an API opt-out lifted again.
	w.at(t, 2026, 3, 10, 8, 0, 0)
	later, err := w.s.SendMessage(w.ws, store.SendInput{From: w.main.Phone, To: []string{fay}, Text: "Reminder: bring your card.", AuthorID: w.member.ID, SendAt: w.clk.Now().Add(4 * time.Hour)})
	must(t, err)
	other, err := w.s.SendMessage(w.ws, store.SendInput{From: w.main.Phone, To: []string{ana}, Text: "See you soon.", AuthorID: w.member.ID, SendAt: w.clk.Now().Add(5 * time.Hour)})
	must(t, err)
	w.clk.Advance(time.Hour)
	w.in(t, w.main, fay, "Is parking free?", store.NoKeyword)
	if m := w.message(t, later.ID); m.Status != store.MessageCancelled {
		t.Fatalf("send-later after the contact wrote: %s", m.Status)
	}
	_, err = w.s.CancelScheduledMessage(w.ws, other.ConversationID, other.ID)
	must(t, err)
	must(t, w.s.SetBlocked(w.ws, w.admin.ID, cy, true))
	w.in(t, w.second, cy, "Why was I charged twice???", store.NoKeyword)
	_, err = w.s.SendMessage(w.ws, store.SendInput{From: w.main.Phone, To: []string{ana, ed}, Text: "Team outing photos attached", AuthorID: w.admin.ID})
	must(t, err)
	_, err = w.s.CreateComment(w.ws, store.CommentInput{From: w.main.Phone, To: ana, Text: "VIP patient", AuthorID: w.admin.ID})
	must(t, err)
	_, _, err = w.s.CreateOptOut(w.ws, w.admin.ID, fay, store.OptOutAdmin)
	must(t, err)
	_, err = w.s.LiftOptOut(w.ws, w.admin.ID, fay, true, "She asked us at the desk")
	must(t, err)
	w.drain(t, delivered)
	check("send later, a blocked number, a group text and an opt-out lifted")

	// Wednesday: an import, a broadcast cancelled with copies still queued, an erasure.
	w.at(t, 2026, 3, 11, 16, 0, 0)
	_, err = w.s.ImportContacts(w.ws, strings.NewReader("phone,firstName\n+14155550120,Hal\n+14155550121,Ida\n"), nil)
	must(t, err)
	b2, err := w.s.SendBroadcast(w.ws, store.BroadcastInput{Name: "Oops", From: w.main.Phone,
		Recipients: []string{ana, ed, fay, "+14155550120", "+14155550121"}, Text: "Wrong text", AuthorID: w.member.ID})
	must(t, err)
	w.cancelledBcast = b2.ID
	w.clk.Advance(time.Minute)
	w.in(t, w.main, "+14155550121", "What is this?", store.NoKeyword)
	_, err = w.s.CancelBroadcast(w.ws, b2.ID)
	must(t, err)
	w.drain(t, delivered)
	check("an import and a cancelled broadcast")
	w.clk.Advance(time.Hour)
	_, err = w.s.DeleteContact(w.ws, ed, true)
	must(t, err)
	_, err = w.s.DeleteContact(w.ws, "+14155550120", false)
	must(t, err)
	check("an erasure and a delete")
	runReportAutomations(t, w, check)
}

func ptrTime(t time.Time) *time.Time { return &t }

// message reads one message of the world's workspace.
func (w *reportWorld) message(t testing.TB, id string) store.Message {
	t.Helper()
	m, err := w.s.Message(w.ws, id)
	must(t, err)
	return m
}

// lastOutbound is the latest outbound message to phone on the main number.
func (w *reportWorld) lastOutbound(t testing.TB, phone string) store.Message {
	t.Helper()
	msgs, err := w.s.ConversationMessages(w.ws, w.convs[phone])
	must(t, err)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Outbound {
			return msgs[i]
		}
	}
	t.Fatalf("no outbound message to %s", phone)
	return store.Message{}
}

// lastCopy is the latest broadcast copy to phone on the main number.
func (w *reportWorld) lastCopy(t testing.TB, phone string) store.Message {
	t.Helper()
	msgs, err := w.s.ConversationMessages(w.ws, w.convs[phone])
	must(t, err)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].BroadcastID != "" {
			return msgs[i]
		}
	}
	t.Fatalf("no broadcast copy to %s", phone)
	return store.Message{}
}
