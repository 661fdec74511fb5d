// Package store keeps every Switchboard entity in one bbolt file. It owns the bucket layout, the
// key encodings and the secondary indexes; an entity, its index entries and the webhook events it
// causes always change in one transaction.
package store

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// Options configure Open.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Timeout bounds the wait for the file lock; a second process fails fast.
	Timeout time.Duration
	// ReadOnly opens without the write lock.
	ReadOnly bool
	// Replay makes every write run in a transaction that is rolled back and commit only its
	// recorded write set, as a cluster's node applies the leader's: a test of the recording
	// (a write that escaped it is lost). Building with the storereplay tag turns it on for
	// every store.
	Replay bool
	// LiveKeepEvents and LiveKeepFor bound the live event log of each workspace: an event is
	// pruned once it is beyond both (0: 10,000 events, 24 hours).
	LiveKeepEvents uint64
	LiveKeepFor    time.Duration
	// SecretKey (SecretKeySize bytes) seals the secrets the store must read back: two-factor
	// secrets and the links of queued e-mail. The server keeps it in a file of the
	// data directory, never in the database. nil means a random key for this process only,
	// for tests and read-only tools; a migration that would seal existing secrets refuses it.
	SecretKey []byte
}

// Store is the one handle on the database.
type Store struct {
	h    atomic.Pointer[dbHandle] // the open file; a snapshot's installation replaces it
	path string
	opts Options
	now  func() time.Time

	optMu    sync.RWMutex
	optBloom map[ulid.ULID]*optFilter

	hookMu     sync.RWMutex
	hooks      Hooks        // called after commits (applyEffects)
	mailNotify MailNotify   // notification e-mails, when on (NotifyByMail)
	mediaBase  atomic.Value // string: the public URL media URLs start with (SetPublicURL)
	tenantID   string
	idMu       sync.Mutex
	idEntropy  *ulid.MonotonicEntropy
	lastMS     uint64
	depth      atomic.Int64 // messages queued or sending (OutboxDepth)

	batchReruns atomic.Int64  // see BatchReruns
	group       groupCommit   // the batched write path
	idx         *index.Engine // the search and index engine over this file's indexes

	liveKeepEvents uint64        // see Options.LiveKeepEvents
	liveKeepFor    time.Duration // see Options.LiveKeepFor

	noReports   atomic.Bool            // the report rollups are not kept: set only by the benchmarks of their cost
	sealer      atomic.Pointer[sealer] // see Options.SecretKey and UseSecretKey
	keyMismatch atomic.Bool            // the key does not open the file's key check (SecretKeyMatches)

	routes   sync.Map // workspace id -> *routing, the compiled routing of its last version read
	presence presence // who has a live stream open, for availability

	replication                    // how writes commit when they are recorded (Replicate, Options.Replay)
	tokenMemo    recordMemo[Token] // Authenticate's decoded tokens, by hash
	disabledMemo recordMemo[bool]  // Authenticate's decoded user flags, by user key
	activeMemo   recordMemo[bool]  // activeNumberID's decoded number flags, by number key
}

// openTimeout is how long Open waits for the file's lock by default.
const openTimeout = time.Second

// initialMmapSize is how much of the file is mapped when it is opened (see Open).
const initialMmapSize = 1 << 30

// Open opens (creating if needed) the database at path, runs migrations and builds the
// in-memory opt-out filters.
func Open(path string, opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout == 0 {
		opts.Timeout = openTimeout
	}
	sealer, err := newSealer(opts.SecretKey)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
	db, err := openFile(path, opts)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, opts: opts, now: opts.Now, optBloom: map[ulid.ULID]*optFilter{},
		idx:       index.New(&indexLayout, setMembers, index.DefaultBounds(ImportBatchSize)),
		idEntropy: ulid.Monotonic(rand.Reader, 0), liveKeepEvents: opts.LiveKeepEvents, liveKeepFor: opts.LiveKeepFor}
	s.sealer.Store(sealer)
	s.h.Store(newHandle(db, 0))
	s.idx.SetView(s.view)
	s.group = groupCommit{write: s.writeTx, arrived: make(chan struct{}, 1)}
	if opts.Replay || replayAll {
		s.replay()
	}
	if s.liveKeepEvents == 0 {
		s.liveKeepEvents = defaultLiveKeepEvents
	}
	if s.liveKeepFor == 0 {
		s.liveKeepFor = defaultLiveKeepFor
	}
	s.presence.start = opts.Now().UTC()
	// Ids made before this open (by an earlier process) carry at most this millisecond; starting
	// at the next one keeps every new id sorting after them, whatever the random entropy says.
	s.lastMS = ulid.Timestamp(opts.Now()) + 1
	if !opts.ReadOnly {
		if err := s.migrate(); err != nil {
			s.Close()
			return nil, err
		}
	}
	if err := s.loadMemory(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openFile opens the bbolt file at path with the store's options.
func openFile(path string, opts Options) (*bolt.DB, error) {
	// A write that grows the file past the mapped size remaps it, and a remap waits for every
	// open read transaction (an export's, a held snapshot's) to end: mapping the first GiB at
	// once (address space, not memory) keeps writes from waiting on readers until then.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.Timeout, ReadOnly: opts.ReadOnly, FreelistType: bolt.FreelistMapType,
		InitialMmapSize: initialMmapSize})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("store: %s: %w (is a server running? stop it or use its admin endpoint)", path, ErrLocked)
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	// bbolt grows the file past what a commit needs by AllocSize, 16 MiB by default: the
	// file on disk then carries up to 16 MiB never written (4 % of a million contacts' file,
	// and where the last step lands decides it). Steps of 4 MiB bound that; each costs a
	// truncate and an fsync, a hundred over a 400 MB file's life.
	db.AllocSize = growStep
	return db, nil
}

