package store_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func TestCreateContact(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 21, 22, 13, 19, 123e6, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	c, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550123", FirstName: ptr(" Ana "),
		LastName: ptr("López"), Email: ptr("ana@example.com"), Company: ptr("Globex")})
	if err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	if c.FirstName != "Ana" || c.LastName != "López" || c.Email != "ana@example.com" || c.Company != "Globex" {
		t.Errorf("contact names = %q %q %q %q, want Ana López ana@example.com Globex (trimmed)", c.FirstName, c.LastName, c.Email, c.Company)
	}
	if c.Phone() != "+14155550123" || len(c.InboundChannels) != 1 || !c.InboundChannels[0].IsDefault ||
		c.InboundChannels[0].CommunicationType != store.CommSMS || c.InboundChannels[0].ContactID != c.ID {
		t.Errorf("inbound channels = %+v, want one default sms channel +14155550123 of the contact", c.InboundChannels)
	}
	if c.Source != store.SourceAPI {
		t.Errorf("source = %q, want %q", c.Source, store.SourceAPI)
	}
	if c.Properties == nil || c.Flags == nil || c.Addresses == nil {
		t.Errorf("properties %v, flags %v, addresses %v: want empty, not nil", c.Properties, c.Flags, c.Addresses)
	}
	if !c.CreatedAt.Equal(clock.Now()) || !c.UpdatedAt.Equal(clock.Now()) {
		t.Errorf("createdAt %v updatedAt %v, want the clock's %v", c.CreatedAt, c.UpdatedAt, clock.Now())
	}
	if _, ok := store.ParseID(c.ID); !ok {
		t.Errorf("id %q is not a ULID", c.ID)
	}
	if c.WorkspaceID != f.ws {
		t.Errorf("workspaceId = %q, want %q", c.WorkspaceID, f.ws)
	}

	// It reads back the same, by id and by phone, with empty collections still empty.
	byID, err := f.s.Contact(f.ws, c.ID)
	if err != nil || !reflect.DeepEqual(byID, c) {
		t.Errorf("Contact(id) = %+v, %v; want %+v", byID, err, c)
	}
	byPhone, err := f.s.ContactByPhone(f.ws, "+14155550123")
	if err != nil || byPhone.ID != c.ID {
		t.Errorf("ContactByPhone = %q, %v; want %q", byPhone.ID, err, c.ID)
	}
	_, err = f.s.ContactByPhone(f.ws, "+14155550999")
	wantKind(t, err, store.ErrNotFound, "contact not found")
	_, err = f.s.Contact(f.ws, store.NewWebhookSecret())
	wantKind(t, err, store.ErrNotFound, "contact not found")
}

func TestCreateContactPhoneIsUniquePerWorkspace(t *testing.T) {
	f := newFixture(t)
	f.contact(t, "+14155550123", "Ana", "")
	_, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Bob")})
	wantKind(t, err, store.ErrConflict, "a contact with phone +14155550123 already exists")
	if got := search(t, f.s, f.ws, ""); len(got) != 1 || got[0].FirstName != "Ana" {
		t.Errorf("after the conflict, contacts = %q, want only Ana", labels(got))
	}

	// Another workspace may hold the same phone.
	g := newFixtureOn(t, f.s)
	if _, err := g.s.CreateContact(g.ws, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Bob")}); err != nil {
		t.Errorf("same phone in another workspace: %v, want it created", err)
	}
}

func addProperties(t testing.TB, f *fixture) {
	t.Helper()
	for name, typ := range map[string]string{"tier": store.PropertyText, "score": store.PropertyNumber,
		"vip": store.PropertyBoolean, "birthday": store.PropertyDate} {
		if _, err := f.s.AddProperty(f.ws, name, typ); err != nil {
			t.Fatalf("AddProperty(%s, %s): %v", name, typ, err)
		}
	}
}

