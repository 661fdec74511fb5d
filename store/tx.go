// The one write path. Every write transaction of the product runs through update (batched) or
// updateNow (alone, for big transactions and for the migrations and index rebuilds of Open), and
// Write hands the same batched transaction to the packages that keep records in the store's file
// (oauth); nothing else calls DB.Update or DB.Batch. update's batches are the store's own group
// commit (groupCommit), which keeps DB.Batch's contract without its 10 ms wait.
//
// A write transaction is one value, a *wtx, built only here (writeTx): the bbolt transaction and
// everything a write keeps beside it until the commit (the effects of the function running, the
// message postings buffered for the whole transaction, the kept list sets it patches). It is the
// one place where a write set exists.
//
// The rule they keep: a refusal (bad input, or a state that forbids the change: not found,
// forbidden, conflict, opted out) travels back in the caller's own variable, never as the batch
// function's error. The group commit coalesces concurrent writers into one transaction and one
// fsync; if any one of its functions returns an error, the whole batch is rolled back, that
// function runs again alone and the others again together. A refused request returned as an error would make every
// other writer of its batch run twice. So a write function checks first and writes after: it
// refuses (tx.refuse, or by returning a ValidationError or *Error, which update treats the same)
// before it has written anything, update records the refusal, lets the batch commit, and returns
// the refusal to its caller alone. Any other error is a real failure and rolls the batch back.
//
// Because bbolt may run a batch function more than once, it must start from fresh effects each
// run, and the effects of a write (hooks to wake the dispatcher, webhook sender and scheduler,
// the outbox depth) are applied only after the commit, by applyEffects.

package store