// growStep is how far past a commit's last page the file grows when it must.
const growStep = 4 << 20

// loadMemory builds what the store keeps in memory beside the file, from the file: the tenant,
// the opt-out filters, the outbox depth, the applied log index, whether the secret key opens
// the file's secrets. Open calls it, and so does the installation of a snapshot, which replaces
// the file.
func (s *Store) loadMemory() error {
	if err := s.view(func(tx *kv.Tx) error {
		if b := tx.Bucket(bMeta); b != nil {
			s.tenantID = string(b.Get(metaTenantID))
			s.applied.Store(decodeUint(b.Get(metaAppliedIndex)))
			s.matchSecretKey(b)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := s.buildOptOutFilters(); err != nil {
		return err
	}
	return s.countOutbox()
}

// Close closes the database.
func (s *Store) Close() error {
	s.idx.Close()
	return s.h.Load().db.Close()
}

// DB exposes the bbolt handle for tests that inspect or damage the file directly; the
// product reads through View and writes through Write.
func (s *Store) DB() *bolt.DB { return s.h.Load().db }

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// View runs fn in a read transaction, for the packages that keep records in the store's file
// (oauth).
func (s *Store) View(fn func(tx *kv.Tx) error) error { return s.view(fn) }

// view runs fn in a read transaction of the open file.
func (s *Store) view(fn func(tx *kv.Tx) error) error {
	h := s.acquire()
	defer h.release()
	return h.db.View(func(tx *bolt.Tx) error { return fn(kv.Wrap(tx, h.epoch, nil)) })
}

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now().UTC() }

// Hooks are the functions the store calls after a commit that gave others work, so that they
// need not poll: each wakes a worker (the queues themselves are in the store). Any may be nil.
// They run after the commit and never inside it, so none acts on a write that was rolled back.
type Hooks struct {
	Events   func()                      // webhook deliveries were queued: the webhook sender
	Outbox   func()                      // outbound messages were queued: the dispatcher
	Schedule func()                      // a broadcast was scheduled: the scheduler
	Media    func()                      // inbound media fetches were queued: the fetcher
	Mail     func()                      // e-mail was queued: the mail worker
	Push     func()                      // Web Push was queued: the push worker
	Due      func()                      // an automation's due time was queued: the due timer
	Live     func(workspaceIDs []string) // live events were added (or who may read them changed): the stream broker
}

// SetHooks sets the hooks h has (its non-nil functions); the others stay as they were, so that
// each part of the server registers its own.
func (s *Store) SetHooks(h Hooks) {
	s.hookMu.Lock()
	defer s.hookMu.Unlock()
	set := func(dst *func(), f func()) {
		if f != nil {
			*dst = f
		}
	}
	set(&s.hooks.Events, h.Events)
	set(&s.hooks.Outbox, h.Outbox)
	set(&s.hooks.Schedule, h.Schedule)
	set(&s.hooks.Media, h.Media)
	set(&s.hooks.Mail, h.Mail)
	set(&s.hooks.Push, h.Push)
	set(&s.hooks.Due, h.Due)
	if h.Live != nil {
		s.hooks.Live = h.Live
	}
}

// hook returns the store's hooks as they are now.
func (s *Store) hook() Hooks {
	s.hookMu.RLock()
	defer s.hookMu.RUnlock()
	return s.hooks
}

// NewID returns a fresh ULID, monotonic within this process even when the clock stands still.
func (s *Store) NewID() string {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	ms := ulid.Timestamp(s.now())
	if ms < s.lastMS {
		ms = s.lastMS
	}
	s.lastMS = ms
	id, err := ulid.New(ms, s.idEntropy)
	if err != nil {
		// Entropy exhausted within one millisecond: move to the next one.
		s.lastMS++
		id = ulid.MustNew(s.lastMS, s.idEntropy)
	}
	return id.String()
}

// ParseID parses a ULID string strictly; ok is false for anything else.
func ParseID(s string) (ulid.ULID, bool) {
	id, err := ulid.ParseStrict(s)
	return id, err == nil
}

// Backup writes a consistent copy of the database (a hot backup through bbolt Tx.WriteTo);
// size, when not nil, learns the copy's length before the first byte is written.
func (s *Store) Backup(w io.Writer, size func(int64)) (int64, error) {
	var n int64
	err := s.view(func(tx *kv.Tx) error {
		if size != nil {
			size(tx.Size())
		}
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}

// ---- key helpers ----

// Tenant owns workspaces. An installation has one.
type Tenant struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}
