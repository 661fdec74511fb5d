package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// DeleteContact deletes the workspace's contact of phone: its record, its inbound channel, every
// index entry (phone, email, search postings, display order, num slot) and its group
// memberships, with a contact.deleted event, in one transaction. With erase it also deletes the
// contact's 1:1 conversations with everything of them (messages with their queue entries, media
// and pending fetches, comments, triage log, snooze and send-later entries) and its member
// entries of group conversations (kept: they hold other people's messages): a data subject's
// erasure. Opt-outs and blocks are kept: they are about the number, and a number
// erased and added again must still not be texted. An unknown phone is ErrNotFound.
func (s *Store) DeleteContact(workspaceID, phone string, erase bool) (Contact, error) {
	var c Contact
	write := s.update
	if erase {
		// An erasure rewrites every message of the contact: alone, not batched with others'
		// sends, so that one large erasure does not hold their commit.
		write = s.updateNow
	}
	err := write(func(tx *wtx) error {
		id := contactIDByPhone(tx.Tx, workspaceID, phone)
		if id == "" {
			return tx.refuse(errorf(ErrNotFound, "contact not found"))
		}
		var err error
		if c, err = s.deleteContact(tx, workspaceID, id); err != nil {
			return err
		}
		if erase {
			if err := eraseConsents(tx.Tx, workspaceID, phone); err != nil {
				return err
			}
			if err := eraseBroadcastRefs(tx.Tx, workspaceID, phone); err != nil {
				return err
			}
			// A landline flag is what a carrier said of the person's number: it goes too.
			if err := tx.Bucket(bNumberFlags).Delete(numberFlagKey(workspaceID, phone)); err != nil {
				return err
			}
			return eraseConversations(tx, workspaceID, phone)
		}
		return nil
	})
	return c, err
}

