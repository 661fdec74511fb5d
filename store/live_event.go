package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"time"

	"switchboard/store/kv"
)

// The live event log feeds the inbox's push stream (GET /events). Each workspace has its own
// sequence of numbered events in bLiveEvents, keyed workspace(16) | seq(8, big-endian), whose
// value is at(8, Unix nanoseconds) | kind(1) | target user(16, zeros for everyone) | JSON data.
// bLiveSeq holds each workspace's last number, so numbers keep growing across restarts and
// pruning. An event is written in the same transaction as the change that causes it; the
// stream reads the log (the truth) when the broker wakes it after the commit.

// Live event types.
const (
	LiveMessage      = "message"      // a new message or a message's status change
	LiveConversation = "conversation" // status, assignment, labels, unread, snooze
	LiveComment      = "comment"
	LiveNotification = "notification" // for one user
)

var liveKinds = []string{LiveMessage, LiveConversation, LiveComment, LiveNotification}

// liveKindMessage is LiveMessage's index in liveKinds (the byte an entry stores).
const liveKindMessage = 0

// The log keeps at least the last 10,000 events or the last 24 hours of each workspace
// (Options.LiveKeepEvents, Options.LiveKeepFor): an entry is pruned only when it is beyond both.
const (
	defaultLiveKeepEvents = 10_000
	defaultLiveKeepFor    = 24 * time.Hour
)

// livePrunePerWrite bounds how many old entries one write removes, so that no write pays for a
// long backlog; every append prunes, so the log never grows far past its bounds.
const livePrunePerWrite = 16

const liveHeader = 8 + 1 + 16

// LiveEvent is one entry of a workspace's live event log.
type LiveEvent struct {
	Seq    uint64
	Type   string
	At     time.Time
	UserID string // "" for every member; else the one user it is for
	Data   []byte // the JSON object sent as the event's data line
}

// For reports whether the event goes to userID's stream.
func (e *LiveEvent) For(userID string) bool { return e.UserID == "" || e.UserID == userID }

func liveKey(ws string, seq uint64) []byte {
	k := make([]byte, 0, 24)
	k = append(k, idKey(ws)...)
	return binary.BigEndian.AppendUint64(k, seq)
}

