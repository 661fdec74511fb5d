package store_test

import (
	"errors"
	"testing"
	"time"

	"switchboard/store"
)

// TestCarrierAccountKeepsWhatItIsGiven: one account per carrier, replaced by the next, gone when
// deleted; a carrier the store does not know and an account without sealed secrets are refused.
func TestCarrierAccountKeepsWhatItIsGiven(t *testing.T) {
	s := openStore(t, store.Options{})
	if _, ok, err := s.CarrierAccountOf(store.ProviderTwilio); ok || err != nil {
		t.Fatalf("before connecting: %v %v", ok, err)
	}
	a := store.CarrierAccount{Carrier: store.ProviderTwilio, AccountSID: "AC1", Last4: "9f3e", Sealed: []byte{1, 2, 3}, ConnectedAt: time.Unix(1700000000, 0).UTC()}
	if err := s.SaveCarrierAccount(a); err != nil {
		t.Fatal(err)
	}
	a.Last4 = "0000"
	if err := s.SaveCarrierAccount(a); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.CarrierAccountOf(store.ProviderTwilio)
	if !ok || err != nil || got.Last4 != "0000" || string(got.Sealed) != "\x01\x02\x03" || !got.ConnectedAt.Equal(a.ConnectedAt) {
		t.Fatalf("read back %+v %v %v", got, ok, err)
	}
	var verrs store.ValidationError
	if err := s.SaveCarrierAccount(store.CarrierAccount{Carrier: "nexmo", Sealed: []byte{1}}); !errors.As(err, &verrs) {
		t.Fatalf("unknown carrier: %v", err)
	}
	if err := s.SaveCarrierAccount(store.CarrierAccount{Carrier: store.ProviderTelnyx}); !errors.As(err, &verrs) {
		t.Fatalf("nothing sealed: %v", err)
	}
	if err := s.DeleteCarrierAccount(store.ProviderTwilio); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.CarrierAccountOf(store.ProviderTwilio); ok {
		t.Fatal("still connected after deleting")
	}
}

// TestRemoveNumberFreesThePhone: a removed number is gone from its workspace and from inbound
// routing, and another workspace may add the phone; its link readings are kept until then.
func TestRemoveNumberFreesThePhone(t *testing.T) {
	f := newFixture(t)
	g := newFixtureOn(t, f.s)
	n, err := f.s.CreateNumber(f.ws, store.NumberInput{Phone: "+14155550177", Carrier: store.ProviderTwilio,
		Link: &store.CarrierLink{ID: "PN1"}})
	if err != nil {
		t.Fatal(err)
	}
	n, err = f.s.SetNumberLink(f.ws, n.ID, store.CarrierLink{ID: "PN1", Problem: "its texts go elsewhere"})
	if err != nil || n.Link.Problem == "" {
		t.Fatalf("set link: %+v %v", n.Link, err)
	}
	if _, err := f.s.SetNumberLink(g.ws, n.ID, store.CarrierLink{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another workspace's number: %v", err)
	}
	used, _ := f.s.PhonesInUse([]string{"+14155550177", "+14155550199"})
	if !used["+14155550177"] || used["+14155550199"] {
		t.Fatalf("in use: %v", used)
	}
	if _, err := f.s.RemoveNumber(g.ws, n.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("removing from another workspace: %v", err)
	}
	if _, err := f.s.RemoveNumber(f.ws, n.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.NumberByPhone("+14155550177"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("inbound still routed: %v", err)
	}
	if used, _ := f.s.PhonesInUse([]string{"+14155550177"}); used["+14155550177"] {
		t.Fatal("still in use")
	}
	if ns, _ := f.s.Numbers(f.ws); len(ns) != 1 {
		t.Fatalf("numbers left: %d, want the fixture's one", len(ns))
	}
	if _, err := f.s.CreateNumber(g.ws, store.NumberInput{Phone: "+14155550177"}); err != nil {
		t.Fatalf("another workspace adds the freed phone: %v", err)
	}
}