import (
	"errors"

	bolt "go.etcd.io/bbolt"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// wtx is a write transaction: the transaction seen through kv (embedded, so tx.Bucket and the
// rest read as on a *kv.Tx, and every change it makes can be recorded) and the state the write
// keeps until it commits. A batch's functions share one wtx in turn; each starts with fresh
// effects.
type wtx struct {
	*kv.Tx
	effects // what the running write function did that others must hear of after the commit

	// done gathers the effects of the functions of the transaction that did not refuse: what
	// the whole transaction did, carried in its log entry when the store is replicated.
	done effects

	idx   *index.Engine   // the store's search and index engine
	words index.WordBuf   // message postings, written term by term just before the commit
	sets  index.SetWriter // what the transaction changes in the contacts list's kept sets
	rep   *reportBuf      // what the transaction changes in the report rollups
	// route is the store's compiled routing of a workspace (routingOf): the report rollups
	// read its business hours.
	route func(tx *kv.Tx, workspaceID string) (*routing, error)
	// noReports: the rollups are not kept (only the benchmarks that measure their cost set it).
	noReports bool
}

// wordBuf returns tx's buffer of message postings, made on first use.
func (tx *wtx) wordBuf() index.WordBuf {
	if tx.words == nil {
		tx.words = index.WordBuf{}
	}
	return tx.words
}

// settleSets reads, before tx commits, the membership of every member of a kept set it touched
// (each write function of a batch settles what it touched).
func (tx *wtx) settleSets() { tx.sets.Settle(tx.Tx) }

// effects collects what a write function did that others must hear of after it commits.
type effects struct {
	events    bool
	outbox    bool
	depth     int64    // change in the number of messages queued or sending
	scheduled bool     // a broadcast was scheduled
	mail      bool     // e-mail was queued for the notification worker (mailNotification)
	push      bool     // Web Push was queued
	due       bool     // an automation's due time was queued (putDue)
	live      []string // workspaces whose live streams must be woken (wakeLive)
	refused   error
	// postings, when set (imports), collects new contacts' index entries to be written in key
	// order before the function returns (index.ImportBuf).
	postings *index.ImportBuf
	// msgIndex, when set (a broadcast's fan-out), writes new messages' slots into their
	// blocks in place (index.MsgBlocks).
	msgIndex *index.MsgBlocks
}

// refuse records a refusal for update to return to its caller and returns nil, so that the
// batch commits (the rule above). Call it only before the function has written anything.
func (fx *effects) refuse(err error) error {
	fx.refused = err
	return nil
}

// add adds what o did to fx (the effects of a transaction's functions, together).
func (fx *effects) add(o *effects) {
	fx.events = fx.events || o.events
	fx.outbox = fx.outbox || o.outbox
	fx.scheduled = fx.scheduled || o.scheduled
	fx.mail = fx.mail || o.mail
	fx.push = fx.push || o.push
	fx.due = fx.due || o.due
	fx.depth += o.depth
	for _, w := range o.live {
		fx.wakeLive(w)
	}
}

// writeTx runs fn in a new write transaction: directly in a bbolt transaction (the product's only
// DB.Update) on one node, or, when the store is replicated (Replicate) or replays its writes
// (Options.Replay), recorded and committed as a write set (commitRecorded). What the transaction
// buffered is written after fn, inside it; if it rolls back, what it recorded in the kept list
// sets is taken back.
func (s *Store) writeTx(fn func(tx *wtx) error) error {
	h := s.acquire()
	defer h.release()
	if s.commit != nil {
		return s.commitRecorded(h.db, fn)
	}
	var last *wtx
	err := h.db.Update(func(btx *bolt.Tx) error {
		tx := s.newWtx(kv.Wrap(btx, h.epoch, nil))
		last = tx
		if err := fn(tx); err != nil {
			return err
		}
		return tx.flush()
	})
	if err != nil && last != nil {
		last.sets.RolledBack()
	}
	return err
}

// newWtx is a write transaction over ktx, with nothing buffered yet.
func (s *Store) newWtx(ktx *kv.Tx) *wtx {
	return &wtx{Tx: ktx, idx: s.idx, sets: s.idx.SetWriter(), route: s.routingOf, noReports: s.noReports.Load()}
}

// flush writes what tx buffered for the whole transaction (the report rollups' changes, then the
// message postings), last, inside it: when the transaction records, these writes are in its
// write set like any other, so every node of a cluster holds the same rollups and postings.
func (tx *wtx) flush() error {
	if err := tx.flushReports(); err != nil {
		return err
	}
	return tx.idx.FlushWords(tx.Tx, tx.words)
}

// update runs fn in a batched write transaction (the group commit coalesces concurrent writers
// into one fsync), keeping the rule above: fn may run more than once, so it starts from fresh effects
// each time, and a refusal comes back through this call's own variable.
func (s *Store) update(fn func(tx *wtx) error) error {
	var fx effects
	runs := 0
	err := s.group.run(func(tx *wtx) error {
		runs++
		tx.effects = effects{}
		err := fn(tx)
		if isRefusal(err) {
			tx.effects = effects{refused: err}
			err = nil
		}
		if err == nil {
			tx.settleSets()
		}
		fx, tx.effects = tx.effects, effects{}
		if err == nil && fx.refused == nil {
			tx.done.add(&fx)
		}
		return err
	})
	if runs > 1 {
		s.batchReruns.Add(int64(runs - 1))
	}
	if err != nil {
		return err
	}
	if fx.refused != nil {
		return fx.refused
	}
	if s.commit == nil {
		s.applyEffects(&fx) // else the committed entry's application did
	}
	return nil
}

// updateNow is update without batching, for callers that write big transactions (imports).
func (s *Store) updateNow(fn func(tx *wtx) error) error {
	var fx effects
	err := s.writeTx(func(tx *wtx) error {
		if err := fn(tx); err != nil {
			return err
		}
		tx.settleSets()
		fx = tx.effects
		if fx.refused == nil {
			tx.done.add(&fx)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if fx.refused != nil {
		return fx.refused
	}
	if s.commit == nil {
		s.applyEffects(&fx) // else the committed entry's application did
	}
	return nil
}

// Write runs fn in one of the store's batched write transactions, for the packages that keep
// their records in the store's file (oauth). It keeps update's rule: fn may run more than once,
// so it sets what it reports afresh on each run; a ValidationError or *Error it returns before
// writing anything is a refusal, returned to this caller alone while the batch commits; any
// other error rolls the transaction back.
func (s *Store) Write(fn func(tx *kv.Tx) error) error {
	return s.update(func(tx *wtx) error { return fn(tx.Tx) })
}

// BatchReruns counts how often the group commit ran a write function again because another function of
// its batch failed. Refusals do not make it rerun, so it stays 0 unless real errors occur.
func (s *Store) BatchReruns() int64 { return s.batchReruns.Load() }

// isRefusal reports whether err is a request's refusal rather than a failure of the write.
// Store functions refuse before they write, so a refused function has written nothing.
func isRefusal(err error) bool {
	var verr ValidationError
	var serr *Error
	return errors.As(err, &verr) || errors.As(err, &serr)
}

// applyEffects tells the rest of the process what a committed write did: the outbox depth and
// the hooks of the dispatcher, webhook sender, scheduler, mail worker,
// stream broker, push worker and due timer. It runs after the commit and only then, so no one
// acts on a write that was rolled back.
func (s *Store) applyEffects(fx *effects) {
	s.depth.Add(fx.depth)
	if !fx.events && !fx.outbox && !fx.scheduled && !fx.mail && !fx.push && !fx.due && len(fx.live) == 0 {
		return
	}
	h := s.hook()
	call := func(want bool, f func()) {
		if want && f != nil {
			f()
		}
	}
	call(fx.events, h.Events)
	call(fx.outbox, h.Outbox)
	if len(fx.live) > 0 && h.Live != nil {
		h.Live(fx.live)
	}
	call(fx.mail, h.Mail)
	call(fx.push, h.Push)
	call(fx.scheduled, h.Schedule)
	call(fx.due, h.Due)
}

// applyTx runs fn in a bbolt write transaction of a follower (or a restarting node) applying
// committed log entries (ApplyEntries). It, writeTx and beginRecording are the only places a write
// transaction of the product opens.
func applyTx(db *bolt.DB, fn func(btx *bolt.Tx) error) error { return db.Update(fn) }

// beginRecording opens the write transaction a write set is recorded in (record): it is rolled
// back, never committed; the recorded entry commits through the log.
func beginRecording(db *bolt.DB) (*bolt.Tx, error) { return db.Begin(true) }