// live appends an event of kind typ about conversationID to workspaceID's log in tx; target,
// when not "", is the one user it is for. fields are added to the data object beside type and
// conversationId. The streams of the workspace are woken after the commit.
func (s *Store) live(tx *wtx, workspaceID, typ, conversationID, target string, fields map[string]any) error {
	kind := -1
	for i, k := range liveKinds {
		if k == typ {
			kind = i
		}
	}
	if kind < 0 {
		panic("store: unknown live event type " + typ)
	}
	obj := make(map[string]any, len(fields)+2)
	for k, v := range fields {
		obj[k] = v
	}
	obj["type"], obj["conversationId"] = typ, conversationID
	if target != "" {
		obj["userId"] = target
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return s.liveData(tx, workspaceID, kind, target, data)
}

// liveData appends an event of liveKinds[kind] whose data object is data (already JSON).
func (s *Store) liveData(tx *wtx, workspaceID string, kind int, target string, data []byte) error {
	seqs := tx.Bucket(bLiveSeq)
	wsk := idKey(workspaceID)
	seq := decodeUint(seqs.Get(wsk)) + 1
	if err := seqs.Put(wsk, encodeUint(seq)); err != nil {
		return err
	}
	now := s.Now()
	v := make([]byte, liveHeader, liveHeader+len(data))
	binary.BigEndian.PutUint64(v, uint64(now.UnixNano()))
	v[8] = byte(kind)
	if target != "" {
		copy(v[9:25], idKey(target))
	}
	v = append(v, data...)
	b := tx.Bucket(bLiveEvents)
	if err := b.Put(liveKey(workspaceID, seq), v); err != nil {
		return err
	}
	tx.wakeLive(workspaceID)
	return s.pruneLive(b, wsk, seq, now)
}

// pruneLive removes the workspace's oldest entries that are both older than the time kept and
// beyond the number kept, a few per call.
func (s *Store) pruneLive(b *kv.Bucket, wsk []byte, last uint64, now time.Time) error {
	c := b.Cursor()
	for range livePrunePerWrite {
		k, v := c.Seek(wsk)
		if k == nil || !bytes.HasPrefix(k, wsk) || len(k) != 24 || len(v) < liveHeader {
			return nil
		}
		seq := binary.BigEndian.Uint64(k[16:])
		at := time.Unix(0, int64(binary.BigEndian.Uint64(v)))
		if last-seq < s.liveKeepEvents || now.Sub(at) < s.liveKeepFor {
			return nil
		}
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// wakeLive records that workspaceID's streams must be woken after the commit (a new event, or
// a change of who may read them).
func (fx *effects) wakeLive(workspaceID string) {
	for _, w := range fx.live {
		if w == workspaceID {
			return
		}
	}
	fx.live = append(fx.live, workspaceID)
}

// LastLiveEvent is the number of workspaceID's newest live event (0 when it has none).
func (s *Store) LastLiveEvent(workspaceID string) (uint64, error) {
	var last uint64
	err := s.view(func(tx *kv.Tx) error {
		last = decodeUint(tx.Bucket(bLiveSeq).Get(idKey(workspaceID)))
		return nil
	})
	return last, err
}

// LiveEventsAfter returns up to max of workspaceID's live events numbered after `after`, oldest
// first, and the workspace's last number. tooOld is true when events after `after` were pruned
// already (or `after` is beyond the last number: it came from another log): the reader cannot
// catch up and must start over from last.
func (s *Store) LiveEventsAfter(workspaceID string, after uint64, max int) (evs []LiveEvent, last uint64, tooOld bool, err error) {
	err = s.view(func(tx *kv.Tx) error {
		wsk := idKey(workspaceID)
		last = decodeUint(tx.Bucket(bLiveSeq).Get(wsk))
		if after > last {
			tooOld = true
			return nil
		}
		if after == last {
			return nil
		}
		c := tx.Bucket(bLiveEvents).Cursor()
		k, v := c.Seek(liveKey(workspaceID, after+1))
		if k == nil || !bytes.HasPrefix(k, wsk) || binary.BigEndian.Uint64(k[16:]) != after+1 {
			tooOld = true
			return nil
		}
		for ; k != nil && bytes.HasPrefix(k, wsk) && len(evs) < max; k, v = c.Next() {
			if len(k) != 24 || len(v) < liveHeader {
				continue
			}
			e := LiveEvent{Seq: binary.BigEndian.Uint64(k[16:]), At: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(),
				Data: bytes.Clone(v[liveHeader:])}
			if int(v[8]) < len(liveKinds) {
				e.Type = liveKinds[v[8]]
			}
			if t := v[9:25]; !bytes.Equal(t, noID) {
				e.UserID = idFromKey(t)
			}
			evs = append(evs, e)
		}
		return nil
	})
	return evs, last, tooOld, err
}

// ---- the events of each kind of change ----

// liveMessage records a change of a message's status; liveNewMessage a new message (the
// inbox list moves only for those).
func (s *Store) liveMessage(tx *wtx, m *Message) error {
	return s.liveMessageEvent(tx, m, false)
}

func (s *Store) liveNewMessage(tx *wtx, m *Message) error {
	return s.liveMessageEvent(tx, m, true)
}

// liveMessageData is the data of a message event: the object live writes for these fields,
// keys in the sorted order json gives a map's (a broadcast writes one per copy, so it skips
// the map).
type liveMessageData struct {
	ConversationID string `json:"conversationId"`
	Inbound        bool   `json:"inbound"`
	MessageID      string `json:"messageId"`
	New            bool   `json:"new"`
	Status         string `json:"status"`
	Type           string `json:"type"`
}

func (s *Store) liveMessageEvent(tx *wtx, m *Message, isNew bool) error {
	data, err := json.Marshal(liveMessageData{ConversationID: m.ConversationID, Inbound: !m.Outbound,
		MessageID: m.ID, New: isNew, Status: m.Status, Type: LiveMessage})
	if err != nil {
		return err
	}
	return s.liveData(tx, m.WorkspaceID, liveKindMessage, "", data)
}

// liveConversation records a change of a conversation (change says what: status, assignment,
// labels, unread, snooze); target, when not "", is the one user it concerns (unread).
func (s *Store) liveConversation(tx *wtx, c *Conversation, change, target string) error {
	return s.live(tx, c.WorkspaceID, LiveConversation, c.ID, target, map[string]any{
		"change": change, "status": c.Status})
}