// eraseConsents removes the consent history of phone: it describes the person being erased.
// The opt-out itself stays in its own buckets, so the number stays opted out.
func eraseConsents(tx *kv.Tx, workspaceID, phone string) error {
	b := tx.Bucket(bConsents)
	var doomed [][]byte
	if err := forEachPrefix(b, idxPrefix(workspaceID, phone), func(k, _ []byte) error {
		doomed = append(doomed, bytes.Clone(k))
		return nil
	}); err != nil {
		return err
	}
	for _, k := range doomed {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// eraseBroadcastRefs takes phone out of the workspace's broadcasts: the numbers pasted as
// recipients (kept as what each broadcast was aimed at, and read again when a scheduled one
// starts) and the chunks of recipients a broadcast has still to queue, so nothing is sent to
// the erased number later. A workspace has few broadcasts: a scan of its keys.
func eraseBroadcastRefs(tx *kv.Tx, workspaceID, phone string) error {
	ws := idKey(workspaceID)
	targets := tx.Bucket(bBroadcastTargets)
	var aimed [][]byte
	if err := forEachPrefix(targets, ws, func(k, v []byte) error {
		if bytes.Contains(v, []byte(phone)) {
			aimed = append(aimed, bytes.Clone(k))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range aimed {
		var t BroadcastTargets
		if _, err := getJSON(targets, k, &t); err != nil {
			return err
		}
		t.Recipients = slices.DeleteFunc(t.Recipients, func(r string) bool { return r == phone })
		if err := putJSON(targets, k, t); err != nil {
			return err
		}
	}
	pending := tx.Bucket(bBroadcastPending)
	type change struct{ k, v []byte }
	var changes []change
	if err := forEachPrefix(pending, ws, func(k, v []byte) error {
		if !bytes.Contains(v, []byte(phone)) {
			return nil
		}
		rs := slices.DeleteFunc(strings.Split(string(v), ","), func(r string) bool { return r == phone })
		changes = append(changes, change{bytes.Clone(k), []byte(strings.Join(rs, ","))})
		return nil
	}); err != nil {
		return err
	}
	for _, c := range changes {
		// An emptied chunk stays, empty: the fan-out skips empty entries and moves on.
		if err := pending.Put(c.k, c.v); err != nil {
			return err
		}
	}
	return nil
}

// deleteContactsByID deletes the contacts of ids (bulk delete from the contacts list), skipping
// ids already gone; it returns how many it deleted.
func (s *Store) deleteContactsByID(tx *wtx, workspaceID string, ids []string) (int, error) {
	n := 0
	for _, id := range ids {
		if _, err := s.deleteContact(tx, workspaceID, id); err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return n, err
		}
		n++
	}
	return n, nil
}

// deleteContact removes contact id with its index entries and group memberships and emits
// contact.deleted.
func (s *Store) deleteContact(tx *wtx, workspaceID, id string) (Contact, error) {
	c, num, err := getContactNum(tx.Tx, workspaceID, id)
	if err != nil {
		return c, err
	}
	ws := idKey(workspaceID)
	if err := tx.idx.DeleteContact(tx.Tx, &tx.sets, ws, indexEntry(&c), num, docOf(&c)); err != nil {
		return c, err
	}
	if err := tx.idx.FreeNum(tx.Tx, ws, num); err != nil {
		return c, err
	}
	if err := removeMemberships(tx, s, workspaceID, c.ID); err != nil {
		return c, err
	}
	if err := index.WsBucket(tx.Tx, bContacts, ws).Delete(idKey(c.ID)); err != nil {
		return c, err
	}
	meta := tx.Bucket(bMeta)
	k := append(bytes.Clone(metaDeletedContacts), ws...)
	if err := meta.Put(k, encodeUint(decodeUint(meta.Get(k))+1)); err != nil {
		return c, err
	}
	return c, s.emit(tx, workspaceID, EventContactDeleted, contactPayload(&c))
}

// removeMemberships takes the contact out of every group it is in, keeping each group's size.
func removeMemberships(tx *wtx, s *Store, workspaceID, contactID string) error {
	p := append(idKey(workspaceID), idKey(contactID)...)
	var groups []string
	if err := forEachPrefix(tx.Bucket(bContactGroups), p, func(k, _ []byte) error {
		groups = append(groups, idFromKey(k))
		return nil
	}); err != nil {
		return err
	}
	for _, gid := range groups {
		if err := tx.Bucket(bContactGroups).Delete(memberKey(workspaceID, contactID, gid)); err != nil {
			return err
		}
		groupMemberChanged(tx, workspaceID, gid, contactID)
		if err := tx.Bucket(bGroupMembers).Delete(memberKey(workspaceID, gid, contactID)); err != nil {
			return err
		}
		g, err := getGroup(tx.Tx, workspaceID, gid)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return err
		}
		g.Size = max(0, g.Size-1)
		g.UpdatedAt = s.Now()
		if err := putJSON(tx.Bucket(bGroups), wsKey(workspaceID, g.ID), g); err != nil {
			return err
		}
	}
	return nil
}

// eraseConversations deletes the workspace's 1:1 conversations with phone: each conversation
// with its index entries (inbox activity, snooze time), its messages (with their queue,
// carrier-id, word-index and media entries, and pending media fetches), its comments, its
// triage log and its send-later entries. Group conversations the number is part of hold other
// people's messages too and are kept, but no longer listed under the number: its member entries
// go, so the number added again does not see them in its history.
func eraseConversations(tx *wtx, workspaceID, phone string) error {
	idx := tx.Bucket(bConvKey)
	for _, convID := range idxIDs(idx, workspaceID, convMemberTerm(phone)) {
		convChanged(tx, workspaceID, []string{phone}, false)
		if err := idx.Delete(idxKey(workspaceID, convMemberTerm(phone), convID)); err != nil {
			return err
		}
	}
	erased := map[string]bool{} // message ids, for the media fetch queue
	for _, convID := range idxIDs(tx.Bucket(bConvKey), workspaceID, convAddrTerm(phone)) {
		var conv Conversation
		ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, convID), &conv)
		if err != nil {
			return err
		}
		if !ok || conv.IsGroup() {
			continue
		}
		// What the conversation counted in the reports goes with it.
		if err := tx.reportForget(&conv); err != nil {
			return err
		}
		for _, mid := range idxIDs(tx.Bucket(bConvMessages), workspaceID, convID) {
			if err := eraseMessage(tx, workspaceID, convID, mid); err != nil {
				return err
			}
			erased[mid] = true
		}
		// The thread index's other terms: comments ("c"), triage entries ("a", with their
		// records) and messages waiting to be sent later ("s", whose messages went above).
		for _, t := range []struct {
			term    string
			records []byte
		}{{"c" + convID, bComments}, {entryTerm(convID), bConvEntries}, {sendLaterTerm(convID), nil}} {
			for _, id := range idxIDs(tx.Bucket(bConvMessages), workspaceID, t.term) {
				if err := tx.Bucket(bConvMessages).Delete(idxKey(workspaceID, t.term, id)); err != nil {
					return err
				}
				if t.records == nil {
					continue
				}
				if err := tx.Bucket(t.records).Delete(wsKey(workspaceID, id)); err != nil {
					return err
				}
			}
		}
		if conv.SnoozedUntil != nil {
			if err := tx.Bucket(bConvSnooze).Delete(snoozeKey(&conv)); err != nil {
				return err
			}
		}
		// Its assignees no longer hold it open, and it is no longer overdue.
		gone := conv
		gone.Status = ConversationClosed
		if err := syncOpenAssigned(tx.Tx, &gone, conv.Status, conv.AssignedUserIDs); err != nil {
			return err
		}
		if err := answered(tx.Tx, &gone); err != nil {
			return err
		}
		convChanged(tx, workspaceID, strings.Split(conv.InboundChannelAddresses, "-"), false)
		if err := idx.Delete(idxKey(workspaceID, convKeyTerm(conv.From, conv.InboundChannelAddresses), conv.ID)); err != nil {
			return err
		}
		if err := idx.Delete(idxKey(workspaceID, convAddrTerm(conv.InboundChannelAddresses), conv.ID)); err != nil {
			return err
		}
		if err := deleteActivity(tx.Tx, &conv); err != nil {
			return err
		}
		if err := forgetConversation(tx.Tx, workspaceID, conv.ID); err != nil {
			return err
		}
		if err := tx.Bucket(bConversations).Delete(wsKey(workspaceID, conv.ID)); err != nil {
			return err
		}
	}
	return dropMediaFetches(tx.Tx, workspaceID, erased)
}

// dropMediaFetches removes the queued media fetches of the erased messages: their rows hold
// the carrier's URLs of the contact's files. The queue holds only fetches not yet done (few),
// so a scan.
func dropMediaFetches(tx *kv.Tx, workspaceID string, erased map[string]bool) error {
	if len(erased) == 0 {
		return nil
	}
	q := tx.Bucket(bMediaFetch)
	var doomed [][]byte
	err := q.ForEach(func(k, v []byte) error {
		var f MediaFetch
		if err := jsonUnmarshal(v, &f); err != nil {
			return err
		}
		if f.WorkspaceID == workspaceID && erased[f.MessageID] {
			doomed = append(doomed, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range doomed {
		if err := q.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// eraseMessage deletes a message with its index entries; one still waiting in the outbox leaves
// it (the dispatcher must not send a message that no longer exists).
func eraseMessage(tx *wtx, workspaceID, convID, id string) error {
	key := wsKey(workspaceID, id)
	var m Message
	ok, err := getJSON(tx.Bucket(bMessages), key, &m)
	if err != nil {
		return err
	}
	if !ok {
		return tx.Bucket(bConvMessages).Delete(idxKey(workspaceID, convID, id))
	}
	mid := idKey(m.ID)
	switch m.Status {
	case MessageQueued:
		k := readyKey(idKey(m.NumberID), priorityByte(m.Priority), mid)
		if hasKey(tx.Bucket(bOutbox), k) {
			if err := tx.Bucket(bOutbox).Delete(k); err != nil {
				return err
			}
			tx.depth--
		}
	case MessageSending:
		if tx.Bucket(bOutboxSending).Get(mid) != nil {
			if err := tx.Bucket(bOutboxSending).Delete(mid); err != nil {
				return err
			}
			tx.depth--
		}
	}
	if m.Status == MessageScheduled || m.Status == MessageQueued {
		// Retries and held copies wait in the delayed queue, keyed by due time: few, so a scan.
		var doomed [][]byte
		c := tx.Bucket(bOutboxDelayed).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) == 8+16 && bytes.Equal(k[8:], mid) {
				doomed = append(doomed, bytes.Clone(k))
			}
		}
		for _, k := range doomed {
			if err := tx.Bucket(bOutboxDelayed).Delete(k); err != nil {
				return err
			}
			tx.depth--
		}
	}
	var pids []string
	if m.ProviderID != "" {
		pids = append(pids, m.ProviderID)
	}
	if m.ProviderRef != "" {
		pids = append(pids, strings.Split(m.ProviderRef, ",")...)
	}
	return deleteMessageRecord(tx, workspaceID, key, convID, m.Provider, pids)
}

// CountAllContacts is the number of the workspace's contacts without reading any: the nums
// sequence (one per contact ever created) minus the contacts deleted.
func (s *Store) CountAllContacts(workspaceID string) (int, error) {
	n := 0
	err := s.view(func(tx *kv.Tx) error {
		n = countAll(tx, workspaceID)
		return nil
	})
	return n, err
}

func countAll(tx *kv.Tx, workspaceID string) int {
	ws := idKey(workspaceID)
	nums := index.WsBucket(tx, bContactNums, ws)
	if nums == nil {
		return 0
	}
	deleted := decodeUint(tx.Bucket(bMeta).Get(append(bytes.Clone(metaDeletedContacts), ws...)))
	return int(nums.Sequence() - deleted)
}

// slotID is a num slot's id as a string ("" for none).
func slotID(id [16]byte) string { return ulid.ULID(id).String() }

func u32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