func TestContactPropertiesAreValidatedByType(t *testing.T) {
	f := newFixture(t)
	addProperties(t, f)
	long := strings.Repeat("ñ", 256)
	for i, tc := range []struct {
		name   string
		props  map[string]any
		fields []string // failing fields; none means accepted
	}{
		{"every type", map[string]any{"tier": "gold", "score": json.Number("12.5"), "vip": true, "birthday": "2028-02-29"}, nil},
		{"float number", map[string]any{"score": 3.0}, nil},
		{"text too long", map[string]any{"tier": long}, []string{"properties.tier"}},
		{"text not a string", map[string]any{"tier": json.Number("1")}, []string{"properties.tier"}},
		{"number as string", map[string]any{"score": "12"}, []string{"properties.score"}},
		{"number out of range", map[string]any{"score": json.Number("1e999")}, []string{"properties.score"}},
		{"boolean as string", map[string]any{"vip": "yes"}, []string{"properties.vip"}},
		{"date not on the calendar", map[string]any{"birthday": "2027-02-30"}, []string{"properties.birthday"}},
		{"date in another format", map[string]any{"birthday": "02/28/2027"}, []string{"properties.birthday"}},
		{"unknown key", map[string]any{"colour": "red"}, []string{"properties.colour"}},
		{"null on create", map[string]any{"tier": nil}, []string{"properties.tier"}},
		{"every failure, sorted", map[string]any{"vip": 1.0, "birthday": "x", "Zeta": "a", "score": false, "tier": true},
			[]string{"properties.Zeta", "properties.birthday", "properties.score", "properties.tier", "properties.vip"}},
	} {
		phone := "+1415555" + string(rune('0'+i/10)) + string(rune('0'+i%10)) + "00"
		c, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: phone, FirstName: ptr("P"), Properties: tc.props})
		if tc.fields == nil {
			if err != nil {
				t.Errorf("%s: CreateContact: %v, want it created", tc.name, err)
				continue
			}
			back, err := f.s.Contact(f.ws, c.ID)
			if err != nil {
				t.Errorf("%s: the created contact cannot be read: %v", tc.name, err)
				continue
			}
			if !slices.Equal(slices.Sorted(maps.Keys(back.Properties)), slices.Sorted(maps.Keys(tc.props))) {
				t.Errorf("%s: stored properties %v, want %v", tc.name, back.Properties, tc.props)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: CreateContact accepted %v, want errors on %v", tc.name, tc.props, tc.fields)
			continue
		}
		wantFields(t, err, tc.fields...)
		if _, err := f.s.ContactByPhone(f.ws, phone); err == nil {
			t.Errorf("%s: a refused contact was stored", tc.name)
		}
	}
	// Every contact stays readable and searchable.
	if _, err := f.s.SearchContacts(f.ws, "p"); err != nil {
		t.Errorf("SearchContacts after property tests: %v", err)
	}
}

