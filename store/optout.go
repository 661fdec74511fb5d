package store

import (
	"sync"
	"time"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// OptOut records that a number asked not to be texted by a workspace.
type OptOut struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Phone       string    `json:"phone"`
	Reason      string    `json:"reason"`
	UserID      string    `json:"userId"`
	CreatedAt   time.Time `json:"createdAt"`
	// NumberID is the workspace's number the opt-out came through (a STOP texted to it, a
	// carrier's refusal of a send from it); "" for one made through the API or by a member.
	NumberID string `json:"numberId,omitempty"`
	// BroadcastID is the broadcast it answered: a copy of it was the team's latest text to the
	// number (or the copy the carrier refused).
	BroadcastID string `json:"broadcastId,omitempty"`
}

// Opt-out reasons: how the opt-out came to be.
const (
	OptOutAPI     = "api"
	OptOutKeyword = "keyword"
	OptOutCarrier = "carrier"
	OptOutAdmin   = "admin"
)

// optFilter is a workspace's bloom filter of opted-out numbers. A miss proves a number is not
// opted out, so broadcast fan-out skips the index lookup for nearly every recipient. Numbers
// are added before their transaction commits (a rolled-back add only costs a false positive)
// and never removed (a re-subscribed number costs one lookup).
type optFilter struct {
	mu      sync.RWMutex
	f       *bloom.BloomFilter
	n       uint
	cap     uint
	growing bool // a rebuild that replaces this filter has been started
}

const optFilterMin = 10_000

func newOptFilter(capacity uint) *optFilter {
	if capacity < optFilterMin {
		capacity = optFilterMin
	}
	return &optFilter{f: bloom.NewWithEstimates(capacity, 0.001), cap: capacity}
}

// add adds phone; grow is true, once per filter, when the filter is over capacity.
func (o *optFilter) add(phone string) (grow bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.f.AddString(phone)
	o.n++
	if o.n > o.cap && !o.growing {
		o.growing = true
		return true
	}
	return false
}

func (o *optFilter) test(phone string) bool {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.f.TestString(phone)
}

// buildOptOutFilters reads every opt-out once at start.
func (s *Store) buildOptOutFilters() error {
	return s.view(s.loadOptOutFilters)
}

// rebuildOptOutFilters replaces the filters with ones sized for twice their count. It reads in a
// write transaction so that it runs after the writer that added the number (and any other
// writer) commits: a read transaction begun earlier would miss their opt-outs, and the new
// filters would then wrongly clear those numbers.
func (s *Store) rebuildOptOutFilters() error {
	return s.updateNow(func(tx *wtx) error { return s.loadOptOutFilters(tx.Tx) })
}

// loadOptOutFilters builds every workspace's filter from the opt-outs tx sees and installs them.
func (s *Store) loadOptOutFilters(tx *kv.Tx) error {
	byWS := map[ulid.ULID][]string{}
	// The phone index holds every opt-out's number in its key (workspace | 0x00 | phone | 0x00 |
	// id): reading keys instead of decoding records keeps start-up cheap with many opt-outs.
	if b := tx.Bucket(bOptOutPhone); b != nil {
		err := b.ForEach(func(k, _ []byte) error {
			if len(k) < 16+1+1+16 {
				return nil
			}
			ws := ulid.ULID(k[:16])
			byWS[ws] = append(byWS[ws], string(k[17:len(k)-17]))
			return nil
		})
		if err != nil {
			return err
		}
	}
	filters := make(map[ulid.ULID]*optFilter, len(byWS))
	for ws, phones := range byWS {
		f := newOptFilter(uint(len(phones)) * 2)
		for _, p := range phones {
			f.add(p)
		}
		filters[ws] = f
	}
	s.optMu.Lock()
	s.optBloom = filters
	s.optMu.Unlock()
	return nil
}

func (s *Store) optFilterOf(workspaceID string) *optFilter {
	ws, _ := ParseID(workspaceID)
	s.optMu.RLock()
	defer s.optMu.RUnlock()
	return s.optBloom[ws]
}

// addOptOutFilter adds phone to the workspace's filter, growing it when it is over capacity.
func (s *Store) addOptOutFilter(workspaceID, phone string) {
	ws, _ := ParseID(workspaceID)
	s.optMu.Lock()
	f := s.optBloom[ws]
	if f == nil {
		f = newOptFilter(0)
		s.optBloom[ws] = f
	}
	s.optMu.Unlock()
	if f.add(phone) {
		// Over capacity: a rebuild sizes every filter for twice its count. It must not run
		// before this transaction commits, and it cannot wait here inside it.
		go func() { _ = s.rebuildOptOutFilters() }()
	}
}

// isOptedOut consults the filter, then the index.
func (s *Store) isOptedOut(tx *kv.Tx, workspaceID, phone string) (bool, error) {
	if f := s.optFilterOf(workspaceID); f == nil || !f.test(phone) {
		return false, nil
	}
	return idxFirst(tx.Bucket(bOptOutPhone), workspaceID, phone) != "", nil
}

