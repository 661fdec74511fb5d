package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// The headless set-up of §23: hours, replies, a team, a number's access, a rule from a file,
// availability and the first-response target, each printing what it made or set; bad input
// exits non-zero naming what is wrong, and changes nothing.
func TestAdminAutomationCommands(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	bea := ok(t, "admin", "create-user", d, "--email", "bea@example.com", "--name", "Bea Silva")
	ok(t, "admin", "add-member", d, "--workspace", f.ws, "--user", bea)

	if got := ok(t, "admin", "set-hours", d, "--workspace", f.ws, "--week", "mon-fri 09:00-17:00; sat 10:00-13:00", "--holidays", "2026-12-25,2027-01-01"); got != f.ws+"\tmon-fri 09:00-17:00; sat 10:00-13:00\t2026-12-25,2027-01-01" {
		t.Fatalf("set-hours printed %q", got)
	}
	fails(t, "overlap", "admin", "set-hours", d, "--workspace", f.ws, "--week", "mon 09:00-12:00, 11:00-13:00")
	fails(t, "ends before it starts", "admin", "set-hours", d, "--workspace", f.ws, "--number", f.number, "--week", "mon 17:00-09:00")
	fails(t, "is not a date", "admin", "set-hours", d, "--workspace", f.ws, "--holidays", "2027-02-30")
	if got := ok(t, "admin", "set-hours", d, "--workspace", f.ws, "--number", f.number, "--week", ""); got != f.number+"\t\t2026-12-25,2027-01-01" {
		t.Fatalf("set-hours --number --week \"\" printed %q", got)
	}
	if got := ok(t, "admin", "set-auto-reply", d, "--workspace", f.ws, "--after-hours", "Closed until {{nextOpen}}", "--greeting", "Hi {{firstName|there}}!"); got != f.ws {
		t.Fatalf("set-auto-reply printed %q", got)
	}
	fails(t, "unknown merge tag", "admin", "set-auto-reply", d, "--workspace", f.ws, "--greeting", "Hi {{nick}}")
	team := ok(t, "admin", "create-team", d, "--workspace", f.ws, "--name", "Front desk", "--members", f.user+","+bea, "--assign", "round-robin", "--capacity", "10")
	wantULID(t, "create-team", team)
	fails(t, "is not a member of this workspace", "admin", "create-team", d, "--workspace", f.ws, "--name", "Ghosts", "--members", "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	fails(t, "must be off, round-robin or least-busy", "admin", "create-team", d, "--workspace", f.ws, "--name", "X", "--assign", "random")
	if got := ok(t, "admin", "set-number", d, "--number", f.number, "--teams", team, "--default-team", team, "--default-assignee", bea); got != f.number+"\t"+team+"\t"+team+"\t"+bea {
		t.Fatalf("set-number printed %q", got)
	}
	fails(t, "is not a team of this workspace", "admin", "set-number", d, "--number", f.number, "--teams", "nope")

	dir := t.TempDir()
	rule := filepath.Join(dir, "rule.json")
	if err := os.WriteFile(rule, []byte(`{"name":"New patients","enabled":true,"trigger":"message.received","match":"all",
		"conditions":[{"field":"text","op":"contains","value":"new patient"}],
		"actions":[{"type":"assign","userId":"`+bea+`"},{"type":"reply","text":"Welcome, {{firstName|there}}"}],"stop":false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ruleID := ok(t, "admin", "add-rule", d, "--workspace", f.ws, "--file", rule)
	wantULID(t, "add-rule", ruleID)
	bad := filepath.Join(dir, "bad.json")
	for doc, says := range map[string]string{
		`{"name":"No action","trigger":"message.received","actions":[]}`:                                                        "actions: a rule needs at least one action",
		`{"name":"Soon","trigger":"conversation.unanswered","unansweredMinutes":0,"actions":[{"type":"close"}]}`:                "unansweredMinutes: must be from 1",
		`{"name":"Ghost","trigger":"message.received","actions":[{"type":"assignTeam","teamId":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}]}`: "actions[0].teamId",
		`{"name":"Typo","trigger":"message.received","action":[{"type":"close"}]}`:                                              "action: is not a field of a rule",
	} {
		if err := os.WriteFile(bad, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		fails(t, says, "admin", "add-rule", d, "--workspace", f.ws, "--file", bad)
	}
	if got := ok(t, "admin", "set-availability", d, "--user", bea, "away"); got != "away" {
		t.Fatalf("set-availability printed %q", got)
	}
	fails(t, "available or away", "admin", "set-availability", d, "--user", bea, "asleep")
	if got := ok(t, "admin", "set-workspace", d, "--workspace", f.ws, "--first-response", "15m", "--first-response-hours", "all"); got != f.ws {
		t.Fatalf("set-workspace --first-response printed %q", got)
	}
	fails(t, "whole minutes", "admin", "set-workspace", d, "--workspace", f.ws, "--first-response", "90s")

	s, err := store.Open(dbPath(f.data), store.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rt, err := s.RoutingOf(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Hours.Week.String() != "mon-fri 09:00-17:00; sat 10:00-13:00" || rt.AfterHoursOf(f.number) != "Closed until {{nextOpen}}" ||
		rt.FirstResponse != 15 || rt.FirstResponseBusinessOnly() || len(rt.Rules) != 1 || rt.Rules[0].ID != ruleID {
		t.Fatalf("routing after the commands: %+v", rt)
	}
	if n := rt.Number(f.number); len(n.Teams) != 1 || n.DefaultAssignee != bea || n.Hours == nil || !n.Hours.Week.AlwaysOpen() {
		t.Fatalf("the number's routing: %+v", n)
	}
	if tm, ok := rt.Team(team); !ok || tm.Capacity != 10 || tm.Assign != store.AssignRoundRobin || len(tm.Members) != 2 {
		t.Fatalf("the team: %+v", tm)
	}
	if _, chosen, _ := s.Availability(bea); chosen != store.Away {
		t.Fatalf("bea chose %s", chosen)
	}
	if !strings.Contains(rt.Rules[0].Rule.Actions[1].Text, "{{firstName|there}}") {
		t.Fatalf("the rule: %+v", rt.Rules[0])
	}
}
