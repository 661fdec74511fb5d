// Package store keeps every Switchboard entity in one bbolt file. It owns the bucket layout, the
// key encodings and the secondary indexes; an entity, its index entries and the webhook events it
// causes always change in one transaction.
package store

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"
)

// Sentinel errors. Store functions wrap them in *Error, whose message is safe to show a client.
var (
	ErrNotFound  = errors.New("not found")
	ErrForbidden = errors.New("forbidden")
	ErrConflict  = errors.New("conflict")
	ErrOptedOut  = errors.New("opted out")
	ErrLocked    = errors.New("database is in use by another process")
)

// Error is a failure whose Msg may be shown to an API client; Err classifies it.
type Error struct {
	Err error
	Msg string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func errorf(kind error, format string, args ...any) error {
	return &Error{Err: kind, Msg: fmt.Sprintf(format, args...)}
}

// FieldError is one failing field of a request.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError lists every failing field of a request; the API answers it with 400.
type ValidationError []FieldError

func (v ValidationError) Error() string {
	if len(v) == 0 {
		return "validation failed"
	}
	return fmt.Sprintf("validation failed: %s: %s", v[0].Field, v[0].Message)
}

// Options configure Open.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Timeout bounds the wait for the file lock; a second process fails fast.
	Timeout time.Duration
	// ReadOnly opens without the write lock.
	ReadOnly bool
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
	tenantID   string
	idMu       sync.Mutex
	idEntropy  *ulid.MonotonicEntropy
	lastMS     uint64
	depth      atomic.Int64 // messages queued or sending (OutboxDepth)

	batchReruns atomic.Int64 // see BatchReruns
}

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
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.Timeout, ReadOnly: opts.ReadOnly, FreelistType: bolt.FreelistMapType})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("store: %s: %w (is a server running? stop it or use its admin endpoint)", path, ErrLocked)
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{db: db, now: opts.Now, optBloom: map[ulid.ULID]*optFilter{},
		idEntropy: ulid.Monotonic(rand.Reader, 0)}
	// Ids made before this open (by an earlier process) carry at most this millisecond; starting
	// at the next one keeps every new id sorting after them, whatever the random entropy says.
	s.lastMS = ulid.Timestamp(opts.Now()) + 1
	if !opts.ReadOnly {
		if err := s.migrate(); err != nil {
			db.Close()
			return nil, err
		}
	}
	if err := s.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bMeta); b != nil {
			s.tenantID = string(b.Get(metaTenantID))
		}
		return nil
	}); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.buildOptOutFilters(); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.countOutbox(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

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

// SchemaVersion reports the version stored in the meta bucket.
func (s *Store) SchemaVersion() (int, error) {
	var v uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		v = decodeUint(tx.Bucket(bMeta).Get(metaSchemaVersion))
		return nil
	})
	return int(v), err
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

// IDKey is the 16-byte binary form of a ULID used in keys; see idKey for strings that are not
// ULIDs.
func IDKey(id string) []byte { return idKey(id) }

// PutJSON stores v as JSON at key; GetJSON decodes it back, copied out of the transaction, and
// reports whether the key existed. Packages with buckets of their own (oauth) use these too.
func PutJSON(b *bolt.Bucket, key []byte, v any) error { return putJSON(b, key, v) }

// GetJSON: see PutJSON.
func GetJSON(b *bolt.Bucket, key []byte, v any) (bool, error) { return getJSON(b, key, v) }

// noID is the key of every string that is not a ULID: sixteen zero bytes, the ULID of the
// first millisecond of 1970, which NewID never makes. A lookup with it finds nothing and a prefix
// scan with it visits nothing, so an id from a client that is not a ULID is simply not found.
// (Using the raw bytes instead let a crafted 16- or 32-byte string collide with a real key.)
var noID = make([]byte, 16)

func idKey(id string) []byte {
	u, ok := ParseID(id)
	if !ok || u == (ulid.ULID{}) {
		return slices.Clone(noID)
	}
	return u[:]
}

func wsKey(ws, id string) []byte {
	k := make([]byte, 0, 32)
	k = append(k, idKey(ws)...)
	return append(k, idKey(id)...)
}

// idxKey builds workspace | 0x00 | term | 0x00 | id.
func idxKey(ws, term, id string) []byte {
	k := make([]byte, 0, 16+1+len(term)+1+16)
	k = append(k, idKey(ws)...)
	k = append(k, 0)
	k = append(k, term...)
	k = append(k, 0)
	return append(k, idKey(id)...)
}

// idxPrefix is workspace | 0x00 | term | 0x00: every id indexed under exactly term.
func idxPrefix(ws, term string) []byte {
	k := make([]byte, 0, 16+1+len(term)+1)
	k = append(k, idKey(ws)...)
	k = append(k, 0)
	k = append(k, term...)
	return append(k, 0)
}

func idFromKey(k []byte) string {
	if len(k) < 16 {
		return ""
	}
	var u ulid.ULID
	copy(u[:], k[len(k)-16:])
	return u.String()
}

// idxFirst returns the first id indexed under exactly term, or "".
func idxFirst(b *bolt.Bucket, ws, term string) string {
	p := idxPrefix(ws, term)
	k, _ := b.Cursor().Seek(p)
	if k != nil && bytes.HasPrefix(k, p) && len(k) == len(p)+16 {
		return idFromKey(k)
	}
	return ""
}

// idxIDs returns every id indexed under exactly term.
func idxIDs(b *bolt.Bucket, ws, term string) []string {
	p := idxPrefix(ws, term)
	var ids []string
	c := b.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if len(k) == len(p)+16 {
			ids = append(ids, idFromKey(k))
		}
	}
	return ids
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encode: %w", err)
	}
	return b.Put(key, data)
}

// getJSON decodes the value at key into v; false when absent. The decode copies out of the
// transaction's memory, so v stays valid after the transaction.
func getJSON(b *bolt.Bucket, key []byte, v any) (bool, error) {
	data := b.Get(key)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("store: decode: %w", err)
	}
	return true, nil
}

func encodeUint(v uint64) []byte {
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

func decodeUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// Tenant owns workspaces. An installation has one.
type Tenant struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// hasKey reports whether key is in b. Get cannot tell: a key put with an empty value in the
// same transaction reads back as nil.
func hasKey(b *bolt.Bucket, key []byte) bool {
	k, _ := b.Cursor().Seek(key)
	return bytes.Equal(k, key)
}
