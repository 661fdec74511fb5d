package store

// Replicated writes. On one node a write transaction commits to the file directly (writeTx).
// When the store is replicated (a cluster's node, Replicate) or replays its writes (a test of
// the recording, Options.Replay), a write runs in a bbolt transaction that records every change
// it makes through kv and is then rolled back; its write set, with the effects its functions
// collected, becomes one log entry (a group commit's several writers share one), and the write
// returns only once that entry is committed and applied to the file. Every node, the one that
// made the entry too, applies committed entries with ApplyEntries: in one bbolt transaction
// that also records the entry's index in the meta bucket, so a node that restarts knows which
// entries its file already holds. The entry's effects (the wake-ups of workers, the outbox
// depth, the live streams to wake) are applied after that commit, on every node.

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"

	"switchboard/store/kv"
)

// ErrUnavailable is returned by a write that was not committed: the node is not the cluster's
// leader, or the leader cannot reach a majority of the nodes; the caller answers 503.
var ErrUnavailable = errors.New("store: the cluster cannot take writes now")

// ErrUncertain is an ErrUnavailable after which the write may still be committed: its entry
// reached the log, and the node lost its leadership before it learned the entry's fate.
var ErrUncertain = fmt.Errorf("%w (the change may or may not have been made)", ErrUnavailable)

// replication is how the store commits recorded writes.
type replication struct {
	// commit hands a log entry to the cluster and returns once it is committed and applied
	// (ApplyEntries) on this node; nil means writes commit directly to the file.
	commit func(entry []byte) error
	// lead returns once this node may run writes (it leads, and its file holds every entry of
	// the log before the next), or fails with ErrUnavailable; nil for the replay test. A write
	// it refuses still runs, and fails only if it wrote something.
	lead  func() error
	wmu   sync.Mutex   // one recorded write at a time: each runs on what the one before committed
	rec   *kv.Recorder // the running write's changes (under wmu)
	nonce [8]byte      // marks the entries this store made
	// foreign makes the store apply its own entries as another node's would (tests).
	foreign bool
	// runID is the id of the transaction the write being committed ran in, and ranAsApplied
	// whether its entry was applied in a transaction of that same id: then the kept sets are
	// patched as the run's commit would have patched them (else they are rebuilt).
	runID        atomic.Int64
	ranAsApplied atomic.Bool
	// doubt is set once a commit of this store's failed: its entry may still be committed by
	// the next leader, and then it is applied as another node's (its kept-set patches were
	// taken back).
	doubt   atomic.Bool
	applied atomic.Uint64 // the index of the last entry applied to the file
}

// Entry is a committed log entry: its index in the log and the bytes a write made.
type Entry struct {
	Index uint64
	Data  []byte
}

// Replicate makes every write commit through commit, which must hand the entry to the
// cluster's log and return once it is committed and this store has applied it
// (ApplyEntries), or fail with an error wrapping ErrUnavailable. A write runs on the file as
// the entries before it left it, so lead, called before each, must return only once this node
// leads and has applied every entry of its log (a new leader's log may hold entries it has not
// applied yet), else fail with ErrUnavailable. Call it before the first write, once.
func (s *Store) Replicate(lead func() error, commit func(entry []byte) error) {
	s.initReplication()
	s.lead, s.commit = lead, commit
}

// replay makes the store commit each write by applying its write set to the file, as a node of
// a cluster applies another's (Options.Replay).
func (s *Store) replay() {
	s.initReplication()
	s.commit = func(entry []byte) error {
		return s.ApplyEntries([]Entry{{Data: entry}})[0]
	}
}

func (s *Store) initReplication() {
	s.rec = kv.NewRecorder()
	_, _ = rand.Read(s.nonce[:])
}

// Replicated reports whether writes commit through a log (Replicate, Options.Replay).
func (s *Store) Replicated() bool { return s.commit != nil }

// AppliedIndex is the index of the last log entry applied to the file (0 on one node).
func (s *Store) AppliedIndex() uint64 { return s.applied.Load() }

// The log entry: a version byte, a kind, the nonce of the store that made it, the effects of
// its functions, and its write set (kv). An entry of another version is refused, so a node
// with an older binary stops rather than misapplying a newer one's entries.
const (
	entryVersion   byte = 1
	entryWriteSet  byte = 1
	entryHeaderLen      = 2 + 8
)

// Effect flags in an entry.
const (
	fxEvents byte = 1 << iota
	fxOutbox
	fxScheduled
	fxMail
	fxPush
	fxDue
)

