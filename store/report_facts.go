package store

import (
	"encoding/binary"
	"errors"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// What a conversation counts in the reports follows from its records read in the order they
// were written (their ids): its creation, its messages and its triage entries. One machine reads
// them, whether a write hands it one new record (the rollups, kept in the write's transaction)
// or a rebuild hands it every record of a conversation (the migration, a time-zone change, a
// deletion that takes records back): so the rollups equal what the raw records say.
//
// The definitions (DESIGN §24; docs/reports.md says them to the user):
//   - opened: once per conversation, when it first becomes open — at its creation, unless a
//     broadcast copy created it (those start closed), else at the contact's first text;
//   - replied: each time a member's text follows one or more texts from the contact;
//   - closed: each change of status to closed;
//   - first response: once per conversation, the first member's text after the contact's first
//     text, measured from that text;
//   - resolution: each close, measured from when the conversation last became open;
//   - a reply to a broadcast: the contact's first text after a copy of it that was the team's
//     latest text to them (a member's text or another copy ends that);
//   - cancelled messages count nowhere; texts from a blocked number count nowhere.
// Who is credited: a member's text, reply and first response go to its author; a close to the
// member who closed; an assignment to the assignee; the contact's texts and an opening to the
// conversation's assignees at the time. Each also counts in its number's own row.

// convFacts is where a conversation's machine stands after the records it has read.
type convFacts struct {
	number       ulid.ULID   // the conversation's number (its outbound channel)
	opened       bool        // it has been opened
	responded    bool        // its first response was given
	awaiting     bool        // the contact wrote since the team's last member text
	bcastReplied bool        // bcast has had its reply
	openSince    int64       // Unix ns when it last became open; 0 while closed
	firstInbound int64       // Unix ns of the contact's first text; 0 before it
	bcast        ulid.ULID   // the broadcast whose copy was the team's latest text; zero for none
	assignees    []ulid.ULID // the assignees now, sorted
}

// msgFacts is what the machine reads of a message.
type msgFacts struct {
	ID          string    `json:"id"`
	NumberID    string    `json:"numberId,omitempty"`
	BroadcastID string    `json:"broadcastId,omitempty"`
	AuthorID    string    `json:"authorId,omitempty"`
	Outbound    bool      `json:"outbound,omitempty"`
	Blocked     bool      `json:"blocked,omitempty"`
	Status      string    `json:"status"`
	ProviderErr string    `json:"providerErr,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
}

func factsOf(m *Message) msgFacts {
	return msgFacts{ID: m.ID, NumberID: m.NumberID, BroadcastID: m.BroadcastID, AuthorID: m.AuthorID, Outbound: m.Outbound,
		Blocked: m.Blocked, Status: m.Status, ProviderErr: m.ProviderErr, CreatedAt: m.CreatedAt}
}

// uid is the ULID of an id string; zero for "" and anything else that is not one.
func uid(s string) ulid.ULID {
	u, _ := ParseID(s)
	return u
}

// one is a single member, or none for the zero id (the system, the API).
func one(u ulid.ULID) []ulid.ULID {
	if u == (ulid.ULID{}) {
		return nil
	}
	return []ulid.ULID{u}
}

// start reads the conversation's creation: open at once unless created closed.
func (f *convFacts) start(t *tally, c *Conversation) {
	f.number = uid(c.OutboundChannelID)
	if !c.CreatedClosed {
		f.open(t, c.CreatedAt)
	}
}

// open starts an open period at at (nothing when one runs); the first one opens it.
func (f *convFacts) open(t *tally, at time.Time) {
	if f.openSince != 0 {
		return
	}
	f.openSince = max(at.UnixNano(), 1)
	if !f.opened {
		f.opened = true
		t.add(at, f.number, f.assignees, rowOpened, 1)
	}
}

// message reads a message.
func (f *convFacts) message(t *tally, m *msgFacts) {
	if m.Status == MessageCancelled || (!m.Outbound && m.Blocked) {
		return
	}
	t.message(m, f.assignees, 1)
	at := m.CreatedAt
	if !m.Outbound {
		f.open(t, at)
		if f.firstInbound == 0 {
			f.firstInbound = max(at.UnixNano(), 1)
		}
		f.awaiting = true
		if f.bcast != (ulid.ULID{}) && !f.bcastReplied {
			f.bcastReplied = true
			t.bcast(f.bcast, bcastReplies, 1)
		}
		return
	}
	switch {
	case m.BroadcastID != "":
		f.bcast, f.bcastReplied = uid(m.BroadcastID), false
	case m.AuthorID != "":
		f.bcast, f.bcastReplied = ulid.ULID{}, false
		author := one(uid(m.AuthorID))
		if f.awaiting {
			f.awaiting = false
			t.add(at, f.number, author, rowReplied, 1)
		}
		if f.firstInbound != 0 && !f.responded {
			f.responded = true
			t.duration(at, f.number, author, sampleFirstResponse, time.Unix(0, f.firstInbound), at)
		}
	}
}

// entry reads a triage entry.
func (f *convFacts) entry(t *tally, e *ConversationEntry) {
	at := e.CreatedAt
	switch e.Kind {
	case EntryStatus, EntrySnoozeUp:
		f.status(t, e)
	case EntryAssign, EntryAutoAssign:
		f.assign(t, e)
	case EntryRule:
		// A firing, and what it changed: the status it left, then its assignees (an opening
		// is credited to those before it, as a person's status entry written first would be).
		t.add(at, f.number, nil, rowRuleFirings, 1)
		if e.Status != "" {
			f.status(t, e)
		}
		f.assign(t, e)
	}
}

// status reads a change of status: a close counts (with its resolution time), anything else
// opens.
func (f *convFacts) status(t *tally, e *ConversationEntry) {
	at := e.CreatedAt
	if e.Status != ConversationClosed {
		f.open(t, at)
		return
	}
	actor := one(uid(e.UserID))
	t.add(at, f.number, actor, rowClosed, 1)
	if f.openSince != 0 {
		t.duration(at, f.number, actor, sampleResolution, time.Unix(0, f.openSince), at)
		f.openSince = 0
	}
}

// assign reads a change of assignees (Added and Removed); each one added counts assigned.
func (f *convFacts) assign(t *tally, e *ConversationEntry) {
	for _, a := range e.Added {
		t.add(e.CreatedAt, f.number, one(uid(a)), rowAssigned, 1)
	}
	f.assignees = slices.DeleteFunc(f.assignees, func(u ulid.ULID) bool { return slices.Contains(e.Removed, u.String()) })
	for _, a := range e.Added {
		if u := uid(a); u != (ulid.ULID{}) && !slices.Contains(f.assignees, u) {
			f.assignees = append(f.assignees, u)
		}
	}
	slices.SortFunc(f.assignees, func(a, b ulid.ULID) int { return a.Compare(b) })
}

// ---- the facts record: report_conversations, ws | conversation → encoded convFacts ----

const factsVersion = 1

const (
	factOpened = 1 << iota
	factResponded
	factAwaiting
	factBcastReplied
	factBcast
)

func (f *convFacts) encode() []byte {
	b := make([]byte, 0, 2+16+20+16+1+16*len(f.assignees))
	var flags byte
	for _, x := range []struct {
		on   bool
		flag byte
	}{{f.opened, factOpened}, {f.responded, factResponded}, {f.awaiting, factAwaiting}, {f.bcastReplied, factBcastReplied},
		{f.bcast != (ulid.ULID{}), factBcast}} {
		if x.on {
			flags |= x.flag
		}
	}
	b = append(b, factsVersion, flags)
	b = append(b, f.number[:]...)
	b = binary.AppendVarint(b, f.openSince)
	b = binary.AppendVarint(b, f.firstInbound)
	if flags&factBcast != 0 {
		b = append(b, f.bcast[:]...)
	}
	b = binary.AppendUvarint(b, uint64(len(f.assignees)))
	for _, a := range f.assignees {
		b = append(b, a[:]...)
	}
	return b
}

var errFacts = errors.New("store: report facts record is damaged")

func decodeFacts(b []byte) (convFacts, error) {
	var f convFacts
	if len(b) < 2+16 || b[0] != factsVersion {
		return f, errFacts
	}
	flags := b[1]
	f.opened, f.responded = flags&factOpened != 0, flags&factResponded != 0
	f.awaiting, f.bcastReplied = flags&factAwaiting != 0, flags&factBcastReplied != 0
	copy(f.number[:], b[2:18])
	b = b[18:]
	var n int
	if f.openSince, n = binary.Varint(b); n <= 0 {
		return f, errFacts
	}
	b = b[n:]
	if f.firstInbound, n = binary.Varint(b); n <= 0 {
		return f, errFacts
	}
	b = b[n:]
	if flags&factBcast != 0 {
		if len(b) < 16 {
			return f, errFacts
		}
		copy(f.bcast[:], b[:16])
		b = b[16:]
	}
	count, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) != count*16 {
		return f, errFacts
	}
	b = b[n:]
	f.assignees = make([]ulid.ULID, count)
	for i := range f.assignees {
		copy(f.assignees[i][:], b[i*16:])
	}
	return f, nil
}

func factsKey(ws, conv ulid.ULID) []byte { return append(ws[:], conv[:]...) }

// ---- replaying a conversation's raw records ----

// replayConversation runs a fresh machine over every record of the conversation c of workspace
// ws, counting into t, and returns where it stands.
func replayConversation(tx *kv.Tx, t *tally, c *Conversation) (convFacts, error) {
	var f convFacts
	f.start(t, c)
	idx, msgs, entries := tx.Bucket(bConvMessages), tx.Bucket(bMessages), tx.Bucket(bConvEntries)
	mids := idxIDs(idx, c.WorkspaceID, c.ID)
	eids := idxIDs(idx, c.WorkspaceID, entryTerm(c.ID))
	for len(mids) > 0 || len(eids) > 0 {
		// ULID strings sort as their bytes: the merge reads records in the order they were made.
		if len(eids) == 0 || (len(mids) > 0 && mids[0] < eids[0]) {
			var m msgFacts
			ok, err := getJSON(msgs, wsKey(c.WorkspaceID, mids[0]), &m)
			if err != nil {
				return f, err
			}
			if ok {
				f.message(t, &m)
			}
			mids = mids[1:]
			continue
		}
		var e ConversationEntry
		ok, err := getJSON(entries, wsKey(c.WorkspaceID, eids[0]), &e)
		if err != nil {
			return f, err
		}
		if ok {
			f.entry(t, &e)
		}
		eids = eids[1:]
	}
	return f, nil
}

// latestTeamBroadcast is the broadcast whose copy is the team's latest text in a conversation
// (a member's text after it, or none at all: ""), as the machine's bcast says: the broadcast an
// opt-out texted now answers.
func latestTeamBroadcast(tx *kv.Tx, workspaceID, convID string) (string, error) {
	msgs := tx.Bucket(bMessages)
	p := idxPrefix(workspaceID, convID)
	found := ""
	err := reverseScan(tx.Bucket(bConvMessages), p, func(k []byte) (bool, error) {
		if len(k) != len(p)+16 {
			return false, nil
		}
		var m msgFacts
		ok, err := getJSON(msgs, wsKey(workspaceID, idFromKey(k)), &m)
		if err != nil || !ok || !m.Outbound || m.Status == MessageCancelled {
			return false, err
		}
		if m.BroadcastID != "" || m.AuthorID != "" {
			found = m.BroadcastID
			return true, nil
		}
		return false, nil
	})
	return found, err
}
