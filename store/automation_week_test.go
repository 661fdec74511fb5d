package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// autoFixture is a workspace in New York with a clock the test moves.
type autoFixture struct {
	*fixture
	clock *testutil.Clock
}

func newAutoFixture(t *testing.T, start time.Time) *autoFixture {
	t.Helper()
	clock := testutil.NewClock(start)
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{TimeZone: ptr("America/New_York")}); err != nil {
		t.Fatal(err)
	}
	return &autoFixture{fixture: f, clock: clock}
}

// text records an inbound text from phone and returns the conversation it went to.
func (f *autoFixture) text(t *testing.T, from, text string) store.InboundResult {
	t.Helper()
	kw := store.NoKeyword
	switch strings.ToUpper(text) {
	case "STOP":
		kw = store.KeywordStop
	case "HELP":
		kw = store.KeywordHelp
	}
	r, err := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: from, To: f.number, Text: text, Keyword: kw})
	if err != nil {
		t.Fatalf("inbound %q from %s: %v", text, from, err)
	}
	return r
}

// autoTexts lists the automatic messages of the conversation, oldest first, as kind: text.
func (f *autoFixture) autoTexts(t *testing.T, conv string) []string {
	t.Helper()
	msgs, err := f.s.ConversationMessages(f.ws, conv)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		if m.Outbound && m.Auto != "" && m.Auto != store.AutoKeyword {
			out = append(out, m.Auto+": "+m.Text)
		}
	}
	return out
}

// at is a wall time in New York in the week of Monday 4 January 2027.
func at(t *testing.T, day int, clock string) time.Time {
	t.Helper()
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tm, err := time.ParseInLocation("2006-01-02 15:04", fmt.Sprintf("2027-01-%02d %s", day, clock), loc)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// A week of texts over the injected clock: weekday hours, a holiday on Wednesday, the
// after-hours reply once per closed period (naming when the hours open, the holiday skipped),
// the greeting once per number never seen before, nothing in answer to a keyword or to an
// opted-out number, and the header's open state.
func TestAutomaticRepliesOverAWeek(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "07:00"))
	if _, err := f.s.SetHours(f.ws, "", &store.HoursInput{Week: "mon-fri 09:00-17:00", Holidays: "2027-01-06"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetAutoReplies(f.ws, "", ptr("Acme is closed. We open {{nextOpen}}."),
		ptr("Hi {{firstName|there}}, thanks for texting Acme."), false); err != nil {
		t.Fatal(err)
	}
	ana := "+14155550123"
	steps := []struct {
		day   int
		clock string
		from  string
		text  string
		want  []string // the automatic messages this text brings
	}{
		{4, "08:00", ana, "hello", []string{"greeting: Hi there, thanks for texting Acme.", "after-hours: Acme is closed. We open Monday 09:00."}},
		{4, "08:30", ana, "anyone?", nil}, // the same closed period
		{4, "10:00", ana, "open now?", nil},
		{4, "18:00", ana, "one more thing", []string{"after-hours: Acme is closed. We open Tuesday 09:00."}},
		{5, "08:00", ana, "morning", nil}, // still Monday night's period
		{5, "20:00", ana, "evening", []string{"after-hours: Acme is closed. We open Thursday 09:00."}}, // Wednesday is a holiday
		{6, "12:00", ana, "holiday?", nil},
		{7, "12:00", ana, "thursday", nil},
		{9, "11:00", ana, "saturday", []string{"after-hours: Acme is closed. We open Monday 09:00."}},
	}
	var conv string
	seen := 0
	for _, st := range steps {
		f.clock.Set(at(t, st.day, st.clock))
		r := f.text(t, st.from, st.text)
		conv = r.Message.ConversationID
		got := f.autoTexts(t, conv)
		if news := got[seen:]; strings.Join(news, "|") != strings.Join(st.want, "|") {
			t.Fatalf("day %d %s %q: automatic messages %q, want %q", st.day, st.clock, st.text, news, st.want)
		}
		seen = len(got)
	}

	// A number first seen on the holiday gets the greeting and the after-hours reply once; a
	// keyword gets neither (only its own reply), and an opted-out number nothing.
	bea := "+14155550124"
	f.clock.Set(at(t, 6, "13:00"))
	r := f.text(t, bea, "hi")
	if got := f.autoTexts(t, r.Message.ConversationID); len(got) != 2 || !strings.Contains(got[1], "Thursday 09:00") {
		t.Fatalf("a new number on the holiday got %q", got)
	}
	f.clock.Set(at(t, 9, "10:00"))
	f.text(t, bea, "STOP")
	f.clock.Set(at(t, 10, "10:00"))
	f.text(t, bea, "hello again")
	if got := f.autoTexts(t, r.Message.ConversationID); len(got) != 2 {
		t.Fatalf("after STOP and a text from the opted-out number: %q", got)
	}

	// The header: closed on the holiday, opening on Thursday; open on Thursday.
	f.clock.Set(at(t, 6, "15:00"))
	st, err := f.s.OpenNow(f.ws)
	if err != nil || st.Open || st.Opens.IsZero() || st.Opens.In(st.Location).Format("Mon 15:04") != "Thu 09:00" {
		t.Fatalf("OpenNow on the holiday = %+v, %v", st, err)
	}
	f.clock.Set(at(t, 7, "09:00"))
	if st, _ := f.s.OpenNow(f.ws); !st.Open {
		t.Fatalf("OpenNow on Thursday 09:00 = %+v", st)
	}
}

// The greeting goes once per number even when the first text is on a number's own hours; a
// number's override turns the workspace's reply off for it.
func TestAutomaticRepliesPerNumber(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "20:00"))
	n2, err := f.s.AddNumber(f.ws, "+14155550199", "Second")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetHours(f.ws, "", &store.HoursInput{Week: "mon-fri 09:00-17:00"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetHours(f.ws, n2.ID, &store.HoursInput{Week: "mon-sun 00:00-24:00"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetAutoReplies(f.ws, "", ptr("Closed until {{nextOpen}}."), nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetAutoReplies(f.ws, n2.ID, nil, ptr("Welcome to line two."), false); err != nil {
		t.Fatal(err)
	}
	r, err := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550130", To: n2.Phone, Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	// Line two is open all week: no after-hours reply, its own greeting.
	if got := f.autoTexts(t, r.Message.ConversationID); len(got) != 1 || got[0] != "greeting: Welcome to line two." {
		t.Fatalf("on the open number: %q", got)
	}
	r = f.text(t, "+14155550130", "and the main line")
	if got := f.autoTexts(t, r.Message.ConversationID); len(got) != 1 || got[0] != "after-hours: Closed until Tuesday 09:00." {
		t.Fatalf("the same number on the closed main line (seen before: no greeting): %q", got)
	}
}
