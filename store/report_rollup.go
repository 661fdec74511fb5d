package store

import (
	"bytes"
	"time"

	"github.com/oklog/ulid/v2"
)

// The report rollups: what the reports show, kept per workspace day (in its time zone), number
// and member, in the transaction of each write that moves them, so they are exact under any
// concurrency. Every write that stores or changes a counted record calls one of the report
// methods of wtx below; they buffer the changes in the transaction and flushReports writes them
// just before it commits.
//
//	report_days          ws | day(4) | number(16) | member(16) → the day row's counters
//	report_samples       ws | day | number | member | kind(1) → sorted durations in seconds
//	report_broadcasts    ws | broadcast → a broadcast's replies, opt-outs and failures
//	report_conversations ws | conversation → the conversation's machine (convFacts)
//
// A zero number is "no number" (an opt-out through the API); a zero member is the number's own
// row, which counts everything that happened on it, so the workspace's totals are the sum of
// the member-zero rows and a member's figures the sum of that member's rows.

// The counters of a day row.
const (
	rowInbound      = iota // texts from contacts
	rowOutUser             // texts members sent
	rowOutAuto             // automatic texts (keyword replies; automatic replies)
	rowOutBroadcast        // broadcast copies
	rowDelivered           // outbound texts delivered
	rowFailed              // outbound texts failed
	rowOpened
	rowReplied
	rowClosed
	rowAssigned
	rowOptOuts
	rowRuleFirings
	rowFailGroup                                   // + failure group: failed texts by reason
	rowHour      = rowFailGroup + numFailureGroups // + local hour: texts from contacts by hour
	rowFields    = rowHour + 24
)

type dayRow [rowFields]int64

// The kinds of duration samples.
const (
	sampleFirstResponse = iota
	sampleResolution
	sampleFirstResponseBusiness // in business hours (wsReport.businessWithin)
	sampleResolutionBusiness
)

// The counters of a broadcast row.
const (
	bcastReplies   = iota
	bcastOptOuts   // opt-outs recorded in answer to a copy (or its failure: unsubscribed)
	bcastFailGroup // + failure group: failed copies by reason
	bcastFields    = bcastFailGroup + numFailureGroups
)

type (
	rowKey    [52]byte
	sampleKey [53]byte
	bcastKey  [32]byte
	bcastRow  [bcastFields]int64
)

// reportBuf is what a write transaction changes in the rollups, written by flushReports.
type reportBuf struct {
	rows    map[rowKey]*dayRow
	samples map[sampleKey]*sampleDelta
	bcasts  map[bcastKey]*bcastRow
	ws      map[ulid.ULID]*wsReport // each workspace's zone and build state, read once
}

type sampleDelta struct{ add, del []uint32 }

func newReportBuf() *reportBuf {
	return &reportBuf{rows: map[rowKey]*dayRow{}, samples: map[sampleKey]*sampleDelta{},
		bcasts: map[bcastKey]*bcastRow{}, ws: map[ulid.ULID]*wsReport{}}
}

// tally turns what the machine reads into changes of a buffer; with sign −1 it takes back what
// a conversation counted.
type tally struct {
	buf  *reportBuf
	ws   ulid.ULID
	rep  *wsReport
	sign int64
}

func (t *tally) row(day Date, number, member ulid.ULID) *dayRow {
	var k rowKey
	dk := day.key()
	copy(k[:16], t.ws[:])
	copy(k[16:20], dk[:])
	copy(k[20:36], number[:])
	copy(k[36:], member[:])
	r := t.buf.rows[k]
	if r == nil {
		r = &dayRow{}
		t.buf.rows[k] = r
	}
	return r
}

// add counts n in field on the day of at, in the number's row and each member's.
func (t *tally) add(at time.Time, number ulid.ULID, members []ulid.ULID, field int, n int64) {
	day := DateOf(at, t.rep.loc)
	t.row(day, number, ulid.ULID{})[field] += n * t.sign
	for _, m := range members {
		t.row(day, number, m)[field] += n * t.sign
	}
}