func (s *Store) encodeEntry(fx *effects, ops []byte) []byte {
	b := make([]byte, 0, entryHeaderLen+16+len(ops))
	b = append(b, entryVersion, entryWriteSet)
	b = append(b, s.nonce[:]...)
	var flags byte
	for _, f := range []struct {
		on   bool
		flag byte
	}{{fx.events, fxEvents}, {fx.outbox, fxOutbox}, {fx.scheduled, fxScheduled}, {fx.mail, fxMail},
		{fx.push, fxPush}, {fx.due, fxDue}} {
		if f.on {
			flags |= f.flag
		}
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, fx.depth)
	b = binary.AppendUvarint(b, uint64(len(fx.live)))
	for _, w := range fx.live {
		b = binary.AppendUvarint(b, uint64(len(w)))
		b = append(b, w...)
	}
	return append(b, ops...)
}

// errBadEntry is returned for an entry this binary cannot read.
var errBadEntry = errors.New("store: unreadable log entry")

// ErrNewerEntry is returned for a log entry of a newer format than this binary's: a node with an
// older binary in a cluster of newer ones. It must stop, not skip the entry.
var ErrNewerEntry = errors.New("store: a log entry of a newer version than this binary's: upgrade this node")

// decodeEntry returns the effects and the write set of an entry, and whether this store made it.
func (s *Store) decodeEntry(b []byte) (fx effects, ops []byte, own bool, err error) {
	if len(b) > 0 && b[0] > entryVersion {
		return fx, nil, false, ErrNewerEntry
	}
	if len(b) < entryHeaderLen+1 || b[0] != entryVersion || b[1] != entryWriteSet {
		return fx, nil, false, errBadEntry
	}
	own = [8]byte(b[2:10]) == s.nonce
	b = b[entryHeaderLen:]
	flags := b[0]
	fx.events, fx.outbox = flags&fxEvents != 0, flags&fxOutbox != 0
	fx.scheduled, fx.mail = flags&fxScheduled != 0, flags&fxMail != 0
	fx.push, fx.due = flags&fxPush != 0, flags&fxDue != 0
	b = b[1:]
	d, n := binary.Varint(b)
	if n <= 0 {
		return fx, nil, own, errBadEntry
	}
	fx.depth, b = d, b[n:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > uint64(len(b)) {
		return fx, nil, own, errBadEntry
	}
	b = b[n:]
	for range count {
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return fx, nil, own, errBadEntry
		}
		fx.live = append(fx.live, string(b[n:n+int(l)]))
		b = b[n+int(l):]
	}
	return fx, b, own, nil
}

// commitRecorded runs fn in a transaction of db that records its changes and is rolled back, and
// commits the write set through the log. Writes run one at a time, each on the file as the one
// before it left it.
func (s *Store) commitRecorded(db *bolt.DB, fn func(tx *wtx) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var refused error
	if s.lead != nil {
		refused = s.lead()
	}
	entry, tx, err := s.record(db, fn)
	if refused != nil && err == nil && entry != nil {
		// Not the leader: a function that writes nothing may still run (a clean-up at start
		// with nothing to clean); one that writes is refused.
		err = refused
	}
	if err != nil {
		if tx != nil {
			tx.sets.RolledBack()
		}
		return err
	}
	if entry == nil {
		// Nothing written: what the functions did is this node's alone (a claim found
		// nothing to move, a refusal).
		s.applyEffects(&tx.done)
		return nil
	}
	s.ranAsApplied.Store(false)
	if err := s.commit(entry); err != nil {
		s.doubt.Store(true)
		tx.sets.RolledBack()
		return err
	}
	if s.ranAsApplied.Load() {
		tx.sets.Committed()
	}
	return nil
}

// record runs fn in a recording transaction of db, rolls it back, and returns the log entry of
// what it wrote (nil when it wrote nothing).
func (s *Store) record(db *bolt.DB, fn func(tx *wtx) error) ([]byte, *wtx, error) {
	btx, err := beginRecording(db)
	if err != nil {
		return nil, nil, err
	}
	defer btx.Rollback()
	s.rec.Reset()
	s.runID.Store(int64(btx.ID()))
	tx := s.newWtx(kv.Wrap(btx, s.h.Load().epoch, s.rec))
	if err := fn(tx); err != nil {
		return nil, tx, err
	}
	if err := tx.flush(); err != nil {
		return nil, tx, err
	}
	if s.rec.Len() == 0 {
		return nil, tx, nil
	}
	return s.encodeEntry(&tx.done, s.rec.Bytes()), tx, nil
}

