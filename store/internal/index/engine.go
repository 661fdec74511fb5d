package index

import (
	"bytes"
	"encoding/binary"

	"switchboard/store/kv"
)

// Split names the two parts of a split index: the main bucket and its recent part.
type Split struct{ Main, Recent []byte }

// Layout names the buckets the engine reads and writes; the store declares them. Each holds one
// nested bucket per workspace, keyed by the workspace's 16 id bytes, so that no key inside
// repeats them:
//
//	Nums               num/numBlock (4) → numBlock slots of id(16) | rank(RankLen)
//	Phone              phone → num(4)
//	Email              fnv32(lower(email)) | num(4) → empty
//	Order              sort key | num(4) → empty: every contact in display order
//	Terms              term | 0x00 | first num(4) → the chunk's other nums, delta+uvarint
//	Words              word | 0x00 | first num(4) → the chunk's other nums (messages)
//	Slots              num/msgSlotBlock (4) → msgSlotBlock slots of conversation id(16)
//
// Phone, Email, Order and Terms have a recent part beside them, written by imports and read
// with them (SplitIndex); Sweep (not nested) keeps, per workspace and index, where the next
// move from a recent part into its main part starts.
//
// A contact's num is a small dense number given when it is created (the Nums bucket's
// sequence): postings of nums differ by a few hundred and encode in one or two bytes each,
// where 16-byte ids would take 16. The Nums bucket maps a num back to its id and to its rank,
// the first RankLen bytes of its sort key, so a search orders candidates without reading them.
type Layout struct {
	Nums                       []byte
	Phone, Email, Order, Terms Split
	Sweep                      []byte
	Words, Slots               []byte
}

// Bounds are the engine's work limits and cost weights. DefaultBounds is what the product
// uses; tests lower them to reach every plan with a few thousand contacts.
type Bounds struct {
	// WalkBudget is the fewest contacts a search walks in display order, looking for matches
	// among its candidates, before it gives up and orders the candidates by rank instead;
	// candidate sets of up to RankDirect are ranked without a walk.
	WalkBudget, RankDirect int
	// WalkStepCost and RankCost weigh a step of the walk against reading a candidate's rank
	// (measured at a million contacts: a cursor step and a bitset test take 30–60 ns, reading a
	// candidate's rank 150–250 ns).
	WalkStepCost, RankCost int
	// VerifyDirect is the candidate count at which a search stops intersecting postings and
	// checks the words left on the candidates' records (reading a record costs about as much as
	// decoding a few hundred postings entries).
	VerifyDirect int
	// RecordPostings is what reading a record to verify it costs in postings entries decoded
	// (measured at 1,000,000 contacts: ~3 µs a record, 6–10 ns an entry, so ~300). Below
	// VerifyDirect candidates a word whose postings cost less than reading the candidates is
	// still intersected: "sophia choi" decodes choi's ~2,000 entries instead of reading 1,480
	// records.
	RecordPostings int
	// TinyWalkBudget is how many contacts a query of only one- and two-digit words reads in
	// display order, looking for matches, before it reads every phone once from the phone
	// index instead (a phone index entry costs a tenth of a record).
	TinyWalkBudget int
	// RecordCost is what reading a record to verify it costs in phone index entries scanned.
	RecordCost int
	// RecentMax is how many entries the recent part of a split index holds at most;
	// RecentMaxPostings how many nums the recent part of the postings holds (a contact has
	// 12–16 terms).
	RecentMax, RecentMaxPostings int
	// KeptPrefixMin is the fewest postings entries a prefix of keptPrefixLen bytes has for its
	// set to be kept with its workspace's ranks (kept_prefixes.go), when more than a 128th of
	// the workspace's contacts.
	KeptPrefixMin int
	// SparseStepCost weighs reading a list member's rank from its num slot against a step of the
	// walk in name order (a slot read is a cursor move to a random block, a step the next key of
	// a page).
	SparseStepCost int
}

// DefaultBounds are the product's bounds; an import writes batches of importBatch contacts, and
// a recent part holds sixteen of them.
func DefaultBounds(importBatch int) Bounds {
	recent := 16 * importBatch
	return Bounds{
		WalkBudget: 5_000, RankDirect: 2_000, WalkStepCost: 1, RankCost: 5,
		VerifyDirect: 1_500, RecordPostings: 300, TinyWalkBudget: 2_000, RecordCost: 10,
		RecentMax: recent, RecentMaxPostings: 14 * recent,
		SparseStepCost: 8, KeptPrefixMin: 4096,
	}
}

// Engine is the engine over one database: where its indexes live, its bounds, the contacts
// list's kept sets and the searches' kept ranks. The store keeps one.
type Engine struct {
	l *Layout
	// Bounds may be changed only while nothing uses the engine (tests).
	Bounds Bounds
	sets   *setCache
	ranks  *rankKeeper
	m      Members
}

// New returns the engine over the buckets of l, with m to read the store's records and indexes
// for the kept sets, and the bounds given.
func New(l *Layout, m Members, b Bounds) *Engine {
	return &Engine{l: l, Bounds: b, sets: newSetCache(), ranks: newRankKeeper(l.Nums, l.Terms, l.Order), m: m}
}

// Fill factors: the records and the nums blocks grow at their end (ULIDs and nums ascend), so
// their pages are filled before they split, leaving a twentieth for records that grow in
// place; an import's records (FillBulk) fill them whole: a bulk load is read far more than
// edited, and an edit that outgrows its page splits it once, leaving room for its neighbours.
// The postings take keys all over their range.
const (
	FillAppend   = 0.95
	FillBulk     = 1.0
	FillPostings = 0.9
)

// WsBucket returns workspace ws's bucket in top, nil when it has none yet (nothing written).
func WsBucket(tx *kv.Tx, top, ws []byte) *kv.Bucket {
	return tx.Bucket(top).Bucket(ws)
}

// WsBucketW returns workspace ws's bucket in top for writing, creating it; fill, when above 0,
// is its FillPercent.
func WsBucketW(tx *kv.Tx, top, ws []byte, fill float64) (*kv.Bucket, error) {
	b, err := tx.Bucket(top).CreateBucketIfNotExists(ws)
	if err != nil {
		return nil, err
	}
	if fill > 0 {
		b.SetFillPercent(fill)
	}
	return b, nil
}

func u32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }

// hasKey reports whether b holds key (a key with an empty value, which Get cannot tell from none).
func hasKey(b *kv.Bucket, key []byte) bool {
	k, _ := b.Cursor().Seek(key)
	return bytes.Equal(k, key)
}
