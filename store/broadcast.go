package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Broadcast limits (DESIGN §3, §11).
const (
	MaxBroadcastRecipients = 10_000  // pasted recipients of one call, after de-duplication
	MaxBroadcastTotal      = 100_000 // recipients after the union of every source
	MaxBroadcastIDs        = 100     // ids in each of groupIds, conversationIds and their exclusions
)

// fanOutChunk is how many recipients one fan-out transaction queues. bbolt splits nodes only at
// commit, so tens of thousands of random-order inserts in one transaction turn quadratic, and a
// long transaction holds the write lock that 1:1 sends wait on; 5,000 measured fastest for the
// implicit contacts a broadcast creates (100k new numbers: 500 per transaction 11.9 s, 2,000
// 8.9 s, 5,000 8.0 s) and keeps each transaction well under a second.
var fanOutChunk = 5000

// BroadcastTargets are the sources of a broadcast's recipients: the union of Recipients, the
// members of GroupIDs and the contacts of ConversationIDs, minus the members of ExcludeGroupIDs
// and the contacts of ExcludeConversationIDs.
type BroadcastTargets struct {
	Recipients             []string `json:"recipients,omitempty"`
	GroupIDs               []string `json:"groupIds,omitempty"`
	ConversationIDs        []string `json:"conversationIds,omitempty"`
	ExcludeGroupIDs        []string `json:"excludeGroupIds,omitempty"`
	ExcludeConversationIDs []string `json:"excludeConversationIds,omitempty"`
}

// BroadcastInput sends one text to many recipients, each in their own 1:1 conversation, now or
// at SendAt.
type BroadcastInput struct {
	Name                   string
	From                   string
	Recipients             []string
	GroupIDs               []string
	ConversationIDs        []string
	ExcludeGroupIDs        []string
	ExcludeConversationIDs []string
	Text                   string
	Media                  []string
	AuthorID               string
	SendAt                 *time.Time
}

// LatestSendAt is the furthest a broadcast may be scheduled: one calendar year after now.
func LatestSendAt(now time.Time) time.Time { return now.AddDate(1, 0, 0) }

// Targets are the input's recipient sources.
func (in *BroadcastInput) Targets() BroadcastTargets {
	return BroadcastTargets{Recipients: in.Recipients, GroupIDs: in.GroupIDs, ConversationIDs: in.ConversationIDs,
		ExcludeGroupIDs: in.ExcludeGroupIDs, ExcludeConversationIDs: in.ExcludeConversationIDs}
}

// Broadcast keys:
//
//	broadcasts           ws | id → Broadcast (kept small: outcomes rewrite it)
//	broadcast_targets    ws | id → BroadcastTargets (what it was aimed at)
//	broadcast_schedule   due(8) | ws | id → empty (scheduled broadcasts by start time)
//	broadcast_pending    ws | id | seq(4) → recipients still to queue, comma-separated
//
// A broadcast is fanned out in chunks, each its own transaction that deletes its pending entry:
// a crash in between leaves the rest pending, and ResumeBroadcasts finishes it at start.

func scheduleKey(at time.Time, ws, id string) []byte {
	return append(encodeUint(uint64(at.UnixNano())), wsKey(ws, id)...)
}

func pendingKey(ws, id string, seq uint32) []byte {
	return binary.BigEndian.AppendUint32(wsKey(ws, id), seq)
}