// ApplyEntries applies committed log entries to the file, in one transaction that records the
// index of the last, skipping those the file already holds (a node replays its log after a
// restart), and then applies their effects. It returns each entry's outcome: an entry that
// cannot be applied (it never could on any node that holds what the leader held) is skipped
// whole, its index recorded all the same, so that every node stays at the same state.
func (s *Store) ApplyEntries(es []Entry) []error {
	errs := make([]error, len(es))
	h := s.acquire()
	defer h.release()
	var fx effects
	var foreign [][]byte
	upTo := len(es) // the entries applied (or skipped for good) are es[:upTo]
	err := applyTx(h.db, func(btx *bolt.Tx) error {
		fx, foreign = effects{}, nil
		return s.applyEntries(btx, h.epoch, es, errs, &fx, &foreign, false)
	})
	if err != nil {
		// One entry failed: apply them one at a time, so that only it is left out.
		fx, foreign = effects{}, nil
		for i := range es {
			var efx effects
			var ef [][]byte
			err := applyTx(h.db, func(btx *bolt.Tx) error {
				return s.applyEntries(btx, h.epoch, es[i:i+1], errs[i:i+1], &efx, &ef, false)
			})
			if errors.Is(err, ErrNewerEntry) {
				// Not skipped: this node must stop and be upgraded, then apply it.
				for j := i; j < len(es); j++ {
					errs[j] = err
				}
				upTo = i
				break
			}
			if err != nil {
				errs[i] = err
				err = applyTx(h.db, func(btx *bolt.Tx) error {
					return s.applyEntries(btx, h.epoch, es[i:i+1], nil, nil, nil, true)
				})
			}
			if err != nil {
				// The file itself cannot be written: nothing after this entry can apply.
				for j := i; j < len(es); j++ {
					errs[j] = err
				}
				return errs
			}
			fx.add(&efx)
			foreign = append(foreign, ef...)
		}
	}
	if upTo > 0 {
		if last := es[upTo-1].Index; last > s.applied.Load() {
			s.applied.Store(last)
		}
	}
	for _, ops := range foreign {
		s.learnForeign(ops)
	}
	s.applyEffects(&fx)
	return errs
}

// applyEntries applies es in btx and records the last index; skip records the index alone.
func (s *Store) applyEntries(btx *bolt.Tx, epoch uint64, es []Entry, errs []error, fx *effects, foreign *[][]byte, skip bool) error {
	var applied uint64
	if meta := btx.Bucket(bMeta); meta != nil {
		applied = decodeUint(meta.Get(metaAppliedIndex))
	}
	var last uint64
	forget := skip
	for i, e := range es {
		if e.Index != 0 && e.Index <= applied {
			continue // already in the file
		}
		last = max(last, e.Index)
		if skip {
			continue
		}
		efx, ops, own, err := s.decodeEntry(e.Data)
		if err == nil {
			err = kv.Apply(btx, ops)
		}
		if err != nil {
			errs[i] = err
			return err
		}
		fx.add(&efx)
		switch {
		case !own || s.foreign || s.doubt.Load():
			*foreign = append(*foreign, ops)
			forget = forget || touchesSets(ops)
		case int64(btx.ID()) == s.runID.Load() && len(es) == 1:
			s.ranAsApplied.Store(true)
		default:
			// Another transaction committed between the write's run and this one: the
			// run's id no longer orders it among the readers.
			forget = forget || touchesSets(ops)
		}
	}
	if forget {
		// Lists read after this commit rebuild the kept sets another node's writes changed
		// (this node's own writes patched them as they ran).
		s.idx.ForgetSets(epoch, btx.ID())
	}
	if last == 0 {
		return nil
	}
	meta, err := btx.CreateBucketIfNotExists(bMeta)
	if err != nil {
		return err
	}
	return meta.Put(metaAppliedIndex, encodeUint(last))
}

// touchesSets reports whether the write set ops changes what the contacts list's kept sets are
// built from.
func touchesSets(ops []byte) bool {
	touched := false
	_ = kv.Walk(ops, func(op kv.Op) error {
		for _, b := range setSources {
			if string(op.Path[0]) == string(b) {
				touched = true
				return errStop
			}
		}
		return nil
	})
	return touched
}

var errStop = errors.New("stop")

// learnForeign updates what the store keeps in memory from a write set another node made (or
// that the replay test applies as if another had): the opt-out filters learn its opt-outs.
func (s *Store) learnForeign(ops []byte) {
	_ = kv.Walk(ops, func(op kv.Op) error {
		if op.Kind == kv.Put && len(op.Path) == 1 && string(op.Path[0]) == string(bOptOutPhone) && len(op.Key) >= 16+1+1+16 {
			s.addOptOutFilter(ulid.ULID(op.Key[:16]).String(), string(op.Key[17:len(op.Key)-17]))
		}
		return nil
	})
}