// message counts a message: its kind, its outcome, and for a contact's text the hour.
func (t *tally) message(m *msgFacts, assignees []ulid.ULID, n int64) {
	number := uid(m.NumberID)
	if !m.Outbound {
		t.add(m.CreatedAt, number, assignees, rowInbound, n)
		t.add(m.CreatedAt, number, assignees, rowHour+m.CreatedAt.In(t.rep.loc).Hour(), n)
		return
	}
	author := one(uid(m.AuthorID))
	kind := rowOutAuto
	switch {
	case m.BroadcastID != "":
		kind = rowOutBroadcast
	case m.AuthorID != "":
		kind = rowOutUser
	}
	t.add(m.CreatedAt, number, author, kind, n)
	t.outcome(m, author, n)
}

// outcome counts an outbound message's delivery or failure (nothing while it is on its way).
func (t *tally) outcome(m *msgFacts, author []ulid.ULID, n int64) {
	number := uid(m.NumberID)
	switch m.Status {
	case MessageDelivered:
		t.add(m.CreatedAt, number, author, rowDelivered, n)
	case MessageFailed:
		g := failureGroupOf(m.ProviderErr)
		t.add(m.CreatedAt, number, author, rowFailed, n)
		t.add(m.CreatedAt, number, author, rowFailGroup+g, n)
		if m.BroadcastID != "" {
			t.bcast(uid(m.BroadcastID), bcastFailGroup+g, n)
		}
	}
}

// duration records end − start as a sample of kind (and its business-hours variant when the
// workspace keeps hours) on the day of at.
func (t *tally) duration(at time.Time, number ulid.ULID, members []ulid.ULID, kind int, start, end time.Time) {
	t.sample(at, number, members, kind, durationSeconds(start, end))
	if within, ok := t.rep.businessWithin(number, start, end); ok {
		secs := uint32(min(max(int64(within/time.Second), 0), 1<<32-1))
		t.sample(at, number, members, kind+sampleFirstResponseBusiness, secs)
	}
}

func (t *tally) sample(at time.Time, number ulid.ULID, members []ulid.ULID, kind int, secs uint32) {
	day := DateOf(at, t.rep.loc)
	for _, m := range append([]ulid.ULID{{}}, members...) {
		var k sampleKey
		dk := day.key()
		copy(k[:16], t.ws[:])
		copy(k[16:20], dk[:])
		copy(k[20:36], number[:])
		copy(k[36:52], m[:])
		k[52] = byte(kind)
		d := t.buf.samples[k]
		if d == nil {
			d = &sampleDelta{}
			t.buf.samples[k] = d
		}
		if t.sign > 0 {
			d.add = append(d.add, secs)
		} else {
			d.del = append(d.del, secs)
		}
	}
}

func (t *tally) bcast(id ulid.ULID, field int, n int64) {
	var k bcastKey
	copy(k[:16], t.ws[:])
	copy(k[16:], id[:])
	r := t.buf.bcasts[k]
	if r == nil {
		r = &bcastRow{}
		t.buf.bcasts[k] = r
	}
	r[field] += n * t.sign
}

// optOut counts a standing opt-out on the day it was made (sign −1 when it goes).
func (t *tally) optOut(o *OptOut) {
	t.add(o.CreatedAt, uid(o.NumberID), nil, rowOptOuts, 1)
	if o.BroadcastID != "" {
		t.bcast(uid(o.BroadcastID), bcastOptOuts, 1)
	}
}

// ---- the write transaction's report methods ----

func (tx *wtx) reports() *reportBuf {
	if tx.rep == nil {
		tx.rep = newReportBuf()
	}
	return tx.rep
}

func (tx *wtx) tally(ws ulid.ULID, rep *wsReport, sign int64) *tally {
	return &tally{buf: tx.reports(), ws: ws, rep: rep, sign: sign}
}

