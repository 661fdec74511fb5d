package store

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// fanOutChunk is how many recipients one fan-out transaction queues. bbolt splits nodes only at
// commit, so tens of thousands of random-order inserts in one transaction turn quadratic, and a
// long transaction holds the write lock that 1:1 sends wait on; 5,000 measured fastest for the
// implicit contacts a broadcast creates (100k new numbers: 500 per transaction 11.9 s, 2,000
// 8.9 s, 5,000 8.0 s) and keeps each transaction well under a second.
var fanOutChunk = 5000

// beginFanOut marks b sending and writes its recipients as pending chunks, in the caller's
// transaction; fanOut then queues them.
func (s *Store) beginFanOut(tx *kv.Tx, b *Broadcast, recipients []string, now time.Time) error {
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
		err := s.updateNow(func(tx *wtx) error {
			var err error
			more, err = s.fanOutChunk(tx, workspaceID, id, queued)
			return err
		})
		if err != nil || !more {
			return queued, err
		}
	}
}

// fanOutChunk queues the first pending chunk of a broadcast and reports whether more remain.
func (s *Store) fanOutChunk(tx *wtx, workspaceID, id string, queued map[string]bool) (bool, error) {
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
	w, err := getWorkspace(tx.Tx, workspaceID)
	if err != nil {
		return false, err
	}
	var n PhoneNumber
	if ok, err := getJSON(tx.Bucket(bNumbers), wsKey(workspaceID, b.NumberID), &n); err != nil {
		return false, err
	} else if !ok {
		n = PhoneNumber{ID: b.NumberID, WorkspaceID: workspaceID, Phone: b.From}
	}
	now := s.Now()
	hold := &copyHold{stateHours: w.StateHours, wsLoc: w.Location(), now: now}
	hold.quiet, _ = ParseQuietHours(w.QuietHours)
	if n.DailyCap > 0 {
		hold.cap = newDayCounter(n.DailyCap, n.ID, hold.wsLoc, now)
	}
	copyOf, err := s.copyMaker(tx.Tx, &w, &b, hold)
	if err != nil {
		return false, err
	}
	// The chunk's new contacts and copies are indexed term by term at its end: thousands of
	// copies share their words, and nothing in this transaction searches them before.
	tx.postings, tx.msgIndex = tx.idx.NewImportBuf(), index.NewMsgBlocks()
	for _, r := range chunk {
		if r == "" {
			continue
		}
		out, err := s.isOptedOut(tx.Tx, workspaceID, r)
		if err != nil {
			return false, err
		}
		if out {
			b.TotalOptedOut++
			continue
		}
		// A number a carrier proved cannot take texts (landline) is skipped, counted as failed
		// with that reason.
		if _, flagged := numberFlag(tx.Tx, workspaceID, r); flagged {
			b.TotalFailed++
			b.TotalLandline++
			continue
		}
		// A broadcast copy does not open a conversation: only the contact's reply does.
		conv, created, err := s.conversationWith(tx, workspaceID, n, []string{r}, &now, ConversationClosed)
		if err != nil {
			return false, err
		}
		text, held, err := copyOf(r)
		if err != nil {
			return false, err
		}
		msg := SendInput{Text: text, Media: b.Media, AuthorID: b.CreatedByID, Held: held.reason}
		if tooLongFilled(text) || !held.ok {
			why := "text " + filledTooLong
			if !held.ok {
				why = "no hour within a week that both the quiet hours and the state's calling hours allow"
			}
			if err := s.failCopy(tx, &conv, created, now, msg, &b, why); err != nil {
				return false, err
			}
			continue
		}
		holdUntil := held.until
		if !holdUntil.IsZero() {
			b.countHeld(holdUntil, held.reason)
		}
		if _, err := s.queueCopy(tx, &conv, created, now, msg, b.ID, holdUntil); err != nil {
			return false, err
		}
		b.TotalQueued++
		b.Outstanding++
		queued[r] = true
	}
	if hold.cap.limit > 0 {
		if err := hold.cap.flush(tx.Tx, now); err != nil {
			return false, err
		}
	}
	if err := tx.postings.Flush(tx.Tx, &tx.sets); err != nil {
		return false, err
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
func (s *Store) queueCopy(tx *wtx, conv *Conversation, convCreated bool, now time.Time, in SendInput, broadcastID string, holdUntil time.Time) (Message, error) {
	if holdUntil.IsZero() {
		return s.queueMessage(tx, conv, convCreated, now, in, PriorityLow, broadcastID)
	}
	return s.storeMessage(tx, conv, convCreated, now, in, PriorityLow, broadcastID, holdUntil)
}

// ResumeBroadcasts finishes the fan-out of broadcasts a crash cut off (pending chunks left).
func (s *Store) ResumeBroadcasts() (int, error) {
	var refs [][2]string
	err := s.view(func(tx *kv.Tx) error {
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

// heldCopy is when a copy may go: until zero for now, else held until then for reason; ok false
// when the rules never let it go.
type heldCopy struct {
	until  time.Time
	reason string
	ok     bool
}

// copyMaker returns what each recipient's copy of b is: its text with merge tags filled from the
// recipient's contact, and when the copy may go under the rules hold decides (quiet hours and
// state calling hours in the contact's time zone, the number's daily cap).
func (s *Store) copyMaker(tx *kv.Tx, w *Workspace, b *Broadcast, hold *copyHold) (func(phone string) (string, heldCopy, error), error) {
	tmpl, err := ParseTemplate(b.Text)
	if err != nil {
		tmpl = Template{} // checked when the broadcast was made; a text that no longer parses goes as written
	}
	needContact := tmpl.HasTags() || hold.needsZone()
	return func(phone string) (string, heldCopy, error) {
		var c Contact
		if needContact {
			if id := contactIDByPhone(tx, b.WorkspaceID, phone); id != "" {
				var err error
				if c, err = getContact(tx, b.WorkspaceID, id); err != nil {
					return "", heldCopy{}, err
				}
			}
		}
		text := renderCopy(tmpl, b, &c, phone)
		if !hold.needsZone() && hold.cap.limit == 0 {
			return text, heldCopy{ok: true}, nil
		}
		until, reason, ok, err := hold.when(tx, phone, c.TimeZone)
		return text, heldCopy{until: until, reason: reason, ok: ok}, err
	}, nil
}

// renderCopy is b's copy for phone, whose contact is c (empty when the number has none): the
// merge tags of tmpl (b's text parsed) filled in, then the opt-out instructions when b asks.
func renderCopy(tmpl Template, b *Broadcast, c *Contact, phone string) string {
	text := b.Text
	if tmpl.HasTags() {
		text = tmpl.Render(func(name string) string {
			if name == "phone" && c.ID == "" {
				return phone
			}
			return ContactTagValue(c, name)
		})
	}
	return withOptOutInstruction(b, text)
}

// OptOutInstruction is what "Add opt-out instructions" appends to a copy.
const OptOutInstruction = " Reply STOP to opt out."

// withOptOutInstruction appends OptOutInstruction when b asks for it and the copy's own text
// does not already mention STOP in any case (the rendered text: a merge tag may bring it).
func withOptOutInstruction(b *Broadcast, text string) string {
	if !b.OptOutInstructions || strings.Contains(strings.ToUpper(text), "STOP") {
		return text
	}
	if text == "" {
		return strings.TrimSpace(OptOutInstruction) // a media-only copy
	}
	return text + OptOutInstruction
}
