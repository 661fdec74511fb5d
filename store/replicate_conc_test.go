package store_test

import (
	"fmt"
	"sync"
	"testing"

	"switchboard/store"
)

// TestFollowerUnderConcurrentWriters: writers that share group commits (sends, inbound texts,
// comments at once) leave the follower's file the same as the leader's.
func TestFollowerUnderConcurrentWriters(t *testing.T) {
	p := newPair(t)
	f := newFixtureOn(t, p.leader)
	conv, _, err := p.leader.CreateConversation(f.ws, f.number, "+14155557000")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 40 {
				n := w*1000 + i
				var err error
				switch w % 3 {
				case 0:
					_, err = p.leader.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{fmt.Sprintf("+1415556%04d", n)}, Text: fmt.Sprintf("api %d hello world", n)})
				case 1:
					_, err = p.leader.RecordInboundMessage(f.ws, store.InboundMessage{From: fmt.Sprintf("+1303555%04d", n), To: f.number,
						Text: fmt.Sprintf("inbound %d words here", n), Provider: "sandbox", ProviderID: fmt.Sprintf("SM%d", n)})
				default:
					_, err = p.leader.CreateComment(f.ws, store.CommentInput{From: conv.From, To: conv.Addresses[0], Text: fmt.Sprintf("comment %d", n), AuthorID: f.user.ID})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if dl, df := dumpFile(t, p.leader), dumpFile(t, p.follower); dl != df {
		t.Fatalf("leader and follower files differ:\n%s", firstDiff(dl, df))
	}
}
