package store_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"switchboard/store"
)

// dumpFile lists every bucket, key, value and sequence of the file s holds, nested buckets
// included, in order.
func dumpFile(t *testing.T, s *store.Store) string {
	t.Helper()
	var w strings.Builder
	var walk func(prefix string, b *bolt.Bucket)
	walk = func(prefix string, b *bolt.Bucket) {
		fmt.Fprintf(&w, "%s seq=%d\n", prefix, b.Sequence())
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(fmt.Sprintf("%s/%x", prefix, k), b.Bucket(k))
				return nil
			}
			fmt.Fprintf(&w, "%s %x=%x\n", prefix, k, v)
			return nil
		})
	}
	if err := s.DB().View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			walk(string(name), b)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return w.String()
}

// pair is a leader and a follower started from copies of one file: the leader's writes commit
// as log entries that both apply, as a cluster's nodes do.
type pair struct {
	leader, follower *store.Store
	mu               sync.Mutex
	index            uint64
}

func newPair(t *testing.T) *pair { return newPairWith(t, store.Options{}) }

// newPairWith is newPair with both stores opened with opts.
func newPairWith(t *testing.T, opts store.Options) *pair {
	t.Helper()
	dir := t.TempDir()
	first := openStoreAt(t, filepath.Join(dir, "a.db"), opts)
	copyPath := filepath.Join(dir, "b.db")
	f, err := os.Create(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Backup(f, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p := &pair{leader: first, follower: openStoreAt(t, copyPath, opts)}
	p.leader.Replicate(nil, func(entry []byte) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.index++
		e := []store.Entry{{Index: p.index, Data: bytes.Clone(entry)}}
		if err := p.leader.ApplyEntries(e)[0]; err != nil {
			return err
		}
		return p.follower.ApplyEntries(e)[0]
	})
	p.follower.Replicate(func() error { return store.ErrUnavailable }, func([]byte) error { return store.ErrUnavailable })
	return p
}

// TestFollowerHoldsWhatTheLeaderCommitted: a follower that applies the leader's log entries
// holds the same buckets, keys, values and sequences, its opt-out filter stops sends to the
// numbers that opted out on the leader, its lists filtered by kept sets answer as the leader's
// do, and it takes no write of its own.
func TestFollowerHoldsWhatTheLeaderCommitted(t *testing.T) {
	p := newPair(t)
	f := newFixtureOn(t, p.leader)
	var optedOut []string
	for i := range 40 {
		phone := fmt.Sprintf("+1415555%04d", 2000+i)
		f.contact(t, phone, fmt.Sprintf("Name%d", i), "Replica")
		if i%5 == 0 {
			if _, _, err := p.leader.CreateOptOut(f.ws, "", phone, store.OptOutAdmin); err != nil {
				t.Fatal(err)
			}
			optedOut = append(optedOut, phone)
		}
		if i%3 == 0 {
			if _, _, err := p.leader.AddToGroup(f.ws, "Friends", phone); err != nil {
				t.Fatal(err)
			}
		}
		if i%4 == 1 && i%5 != 0 {
			if _, err := p.leader.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{phone}, Text: "hello " + phone}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The follower keeps a filtered list of its own before more writes come.
	yes := true
	before, err := p.follower.ListContacts(f.ws, store.ContactFilter{OptedOut: &yes}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if before.Total != len(optedOut) {
		t.Fatalf("follower's opted-out list: %d contacts; want %d", before.Total, len(optedOut))
	}
	csv := "phone,firstName\n+14155553001,Imported\n+14155553002,Imported\n"
	if _, err := p.leader.ImportContacts(f.ws, strings.NewReader(csv), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.leader.CreateOptOut(f.ws, "", "+14155553001", store.OptOutAdmin); err != nil {
		t.Fatal(err)
	}
	optedOut = append(optedOut, "+14155553001")
	if _, err := p.leader.DeleteContact(f.ws, "+14155552005", true); err != nil {
		t.Fatal(err)
	}
	if dl, df := dumpFile(t, p.leader), dumpFile(t, p.follower); dl != df {
		t.Fatalf("leader and follower files differ:\n%s", firstDiff(dl, df))
	}
	for _, phone := range optedOut {
		if out, err := p.follower.IsOptedOut(f.ws, phone); err != nil || !out {
			t.Errorf("follower: IsOptedOut(%s) = %v, %v; want true (opted out on the leader)", phone, out, err)
		}
	}
	for _, flt := range []store.ContactFilter{{OptedOut: &yes}, {HasConversation: &yes}} {
		l, err := p.leader.ListContacts(f.ws, flt, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.follower.ListContacts(f.ws, flt, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != r.Total || len(l.Contacts) != len(r.Contacts) {
			t.Errorf("filter %+v: leader lists %d, follower %d", flt, l.Total, r.Total)
		}
	}
	if p.follower.AppliedIndex() != p.leader.AppliedIndex() || p.leader.AppliedIndex() == 0 {
		t.Errorf("applied index: leader %d, follower %d; want the same, above 0", p.leader.AppliedIndex(), p.follower.AppliedIndex())
	}
	if _, err := p.follower.CreateWorkspace("Refused"); err == nil {
		t.Error("the follower took a write of its own")
	}
}

// TestEntriesAppliedAgainChangeNothing: a node that restarts replays entries its file holds
// already; they are skipped by their index.
func TestEntriesAppliedAgainChangeNothing(t *testing.T) {
	p := newPair(t)
	var entries []store.Entry
	p.leader.Replicate(nil, func(entry []byte) error {
		p.index++
		e := store.Entry{Index: p.index, Data: bytes.Clone(entry)}
		entries = append(entries, e)
		return p.leader.ApplyEntries([]store.Entry{e})[0]
	})
	f := newFixtureOn(t, p.leader)
	f.contact(t, "+14155554001", "Once", "")
	if errs := p.follower.ApplyEntries(entries); errs[len(errs)-1] != nil {
		t.Fatal(errs)
	}
	want := dumpFile(t, p.follower)
	if errs := p.follower.ApplyEntries(entries); errs[len(errs)-1] != nil {
		t.Fatal(errs)
	}
	if got := dumpFile(t, p.follower); got != want {
		t.Fatalf("entries applied twice changed the file:\n%s", firstDiff(want, got))
	}
	if want != dumpFile(t, p.leader) {
		t.Fatal("the follower that applied a batch of entries differs from the leader")
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(la), len(lb))
}
