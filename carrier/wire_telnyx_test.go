package carrier_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"switchboard/carrier"
	"switchboard/internal/fakecarrier"
	"switchboard/store"
)

const ourTelnyxHook = publicURL + "/carrier/telnyx/webhook"

// TestTelnyxAddMakesAProfileAndAssigns: adding a Telnyx number puts it in a messaging profile
// whose webhook is Switchboard's (made once, webhook API v2, the number's country allowed), reads
// the assignment and the profile back, then stores it; a second number reuses the profile.
func TestTelnyxAddMakesAProfileAndAssigns(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTelnyx(t)
	ctx := context.Background()
	a := e.telnyx.Own(fakecarrier.TelnyxNumber{Phone: "+14155550188"})
	b := e.telnyx.Own(fakecarrier.TelnyxNumber{Phone: "+14155550189"})
	for _, id := range []string{a.ID, b.ID} {
		if _, err := e.a.Add(ctx, e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTelnyx, ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	profiles := e.telnyx.Profiles()
	if len(profiles) != 1 || profiles[0].WebhookURL != ourTelnyxHook || profiles[0].APIVersion != "2" || fmt.Sprint(profiles[0].Destinations) != "[US]" {
		t.Fatalf("profiles %+v, want one posting to %s with webhook API 2 and US allowed", profiles, ourTelnyxHook)
	}
	for _, p := range []string{"+14155550188", "+14155550189"} {
		if n, hook, _ := e.telnyx.Number(p); n.ProfileID != profiles[0].ID || hook != ourTelnyxHook {
			t.Fatalf("%s: profile %q hook %q", p, n.ProfileID, hook)
		}
	}
	if ns, _ := e.st.Numbers(e.ws.ID); len(ns) != 2 || ns[0].Link == nil || ns[0].Link.ID != a.ID {
		t.Fatalf("stored %+v", ns)
	}
}

// TestTelnyxTakeOverCheckAndRemove: a number in another profile asks first; a profile whose
// webhook was changed is flagged; removing with clear takes the number out of the profile.
func TestTelnyxTakeOverCheckAndRemove(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTelnyx(t)
	ctx := context.Background()
	other := e.telnyx.Profile(fakecarrier.TelnyxProfile{Name: "Old CRM", WebhookURL: "https://crm.example/telnyx"})
	own := e.telnyx.Own(fakecarrier.TelnyxNumber{Phone: "+14155550188", ProfileID: other.ID})
	_, err := e.a.Add(ctx, e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTelnyx, ID: own.ID})
	var take *carrier.TakeOverError
	if !errors.As(err, &take) || take.Now != "https://crm.example/telnyx" {
		t.Fatalf("a number in another profile: %v", err)
	}
	n, err := e.a.Add(ctx, e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTelnyx, ID: own.ID, TakeOver: true})
	if err != nil {
		t.Fatal(err)
	}
	// Someone edits Switchboard's profile at Telnyx.
	for _, p := range e.telnyx.Profiles() {
		if p.WebhookURL == ourTelnyxHook {
			e.telnyx.Fail("profile", fakecarrier.Fault{Status: 200, Body: `{"data":{"id":"` + p.ID + `","name":"Switchboard","webhook_url":"https://x.example/hook"}}`})
		}
	}
	if n, err = e.a.Check(ctx, e.ws.ID, n.ID); err != nil || !strings.Contains(n.Link.Problem, "https://x.example/hook") {
		t.Fatalf("check: %+v %v", n.Link, err)
	}
	r, err := e.a.Remove(ctx, e.ws.ID, n.ID, true)
	if err != nil || !r.Cleared {
		t.Fatalf("remove: %+v %v", r, err)
	}
	if got, _, _ := e.telnyx.Number("+14155550188"); got.ProfileID != "" {
		t.Fatalf("still in profile %q after removing with clear", got.ProfileID)
	}
}

// TestTelnyxBuy: the quote is the number's own cost_information; an order that fails (sold
// meanwhile) is a plain message; a bought number is wired.
func TestTelnyxBuy(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTelnyx(t)
	ctx := context.Background()
	e.telnyx.Offer(fakecarrier.TelnyxNumber{Phone: "+14155550150", Locality: "San Francisco", Region: "CA", MonthlyCost: "1.00"},
		fakecarrier.TelnyxNumber{Phone: "+14155550151", Locality: "San Francisco", Region: "CA", MonthlyCost: "1.50"})
	found, err := e.a.Search(ctx, store.ProviderTelnyx, carrier.Search{Country: "US", Locality: "San Francisco"})
	if err != nil || len(found) != 2 || found[1].Monthly.String() != "$1.50" || found[0].Region != "CA" {
		t.Fatalf("search: %+v %v", found, err)
	}
	q, err := e.a.Quote(ctx, store.ProviderTelnyx, "+14155550151")
	if err != nil || q.Monthly.Amount != "1.50" {
		t.Fatalf("quote: %+v %v", q, err)
	}
	e.telnyx.TakeAway("+14155550150")
	if _, err := e.a.Buy(ctx, e.ws.ID, carrier.BuyRequest{Carrier: store.ProviderTelnyx, Phone: "+14155550150", Price: found[0].Monthly}); !carrier.IsKind(err, carrier.KindTaken) {
		t.Fatalf("a number sold meanwhile: %v", err)
	}
	n, err := e.a.Buy(ctx, e.ws.ID, carrier.BuyRequest{Carrier: store.ProviderTelnyx, Phone: "+14155550151", Price: q.Monthly})
	if err != nil || n.Carrier != store.ProviderTelnyx {
		t.Fatalf("buy: %+v %v", n, err)
	}
	if _, hook, _ := e.telnyx.Number("+14155550151"); hook != ourTelnyxHook {
		t.Fatalf("bought number's hook %q", hook)
	}
}
