package web

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestSearchGate: a token's second search waits for its first; another token's does not; a
// waiting search whose client goes away gives up.
func TestSearchGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g keyGate
		doneA, err := g.enter(context.Background(), "tokA")
		if err != nil {
			t.Fatal(err)
		}
		entered := make(chan func())
		go func() {
			done, err := g.enter(context.Background(), "tokA")
			if err != nil {
				t.Error(err)
			}
			entered <- done
		}()
		synctest.Wait()
		select {
		case <-entered:
			t.Fatal("a token's second search ran beside its first")
		default:
		}
		doneB, err := g.enter(context.Background(), "tokB")
		if err != nil {
			t.Fatal("another token waited:", err)
		}
		doneB()

		ctx, cancel := context.WithCancel(context.Background())
		gaveUp := make(chan error)
		go func() {
			_, err := g.enter(ctx, "tokA")
			gaveUp <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-gaveUp; err == nil {
			t.Fatal("a search whose client went away still entered")
		}

		doneA()
		(<-entered)()
	})
}
