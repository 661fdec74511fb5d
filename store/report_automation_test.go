package store_test

import (
	"testing"
	"time"

	"switchboard/store"
)

// runReportAutomations is the workload's Thursday: the workspace keeps business hours (the
// second number its own), a team takes the front desk's new conversations, the billing number
// is limited to a team the member is not in, an after-hours reply answers early texts, and
// rules assign, reply and close. Every figure must still equal what the records say: rule
// firings, the automatic replies, the assignments and closes the automations made, and the
// first response and resolution times in business hours.
func runReportAutomations(t testing.TB, w *reportWorld, check func(step string)) {
	t.Helper()
	const hal, ivy, jo = "+14155550140", "+14155550141", "+14155550142"

	w.at(t, 2026, 3, 12, 7, 0, 0)
	_, err := w.s.SetHours(w.ws, "", &store.HoursInput{Week: "mon-fri 09:00-17:00"})
	must(t, err)
	_, err = w.s.SetHours(w.ws, w.second.ID, &store.HoursInput{Week: "mon-fri 10:00-16:00", Holidays: "2026-03-13"})
	must(t, err)
	building, _, _, err := w.s.ReportBuild(w.ws)
	must(t, err)
	if !building {
		t.Fatal("setting business hours did not rebuild the rollups")
	}
	check("business hours set (a rebuild)")

	front, err := w.s.CreateTeam(w.ws, store.TeamInput{Name: "Front desk", Members: []string{w.member.ID}, Assign: store.AssignRoundRobin, Capacity: 20})
	must(t, err)
	billing, err := w.s.CreateTeam(w.ws, store.TeamInput{Name: "Billing", Members: []string{w.admin.ID}, Assign: store.AssignOff})
	must(t, err)
	w.team, w.otherTeam = front.ID, billing.ID
	_, err = w.s.SetNumberAccess(w.ws, w.main.ID, store.NumberAccess{DefaultTeam: &front.ID})
	must(t, err)
	_, err = w.s.SetNumberAccess(w.ws, w.second.ID, store.NumberAccess{Teams: &[]string{billing.ID}})
	must(t, err)
	closed := "We open at 9. We will text you back then."
	_, err = w.s.SetAutoReplies(w.ws, "", &closed, nil, false)
	must(t, err)
	_, err = w.s.AddRuleJSON(w.ws, []byte(`{"name":"Urgent","trigger":"message.received","conditions":[{"field":"text","op":"contains","value":"urgent"}],`+
		`"actions":[{"type":"assign","userId":"`+w.admin.ID+`"},{"type":"reply","text":"Ana will call you now."}]}`))
	must(t, err)
	_, err = w.s.AddRuleJSON(w.ws, []byte(`{"name":"Thanks","trigger":"message.received","conditions":[{"field":"text","op":"contains","value":"thanks"}],`+
		`"actions":[{"type":"close"}]}`))
	must(t, err)
	gone := w.s.StreamOpened(w.member.ID) // Bo is online: auto-assignment may choose him
	defer gone()

	// Before opening: the after-hours reply, and auto-assignment to the front desk's team.
	w.at(t, 2026, 3, 12, 8, 30, 0)
	r := w.in(t, w.main, hal, "Can I come in today?", store.NoKeyword)
	if c, err := w.s.Conversation(w.ws, r.Message.ConversationID); err != nil || len(c.AssignedUserIDs) != 1 || c.AssignedUserIDs[0] != w.member.ID {
		t.Fatalf("auto-assignment: %+v, %v", c.AssignedUserIDs, err)
	}
	w.in(t, w.second, ivy, "My invoice is wrong", store.NoKeyword)
	w.at(t, 2026, 3, 12, 9, 20, 0)
	w.out(t, w.main, hal, "Yes, come at 11.", w.member.ID) // 50 min of wall clock, 20 in business hours
	w.at(t, 2026, 3, 12, 10, 5, 0)
	w.out(t, w.second, ivy, "Let me check.", w.admin.ID) // the billing number opens at 10
	// An urgent text fires the rule: assigned to Ana, an automatic reply.
	w.at(t, 2026, 3, 12, 11, 0, 0)
	w.in(t, w.main, jo, "URGENT: my tooth broke", store.NoKeyword)
	w.clk.Advance(4 * time.Minute)
	w.out(t, w.main, jo, "Come right in.", w.admin.ID)
	w.drain(t, delivered)
	check("an after-hours reply, an auto-assignment and a rule's assignment and reply")

	// A thank-you closes through the rule; the close after hours counts its business time only.
	w.at(t, 2026, 3, 12, 18, 30, 0)
	w.in(t, w.main, hal, "Thanks!", store.NoKeyword)
	w.in(t, w.main, jo, "thanks so much", store.NoKeyword)
	w.drain(t, delivered)
	c, err := w.s.Conversation(w.ws, w.convs[jo])
	must(t, err)
	if c.Status != store.ConversationClosed {
		t.Fatalf("the Thanks rule left the conversation %s", c.Status)
	}
	check("rules closing after hours")

	// The member sees the totals without the billing number, which is limited to another team.
	_, err = w.s.BuildReports(1 << 20) // the callers that check nothing leave the hours' rebuild to here
	must(t, err)
	rep, err := w.s.Report(w.ws, store.ReportQuery{From: day(2026, 3, 12), To: day(2026, 3, 12), ViewerID: w.member.ID})
	must(t, err)
	all, err := w.s.Report(w.ws, store.ReportQuery{From: day(2026, 3, 12), To: day(2026, 3, 12), ViewerID: w.admin.ID, Admin: true})
	must(t, err)
	if rep.Totals.Inbound != all.Totals.Inbound-1 {
		t.Fatalf("a member outside the billing team sees %d texts in of %d", rep.Totals.Inbound, all.Totals.Inbound)
	}
	if all.Totals.RuleFirings != 3 || all.Totals.Automatic < 2 || !all.BusinessHours {
		t.Fatalf("Thursday: %d rule firings, %d automatic texts, business hours %v", all.Totals.RuleFirings, all.Totals.Automatic, all.BusinessHours)
	}
	if _, err := w.s.Report(w.ws, store.ReportQuery{From: day(2026, 3, 12), To: day(2026, 3, 12), ViewerID: w.member.ID, NumberID: w.second.ID}); err == nil {
		t.Fatal("a member outside the billing team filtered by its number")
	}
}