func TestUpsertContactChangesOnlyGivenFields(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	addProperties(t, f)

	// No contact with the phone: create-or-update creates, dropping null properties.
	c, created, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Ana"),
		LastName: ptr("López"), Email: ptr("ana@example.com"), Company: ptr("Globex"),
		Properties: map[string]any{"tier": "gold", "score": json.Number("7"), "vip": nil}})
	if err != nil || !created {
		t.Fatalf("UpsertContact on a new phone = created %v, %v; want created", created, err)
	}
	if _, ok := c.Properties["vip"]; ok || len(c.Properties) != 2 {
		t.Errorf("created with properties %v, want tier and score only (null dropped)", c.Properties)
	}

	clock.Advance(time.Hour)
	u, created, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: "+14155550123", LastName: ptr("Ruiz"),
		Properties: map[string]any{"score": nil, "vip": true, "birthday": "2027-02-28"}})
	if err != nil || created {
		t.Fatalf("UpsertContact on an existing phone = created %v, %v; want an update", created, err)
	}
	if u.ID != c.ID {
		t.Errorf("update made a new contact %s, want %s", u.ID, c.ID)
	}
	if u.FirstName != "Ana" || u.LastName != "Ruiz" || u.Email != "ana@example.com" || u.Company != "Globex" {
		t.Errorf("after update: %q %q %q %q, want Ana Ruiz ana@example.com Globex", u.FirstName, u.LastName, u.Email, u.Company)
	}
	want := map[string]any{"tier": "gold", "vip": true, "birthday": "2027-02-28"}
	back, err := f.s.Contact(f.ws, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Properties, want) {
		t.Errorf("properties after merge = %v, want %v (score removed by null, tier kept)", back.Properties, want)
	}
	if !back.CreatedAt.Equal(c.CreatedAt) || !back.UpdatedAt.Equal(clock.Now()) {
		t.Errorf("createdAt %v updatedAt %v, want %v and %v", back.CreatedAt, back.UpdatedAt, c.CreatedAt, clock.Now())
	}
	if back.Phone() != "+14155550123" || len(back.InboundChannels) != 1 {
		t.Errorf("inbound channels after update = %+v, want the one channel", back.InboundChannels)
	}

	// Unknown keys and bad values are refused, and nothing changes.
	_, _, err = f.s.UpsertContact(f.ws, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Zed"),
		Properties: map[string]any{"colour": "red", "vip": "no"}})
	wantFields(t, err, "properties.colour", "properties.vip")
	again, _ := f.s.Contact(f.ws, c.ID)
	if again.FirstName != "Ana" || !reflect.DeepEqual(again.Properties, want) {
		t.Errorf("a refused update changed the contact: %q %v", again.FirstName, again.Properties)
	}

	// An update that gives nothing changes nothing but the time.
	same, created, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: "+14155550123"})
	if err != nil || created || same.FirstName != "Ana" || same.LastName != "Ruiz" || !reflect.DeepEqual(same.Properties, want) {
		t.Errorf("empty update = %+v, created %v, %v; want the contact unchanged", same, created, err)
	}
}

func TestContactEventsNeedASubscription(t *testing.T) {
	f := newFixture(t)
	var notified atomic.Int32
	f.s.SetHooks(store.Hooks{Events: func() { notified.Add(1) }})

	f.contact(t, "+14155550001", "Ana", "")
	if evs, _, err := store.RecordedEvents(f.s, f.ws, store.EventContactCreated); err != nil || len(evs) != 0 {
		t.Fatalf("without a subscription, recorded %d contact.created events (%v), want none", len(evs), err)
	}
	if n := notified.Load(); n != 0 {
		t.Errorf("without a subscription, OnEvents was called %d times, want 0", n)
	}

	created, err := f.s.Subscribe(f.ws, f.user.ID, store.EventContactCreated, "https://hooks.example.com/a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Subscribe(f.ws, f.user.ID, store.EventContactUpdated, "https://hooks.example.com/b"); err != nil {
		t.Fatal(err)
	}
	bob, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550002", FirstName: ptr("Bob"),
		Email: ptr("bob@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	evs, dels, err := store.RecordedEvents(f.s, f.ws, store.EventContactCreated)
	if err != nil || len(evs) != 1 || len(dels) != 1 {
		t.Fatalf("after one create with one subscription: %d events, %d deliveries (%v); want 1 and 1", len(evs), len(dels), err)
	}
	if dels[0].SubscriptionID != created.ID || dels[0].Status != store.DeliveryPending {
		t.Errorf("delivery = %+v, want pending to subscription %s", dels[0], created.ID)
	}
	var p map[string]any
	if err := json.Unmarshal(evs[0].Payload, &p); err != nil {
		t.Fatal(err)
	}
	wantPayload := map[string]any{"id": bob.ID, "firstName": "Bob", "lastName": "", "email": "bob@example.com",
		"phone": "+14155550002", "workspaceId": f.ws, "properties": map[string]any{}, "createdAt": store.FormatTime(bob.CreatedAt)}
	if !reflect.DeepEqual(p, wantPayload) {
		t.Errorf("contact.created payload = %v, want %v", p, wantPayload)
	}
	if n := notified.Load(); n != 1 {
		t.Errorf("OnEvents was called %d times after one event, want 1", n)
	}

	if _, _, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: "+14155550002", LastName: ptr("Builder")}); err != nil {
		t.Fatal(err)
	}
	upd, _, _ := store.RecordedEvents(f.s, f.ws, store.EventContactUpdated)
	if len(upd) != 1 {
		t.Fatalf("after one update, %d contact.updated events, want 1", len(upd))
	}
	if err := json.Unmarshal(upd[0].Payload, &p); err != nil || p["lastName"] != "Builder" {
		t.Errorf("contact.updated payload = %v (%v), want lastName Builder", p, err)
	}

	// Unsubscribed: no more events.
	if err := f.s.Unsubscribe(f.ws, created.ID); err != nil {
		t.Fatal(err)
	}
	f.contact(t, "+14155550003", "Cleo", "")
	if evs, _, _ := store.RecordedEvents(f.s, f.ws, store.EventContactCreated); len(evs) != 1 {
		t.Errorf("after unsubscribing, %d contact.created events, want still 1", len(evs))
	}
	err = f.s.Unsubscribe(f.ws, created.ID)
	wantKind(t, err, store.ErrNotFound, "subscription not found")
}

