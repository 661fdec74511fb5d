package store_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"switchboard/store"
)

func TestCreateWorkspace(t *testing.T) {
	s := openStore(t, store.Options{})
	w, err := s.CreateWorkspace("  Acme  ")
	if err != nil || w.Name != "Acme" {
		t.Fatalf("CreateWorkspace = %+v, %v; want name Acme", w, err)
	}
	for _, name := range []string{"", "   ", strings.Repeat("é", 256)} {
		_, err := s.CreateWorkspace(name)
		wantFields(t, err, "name")
	}
	if _, err := s.CreateWorkspace(strings.Repeat("é", 255)); err != nil {
		t.Errorf("a 255-character name: %v, want accepted", err)
	}
	list, err := s.Workspaces()
	if err != nil || len(list) != 2 || list[0].ID != w.ID {
		t.Errorf("Workspaces = %v, %v; want 2, oldest first", list, err)
	}
	_, err = s.Workspace("01JDX0000000000000000000AA")
	wantKind(t, err, store.ErrNotFound, "workspace not found")
}

func TestAddNumber(t *testing.T) {
	f := newFixture(t)
	for _, phone := range []string{"4155550123", "+1 415 555 0123", "+1-415-555-0123", "", "+0155"} {
		_, err := f.s.AddNumber(f.ws, phone, "")
		ve := wantFields(t, err, "phone")
		if ve[0].Message != store.E164Message || !strings.Contains(ve[0].Message, "+14155550123") {
			t.Errorf("phone %q: message %q, want the expected form shown", phone, ve[0].Message)
		}
	}
	_, err := f.s.AddNumber(f.ws, f.number, "again")
	wantKind(t, err, store.ErrConflict, "number "+f.number+" is already in this workspace")
	_, err = f.s.AddNumber("01JDX0000000000000000000AA", "+14155550111", "")
	wantKind(t, err, store.ErrNotFound, "workspace not found")
	if _, err := f.s.AddNumber(f.ws, "+14155550111", strings.Repeat("n", 256)); err == nil {
		t.Error("a 256-character number name was accepted")
	}
	n2, err := f.s.AddNumber(f.ws, "+14155550111", " Sales ")
	if err != nil || !n2.Active || n2.Name != "Sales" {
		t.Fatalf("AddNumber = %+v, %v; want an active number named Sales", n2, err)
	}
	nums, err := f.s.Numbers(f.ws)
	if err != nil || len(nums) != 2 || nums[0].Phone != f.number || nums[1].Phone != "+14155550111" {
		t.Errorf("Numbers = %+v, %v; want both, oldest first", nums, err)
	}
	if got, err := f.s.NumberByPhone("+14155550111"); err != nil || got.WorkspaceID != f.ws {
		t.Errorf("NumberByPhone = %+v, %v; want the workspace's number", got, err)
	}
	_, err = f.s.NumberByPhone("+14155550999")
	wantKind(t, err, store.ErrNotFound, "")
	if nums, err := f.s.Numbers("not-an-id"); err != nil || nums == nil || len(nums) != 0 {
		t.Errorf("Numbers of an invalid workspace = %#v, %v; want empty", nums, err)
	}
}

func TestAddProperty(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name, typ string
		fields    []string
	}{
		{"tier", store.PropertyText, nil},
		{"Score_2", store.PropertyNumber, nil},
		{"vip", store.PropertyBoolean, nil},
		{"birthday", store.PropertyDate, nil},
		{"2fast", store.PropertyText, []string{"name"}},
		{"has space", store.PropertyText, []string{"name"}},
		{"dot.ted", store.PropertyText, []string{"name"}},
		{"", store.PropertyText, []string{"name"}},
		{strings.Repeat("a", 65), store.PropertyText, []string{"name"}},
		{"colour", "color", []string{"type"}},
		{"", "", []string{"name", "type"}},
	} {
		_, err := f.s.AddProperty(f.ws, tc.name, tc.typ)
		if tc.fields == nil {
			if err != nil {
				t.Errorf("AddProperty(%q, %q) = %v, want added", tc.name, tc.typ, err)
			}
			continue
		}
		wantFields(t, err, tc.fields...)
	}
	_, err := f.s.AddProperty(f.ws, "tier", store.PropertyNumber)
	wantKind(t, err, store.ErrConflict, "property tier already exists")
	props, err := f.s.Properties(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range props {
		names = append(names, p.Name+":"+p.Type)
	}
	if want := []string{"tier:text", "Score_2:number", "vip:boolean", "birthday:date"}; !slices.Equal(names, want) {
		t.Errorf("Properties = %v, want %v (oldest first)", names, want)
	}
	// Properties are per workspace.
	g := newFixtureOn(t, f.s)
	if props, err := g.s.Properties(g.ws); err != nil || props == nil || len(props) != 0 {
		t.Errorf("another workspace's properties = %#v, %v; want empty", props, err)
	}
	_, err = g.s.CreateContact(g.ws, store.ContactInput{Phone: "+14155550001", FirstName: ptr("A"), Properties: map[string]any{"tier": "x"}})
	wantFields(t, err, "properties.tier")
}