// SendBroadcast stores a broadcast and, unless it is scheduled (SendAt), resolves its recipients
// and queues one low-priority copy per recipient that has not opted out, in chunks; opted-out
// recipients are skipped and counted. The result's Recipients are the queued ones (pasted ones
// in the caller's order first).
func (s *Store) SendBroadcast(workspaceID string, in BroadcastInput) (Broadcast, error) {
	in.Recipients = dedupe(slices.Clone(in.Recipients))
	targets := in.Targets()
	var b Broadcast
	var recipients []string
	// Resolve in a read transaction: a 100,000-member group takes a while and holds no lock.
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		var errs ValidationError
		if ok, err := isActiveNumber(tx, workspaceID, in.From); err != nil {
			return err
		} else if !ok {
			errs = append(errs, fromNumberError(in.From)...)
		}
		targetErrs, err := checkTargets(tx, workspaceID, &targets)
		if err != nil {
			return err
		}
		errs = append(errs, targetErrs...)
		if msg, err := checkText(tx, workspaceID, in.Text); err != nil {
			return err
		} else if msg != "" {
			errs = append(errs, FieldError{"text", msg})
		}
		if errs != nil {
			sortFieldErrors(errs)
			return errs
		}
		if in.SendAt == nil {
			recipients, err = resolveRecipients(tx, workspaceID, &targets)
		}
		return err
	})
	if err != nil {
		return b, err
	}
	if len(recipients) > MaxBroadcastTotal {
		return b, ValidationError{{"recipients", fmt.Sprintf("the broadcast would reach %d recipients; at most %d", len(recipients), MaxBroadcastTotal)}}
	}
	err = s.updateNow(func(tx *bolt.Tx, fx *effects) error {
		n, ok, err := activeNumber(tx, workspaceID, in.From)
		if err != nil {
			return err
		}
		if !ok {
			return fromNumberError(in.From)
		}
		now := s.Now()
		b = Broadcast{ID: s.NewID(), WorkspaceID: workspaceID, TenantID: s.tenantID, Name: strings.TrimSpace(in.Name),
			From: in.From, NumberID: n.ID, Text: in.Text, Media: orEmpty(in.Media), CreatedByID: in.AuthorID,
			SendAt: in.SendAt, CreatedAt: now, UpdatedAt: now}
		if err := putJSON(tx.Bucket(bBroadcastTargets), wsKey(workspaceID, b.ID), targets); err != nil {
			return err
		}
		if in.SendAt != nil {
			b.Status = BroadcastScheduled
			fx.scheduled = true
			if err := tx.Bucket(bBroadcastSchedule).Put(scheduleKey(*in.SendAt, workspaceID, b.ID), nil); err != nil {
				return err
			}
			return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, b.ID), b)
		}
		return s.beginFanOut(tx, &b, recipients, now)
	})
	if err != nil || b.Status == BroadcastScheduled {
		b.Recipients = []string{}
		return b, err
	}
	queued, err := s.fanOut(workspaceID, b.ID)
	if err != nil {
		return b, err
	}
	if b, err = s.Broadcast(workspaceID, b.ID); err != nil {
		return b, err
	}
	// The queued recipients: pasted ones in the caller's order, then the others sorted.
	b.Recipients = make([]string, 0, len(queued))
	for _, r := range in.Recipients {
		if queued[r] {
			b.Recipients = append(b.Recipients, r)
			delete(queued, r)
		}
	}
	rest := make([]string, 0, len(queued))
	for r := range queued {
		rest = append(rest, r)
	}
	slices.Sort(rest)
	b.Recipients = append(b.Recipients, rest...)
	return b, nil
}

// beginFanOut marks b sending and writes its recipients as pending chunks, in the caller's
// transaction; fanOut then queues them.
func (s *Store) beginFanOut(tx *bolt.Tx, b *Broadcast, recipients []string, now time.Time) error {
	b.Status, b.StartedAt, b.Fanout = BroadcastSending, &now, len(recipients) > 0
	if len(recipients) == 0 {
		b.Status, b.DeliveredAt = BroadcastSent, &now
	}
	sorted := slices.Clone(recipients)
	slices.Sort(sorted) // most index keys are then appended in order, which bbolt does cheaply
	for seq := 0; len(sorted) > 0; seq++ {
		part := sorted[:min(fanOutChunk, len(sorted))]
		sorted = sorted[len(part):]
		if err := tx.Bucket(bBroadcastPending).Put(pendingKey(b.WorkspaceID, b.ID, uint32(seq)), []byte(strings.Join(part, ","))); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bBroadcasts), wsKey(b.WorkspaceID, b.ID), b)
}

// fanOut queues a broadcast's pending recipients, one chunk per transaction, and reports the
// recipients it queued.
func (s *Store) fanOut(workspaceID, id string) (map[string]bool, error) {
	queued := map[string]bool{}
	for {
		more := false
		err := s.updateNow(func(tx *bolt.Tx, fx *effects) error {
			var err error
			more, err = s.fanOutChunk(tx, fx, workspaceID, id, queued)
			return err
		})
		if err != nil || !more {
			return queued, err
		}
	}
}