// reportConv runs fn on the facts of conversation conv, when its workspace's rollups count it
// (a rebuild in progress counts it later), and saves them. A conversation whose facts are
// missing is replayed from its records instead, the change that fn would count included.
func (tx *wtx) reportConv(wsID, convID string, fn func(f *convFacts, t *tally)) error {
	ws, conv := uid(wsID), uid(convID)
	rep, err := tx.reportWS(ws)
	if err != nil || !rep.countsConversation(conv) {
		return err
	}
	t := tx.tally(ws, rep, 1)
	b := tx.Bucket(bReportConvs)
	k := factsKey(ws, conv)
	old := b.Get(k)
	var f convFacts
	if old == nil {
		var c Conversation
		if ok, err := getJSON(tx.Bucket(bConversations), k, &c); err != nil || !ok {
			return err
		}
		if f, err = replayConversation(tx.Tx, t, &c); err != nil {
			return err
		}
	} else {
		if f, err = decodeFacts(old); err != nil {
			return err
		}
		fn(&f, t)
	}
	if enc := f.encode(); !bytes.Equal(enc, old) {
		return b.Put(k, enc)
	}
	return nil
}

// reportCreated counts a new conversation.
func (tx *wtx) reportCreated(c *Conversation) error {
	return tx.reportConv(c.WorkspaceID, c.ID, func(*convFacts, *tally) {})
}

// reportMessage counts a message just stored in its conversation.
func (tx *wtx) reportMessage(m *Message) error {
	mf := factsOf(m)
	return tx.reportConv(m.WorkspaceID, m.ConversationID, func(f *convFacts, t *tally) { f.message(t, &mf) })
}

// reportEntry counts a triage entry just written.
func (tx *wtx) reportEntry(e *ConversationEntry) error {
	return tx.reportConv(e.WorkspaceID, e.ConversationID, func(f *convFacts, t *tally) { f.entry(t, e) })
}

// reportStatus counts an outbound message's move from status before to its status now: a
// delivery or a failure. A cancellation changes what its conversation counts beyond the
// message: it goes through reportRecount.
func (tx *wtx) reportStatus(m *Message, before string) error {
	if before == m.Status || !m.Outbound {
		return nil
	}
	now, was := factsOf(m), factsOf(m)
	was.Status = before
	return tx.reportConv(m.WorkspaceID, m.ConversationID, func(f *convFacts, t *tally) {
		author := one(uid(m.AuthorID))
		t.outcome(&was, author, -1)
		t.outcome(&now, author, 1)
	})
}

// reportOptOut counts an opt-out just made (sign 1) or takes back one about to be deleted (−1).
func (tx *wtx) reportOptOut(o *OptOut, sign int64) error {
	ws := uid(o.WorkspaceID)
	rep, err := tx.reportWS(ws)
	if err != nil || !rep.countsOptOut(uid(o.ID)) {
		return err
	}
	tx.tally(ws, rep, sign).optOut(o)
	return nil
}

// reportRecount runs change, which rewrites or deletes records of conversation convID (a
// cancellation, a retention sweep), and counts the difference: the conversation's records are
// replayed before and after.
func (tx *wtx) reportRecount(wsID, convID string, change func() error) error {
	ws, conv := uid(wsID), uid(convID)
	rep, err := tx.reportWS(ws)
	if err != nil {
		return err
	}
	var c Conversation
	ok, err := getJSON(tx.Bucket(bConversations), factsKey(ws, conv), &c)
	if err != nil {
		return err
	}
	if !ok || !rep.countsConversation(conv) {
		return change()
	}
	if _, err := replayConversation(tx.Tx, tx.tally(ws, rep, -1), &c); err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	f, err := replayConversation(tx.Tx, tx.tally(ws, rep, 1), &c)
	if err != nil {
		return err
	}
	return tx.Bucket(bReportConvs).Put(factsKey(ws, conv), f.encode())
}

// reportForget takes back everything a conversation counted, before its records are deleted.
func (tx *wtx) reportForget(c *Conversation) error {
	ws, conv := uid(c.WorkspaceID), uid(c.ID)
	rep, err := tx.reportWS(ws)
	if err != nil {
		return err
	}
	if rep.countsConversation(conv) {
		if _, err := replayConversation(tx.Tx, tx.tally(ws, rep, -1), c); err != nil {
			return err
		}
	}
	return tx.Bucket(bReportConvs).Delete(factsKey(ws, conv))
}
