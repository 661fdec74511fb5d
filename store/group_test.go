package store_test

import (
	"switchboard/store"
	"testing"
)

func TestGroupsAreUniqueByNameAndAddingIsIdempotent(t *testing.T) {
	f := newFixture(t)
	g, err := f.s.CreateGroup(f.ws, "VIP")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.s.CreateGroup(f.ws, "vip")
	wantKind(t, err, store.ErrConflict, `a group named "vip" already exists`)
	_, err = f.s.CreateGroup(f.ws, "  ")
	wantFields(t, err, "name")
	c1, g1, err := f.s.AddToGroup(f.ws, "vip", "+14155550123")
	if err != nil || g1.ID != g.ID {
		t.Fatalf("AddToGroup by another case of the name = group %s, %v; want %s", g1.ID, err, g.ID)
	}
	c2, g2, err := f.s.AddToGroup(f.ws, "VIP", "+14155550123")
	if err != nil || c2.ID != c1.ID || g2.Size != 1 {
		t.Errorf("adding twice: contact %s size %d, %v; want the same contact, size 1", c2.ID, g2.Size, err)
	}
	_, g3, err := f.s.AddToGroup(f.ws, "Newsletter", "+14155550124")
	if err != nil || g3.Name != "Newsletter" || g3.Size != 1 {
		t.Errorf("AddToGroup to a new name = %+v, %v; want the group created with 1 member", g3, err)
	}
	list, _ := f.s.Groups(f.ws)
	if len(list) != 2 || list[0].Name != "Newsletter" || list[1].Name != "VIP" {
		t.Errorf("Groups = %+v, want Newsletter, VIP (by name)", list)
	}
	if gs, _ := f.s.ContactGroups(f.ws, c1.ID); len(gs) != 1 || gs[0].ID != g.ID {
		t.Errorf("ContactGroups = %+v, want VIP", gs)
	}
	if removed, err := f.s.RemoveFromGroup(f.ws, g.ID, c1.ID); !removed || err != nil {
		t.Errorf("RemoveFromGroup = %v, %v", removed, err)
	}
	if g, _ := f.s.Group(f.ws, g.ID); g.Size != 0 {
		t.Errorf("size after removal %d, want 0", g.Size)
	}
	other := newFixtureOn(t, f.s)
	_, err = other.s.Group(other.ws, g.ID)
	wantKind(t, err, store.ErrNotFound, "group not found")
	if err := f.s.DeleteGroup(f.ws, g3.ID); err != nil {
		t.Fatal(err)
	}
	if gs, _ := f.s.Groups(f.ws); len(gs) != 1 {
		t.Errorf("after delete %d groups, want 1", len(gs))
	}
}