// fanOutChunk queues the first pending chunk of a broadcast and reports whether more remain.
func (s *Store) fanOutChunk(tx *bolt.Tx, fx *effects, workspaceID, id string, queued map[string]bool) (bool, error) {
	var b Broadcast
	if ok, err := getJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), &b); err != nil || !ok {
		return false, err
	}
	p := wsKey(workspaceID, id)
	pending := tx.Bucket(bBroadcastPending)
	k, v := pending.Cursor().Seek(p)
	if k == nil || !bytes.HasPrefix(k, p) || b.Status != BroadcastSending {
		return false, nil
	}
	chunk := strings.Split(string(v), ",")
	if err := pending.Delete(bytes.Clone(k)); err != nil {
		return false, err
	}
	w, err := getWorkspace(tx, workspaceID)
	if err != nil {
		return false, err
	}
	var n PhoneNumber
	if ok, err := getJSON(tx.Bucket(bNumbers), wsKey(workspaceID, b.NumberID), &n); err != nil {
		return false, err
	} else if !ok {
		n = PhoneNumber{ID: b.NumberID, WorkspaceID: workspaceID, Phone: b.From}
	}
	copyOf, err := s.copyMaker(tx, &w, &b)
	if err != nil {
		return false, err
	}
	now := s.Now()
	for _, r := range chunk {
		if r == "" {
			continue
		}
		out, err := s.isOptedOut(tx, workspaceID, r)
		if err != nil {
			return false, err
		}
		if out {
			b.TotalOptedOut++
			continue
		}
		conv, created, err := s.conversationFor(tx, fx, workspaceID, n, []string{r}, &now)
		if err != nil {
			return false, err
		}
		text, holdUntil, err := copyOf(r)
		if err != nil {
			return false, err
		}
		msg := SendInput{Text: text, Media: b.Media, AuthorID: b.CreatedByID}
		if tooLongFilled(text) {
			if err := s.failCopy(tx, fx, &conv, created, now, msg, &b, "text "+filledTooLong); err != nil {
				return false, err
			}
			continue
		}
		if _, err := s.queueCopy(tx, fx, &conv, created, now, msg, b.ID, holdUntil); err != nil {
			return false, err
		}
		b.TotalQueued++
		b.Outstanding++
		queued[r] = true
	}
	next, _ := pending.Cursor().Seek(p)
	more := next != nil && bytes.HasPrefix(next, p)
	b.UpdatedAt = now
	if !more {
		b.Fanout = false
		if b.Outstanding <= 0 {
			b.Status, b.DeliveredAt = BroadcastSent, &now
		}
	}
	return more, putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, b.ID), b)
}

// queueCopy queues a broadcast copy, or holds it (status scheduled) until holdUntil when that is set.
func (s *Store) queueCopy(tx *bolt.Tx, fx *effects, conv *Conversation, convCreated bool, now time.Time, in SendInput, broadcastID string, holdUntil time.Time) (Message, error) {
	if holdUntil.IsZero() {
		return s.queueMessage(tx, fx, conv, convCreated, now, in, PriorityLow, broadcastID)
	}
	return s.storeMessage(tx, fx, conv, convCreated, now, in, PriorityLow, broadcastID, holdUntil)
}

// ResumeBroadcasts finishes the fan-out of broadcasts a crash cut off (pending chunks left).
func (s *Store) ResumeBroadcasts() (int, error) {
	var refs [][2]string
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bBroadcastPending).Cursor()
		for k, _ := c.First(); k != nil && len(k) >= 32; k, _ = c.Seek(nextPrefix(k[:32])) {
			refs = append(refs, [2]string{idFromKey(k[:16]), idFromKey(k[:32])})
		}
		return nil
	})
	for _, r := range refs {
		if err != nil {
			break
		}
		_, err = s.fanOut(r[0], r[1])
	}
	return len(refs), err
}

// DueBroadcast is a scheduled broadcast whose time has come.
type DueBroadcast struct {
	WorkspaceID, ID string
	At              time.Time
}

