package store

import (
	"bytes"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// The contacts list's set filters (a group, opted out, has a conversation) are kept by the
// engine between reads and patched by the writes that change them (index.SetWriter). Every
// write to what they are built from tells its transaction's writer here, before it commits:
// group memberships, the opt-out phone index, the conversation address index (the contact phone
// index is the engine's own).

// groupMemberChanged: tx adds contactID to the group or takes it out.
func groupMemberChanged(tx *wtx, workspaceID, groupID, contactID string) {
	tx.sets.GroupMemberChanged(tx.Tx, idKey(workspaceID), groupID, [16]byte(idKey(contactID)))
}

// groupSetDropped: the group is deleted.
func groupSetDropped(tx *wtx, workspaceID, groupID string) {
	tx.sets.GroupDropped(tx.Tx, idKey(workspaceID), groupID)
}

// optOutChanged: an opt-out of phone is recorded or lifted.
func optOutChanged(tx *wtx, workspaceID, phone string) {
	tx.sets.OptOutChanged(tx.Tx, idKey(workspaceID), phone)
}

// convChanged: a conversation with addrs is created or erased.
func convChanged(tx *wtx, workspaceID string, addrs []string, created bool) {
	tx.sets.ConvChanged(tx.Tx, idKey(workspaceID), addrs, created)
}

// setMembers answers the engine's questions about the members of a kept set from the store's
// records and indexes, as the write transaction leaves them.
var setMembers = index.Members{
	Num: func(tx *kv.Tx, ws []byte, id [16]byte) (uint32, bool) {
		recs := index.WsBucket(tx, bContacts, ws)
		if recs == nil {
			return 0, false
		}
		n, err := recordNum(recs.Get(id[:]))
		return n, err == nil
	},
	InGroup: func(tx *kv.Tx, ws []byte, group string, id [16]byte) bool {
		// A membership is a key with an empty value: Get cannot tell it from none.
		k := append(append(bytes.Clone(ws), idKey(group)...), id[:]...)
		return hasKey(tx.Bucket(bGroupMembers), k)
	},
	HasPhone: func(tx *kv.Tx, ws []byte, kind index.SetKind, phone string) bool {
		if kind == index.SetOptedOut {
			return idxHas(tx.Bucket(bOptOutPhone), ws, phone)
		}
		// A 1:1 conversation is under its address's "a" term, a group one under each member's
		// "m" term.
		idx := tx.Bucket(bConvKey)
		return idxHas(idx, ws, convAddrTerm(phone)) || idxHas(idx, ws, convMemberTerm(phone))
	},
}

// idxHas reports whether an id is indexed under exactly term (idxFirst with the workspace's key).
func idxHas(b *kv.Bucket, ws []byte, term string) bool {
	p := make([]byte, 0, len(ws)+len(term)+2)
	p = append(append(append(append(p, ws...), 0), term...), 0)
	k, _ := b.Cursor().Seek(p)
	return k != nil && bytes.HasPrefix(k, p) && len(k) == len(p)+16
}

// contactText reads contacts' text for the engine from recs, a workspace's records bucket.
func contactText(recs *kv.Bucket) index.TextFunc {
	return func(id [16]byte) (index.Text, bool) {
		v := recs.Get(id[:])
		if v == nil {
			return index.Text{}, false
		}
		return recordTextOf(v)
	}
}

// recordTextOf is the text a search matches in the contact record rec; ok is false when rec does
// not decode.
func recordTextOf(rec []byte) (index.Text, bool) {
	first, last, company, email, phone, err := recordText(rec)
	if err != nil {
		return index.Text{}, false
	}
	return index.Text{First: first, Last: last, Company: company, Email: email, Phone: phone}, true
}

// docOf is the folded text c is searched by.
func docOf(c *Contact) index.Doc {
	return index.DocOf(index.Text{First: c.FirstName, Last: c.LastName, Company: c.Company, Email: c.Email, Phone: c.Phone()})
}
