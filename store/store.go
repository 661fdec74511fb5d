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
)

// Options configure Open.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Timeout bounds the wait for the file lock; a second process fails fast.
	Timeout time.Duration
	// ReadOnly opens without the write lock.
	ReadOnly bool
	// LiveKeepEvents and LiveKeepFor bound the live event log of each workspace: an event is
	// pruned once it is beyond both (0: 10,000 events, 24 hours).
	LiveKeepEvents uint64
	LiveKeepFor    time.Duration
}

// Store is the one handle on the database.
type Store struct {
	db  *bolt.DB
	now func() time.Time

	optMu    sync.RWMutex
	optBloom map[ulid.ULID]*optFilter

	// notify is called after a commit that queued webhook deliveries or outbound messages.
	hookMu     sync.RWMutex
	onEvents   func()
	onOutbox   func()
	onSchedule func()
	onLive     func(workspaceIDs []string)
	onMedia    func()       // media fetches queued (media_fetch.go)
	onMail     func()       // e-mail queued (notify_mail.go)
	mailNotify MailNotify   // notification e-mails, when on (notify_mail.go)
	mediaBase  atomic.Value // string: the public URL media URLs start with (media.go)
	tenantID   string
	idMu       sync.Mutex
	idEntropy  *ulid.MonotonicEntropy
	lastMS     uint64
	depth      atomic.Int64 // messages queued or sending (OutboxDepth)

	batchReruns atomic.Int64 // see BatchReruns
	group       groupCommit  // the batched write path (group_commit.go)

	liveKeepEvents uint64        // see Options.LiveKeepEvents
	liveKeepFor    time.Duration // see Options.LiveKeepFor

	routes   sync.Map // workspace id -> *routing, the compiled routing of its last version read
	presence presence // who has a live stream open (availability.go)
	onDue    func()   // a due entry was queued (due.go)
}

// initialMmapSize is how much of the file is mapped when it is opened (see Open).
const initialMmapSize = 1 << 30

// Open opens (creating if needed) the database at path, runs migrations and builds the
// in-memory opt-out filters.
func Open(path string, opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout == 0 {
		opts.Timeout = time.Second
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
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
	s := &Store{db: db, group: groupCommit{db: db, arrived: make(chan struct{}, 1)}, now: opts.Now, optBloom: map[ulid.ULID]*optFilter{},
		idEntropy: ulid.Monotonic(rand.Reader, 0), liveKeepEvents: opts.LiveKeepEvents, liveKeepFor: opts.LiveKeepFor}
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
	if err := s.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bMeta); b != nil {
			s.tenantID = string(b.Get(metaTenantID))
		}
		return nil
	}); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.buildOptOutFilters(); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.countOutbox(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	dropSetCache(s.db)
	return s.db.Close()
}

// DB exposes the bbolt handle to packages that keep their own buckets (oauth).
func (s *Store) DB() *bolt.DB { return s.db }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now().UTC() }

// OnEvents registers a function called after a commit that queued webhook deliveries.
func (s *Store) OnEvents(f func()) { s.hookMu.Lock(); s.onEvents = f; s.hookMu.Unlock() }

// OnSchedule registers a function called after a commit that scheduled a broadcast.
func (s *Store) OnSchedule(f func()) { s.hookMu.Lock(); s.onSchedule = f; s.hookMu.Unlock() }

// OnOutbox registers a function called after a commit that queued outbound messages.
func (s *Store) OnOutbox(f func()) { s.hookMu.Lock(); s.onOutbox = f; s.hookMu.Unlock() }

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
	err := s.db.View(func(tx *bolt.Tx) error {
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