// IsOptedOut reports whether phone opted out of the workspace.
func (s *Store) IsOptedOut(workspaceID, phone string) (bool, error) {
	var out bool
	err := s.view(func(tx *kv.Tx) error {
		var err error
		out, err = s.isOptedOut(tx, workspaceID, phone)
		return err
	})
	return out, err
}

// CreateOptOut records that phone opted out; an existing opt-out is returned with created=false.
func (s *Store) CreateOptOut(workspaceID, userID, phone, reason string) (o OptOut, created bool, err error) {
	err = s.update(func(tx *wtx) error {
		o, created, err = s.createOptOut(tx, workspaceID, userID, phone, reason, optOutSource{})
		return err
	})
	return o, created, err
}

// optOutSource is where an opt-out came from, when a text brought it: the number it came
// through and the broadcast it answered (OptOut.NumberID, OptOut.BroadcastID), and when the
// text was sent (zero: now) — a STOP recovered from the carrier's listing withdrew consent when
// it was sent, not when it was read.
type optOutSource struct {
	numberID, broadcastID string
	at                    time.Time
}

func (s *Store) createOptOut(tx *wtx, workspaceID, userID, phone, reason string, from optOutSource) (OptOut, bool, error) {
	var o OptOut
	idx := tx.Bucket(bOptOutPhone)
	if id := idxFirst(idx, workspaceID, phone); id != "" {
		ok, err := getJSON(tx.Bucket(bOptOuts), wsKey(workspaceID, id), &o)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "opt-out not found")
		}
		return o, false, err
	}
	o = OptOut{ID: s.NewID(), WorkspaceID: workspaceID, Phone: phone, Reason: reason, UserID: userID, CreatedAt: s.Now(),
		NumberID: from.numberID, BroadcastID: from.broadcastID}
	optOutChanged(tx, workspaceID, phone)
	if err := idx.Put(idxKey(workspaceID, phone, o.ID), nil); err != nil {
		return o, false, err
	}
	if err := putJSON(tx.Bucket(bOptOuts), wsKey(workspaceID, o.ID), o); err != nil {
		return o, false, err
	}
	if err := tx.reportOptOut(&o, 1); err != nil {
		return o, false, err
	}
	s.addOptOutFilter(workspaceID, phone)
	// Every opt-out withdraws consent, recorded in the same transaction.
	withdrawn := optOutConsent(reason, userID)
	withdrawn.At = from.at
	if err := s.addConsent(tx.Tx, workspaceID, phone, withdrawn); err != nil {
		return o, false, err
	}
	convID, err := latestConversationWith(tx.Tx, workspaceID, phone)
	if err != nil {
		return o, false, err
	}
	return o, true, s.emit(tx, workspaceID, EventOptOutCreated, OptOutPayload{
		ConversationID: convID, CreatedAt: FormatTime(o.CreatedAt), InboundAddress: phone,
		OptOutReason: reason, WorkspaceID: workspaceID})
}

// RemoveOptOut deletes the opt-out of phone (a START keyword, an admin); it reports whether
// one existed.
func (s *Store) RemoveOptOut(workspaceID, phone string) (bool, error) {
	removed := false
	err := s.update(func(tx *wtx) error {
		var err error
		removed, err = removeOptOut(tx, workspaceID, phone)
		return err
	})
	return removed, err
}

func removeOptOut(tx *wtx, workspaceID, phone string) (bool, error) {
	idx := tx.Bucket(bOptOutPhone)
	id := idxFirst(idx, workspaceID, phone)
	if id == "" {
		return false, nil
	}
	optOutChanged(tx, workspaceID, phone)
	if err := idx.Delete(idxKey(workspaceID, phone, id)); err != nil {
		return false, err
	}
	var o OptOut
	if ok, err := getJSON(tx.Bucket(bOptOuts), wsKey(workspaceID, id), &o); err != nil {
		return false, err
	} else if ok {
		if err := tx.reportOptOut(&o, -1); err != nil {
			return false, err
		}
	}
	return true, tx.Bucket(bOptOuts).Delete(wsKey(workspaceID, id))
}

// OptOuts lists a workspace's opt-outs, oldest first.
func (s *Store) OptOuts(workspaceID string) ([]OptOut, error) {
	out := []OptOut{}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		return forEachPrefix(tx.Bucket(bOptOuts), idKey(workspaceID), func(_, v []byte) error {
			var o OptOut
			if err := jsonUnmarshal(v, &o); err != nil {
				return err
			}
			out = append(out, o)
			return nil
		})
	})
	return out, err
}

// optOutConsent is the consent entry an opt-out of reason records: revoked, by the source the
// consent history names (a carrier's "unsubscribed" is the contact's own STOP, sent to the
// carrier: source keyword).
func optOutConsent(reason, userID string) Consent {
	c := Consent{Status: ConsentRevoked, RecordedBy: userID}
	switch reason {
	case OptOutKeyword:
		c.Source, c.Method = ConsentKeyword, "Texted an opt-out keyword"
	case OptOutCarrier:
		c.Source, c.Method = ConsentKeyword, "The carrier reported the recipient unsubscribed"
	case OptOutAdmin:
		c.Source, c.Method = ConsentAdmin, "Opted out by a member of the workspace"
	default:
		c.Source, c.Method = ConsentAPI, "Opted out through the API"
	}
	return c
}