func TestContactInAnUnknownWorkspaceIsRefused(t *testing.T) {
	s := openStore(t, store.Options{})
	for _, ws := range []string{"01JDX0000000000000000000AA", "not-an-id"} {
		_, err := s.CreateContact(ws, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Ana")})
		wantKind(t, err, store.ErrNotFound, "workspace not found")
		_, _, err = s.UpsertContact(ws, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Ana")})
		wantKind(t, err, store.ErrNotFound, "workspace not found")
	}
}

func TestConcurrentCreatesOfOnePhoneMakeOneContact(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const n = 20
	var wg sync.WaitGroup
	createErrs := make([]error, n)
	upserted := make([]bool, n)
	upsertErrs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, createErrs[i] = f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550123", FirstName: ptr("Ana")})
		})
		wg.Go(func() {
			_, upserted[i], upsertErrs[i] = f.s.UpsertContact(f.ws, store.ContactInput{Phone: "+14155550124", FirstName: ptr("Bob")})
		})
	}
	wg.Wait()
	ok, created := 0, 0
	for i := range n {
		if createErrs[i] == nil {
			ok++
		} else {
			wantKind(t, createErrs[i], store.ErrConflict, "")
		}
		if upsertErrs[i] != nil {
			t.Errorf("UpsertContact: %v", upsertErrs[i])
		}
		if upserted[i] {
			created++
		}
	}
	if ok != 1 || created != 1 {
		t.Errorf("%d concurrent creates succeeded and %d upserts created, want 1 and 1", ok, created)
	}
	if got := search(t, f.s, f.ws, ""); len(got) != 2 {
		t.Errorf("contacts = %q, want one Ana and one Bob", labels(got))
	}
}

// TestEmailChangeMovesTheExactIndex: an email that changes to a string equal under Unicode
// case folding but not under lower-casing (ſ, the long s, folds to s) must still move its
// exact-match index entry.
func TestEmailChangeMovesTheExactIndex(t *testing.T) {
	f := newFixture(t)
	aaron, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550001", FirstName: ptr("Aaron"), Email: ptr("sam@x.com.au")})
	if err != nil {
		t.Fatal(err)
	}
	zed, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550002", FirstName: ptr("Zed"), Email: ptr("ſam@x.com")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: zed.Phone(), Email: ptr("sam@x.com")}); err != nil {
		t.Fatal(err)
	}
	wantSearch(t, f.s, f.ws, "sam@x.com", zed, aaron)
}
