package store

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Broadcast sends one text to many recipients, each in their own conversation. The record stays
// small — every outcome of a copy rewrites it — so its targets live beside it
// (BroadcastTargetsOf) and Recipients is only filled in SendBroadcast's answer.
type Broadcast struct {
	ID             string   `json:"id"`
	WorkspaceID    string   `json:"workspaceId"`
	TenantID       string   `json:"tenantId"`
	Name           string   `json:"name,omitempty"`
	From           string   `json:"from"`
	NumberID       string   `json:"numberId,omitempty"`
	Text           string   `json:"text,omitempty"`
	Media          []string `json:"media,omitempty"`
	Status         string   `json:"status"`
	Recipients     []string `json:"-"`
	TotalQueued    int      `json:"totalQueued,omitempty"`
	TotalSent      int      `json:"totalSent,omitempty"`
	TotalDelivered int      `json:"totalDelivered,omitempty"`
	TotalFailed    int      `json:"totalFailed,omitempty"`
	TotalOptedOut  int      `json:"totalOptedOut,omitempty"`
	// TotalCancelled counts copies cancelled before they reached the carrier.
	TotalCancelled int `json:"totalCancelled,omitempty"`
	// TotalLandline counts recipients skipped because a carrier flagged their number a landline
	// (they are counted in TotalFailed too).
	TotalLandline int `json:"totalLandline,omitempty"`
	// FailedByCode counts failed copies by the carrier's error code (0: no code), for the
	// broadcast page's plain-words explanations.
	FailedByCode map[int]int `json:"failedByCode,omitempty"`
	// OptOutInstructions: copies whose text lacks STOP get OptOutInstruction appended.
	OptOutInstructions bool       `json:"optOutInstructions,omitempty"`
	CreatedByID        string     `json:"createdById,omitempty"`
	SendAt             *time.Time `json:"sendAt,omitempty"`
	StartedAt          *time.Time `json:"startedAt,omitempty"`
	DeliveredAt        *time.Time `json:"deliveredAt,omitempty"` // when no copy was left queued or sending
	CancelledAt        *time.Time `json:"cancelledAt,omitempty"`
	CreatedAt          time.Time  `json:"createdAt"`
	UpdatedAt          time.Time  `json:"updatedAt"`
	// Outstanding counts copies still queued, held or sending; the broadcast is done at zero.
	Outstanding int `json:"outstanding,omitempty"`
	// Fanout is set while recipients are still being queued: the broadcast cannot finish then.
	Fanout bool `json:"fanout,omitempty"`
	// Auto-pause (maybePause): Judged counts copies the carrier gave a verdict on since
	// the start or the last resume, JudgedFailed those of them that failed; PausedJudged and
	// PausedFailed are those figures when it last paused.
	Judged       int        `json:"judged,omitempty"`
	JudgedFailed int        `json:"judgedFailed,omitempty"`
	PausedAt     *time.Time `json:"pausedAt,omitempty"`
	PausedJudged int        `json:"pausedJudged,omitempty"`
	PausedFailed int        `json:"pausedFailed,omitempty"`
	ResumedAt    *time.Time `json:"resumedAt,omitempty"`

	// Held counts the copies held by quiet hours, state calling hours or the daily cap, by
	// reason (countHeld).
	Held []HeldGroup `json:"held,omitempty"`
}

// Broadcast statuses.
const (
	BroadcastDraft     = "draft"
	BroadcastScheduled = "scheduled"
	BroadcastSending   = "sending"
	BroadcastPaused    = "paused" // too many copies failed: queued copies wait for a resume or a cancel
	BroadcastSent      = "sent"
	BroadcastFailed    = "failed"
	BroadcastCancelled = "cancelled"
)

// Broadcast limits: one call stays small enough to validate and fan out in bounded work.
const (
	MaxBroadcastRecipients = 10_000  // pasted recipients of one call, after de-duplication
	MaxBroadcastTotal      = 100_000 // recipients after the union of every source
	MaxBroadcastIDs        = 100     // ids in each of groupIds, conversationIds and their exclusions
)

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
	Files                  []Upload // attachments kept with the broadcast; their URLs join Media
	AuthorID               string
	SendAt                 *time.Time
	// OptOutInstructions appends OptOutInstruction to each copy whose text lacks "STOP".
	OptOutInstructions bool
}

