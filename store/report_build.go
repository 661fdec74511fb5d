package store

import (
	"bytes"
	"encoding/binary"
	"slices"
	"time"

	"switchboard/automation"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// Building the rollups from the records: for the data a file held before the rollups existed
// (the migration) and again when a workspace's time zone changes (its days are other days). A
// build runs in the background, a batch per write transaction, while the server serves: the
// workspace's build state says how far it got, and the rollups count a change only where the
// build has passed (countsConversation, countsOptOut) — the build counts the rest as it finds
// it, so nothing is counted twice or missed, whatever runs meanwhile.
//
//	meta "report_build\x00" | ws → phase(1) | flags(1) | cursor(16) | done | total (uvarints)

// Build phases of a workspace; buildNone (no state key) is a finished build.
const (
	buildNone    = iota
	buildClear   // deleting the workspace's rollups (a time-zone change)
	buildConvs   // counting conversations in id order; the cursor is the last one counted
	buildOptOuts // counting opt-outs in id order; the cursor is the last one counted
)

const buildInfer = 1 // flag: conversations from before the rollups: infer which began closed

// Batch sizes of a build step: each step is one write transaction, short enough that sends
// waiting behind it are not held long.
var (
	buildConvBatch   = 100
	buildOptOutBatch = 2000
	buildClearBatch  = 5000
)

// wsReport is what the rollups need of a workspace: its zone, its business hours and its build.
type wsReport struct {
	loc         *time.Location
	hours       *routing // the routing, when it keeps business hours (the workspace's or a number's); nil: none
	phase       byte
	flags       byte
	cursor      ulid.ULID
	done, total uint64
}

// countsConversation reports whether the rollups count conversation id now.
func (r *wsReport) countsConversation(id ulid.ULID) bool {
	switch r.phase {
	case buildNone, buildOptOuts:
		return true
	case buildConvs:
		return id.Compare(r.cursor) <= 0
	}
	return false
}

// countsOptOut reports whether the rollups count opt-out id now.
func (r *wsReport) countsOptOut(id ulid.ULID) bool {
	return r.phase == buildNone || (r.phase == buildOptOuts && id.Compare(r.cursor) <= 0)
}

// businessWithin is how much of [start, end) fell within the business hours of number (its
// own, else the workspace's), and whether the workspace keeps business hours at all. Changing
// the hours rebuilds the workspace's rollups (changeRouting asks requestReportBuild), as a time
// zone change does, because the samples already kept were measured with the old hours.
func (r *wsReport) businessWithin(number ulid.ULID, start, end time.Time) (time.Duration, bool) {
	if r.hours == nil {
		return 0, false
	}
	var id string
	if number != (ulid.ULID{}) {
		id = number.String()
	}
	h := r.hours.HoursOf(id)
	return h.Within(start, end, r.loc), true
}

// keepsHours reports whether a routing sets business hours anywhere: the workspace's, or a
// number's own.
func keepsHours(rt *Routing) bool {
	if !rt.Hours.IsZero() {
		return true
	}
	for _, n := range rt.Numbers {
		if n != nil && n.Hours != nil && !n.Hours.IsZero() {
			return true
		}
	}
	return false
}

// sameHours reports whether two routings give every number the same business hours.
func sameHours(a, b *Routing) bool {
	same := func(x, y automation.Hours) bool {
		return x.Week.String() == y.Week.String() && slices.Equal(x.Holidays, y.Holidays)
	}
	if !same(a.Hours, b.Hours) {
		return false
	}
	for _, rt := range []*Routing{a, b} {
		for id := range rt.Numbers {
			if !same(a.HoursOf(id), b.HoursOf(id)) {
				return false
			}
		}
	}
	return true
}

func buildKey(ws ulid.ULID) []byte { return append(slices.Clip(metaReportBuild), ws[:]...) }

// readWSReport reads the workspace's zone, business hours (route: the store's routingOf) and
// build state.
func readWSReport(tx *kv.Tx, ws ulid.ULID, route func(*kv.Tx, string) (*routing, error)) (*wsReport, error) {
	var w Workspace
	if _, err := getJSON(tx.Bucket(bWorkspaces), ws[:], &w); err != nil {
		return nil, err
	}
	rt, err := route(tx, w.ID)
	if err != nil {
		return nil, err
	}
	r := &wsReport{loc: w.Location()}
	if keepsHours(&rt.Routing) {
		r.hours = rt
	}
	v := tx.Bucket(bMeta).Get(buildKey(ws))
	if len(v) < 18 {
		return r, nil
	}
	r.phase, r.flags = v[0], v[1]
	copy(r.cursor[:], v[2:18])
	v = v[18:]
	var n int
	r.done, n = binary.Uvarint(v)
	if n > 0 {
		r.total, _ = binary.Uvarint(v[n:])
	}
	return r, nil
}

// reportWS is the workspace's report state, read once per transaction.
func (tx *wtx) reportWS(ws ulid.ULID) (*wsReport, error) {
	if tx.noReports {
		return &wsReport{phase: buildClear}, nil // counts nothing
	}
	buf := tx.reports()
	if r := buf.ws[ws]; r != nil {
		return r, nil
	}
	r, err := readWSReport(tx.Tx, ws, tx.route)
	if err == nil {
		buf.ws[ws] = r
	}
	return r, err
}

// saveBuild writes r's build state (none: the key goes).
func (tx *wtx) saveBuild(ws ulid.ULID, r *wsReport) error {
	tx.reports().ws[ws] = r
	if r.phase == buildNone {
		return tx.Bucket(bMeta).Delete(buildKey(ws))
	}
	v := append([]byte{r.phase, r.flags}, r.cursor[:]...)
	v = binary.AppendUvarint(v, r.done)
	v = binary.AppendUvarint(v, r.total)
	return tx.Bucket(bMeta).Put(buildKey(ws), v)
}

// requestReportBuild starts the workspace's rollups over: they are deleted and built again from
// the records (a time-zone change). A build in progress starts over too, keeping its flags. A
// workspace with nothing counted yet and nothing to count needs none.
func (tx *wtx) requestReportBuild(wsID string) error {
	ws := uid(wsID)
	old, err := readWSReport(tx.Tx, ws, tx.route)
	if err != nil {
		return err
	}
	if old.phase == buildNone && !holdsAny(tx.Tx, ws, bConversations, bOptOuts, bReportDays, bReportBcasts) {
		delete(tx.reports().ws, ws) // the new zone
		return nil
	}
	delete(tx.reports().ws, ws)
	r, err := readWSReport(tx.Tx, ws, tx.route) // the zone as the transaction has just written it
	if err != nil {
		return err
	}
	r.phase, r.flags, r.cursor, r.done, r.total = buildClear, old.flags, ulid.ULID{}, 0, 0
	return tx.saveBuild(ws, r)
}

// migrateReports starts the build of every workspace's rollups from the records it holds.
func migrateReports(_ *Store, tx *kv.Tx) error {
	return tx.Bucket(bWorkspaces).ForEach(func(k, _ []byte) error {
		if len(k) != 16 {
			return nil
		}
		ws := ulid.ULID(k)
		v := append([]byte{buildConvs, buildInfer}, make([]byte, 16)...)
		v = binary.AppendUvarint(v, 0)
		v = binary.AppendUvarint(v, countWS(tx, ws))
		return tx.Bucket(bMeta).Put(buildKey(ws), v)
	})
}

// holdsAny reports whether any of the buckets holds a key of the workspace.
func holdsAny(tx *kv.Tx, ws ulid.ULID, buckets ...[]byte) bool {
	for _, b := range buckets {
		if k, _ := tx.Bucket(b).Cursor().Seek(ws[:]); k != nil && bytes.HasPrefix(k, ws[:]) {
			return true
		}
	}
	return false
}

// countWS is how many conversations and opt-outs the workspace has: a build's total.
func countWS(tx *kv.Tx, ws ulid.ULID) uint64 {
	var n uint64
	for _, b := range [][]byte{bConversations, bOptOuts} {
		_ = forEachPrefix(tx.Bucket(b), ws[:], func(_, _ []byte) error { n++; return nil })
	}
	return n
}

// ReportBuild says whether the workspace's rollups are being built and how far: records
// counted of total.
func (s *Store) ReportBuild(workspaceID string) (building bool, done, total uint64, err error) {
	err = s.view(func(tx *kv.Tx) error {
		r, err := readWSReport(tx, uid(workspaceID), s.routingOf)
		if err != nil {
			return err
		}
		building, done, total = r.phase != buildNone, r.done, r.total
		return nil
	})
	return building, done, total, err
}

// BuildReports does up to steps steps of the builds waiting (each one write transaction) and
// says how many records they counted; it stops early when no build is left. cli runs it on a
// timer; it is safe to run while the server serves.
func (s *Store) BuildReports(steps int) (int, error) {
	counted := 0
	for range steps {
		var ws ulid.ULID
		found := false
		if err := s.view(func(tx *kv.Tx) error {
			k, _ := tx.Bucket(bMeta).Cursor().Seek(metaReportBuild)
			if found = k != nil && bytes.HasPrefix(k, metaReportBuild) && len(k) == len(metaReportBuild)+16; found {
				copy(ws[:], k[len(metaReportBuild):])
			}
			return nil
		}); err != nil || !found {
			return counted, err
		}
		var n int
		if err := s.updateNow(func(tx *wtx) error {
			var err error
			n, err = tx.buildStep(ws)
			return err
		}); err != nil {
			return counted, err
		}
		counted += n
	}
	return counted, nil
}

// buildStep does one batch of the workspace's build.
func (tx *wtx) buildStep(ws ulid.ULID) (int, error) {
	r, err := tx.reportWS(ws)
	if err != nil {
		return 0, err
	}
	switch r.phase {
	case buildClear:
		more, err := clearReports(tx, ws)
		if err != nil || more {
			return 0, err
		}
		r.phase, r.cursor, r.done, r.total = buildConvs, ulid.ULID{}, 0, countWS(tx.Tx, ws)
		return 0, tx.saveBuild(ws, r)
	case buildConvs:
		n, more, err := tx.buildConversations(ws, r)
		if err != nil {
			return n, err
		}
		if !more {
			r.phase, r.cursor = buildOptOuts, ulid.ULID{}
		}
		return n, tx.saveBuild(ws, r)
	case buildOptOuts:
		n, more, err := tx.buildOptOuts(ws, r)
		if err != nil {
			return n, err
		}
		if !more {
			r.phase = buildNone
		}
		return n, tx.saveBuild(ws, r)
	}
	return 0, tx.saveBuild(ws, &wsReport{loc: r.loc, hours: r.hours}) // an unknown phase: done
}

// clearReports deletes a batch of the workspace's rollups and says whether more are left.
func clearReports(tx *wtx, ws ulid.ULID) (bool, error) {
	left := buildClearBatch
	for _, name := range [][]byte{bReportDays, bReportSamples, bReportBcasts, bReportConvs} {
		b := tx.Bucket(name)
		var doomed [][]byte
		c := b.Cursor()
		for k, _ := c.Seek(ws[:]); k != nil && bytes.HasPrefix(k, ws[:]) && len(doomed) < left; k, _ = c.Next() {
			doomed = append(doomed, bytes.Clone(k))
		}
		for _, k := range doomed {
			if err := b.Delete(k); err != nil {
				return false, err
			}
		}
		if left -= len(doomed); left == 0 {
			return true, nil
		}
	}
	return false, nil
}

// after yields the keys of bucket b under ws that come after cursor, at most max of them.
func after(b *kv.Bucket, ws, cursor ulid.ULID, max int, fn func(k, v []byte) error) (more bool, err error) {
	c := b.Cursor()
	k, v := c.Seek(append(ws[:], cursor[:]...))
	if k != nil && bytes.Equal(k[16:], cursor[:]) {
		k, v = c.Next()
	}
	for n := 0; k != nil && bytes.HasPrefix(k, ws[:]); k, v = c.Next() {
		if len(k) != 32 {
			continue
		}
		if n == max {
			return true, nil
		}
		if err := fn(k, v); err != nil {
			return false, err
		}
		n++
	}
	return false, nil
}

// buildConversations counts the next batch of the workspace's conversations.
func (tx *wtx) buildConversations(ws ulid.ULID, r *wsReport) (int, bool, error) {
	n := 0
	t := tx.tally(ws, r, 1)
	more, err := after(tx.Bucket(bConversations), ws, r.cursor, buildConvBatch, func(k, v []byte) error {
		var c Conversation
		if err := jsonUnmarshal(v, &c); err != nil {
			return err
		}
		k = bytes.Clone(k)
		if r.flags&buildInfer != 0 && !c.CreatedClosed && startedByBroadcast(tx.Tx, &c) {
			c.CreatedClosed = true
			if err := putJSON(tx.Bucket(bConversations), k, c); err != nil {
				return err
			}
		}
		f, err := replayConversation(tx.Tx, t, &c)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bReportConvs).Put(k, f.encode()); err != nil {
			return err
		}
		copy(r.cursor[:], k[16:])
		r.done++
		n++
		return nil
	})
	return n, more, err
}

