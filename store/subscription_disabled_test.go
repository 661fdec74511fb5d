package store_test

import (
	"testing"

	"switchboard/store"
)

// TestDisabledUsersSubscriptionsDeliverNothing: while a subscription's user is disabled, new
// events queue nothing for it and a delivery queued before is refused right before its attempt,
// as for a removed member; enabling the user restores delivery of what happens next.
func TestDisabledUsersSubscriptionsDeliverNothing(t *testing.T) {
	h := newHookFixture(t)
	root, err := h.s.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Superuser: true})
	if err != nil {
		t.Fatal(err)
	}
	h.contact(t, "+14155550101", "Ada", "")
	before := h.due(t)
	if len(before) != 1 {
		t.Fatalf("%d deliveries due, want 1", len(before))
	}
	if err := h.s.SetUserDisabled(root.ID, h.user.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, stale, _, err := h.s.RecheckDelivery(before[0].Delivery.ID); err != nil || stale == "" {
		t.Fatalf("recheck of a disabled user's delivery: stale %q, err %v; want it refused", stale, err)
	}
	h.contact(t, "+14155550102", "Bo", "")
	if ds, _ := h.s.SubscriptionDeliveries(h.sub.ID, 0); len(ds) != 1 {
		t.Fatalf("%d deliveries after an event while the user is disabled, want the 1 from before", len(ds))
	}
	if err := h.s.SetUserDisabled(root.ID, h.user.ID, false); err != nil {
		t.Fatal(err)
	}
	h.contact(t, "+14155550103", "Cy", "")
	ds, _ := h.s.SubscriptionDeliveries(h.sub.ID, 0)
	if len(ds) != 2 {
		t.Fatalf("%d deliveries after enabling the user again, want 2", len(ds))
	}
	if _, stale, _, err := h.s.RecheckDelivery(ds[0].ID); err != nil || stale != "" {
		t.Fatalf("recheck once enabled: stale %q, err %v; want it sent", stale, err)
	}
}