// DueBroadcasts lists the scheduled broadcasts whose time has come and when the next one is due.
func (s *Store) DueBroadcasts(now time.Time) (due []DueBroadcast, next time.Time, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bBroadcastSchedule).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) != 40 {
				continue
			}
			at := time.Unix(0, int64(decodeUint(k[:8])))
			if at.After(now) {
				next = at
				break
			}
			due = append(due, DueBroadcast{WorkspaceID: idFromKey(k[8:24]), ID: idFromKey(k[8:40]), At: at})
		}
		return nil
	})
	return due, next, err
}

// StartScheduledBroadcast starts a scheduled broadcast whose time has come: its recipients are
// resolved now (groups as they are now), then queued like any broadcast. A broadcast whose
// number is no longer active, or that reaches nobody, is sent with nothing queued — or failed
// when its targets are gone.
func (s *Store) StartScheduledBroadcast(d DueBroadcast) error {
	workspaceID, id := d.WorkspaceID, d.ID
	var recipients []string
	var b Broadcast
	err := s.db.View(func(tx *bolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bBroadcasts), wsKeyChecked(workspaceID, id), &b)
		if err != nil || !ok || b.Status != BroadcastScheduled {
			return err
		}
		var t BroadcastTargets
		if _, err := getJSON(tx.Bucket(bBroadcastTargets), wsKey(workspaceID, id), &t); err != nil {
			return err
		}
		recipients, err = resolveRecipients(tx, workspaceID, &t)
		return err
	})
	if err != nil {
		return err
	}
	recipients = recipients[:min(len(recipients), MaxBroadcastTotal)]
	started := false
	err = s.updateNow(func(tx *bolt.Tx, fx *effects) error {
		// The entry goes whatever became of the broadcast, so it is never looked at again.
		if err := tx.Bucket(bBroadcastSchedule).Delete(scheduleKey(d.At, workspaceID, id)); err != nil {
			return err
		}
		var cur Broadcast
		ok, err := getJSON(tx.Bucket(bBroadcasts), wsKeyChecked(workspaceID, id), &cur)
		if err != nil || !ok || cur.Status != BroadcastScheduled {
			return err // cancelled meanwhile
		}
		started = true
		now := s.Now()
		if ok, err := isActiveNumber(tx, workspaceID, cur.From); err != nil {
			return err
		} else if !ok {
			cur.Status, cur.UpdatedAt = BroadcastFailed, now
			return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), cur)
		}
		return s.beginFanOut(tx, &cur, recipients, now)
	})
	if err != nil || !started {
		return err
	}
	_, err = s.fanOut(workspaceID, id)
	return err
}

// CancelBroadcast cancels a draft, scheduled or sending broadcast: it stops, and its copies still
// queued or held become cancelled (copies already handed to the carrier keep their state).
// Any other status is ErrConflict.
func (s *Store) CancelBroadcast(workspaceID, id string) (Broadcast, error) {
	var b Broadcast
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		ok, err := getJSON(tx.Bucket(bBroadcasts), wsKeyChecked(workspaceID, id), &b)
		if err != nil {
			return err
		}
		if !ok {
			return fx.refuse(errorf(ErrNotFound, "broadcast not found"))
		}
		switch b.Status {
		case BroadcastDraft, BroadcastScheduled, BroadcastSending:
		default:
			return fx.refuse(errorf(ErrConflict, "broadcast is %s: it can no longer be cancelled", b.Status))
		}
		if b.Status == BroadcastScheduled && b.SendAt != nil {
			if err := tx.Bucket(bBroadcastSchedule).Delete(scheduleKey(*b.SendAt, workspaceID, id)); err != nil {
				return err
			}
		}
		now := s.Now()
		b.Status, b.CancelledAt, b.UpdatedAt, b.Fanout = BroadcastCancelled, &now, now, false
		// Recipients not queued yet are dropped.
		p := wsKey(workspaceID, id)
		var keys [][]byte
		c := tx.Bucket(bBroadcastPending).Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			if err := tx.Bucket(bBroadcastPending).Delete(k); err != nil {
				return err
			}
		}
		return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), b)
	})
	if err != nil {
		return b, err
	}
	// The queued copies, in bounded transactions so that 1:1 sends never wait long. A copy the
	// dispatcher claims meanwhile is cancelled by the claim (it checks the broadcast).
	for {
		n := 0
		err = s.updateNow(func(tx *bolt.Tx, fx *effects) error {
			var err error
			n, err = s.cancelCopies(tx, fx, &b, fanOutChunk)
			return err
		})
		if err != nil || n < fanOutChunk {
			break
		}
	}
	if err != nil {
		return b, err
	}
	return s.Broadcast(workspaceID, id)
}

