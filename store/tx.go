// The one write path. Every write transaction of the store runs through update (batched) or
// updateNow (alone, for big transactions and for the migrations and index rebuilds of Open);
// nothing else in the package calls DB.Update or DB.Batch. update's batches are the store's own
// group commit (group_commit.go), which keeps DB.Batch's contract without its 10 ms wait.
//
// The rule they keep: a refusal (bad input, or a state that forbids the change: not found,
// forbidden, conflict, opted out) travels back in the caller's own variable, never as the batch
// function's error. The group commit coalesces concurrent writers into one transaction and one
// fsync; if any one of its functions returns an error, the whole batch is rolled back, that
// function runs again alone and the others again together. A refused request returned as an error would make every
// other writer of its batch run twice. So a write function checks first and writes after: it
// refuses (fx.refuse, or by returning a ValidationError or *Error, which update treats the same)
// before it has written anything, update records the refusal, lets the batch commit, and returns
// the refusal to its caller alone. Any other error is a real failure and rolls the batch back.
//
// Because bbolt may run a batch function more than once, it must start from fresh effects each
// run, and the effects of a write (hooks to wake the dispatcher, webhook sender and scheduler,
// the outbox depth, the opt-out filters) are applied only after the commit, by applyEffects.

package store

import (
	"errors"

	bolt "go.etcd.io/bbolt"
)

// effects collects what a write transaction did that others must hear of after it commits.
type effects struct {
	events    bool
	outbox    bool
	depth     int64 // change in the number of messages queued or sending
	scheduled bool  // a broadcast was scheduled
	mail      bool  // e-mail was queued (notify_mail.go)
	due       bool  // an automation's due time was queued (due.go)
	optOuts   []optOutRef
	live      []string // workspaces whose live streams must be woken (live_event.go)
	refused   error
	// postings, when set (imports), collects new contacts' search postings to be written term
	// by term before the transaction commits (search_index.go).
	postings *postingBuf
	// msgIndex, when set (a broadcast's fan-out), writes new messages' slots into their
	// blocks in place (message_words.go).
	msgIndex *msgIndexBuf
}

// refuse records a refusal for update to return to its caller and returns nil, so that the
// batch commits (the rule above). Call it only before the function has written anything.
func (fx *effects) refuse(err error) error {
	fx.refused = err
	return nil
}

type optOutRef struct{ ws, phone string }

// update runs fn in a batched write transaction (the group commit coalesces concurrent writers
// into one fsync), keeping the rule above: fn may run more than once, so it starts from fresh effects
// each time, and a refusal comes back through this call's own variable.
func (s *Store) update(fn func(tx *bolt.Tx, fx *effects) error) error {
	var fx effects
	var refused error
	runs := 0
	var last *bolt.Tx
	err := s.group.run(func(tx *bolt.Tx) error {
		runs++
		last = tx
		fx, refused = effects{}, nil
		err := fn(tx, &fx)
		if isRefusal(err) {
			refused, fx = err, effects{}
			err = nil
		}
		if err == nil {
			settleSets(tx) // the list's kept sets (contact_list_patch.go)
		}
		return err
	})
	if runs > 1 {
		s.batchReruns.Add(int64(runs - 1))
	}
	if err != nil {
		if last != nil {
			setsRolledBack(s.db, last)
		}
		return err
	}
	if refused != nil {
		return refused
	}
	if fx.refused != nil {
		return fx.refused
	}
	s.applyEffects(&fx)
	return nil
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

// updateNow is update without batching, for callers that write big transactions (imports).
func (s *Store) updateNow(fn func(tx *bolt.Tx, fx *effects) error) error {
	var fx effects
	var last *bolt.Tx
	err := s.db.Update(func(tx *bolt.Tx) error {
		last = tx
		beginWordBuf(tx) // message postings written at the end (message_words_buf.go)
		defer dropWordBuf(tx)
		if err := fn(tx, &fx); err != nil {
			return err
		}
		if err := flushWordBuf(tx); err != nil {
			return err
		}
		settleSets(tx) // the list's kept sets (contact_list_patch.go)
		return nil
	})
	if err != nil {
		setsRolledBack(s.db, last)
		return err
	}
	if fx.refused != nil {
		return fx.refused
	}
	s.applyEffects(&fx)
	return nil
}

// applyEffects tells the rest of the process what a committed write did: the outbox depth, the
// opt-out filters, and the hooks of the dispatcher, webhook sender and broadcast scheduler. It
// runs after the commit and only then, so no one acts on a write that was rolled back.
func (s *Store) applyEffects(fx *effects) {
	s.depth.Add(fx.depth)
	for _, o := range fx.optOuts {
		s.addOptOutFilter(o.ws, o.phone)
	}
	s.notify(fx.events, fx.outbox)
	s.notifyLive(fx.live)
	if fx.mail {
		s.notifyMail()
	}
	if fx.due {
		s.notifyDue()
	}
	if fx.scheduled {
		s.hookMu.RLock()
		f := s.onSchedule
		s.hookMu.RUnlock()
		if f != nil {
			f()
		}
	}
}

func (s *Store) notify(events, outbox bool) {
	s.hookMu.RLock()
	fe, fo := s.onEvents, s.onOutbox
	s.hookMu.RUnlock()
	if events && fe != nil {
		fe()
	}
	if outbox && fo != nil {
		fo()
	}
}