// LatestSendAt is the furthest a broadcast may be scheduled: one calendar year after now.
func LatestSendAt(now time.Time) time.Time { return now.AddDate(1, 0, 0) }

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
	seen := make(map[string]bool, len(in.Recipients))
	in.Recipients = slices.DeleteFunc(slices.Clone(in.Recipients), func(r string) bool {
		dup := seen[r]
		seen[r] = true
		return dup
	})
	targets := in.Targets()
	var b Broadcast
	var recipients []string
	// Resolve in a read transaction: a 100,000-member group takes a while and holds no lock.
	err := s.view(func(tx *kv.Tx) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		var errs ValidationError
		if ok, err := s.isActiveNumber(tx, workspaceID, in.From); err != nil {
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
	err = s.updateNow(func(tx *wtx) error {
		n, ok, err := activeNumber(tx.Tx, workspaceID, in.From)
		if err != nil {
			return err
		}
		if !ok {
			return fromNumberError(in.From)
		}
		if err := s.checkNumberUse(tx.Tx, workspaceID, n.ID, in.AuthorID); err != nil {
			return err
		}
		now := s.Now()
		b = Broadcast{ID: s.NewID(), WorkspaceID: workspaceID, TenantID: s.tenantID, Name: strings.TrimSpace(in.Name),
			From: in.From, NumberID: n.ID, Text: in.Text, Media: orEmpty(in.Media), CreatedByID: in.AuthorID,
			SendAt: in.SendAt, CreatedAt: now, UpdatedAt: now, OptOutInstructions: in.OptOutInstructions}
		if len(in.Files) > 0 {
			urls, err := s.putUploads(tx.Tx, workspaceID, b.ID, in.Files)
			if err != nil {
				return err
			}
			b.Media = append(b.Media, urls...)
		}
		if err := putJSON(tx.Bucket(bBroadcastTargets), wsKey(workspaceID, b.ID), targets); err != nil {
			return err
		}
		if in.SendAt != nil {
			b.Status = BroadcastScheduled
			tx.scheduled = true
			if err := tx.Bucket(bBroadcastSchedule).Put(scheduleKey(*in.SendAt, workspaceID, b.ID), nil); err != nil {
				return err
			}
			return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, b.ID), b)
		}
		return s.beginFanOut(tx.Tx, &b, recipients, now)
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

// DueBroadcast is a scheduled broadcast whose time has come.
type DueBroadcast struct {
	WorkspaceID, ID string
	At              time.Time
}

// DueBroadcasts lists the scheduled broadcasts whose time has come and when the next one is due.
func (s *Store) DueBroadcasts(now time.Time) (due []DueBroadcast, next time.Time, err error) {
	err = s.view(func(tx *kv.Tx) error {
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
	err := s.view(func(tx *kv.Tx) error {
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
	err = s.updateNow(func(tx *wtx) error {
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
		if ok, err := s.isActiveNumber(tx.Tx, workspaceID, cur.From); err != nil {
			return err
		} else if !ok {
			cur.Status, cur.UpdatedAt = BroadcastFailed, now
			return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), cur)
		}
		return s.beginFanOut(tx.Tx, &cur, recipients, now)
	})
	if err != nil || !started {
		return err
	}
	_, err = s.fanOut(workspaceID, id)
	return err
}

// Broadcast returns a broadcast by id.
func (s *Store) Broadcast(workspaceID, id string) (Broadcast, error) {
	var b Broadcast
	err := s.view(func(tx *kv.Tx) error {
		ok, err := getJSON(tx.Bucket(bBroadcasts), wsKeyChecked(workspaceID, id), &b)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "broadcast not found")
		}
		return err
	})
	return b, err
}

// Broadcasts lists a workspace's broadcasts, newest first, at most limit.
func (s *Store) Broadcasts(workspaceID string, limit int) ([]Broadcast, error) {
	out := []Broadcast{}
	err := s.view(func(tx *kv.Tx) error {
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