// cancelCopies cancels up to max queued or held copies of b and reports how many.
func (s *Store) cancelCopies(tx *bolt.Tx, fx *effects, b *Broadcast, max int) (int, error) {
	bid := idKey(b.ID)
	var msgs [][]byte // message ids
	var readyKeys, delayedKeys [][]byte
	p := append(idKey(b.NumberID), priorityByte(PriorityLow))
	c := tx.Bucket(bOutbox).Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(msgs) < max; k, v = c.Next() {
		if len(v) == 32 && bytes.Equal(v[16:], bid) {
			readyKeys = append(readyKeys, bytes.Clone(k))
			msgs = append(msgs, bytes.Clone(k[17:]))
		}
	}
	c = tx.Bucket(bOutboxDelayed).Cursor()
	for k, v := c.First(); k != nil && len(msgs) < max; k, v = c.Next() {
		if len(k) == 24 && len(v) == 49 && bytes.Equal(v[33:], bid) {
			delayedKeys = append(delayedKeys, bytes.Clone(k))
			msgs = append(msgs, bytes.Clone(k[8:]))
		}
	}
	for _, k := range readyKeys {
		if err := tx.Bucket(bOutbox).Delete(k); err != nil {
			return 0, err
		}
	}
	for _, k := range delayedKeys {
		if err := tx.Bucket(bOutboxDelayed).Delete(k); err != nil {
			return 0, err
		}
	}
	now := s.Now()
	for _, id := range msgs {
		fx.depth--
		key := append(idKey(b.WorkspaceID), id...)
		var m Message
		ok, err := getJSON(tx.Bucket(bMessages), key, &m)
		if err != nil {
			return 0, err
		}
		if !ok || (m.Status != MessageQueued && m.Status != MessageScheduled) {
			continue
		}
		m.Status, m.UpdatedAt = MessageCancelled, now
		if err := putJSON(tx.Bucket(bMessages), key, m); err != nil {
			return 0, err
		}
	}
	return len(msgs), nil
}

// Broadcast returns a broadcast by id.
func (s *Store) Broadcast(workspaceID, id string) (Broadcast, error) {
	var b Broadcast
	err := s.db.View(func(tx *bolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bBroadcasts), wsKeyChecked(workspaceID, id), &b)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "broadcast not found")
		}
		return err
	})
	return b, err
}

// BroadcastTargetsOf returns what a broadcast was aimed at.
func (s *Store) BroadcastTargetsOf(workspaceID, id string) (BroadcastTargets, error) {
	var t BroadcastTargets
	err := s.db.View(func(tx *bolt.Tx) error {
		_, err := getJSON(tx.Bucket(bBroadcastTargets), wsKeyChecked(workspaceID, id), &t)
		return err
	})
	return t, err
}

// Broadcasts lists a workspace's broadcasts, newest first, at most limit.
func (s *Store) Broadcasts(workspaceID string, limit int) ([]Broadcast, error) {
	out := []Broadcast{}
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		return reverseScan(tx.Bucket(bBroadcasts), idKey(workspaceID), func(k []byte) (bool, error) {
			var b Broadcast
			if _, err := getJSON(tx.Bucket(bBroadcasts), k, &b); err != nil {
				return true, err
			}
			out = append(out, b)
			return len(out) >= limit, nil
		})
	})
	return out, err
}

