package store

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// eachKV visits every key and value of every bucket, nested ones included.
func eachKV(tx *bolt.Tx, fn func(bucket string, k, v []byte)) {
	var walk func(name string, b *bolt.Bucket)
	walk = func(name string, b *bolt.Bucket) {
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				if nb := b.Bucket(k); nb != nil {
					walk(name, nb)
					return nil
				}
			}
			fn(name, k, v)
			return nil
		})
	}
	_ = tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		walk(string(name), b)
		return nil
	})
}

// TestEraseLeavesNothingOfTheContact: after an erasure no key or value of any bucket holds the
// contact's id, its phone (but for the opt-out), its conversation's, messages' or comment's
// ids, and no search posting holds its num; the other contact is untouched and still found.
func TestEraseLeavesNothingOfTheContact(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := s.CreateWorkspace("Acme")
	u, _ := s.CreateUser(NewUser{Email: "ana@example.com", Name: "Ana"})
	if _, err := s.AddMember(w.ID, u.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(w.ID, "+14155550100", "Main"); err != nil {
		t.Fatal(err)
	}
	const phone, other = "+14155550123", "+14155550199"
	first, email := "Zebediah", "zeb@quux.example"
	c, err := s.CreateContact(w.ID, ContactInput{Phone: phone, FirstName: &first, Email: &email})
	if err != nil {
		t.Fatal(err)
	}
	keepName := "Ana"
	keep, _ := s.CreateContact(w.ID, ContactInput{Phone: other, FirstName: &keepName})
	if _, _, err := s.AddToGroup(w.ID, "VIP", phone); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddToGroup(w.ID, "VIP", other); err != nil {
		t.Fatal(err)
	}
	m, err := s.SendMessage(w.ID, SendInput{From: "+14155550100", To: []string{phone}, Text: "hello zeb"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.ReceiveMessage(w.ID, InboundMessage{From: phone, To: "+14155550100", Text: "STOP", Provider: "sandbox", ProviderID: "SM1"})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := s.CreateComment(w.ID, CommentInput{From: "+14155550100", To: phone, Text: "note", AuthorID: u.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateOptOut(w.ID, "", phone, OptOutKeyword); err != nil {
		t.Fatal(err)
	}
	var num uint32
	_ = s.db.View(func(tx *bolt.Tx) error { _, num, _ = getContactNum(tx, w.ID, c.ID); return nil })
	depth := s.OutboxDepth()

	if _, err := s.DeleteContact(w.ID, phone, true); err != nil {
		t.Fatalf("DeleteContact(erase): %v", err)
	}
	if _, err := s.DeleteContact(w.ID, phone, true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second erase: want ErrNotFound, got %v", err)
	}
	doomed := map[string][]byte{"contact id": idKey(c.ID), "message id": idKey(m.ID), "inbound id": idKey(in.Message.ID),
		"conversation id": idKey(m.ConversationID), "comment id": idKey(cm.ID), "email": []byte("zeb@quux")}
	_ = s.db.View(func(tx *bolt.Tx) error {
		eachKV(tx, func(bucket string, k, v []byte) {
			for what, b := range doomed {
				if bytes.Contains(k, b) || bytes.Contains(v, b) {
					t.Errorf("bucket %s still holds the %s (key %x)", bucket, what, k)
				}
			}
			if (bytes.Contains(k, []byte(phone)) || bytes.Contains(v, []byte(phone))) &&
				bucket != string(bOptOuts) && bucket != string(bOptOutPhone) {
				t.Errorf("bucket %s still holds the phone (key %q)", bucket, k)
			}
			if bucket == string(bContactTerms) && len(k) > 5 {
				nums, _ := decodeChunk(nil, chunkFirst(k), v)
				for _, n := range nums {
					if n == num {
						t.Errorf("posting %q still holds the contact's num", k[:len(k)-5])
					}
				}
			}
		})
		return nil
	})
	if got := s.OutboxDepth(); got != depth-1 {
		t.Errorf("outbox depth: want %d after erasing a queued message, got %d", depth-1, got)
	}
	if out, _ := s.IsOptedOut(w.ID, phone); !out {
		t.Error("the erased number is no longer opted out")
	}
	g, _ := s.GroupByName(w.ID, "VIP")
	if g.Size != 1 {
		t.Errorf("group size: want 1 after the erasure, got %d", g.Size)
	}
	if n, _ := s.CountAllContacts(w.ID); n != 1 {
		t.Errorf("count: want 1, got %d", n)
	}
	if found, _ := s.SearchContacts(w.ID, "Zeb"); len(found) != 0 {
		t.Errorf("search still finds the erased contact: %v", found)
	}
	if found, _ := s.SearchContacts(w.ID, "ana"); len(found) != 1 || found[0].ID != keep.ID {
		t.Errorf("search for the other contact: %v", found)
	}
	// Added again, the number is still opted out.
	if _, err := s.CreateContact(w.ID, ContactInput{Phone: phone}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendMessage(w.ID, SendInput{From: "+14155550100", To: []string{phone}, Text: "hi"}); !errors.Is(err, ErrOptedOut) {
		t.Errorf("send to the re-added number: want ErrOptedOut, got %v", err)
	}
}
