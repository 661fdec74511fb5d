package web

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"switchboard/views"
)

func TestMentionedMembers(t *testing.T) {
	members := []views.Option{{Value: "ana", Label: "Ana Lima"}, {Value: "ana2", Label: "Ana Souza"},
		{Value: "jose", Label: "José Núñez"}, {Value: "bo", Label: "bo@acme.example"}}
	for _, c := range []struct {
		text string
		want []string
	}{
		{"@Ana Lima can you call back?", []string{"ana"}},
		{"@ana  LIMA, and @Ana Souza", []string{"ana", "ana2"}},
		{"@Ana can you call?", nil}, // two members are Ana
		{"@jose nunez please", []string{"jose"}},
		{"@José, please", []string{"jose"}}, // one José: the first name is enough
		{"write to ana@lima.example", nil},  // an address, not a mention
		{"@Ana Limas", nil},                 // not her name
		{"ask @bo@acme.example and @Ana Lima and @Ana Lima again", []string{"bo", "ana"}},
		{"@", nil}, {"", nil}, {"@\xff", nil},
	} {
		if got := mentionedMembers(c.text, members); !slices.Equal(got, c.want) {
			t.Errorf("mentionedMembers(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func FuzzMentionedMembers(f *testing.F) {
	for _, s := range []string{"@Ana Lima hi", "a@b", "@José", "@@@", "@\xffAna"} {
		f.Add(s)
	}
	members := []views.Option{{Value: "ana", Label: "Ana Lima"}, {Value: "jose", Label: "José Núñez"}, {Value: "x", Label: ""}}
	f.Fuzz(func(t *testing.T, text string) {
		got := mentionedMembers(text, members)
		seen := map[string]bool{}
		for _, id := range got {
			if seen[id] || (id != "ana" && id != "jose") {
				t.Fatalf("mentionedMembers(%q) = %q: each member once, never the nameless one", text, got)
			}
			seen[id] = true
		}
		if !strings.Contains(text, "@") && len(got) > 0 {
			t.Fatalf("mentionedMembers(%q) = %q without an @", text, got)
		}
	})
}

// Issue 38, item 6: typing "@mo" in a comment mentions mo as ticking his box does: the
// conversation is in his mentions and unread for him; nobody else is mentioned.
func TestUICommentMentionsByName(t *testing.T) {
	e := newUIEnv(t)
	conv, _, err := e.st.CreateConversation(e.a.ID, e.numberA, "+14155550123")
	if err != nil {
		t.Fatal(err)
	}
	alice := e.signIn(t, e.alice)
	res, _ := e.send(t, alice, "POST", "/inbox/"+conv.ID+"/comment", url.Values{"text": {"@mo can you call back? (not alice@mo.example)"}})
	wantRedirect(t, res, "/inbox/"+conv.ID)
	items, err := e.st.ConversationComments(e.a.ID, conv.ID)
	if err != nil || len(items) != 1 || !slices.Equal(items[0].Mentions, []string{e.mo.ID}) {
		t.Fatalf("comments %+v, %v; want one mentioning mo alone", items, err)
	}
	mo := e.signIn(t, e.mo)
	_, page := e.send(t, mo, "GET", "/inbox?mentions=1", nil)
	if strings.Count(page, `data-testid="inbox-row"`) != 1 {
		t.Fatalf("mo's mentions: want the conversation")
	}
	if n, err := e.st.UnreadCount(e.a.ID, e.mo.ID); err != nil || n != 1 {
		t.Errorf("mo's unread count %d, %v; want 1", n, err)
	}
}
