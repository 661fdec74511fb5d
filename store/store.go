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

// Bucket names, declared in one place. Index buckets hold keys of the form
// workspace(16) | 0x00 | term | 0x00 | id(16) with empty values unless noted.
var (
	bMeta         = []byte("meta")
	bTenants      = []byte("tenants")
	bWorkspaces   = []byte("workspaces")
	bUsers        = []byte("users")
	bUserEmail    = []byte("idx_user_email") // lower(email) -> user id
	bMemberships  = []byte("memberships")    // ws|user -> Membership
	bUserWS       = []byte("idx_user_workspaces")
	bInvitations  = []byte("invitations")
	bNumbers      = []byte("phone_numbers")
	bNumberPhone  = []byte("idx_phone_number_phone")
	bNumberGlobal = []byte("idx_phone_number_global") // phone -> ws|number id, installation-wide
	bProperties   = []byte("contact_properties")
	bPropertyName = []byte("idx_contact_property_name")
	// The contact buckets hold a bucket per workspace (layout in search_index.go).
	bContacts          = []byte("contact_records")
	bContactPhone      = []byte("idx_contact_by_phone")
	bContactEmail      = []byte("idx_contact_by_email")
	bContactTerms      = []byte("idx_contact_postings")
	bContactOrder      = []byte("idx_contact_names")
	bContactNums       = []byte("idx_contact_nums")
	bConversations     = []byte("conversations")
	bConvKey           = []byte("idx_conversation_key")
	bConvActivity      = []byte("idx_conversation_activity") // ws|activity(8)|conversation -> empty (inbox.go)
	bMessages          = []byte("messages")
	bConvMessages      = []byte("idx_conversation_messages")
	bOutbox            = []byte("outbox")               // number id|priority|message id -> ws: ready to send (outbox.go)
	bOutboxSending     = []byte("outbox_sending")       // message id -> number id|priority|ws: handed to a carrier
	bOutboxDelayed     = []byte("outbox_delayed")       // due(8)|message id -> number id|priority|ws: retries
	bMsgProvider       = []byte("idx_message_provider") // provider|0|provider id -> ws|message id
	bBlocked           = []byte("blocked_numbers")      // ws|phone -> Block
	bGroups            = []byte("groups")               // ws|id -> Group (group.go)
	bBroadcastTargets  = []byte("broadcast_targets")    // ws|id -> BroadcastTargets (broadcast.go)
	bBroadcastSchedule = []byte("broadcast_schedule")   // due|ws|id -> empty
	bBroadcastPending  = []byte("broadcast_pending")    // ws|id|seq -> recipients still to queue
	bGroupName         = []byte("idx_group_name")
	bGroupMembers      = []byte("group_members")      // ws|group|contact -> empty
	bContactGroups     = []byte("idx_contact_groups") // ws|contact|group -> empty
	bComments          = []byte("comments")
	bBroadcasts        = []byte("broadcasts")
	bOptOuts           = []byte("opt_outs")
	bOptOutPhone       = []byte("idx_opt_out_phone")
	bTokens            = []byte("api_tokens") // sha256(token) -> Token
	bTokenIDs          = []byte("idx_api_token_id")
	bSubs              = []byte("webhook_subscriptions")
	bSubEvent          = []byte("idx_webhook_subscription_event")
	bEvents            = []byte("webhook_events")     // event id -> Event
	bDeliveries        = []byte("webhook_deliveries") // delivery id -> Delivery
	bDeliveryQueue     = []byte("webhook_queue")      // due(8)|delivery id -> empty
	bAttempts          = []byte("webhook_attempts")   // delivery id|attempt id -> Attempt
	bSubDeliveries     = []byte("idx_webhook_subscription_deliveries")
	bSubOwner          = []byte("idx_webhook_subscription_owner")   // see ownerKey (subscription.go)
	bSubPending        = []byte("idx_webhook_subscription_pending") // sub|delivery -> empty, pending only
	bEventPending      = []byte("idx_webhook_event_pending")        // event|delivery -> empty, pending only
	bSessions          = []byte("sessions")                         // sha256(token) -> Session (session.go)
	bSessionUser       = []byte("idx_session_user")                 // user|session id -> sha256(token)
	bTwoFactor         = []byte("user_two_factor")                  // user -> two-factor record (totp.go)
	bResets            = []byte("password_resets")                  // sha256(token) -> PasswordReset (reset.go)
	bMail              = []byte("mail")                             // id -> Mail (mail.go)
	bMailQueue         = []byte("mail_queue")                       // due(8)|id -> empty
)

var allBuckets = [][]byte{
	bMeta, bTenants, bWorkspaces, bUsers, bUserEmail, bMemberships, bUserWS, bInvitations,
	bNumbers, bNumberPhone, bNumberGlobal, bProperties, bPropertyName, bContacts, bContactPhone, bContactEmail,
	bContactTerms, bContactOrder, bContactNums, bConversations, bConvKey, bMessages, bConvMessages,
	bOutbox, bOutboxSending, bOutboxDelayed, bMsgProvider, bBlocked, bGroups, bGroupName, bGroupMembers, bContactGroups, bBroadcastTargets, bBroadcastSchedule, bBroadcastPending, bComments, bBroadcasts, bOptOuts, bOptOutPhone, bTokens, bTokenIDs, bSubs, bSubEvent,
	bEvents, bDeliveries, bDeliveryQueue, bAttempts, bSubDeliveries,
	bSubOwner, bSubPending, bEventPending, bConvActivity,
	bSessions, bSessionUser, bTwoFactor, bResets, bMail, bMailQueue,
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
			s.tenantID = string(b.Get([]byte("tenant_id")))
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

func (s *Store) migrate() error {
	var from uint64
	err := s.db.Update(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("store: create bucket %s: %w", name, err)
			}
		}
		meta := tx.Bucket(bMeta)
		from = decodeUint(meta.Get([]byte("schema_version")))
		if from > uint64(SchemaVersion) {
			return fmt.Errorf("store: database schema %d is newer than this binary's %d", from, SchemaVersion)
		}
		if from == 0 {
			from = uint64(SchemaVersion) // a new file is born at the current version
		}
		if meta.Get([]byte("tenant_id")) == nil {
			t := Tenant{ID: s.NewID(), Name: "default", CreatedAt: s.Now()}
			if err := putJSON(tx.Bucket(bTenants), idKey(t.ID), t); err != nil {
				return err
			}
			if err := meta.Put([]byte("tenant_id"), []byte(t.ID)); err != nil {
				return err
			}
		}
		return meta.Put([]byte("schema_version"), encodeUint(from))
	})
	if err != nil {
		return err
	}
	return s.runMigrations(from)
}

// SchemaVersion reports the version stored in the meta bucket.
func (s *Store) SchemaVersion() (int, error) {
	var v uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		v = decodeUint(tx.Bucket(bMeta).Get([]byte("schema_version")))
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