// startedByBroadcast tells, for a conversation from before the rollups (which did not record
// it), whether a broadcast copy created it: its first message is a copy written within a second
// of the conversation.
func startedByBroadcast(tx *kv.Tx, c *Conversation) bool {
	ids := idxIDs(tx.Bucket(bConvMessages), c.WorkspaceID, c.ID)
	if len(ids) == 0 {
		return false
	}
	var m msgFacts
	if ok, err := getJSON(tx.Bucket(bMessages), wsKey(c.WorkspaceID, ids[0]), &m); err != nil || !ok {
		return false
	}
	d := m.CreatedAt.Sub(c.CreatedAt)
	return m.Outbound && m.BroadcastID != "" && d > -time.Second && d < time.Second
}

// buildOptOuts counts the next batch of the workspace's opt-outs.
func (tx *wtx) buildOptOuts(ws ulid.ULID, r *wsReport) (int, bool, error) {
	n := 0
	t := tx.tally(ws, r, 1)
	more, err := after(tx.Bucket(bOptOuts), ws, r.cursor, buildOptOutBatch, func(k, v []byte) error {
		var o OptOut
		if err := jsonUnmarshal(v, &o); err != nil {
			return err
		}
		t.optOut(&o)
		copy(r.cursor[:], k[16:])
		r.done++
		n++
		return nil
	})
	return n, more, err
}