// checkTargets checks that every id of t is one of the workspace's groups or conversations; the
// failures name the field (workspace data, DESIGN §3).
func checkTargets(tx *bolt.Tx, workspaceID string, t *BroadcastTargets) (ValidationError, error) {
	var errs ValidationError
	for _, f := range []struct {
		name   string
		ids    []string
		bucket []byte
		what   string
	}{
		{"conversationIds", t.ConversationIDs, bConversations, "conversation"},
		{"excludeConversationIds", t.ExcludeConversationIDs, bConversations, "conversation"},
		{"excludeGroupIds", t.ExcludeGroupIDs, bGroups, "group"},
		{"groupIds", t.GroupIDs, bGroups, "group"},
	} {
		for i, id := range f.ids {
			if tx.Bucket(f.bucket).Get(wsKeyChecked(workspaceID, id)) == nil {
				errs = append(errs, FieldError{f.name, fmt.Sprintf("%s[%d] %q is not a %s of this workspace", f.name, i, id, f.what)})
				break
			}
		}
	}
	return errs, nil
}

// resolveRecipients is the union of t's sources minus its exclusions, de-duplicated.
func resolveRecipients(tx *bolt.Tx, workspaceID string, t *BroadcastTargets) ([]string, error) {
	set := map[string]bool{}
	for _, r := range t.Recipients {
		set[r] = true
	}
	add := func(phones []string, include bool) {
		for _, p := range phones {
			if include {
				set[p] = true
			} else {
				delete(set, p)
			}
		}
	}
	groupPhones := func(ids []string) ([]string, error) {
		var out []string
		for _, g := range ids {
			for _, cid := range groupMembers(tx, workspaceID, g) {
				c, err := getContact(tx, workspaceID, cid)
				if err != nil {
					continue // deleted meanwhile
				}
				if p := c.Phone(); p != "" {
					out = append(out, p)
				}
			}
		}
		return out, nil
	}
	convPhones := func(ids []string) ([]string, error) {
		var out []string
		for _, id := range ids {
			var c Conversation
			ok, err := getJSON(tx.Bucket(bConversations), wsKeyChecked(workspaceID, id), &c)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, c.Addresses...)
			}
		}
		return out, nil
	}
	for _, step := range []struct {
		ids     []string
		phones  func([]string) ([]string, error)
		include bool
	}{
		{t.GroupIDs, groupPhones, true},
		{t.ConversationIDs, convPhones, true},
		{t.ExcludeGroupIDs, groupPhones, false},
		{t.ExcludeConversationIDs, convPhones, false},
	} {
		phones, err := step.phones(step.ids)
		if err != nil {
			return nil, err
		}
		add(phones, step.include)
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

func sortFieldErrors(errs ValidationError) {
	slices.SortStableFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
}

// checkText checks a text's merge tags against the workspace's custom properties: "" or the
// message of a validation error on `text`.
func checkText(tx *bolt.Tx, workspaceID, text string) (string, error) {
	if !strings.Contains(text, "{{") {
		return "", nil
	}
	types, err := propertyTypes(tx, workspaceID)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	return CheckTemplate(text, names), nil
}

// copyMaker returns what each recipient's copy of b is: its text with merge tags filled from the
// recipient's contact, and, when the workspace has quiet hours and they are on in the contact's
// time zone, when the copy may go.
func (s *Store) copyMaker(tx *bolt.Tx, w *Workspace, b *Broadcast) (func(phone string) (string, time.Time, error), error) {
	tmpl, err := ParseTemplate(b.Text)
	if err != nil {
		tmpl = Template{} // checked when the broadcast was made; a text that no longer parses goes as written
	}
	quiet, _ := ParseQuietHours(w.QuietHours)
	wsLoc := w.Location()
	now := s.Now()
	needContact := tmpl.HasTags() || !quiet.Off()
	return func(phone string) (string, time.Time, error) {
		if !needContact {
			return b.Text, time.Time{}, nil
		}
		var c Contact
		if id := contactIDByPhone(tx, b.WorkspaceID, phone); id != "" {
			var err error
			if c, err = getContact(tx, b.WorkspaceID, id); err != nil {
				return "", time.Time{}, err
			}
		}
		text := b.Text
		if tmpl.HasTags() {
			text = tmpl.Render(func(name string) string {
				if name == "phone" && c.ID == "" {
					return phone
				}
				return ContactTagValue(&c, name)
			})
		}
		var hold time.Time
		if !quiet.Off() {
			if end, ok := quiet.Until(now, ContactLocation(c.TimeZone, phone, wsLoc, now)); ok {
				hold = end
			}
		}
		return text, hold, nil
	}, nil
}
