package store_test

import (
	"path/filepath"
	"testing"

	"switchboard/store"
)

func TestGroupMemberIDsFirstAndContactConversations(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "t.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, _ := st.CreateWorkspace("A")
	other, _ := st.CreateWorkspace("B")
	for _, p := range []string{"+14155550101", "+14155550102", "+14155550103"} {
		if _, _, err := st.AddToGroup(ws.ID, "G", p); err != nil {
			t.Fatal(err)
		}
	}
	g, _ := st.GroupByName(ws.ID, "G")
	all, _ := st.GroupMemberIDs(ws.ID, g.ID)
	first, err := st.GroupMemberIDsFirst(ws.ID, g.ID, 2)
	if err != nil || len(first) != 2 || first[0] != all[0] || first[1] != all[1] {
		t.Errorf("first 2 members %v (%v), want %v", first, err, all[:2])
	}
	if _, err := st.GroupMemberIDsFirst(other.ID, g.ID, 2); err == nil {
		t.Error("another workspace's group listed its members")
	}
	n1, _ := st.AddNumber(ws.ID, "+14155550100", "")
	n2, _ := st.AddNumber(ws.ID, "+14155550200", "")
	c1, _, _ := st.CreateConversation(ws.ID, n1.Phone, "+14155550101")
	c2, _, _ := st.CreateConversation(ws.ID, n2.Phone, "+14155550101")
	if _, _, err := st.CreateConversation(ws.ID, n1.Phone, "+14155550102"); err != nil {
		t.Fatal(err)
	}
	grp, err := st.SendMessage(ws.ID, store.SendInput{From: n1.Phone, To: []string{"+14155550101", "+14155550103"}, Text: "Picnic"})
	if err != nil {
		t.Fatal(err)
	}
	convs, err := st.ContactConversations(ws.ID, "+14155550101")
	if err != nil || len(convs) != 3 {
		t.Fatalf("conversations with +14155550101: %d (%v), want 2 and the group one", len(convs), err)
	}
	for _, c := range convs {
		if c.ID != c1.ID && c.ID != c2.ID && c.ID != grp.ConversationID {
			t.Errorf("unexpected conversation %s", c.ID)
		}
	}
	if convs, _ := st.ContactConversations(other.ID, "+14155550101"); len(convs) != 0 {
		t.Errorf("another workspace lists %d conversations with the number", len(convs))
	}
}
