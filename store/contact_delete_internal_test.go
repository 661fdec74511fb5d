package store

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// eachKV visits every key and value of every bucket, nested ones included.
func eachKV(tx *kv.Tx, fn func(bucket string, k, v []byte)) {
	var walk func(name string, b *kv.Bucket)
	walk = func(name string, b *kv.Bucket) {
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
	_ = tx.ForEach(func(name []byte, b *kv.Bucket) error {
		walk(string(name), b)
		return nil
	})
}

// TestEraseLeavesNothingOfTheContact: after an erasure no key or value of any bucket holds the
// contact's id, its phone (but for the opt-out), its conversation's, messages' or comment's
// ids, and no search posting holds its num; the other contact is untouched and still found, and
// a group conversation with both is kept for the other one but drops the erased number's entry.
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
	m, err := s.SendMessage(w.ID, SendInput{From: "+14155550100", To: []string{phone}, Text: "hello zeb, xylophonic"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.ReceiveMessage(w.ID, InboundMessage{From: phone, To: "+14155550100", Text: "STOP", Provider: "sandbox", ProviderID: "SM1"})
	if err != nil {
		t.Fatal(err)
	}
	// A group conversation with the other contact: kept, but no longer the erased number's.
	grp, err := s.SendMessage(w.ID, SendInput{From: "+14155550100", To: []string{other, phone}, Text: "group news"})
	if err != nil {
		t.Fatal(err)
	}
	// A picture from Twilio still to be fetched, a reply with a file held to be sent later,
	// and triage: labels, an assignee and a snooze with a time (each logged in the thread).
	s.SetPublicURL("https://sb.example.com/")
	const mediaURL = "https://api.twilio.com/2010-04-01/Accounts/AC1/Messages/MM1/Media/ME1"
	pic, err := s.ReceiveMessage(w.ID, InboundMessage{From: phone, To: "+14155550100", Media: []string{mediaURL}, Provider: ProviderTwilio, ProviderID: "MM1"})
	if err != nil {
		t.Fatal(err)
	}
	later, err := s.SendMessage(w.ID, SendInput{From: "+14155550100", To: []string{phone}, Text: "your x-ray", SendAt: s.Now().Add(time.Hour),
		Files: []Upload{{Name: "x-ray.png", Type: "image/png", Data: append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)}}})
	if err != nil {
		t.Fatal(err)
	}
	until, snoozed := s.Now().Add(24*time.Hour), ConversationSnoozed
	if _, err := s.UpdateConversation(w.ID, m.ConversationID, ConversationUpdate{Status: &snoozed, SnoozeUntil: &until,
		Labels: &[]string{"billing"}, AssignedUserIDs: &[]string{u.ID}, ActorID: u.ID}); err != nil {
		t.Fatal(err)
	}
	cm, err := s.CreateComment(w.ID, CommentInput{From: "+14155550100", To: phone, Text: "note", AuthorID: u.ID})
	if err != nil {
		t.Fatal(err)
	}
	// A broadcast scheduled for tomorrow to both numbers, a pending chunk of a broadcast cut
	// off mid-fan-out, and a carrier's landline flag on the number.
	sendAt := s.Now().Add(24 * time.Hour)
	bc, err := s.SendBroadcast(w.ID, BroadcastInput{From: "+14155550100", Recipients: []string{phone, other}, Text: "sale", SendAt: &sendAt})
	if err != nil {
		t.Fatal(err)
	}
	if err := rawUpdate(s.DB(), func(tx *kv.Tx) error {
		if err := tx.Bucket(bBroadcastPending).Put(pendingKey(w.ID, bc.ID, 7), []byte(other+","+phone)); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bNumberFlags), numberFlagKey(w.ID, phone), NumberFlag{Phone: phone, Flag: "landline", Code: 30006})
	}); err != nil {
		t.Fatal(err)
	}
	// What the erasure must remove is there to remove.
	filled := [][]byte{bConvEntries, bConvSnooze, bMediaFetch, bMedia, bMediaOwner, bMediaChunks, bMsgWords, bNumberFlags}
	_ = s.view(func(tx *kv.Tx) error {
		for _, b := range filled {
			if tx.Bucket(b).Stats().KeyN == 0 {
				t.Errorf("before the erasure, bucket %s is empty", b)
			}
		}
		if len(idxIDs(tx.Bucket(bConvMessages), w.ID, sendLaterTerm(m.ConversationID))) != 1 {
			t.Error("before the erasure, the reply sent later is not in the thread index")
		}
		return nil
	})
	if _, _, err := s.CreateOptOut(w.ID, "", phone, OptOutKeyword); err != nil {
		t.Fatal(err)
	}
	var num uint32
	_ = s.view(func(tx *kv.Tx) error { _, num, _ = getContactNum(tx, w.ID, c.ID); return nil })
	depth := s.OutboxDepth()

	if _, err := s.DeleteContact(w.ID, phone, true); err != nil {
		t.Fatalf("DeleteContact(erase): %v", err)
	}
	if _, err := s.DeleteContact(w.ID, phone, true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second erase: want ErrNotFound, got %v", err)
	}
	doomed := map[string][]byte{"contact id": idKey(c.ID), "message id": idKey(m.ID), "inbound id": idKey(in.Message.ID),
		"conversation id": idKey(m.ConversationID), "comment id": idKey(cm.ID), "email": []byte("zeb@quux"),
		"picture's id": idKey(pic.Message.ID), "reply sent later": idKey(later.ID), "carrier's media URL": []byte("MM1/Media"),
		"message's own word": []byte("xylophonic")}
	_ = s.view(func(tx *kv.Tx) error {
		eachKV(tx, func(bucket string, k, v []byte) {
			for what, b := range doomed {
				if bytes.Contains(k, b) || bytes.Contains(v, b) {
					t.Errorf("bucket %s still holds the %s (key %x)", bucket, what, k)
				}
			}
			// The kept group conversation names its members in its record, its key terms and
			// its messages; its member entry for the number is the erased contact's and goes.
			group := bytes.Contains(k, idKey(grp.ConversationID)) || bytes.Contains(k, idKey(grp.ID))
			member := bytes.Contains(k, []byte("\x00"+convMemberTerm(phone)+"\x00"))
			if (bytes.Contains(k, []byte(phone)) || bytes.Contains(v, []byte(phone))) && (!group || member) &&
				bucket != string(bOptOuts) && bucket != string(bOptOutPhone) {
				t.Errorf("bucket %s still holds the phone (key %q)", bucket, k)
			}
			if (bucket == string(bContactTerms) || bucket == string(bContactTermsRecent)) && len(k) > 5 {
				nums, _ := index.ChunkNums(k, v)
				for _, n := range nums {
					if n == num {
						t.Errorf("posting %q still holds the contact's num", k[:len(k)-5])
					}
				}
			}
		})
		return nil
	})
	// The group conversation is kept, still the other member's, and no longer the number's.
	if msgs, _, _ := s.ContactMessages(w.ID, other, "", 10); len(msgs) != 1 || msgs[0].ID != grp.ID {
		t.Errorf("the other member's history after the erasure: %v, want the group message", msgs)
	}
	if msgs, _, _ := s.ContactMessages(w.ID, phone, "", 10); len(msgs) != 0 {
		t.Errorf("the erased number's history: %d messages, want none", len(msgs))
	}
	// The other recipient of the broadcasts is still there.
	if tg, _ := s.BroadcastTargetsOf(w.ID, bc.ID); !slices.Equal(tg.Recipients, []string{other}) {
		t.Errorf("the scheduled broadcast's recipients after the erasure: %q, want only %s", tg.Recipients, other)
	}
	_ = s.view(func(tx *kv.Tx) error {
		if v := tx.Bucket(bBroadcastPending).Get(pendingKey(w.ID, bc.ID, 7)); string(v) != other {
			t.Errorf("the pending chunk after the erasure: %q, want %s", v, other)
		}
		return nil
	})
	_ = s.view(func(tx *kv.Tx) error {
		for _, b := range []([]byte){bConvEntries, bConvSnooze, bMediaFetch, bMedia, bMediaOwner, bMediaChunks, bNumberFlags, bConsents} {
			if n := tx.Bucket(b).Stats().KeyN; n != 0 {
				t.Errorf("after the erasure, bucket %s holds %d keys", b, n)
			}
		}
		return nil
	})
	if got := s.OutboxDepth(); got != depth-2 {
		t.Errorf("outbox depth: want %d after erasing a queued message and one held for later, got %d", depth-2, got)
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
