package cli

import (
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"switchboard/store"
)

// TestDueTimerFiresUnansweredRuleOnTime: the timer sleeps until the queue's next due time and
// runs a conversation.unanswered rule then, not before; an answer in time means it never fires;
// stopped, it runs nothing more.
func TestDueTimerFiresUnansweredRuleOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := store.Open(filepath.Join(t.TempDir(), "due.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		w, _ := s.CreateWorkspace("Acme")
		if _, err := s.AddNumber(w.ID, "+14155550100", "Main"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddRuleJSON(w.ID, []byte(`{"name":"Chase","trigger":"conversation.unanswered","unansweredMinutes":5,
			"actions":[{"type":"addLabel","label":"waiting"}]}`)); err != nil {
			t.Fatal(err)
		}
		wake, stop := startDueTimer(s, s.Now)
		s.SetHooks(store.Hooks{Due: wake})
		defer stop()
		text := func(from string) string {
			r, err := s.ReceiveMessage(w.ID, store.InboundMessage{From: from, To: "+14155550100", Text: "anyone?"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Message.ConversationID
		}
		labels := func(conv string) []string {
			c, err := s.Conversation(w.ID, conv)
			if err != nil {
				t.Fatal(err)
			}
			return c.Labels
		}
		waiting := text("+14155550123")
		answered := text("+14155550124")
		time.Sleep(time.Minute)
		if _, err := s.SendMessage(w.ID, store.SendInput{From: "+14155550100", To: []string{"+14155550124"}, Text: "Here!"}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3*time.Minute + 59*time.Second)
		synctest.Wait()
		if l := labels(waiting); len(l) != 0 {
			t.Fatalf("fired before five minutes: %v", l)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if l := labels(waiting); len(l) != 1 || l[0] != "waiting" {
			t.Fatalf("after five minutes: labels %v", l)
		}
		if l := labels(answered); len(l) != 0 {
			t.Fatalf("the answered conversation: labels %v", l)
		}
		stop()
		late := text("+14155550125")
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if l := labels(late); len(l) != 0 {
			t.Fatalf("a stopped timer fired: %v", l)
		}
	})
}