func TestSubscribe(t *testing.T) {
	f := newFixture(t)
	sub, err := f.s.Subscribe(f.ws, f.user.ID, store.EventMessageSent, "https://hooks.example.com/x")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sub.Secret, "whsec_"))
	if !strings.HasPrefix(sub.Secret, "whsec_") || err != nil || len(raw) != 32 {
		t.Errorf("secret %q, want whsec_ and base64 of 32 bytes", sub.Secret)
	}
	other, _ := f.s.Subscribe(f.ws, f.user.ID, store.EventMessageSent, "https://hooks.example.com/y")
	if other.Secret == sub.Secret {
		t.Error("two subscriptions share a secret")
	}
	if !sub.Active || sub.EventName != store.EventMessageSent || sub.UserID != f.user.ID {
		t.Errorf("subscription = %+v", sub)
	}
	list, err := f.s.Subscriptions(f.ws)
	if err != nil || len(list) != 2 {
		t.Errorf("Subscriptions = %d, %v; want 2", len(list), err)
	}
	_, err = f.s.Subscribe("01JDX0000000000000000000AA", f.user.ID, store.EventMessageSent, "https://hooks.example.com/x")
	wantKind(t, err, store.ErrNotFound, "workspace not found")
	// Another workspace cannot unsubscribe it.
	g := newFixtureOn(t, f.s)
	wantKind(t, g.s.Unsubscribe(g.ws, sub.ID), store.ErrNotFound, "subscription not found")
	wantKind(t, f.s.Unsubscribe(f.ws, "nope"), store.ErrNotFound, "subscription not found")
	if err := f.s.Unsubscribe(f.ws, sub.ID); err != nil {
		t.Errorf("Unsubscribe: %v", err)
	}
	if list, _ := f.s.Subscriptions(f.ws); len(list) != 1 || list[0].ID != other.ID {
		t.Errorf("after Unsubscribe, subscriptions = %v, want only the other", list)
	}
}

// TestCreateWorkspaceFor: the creator is its admin from the same transaction; an unknown user
// leaves no workspace behind.
func TestCreateWorkspaceFor(t *testing.T) {
	f := newFixture(t)
	w, err := f.s.CreateWorkspaceFor("Beta", f.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if role, err := f.s.MemberRole(w.ID, f.user.ID); err != nil || role != "admin" {
		t.Errorf("creator's role = %q, %v; want admin", role, err)
	}
	before, _ := f.s.Workspaces()
	_, err = f.s.CreateWorkspaceFor("Gamma", "01JZZZZZZZZZZZZZZZZZZZZZZZ")
	wantKind(t, err, store.ErrNotFound, "user not found")
	if after, _ := f.s.Workspaces(); len(after) != len(before) {
		t.Errorf("a refused creation left a workspace: %d → %d", len(before), len(after))
	}
}

func TestWorkspaceCountry(t *testing.T) {
	s := openStore(t, store.Options{})
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if w.Region() != "US" {
		t.Fatalf("a new workspace's country is %q, want US", w.Region())
	}
	gb := " gb "
	if w, err = s.UpdateWorkspace(w.ID, store.WorkspaceSettings{Country: &gb}); err != nil || w.Country != "GB" || w.Region() != "GB" {
		t.Fatalf("set country gb: %+v, %v; want GB", w, err)
	}
	for _, bad := range []string{"", "XX", "USA", "1"} {
		_, err := s.UpdateWorkspace(w.ID, store.WorkspaceSettings{Country: &bad})
		wantFields(t, err, "country")
	}
	if got, _ := s.Workspace(w.ID); got.Country != "GB" {
		t.Fatalf("after refused changes the country is %q, want GB", got.Country)
	}
}

// TestWorkspaceAssist: Assist is off for a new workspace, turned on and off by its setting,
// and kept by an update that does not name it.
func TestWorkspaceAssist(t *testing.T) {
	s := openStore(t, store.Options{})
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if w.Assist {
		t.Fatal("a new workspace has Assist on")
	}
	on, name := true, "Acme Dental"
	if w, err = s.UpdateWorkspace(w.ID, store.WorkspaceSettings{Assist: &on}); err != nil || !w.Assist {
		t.Fatalf("turn on: %+v %v", w, err)
	}
	if w, err = s.UpdateWorkspace(w.ID, store.WorkspaceSettings{Name: &name}); err != nil || !w.Assist {
		t.Fatalf("a rename turned Assist off: %+v %v", w, err)
	}
	off := false
	if _, err = s.UpdateWorkspace(w.ID, store.WorkspaceSettings{Assist: &off}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Workspace(w.ID); got.Assist {
		t.Fatal("turned off, the stored workspace still has Assist on")
	}
}
