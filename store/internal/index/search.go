package index

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
	"strings"
	"switchboard/internal/textfold"

	"switchboard/store/kv"
)

// SearchLimit is the most contacts a search returns.
const SearchLimit = 100

// walkStepsPerRank is how many steps of a warm walk cost what ranking one candidate does when
// candidates are many (measured at 1M: 20–28 ns a step, 54–57 ns a candidate of `joh` or `dav`).
const walkStepsPerRank = 2

// hit is a found contact: its num, id and full sort key.
type hit struct {
	num  uint32
	id   [16]byte
	sort []byte
}

func sortHits(h []hit) {
	slices.SortFunc(h, func(a, b hit) int {
		if r := bytes.Compare(a.sort, b.sort); r != 0 {
			return r
		}
		return bytes.Compare(a.id[:], b.id[:])
	})
}

// searcher is one search's view of a workspace's contact buckets; any may be nil (no contacts).
type searcher struct {
	e                   *Engine
	b                   *Bounds
	tx                  *kv.Tx
	ws                  []byte
	text                TextFunc
	num                 *kv.Bucket
	email, order, terms SplitIndex
	q                   Query
	verify              bool // a query word the candidate sets do not decide exactly
	work                Work
	kept                *rankView // the kept ranks and prefixes that answer for tx, nil when none
}

// Work counts what one search read: postings entries decoded, records read to verify
// or order candidates, phone index entries scanned. Tests bound it; it costs an increment.
type Work struct {
	Postings, Records, Phones int
}

// check reads a candidate and reports whether it matches q (only read when verification is
// needed, or when its full sort key is) and its sort key.
func (s *searcher) check(id [16]byte, needSort bool) (sort []byte, ok bool) {
	if !s.verify && !needSort {
		return nil, true
	}
	s.work.Records++
	t, ok := s.text(id)
	if !ok {
		return nil, false
	}
	// Fold only what is asked: the names for text words or the sort key, the rest for text words.
	d := Doc{Digits: Digits(t.Phone)}
	if s.verify && len(s.q.Text) == 0 && !d.Matches(s.q) {
		return nil, false // digit words alone: the phone decides before any name is folded
	}
	if needSort || len(s.q.Text) > 0 {
		d.First, d.Last = textfold.Fold(t.First), textfold.Fold(t.Last)
	}
	if len(s.q.Text) > 0 {
		d.Company, d.Email = textfold.Fold(t.Company), textfold.Fold(t.Email)
	}
	if s.verify && !d.Matches(s.q) {
		return nil, false
	}
	return d.SortKey(), true
}

// Search returns the ids of the contacts of workspace ws that match q, at most SearchLimit, and
// the work it did: every text word must prefix a word of the contact's folded first name, last
// name, company or email, every digit word must occur in its phone's digits. Order: exact phone
// or email equality first, then folded first name, last name, id; unnamed contacts last. text
// reads the candidates the postings do not decide, and those equal to the query.
func (e *Engine) Search(tx *kv.Tx, ws []byte, q Query, text TextFunc) ([][16]byte, Work, error) {
	sr := &searcher{e: e, b: &e.Bounds, tx: tx, ws: ws, text: text, q: q,
		email: ReadSplit(tx, e.l.Email, ws), terms: ReadSplit(tx, e.l.Terms, ws), order: ReadSplit(tx, e.l.Order, ws),
		num: WsBucket(tx, e.l.Nums, ws)}
	if !sr.order.Exists() || sr.num == nil || !sr.terms.Exists() {
		return nil, sr.work, nil
	}
	ids, err := sr.search()
	return ids, sr.work, err
}

func (s *searcher) search() ([][16]byte, error) {
	q := s.q
	if q.Empty() {
		return s.walk(nil, nil, SearchLimit), nil
	}

	// Exact equality ranks first.
	var exact []hit
	addExact := func(id [16]byte) {
		if slices.ContainsFunc(exact, func(h hit) bool { return h.id == id }) {
			return
		}
		if t, ok := s.text(id); ok {
			if d := DocOf(t); d.Matches(q) {
				exact = append(exact, hit{id: id, sort: d.SortKey()})
			}
		}
	}
	if q.ExactDigits != "" {
		if id, ok := s.e.l.PhoneID(s.tx, s.ws, "+"+q.ExactDigits); ok {
			addExact(id)
		}
	}
	if q.Exact != "" && s.email.Exists() {
		// Emails are not unique: every contact with that email ranks first. The index holds a
		// hash of the email: each contact under it is read and its email compared.
		p := emailHash(q.Exact)
		sl := NewSlotReader(s.num)
		c := s.email.Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			if len(k) != len(p)+4 {
				continue
			}
			if id, _, ok := sl.Slot(chunkFirst(k)); ok {
				if t, ok := s.text(id); ok && strings.ToLower(t.Email) == q.Exact {
					addExact(id)
				}
			}
		}
	}
	sortHits(exact)
	if len(exact) > SearchLimit {
		exact = exact[:SearchLimit]
	}
	var skip func([16]byte) bool // nil: nothing to skip
	if len(exact) > 0 {
		skip = func(id [16]byte) bool { return slices.ContainsFunc(exact, func(h hit) bool { return h.id == id }) }
	}
	limit := SearchLimit - len(exact)

	// The candidates: the contacts having, for each text word, a term it prefixes, and for
	// each digit word its grams. A digit word shorter than a gram is not indexed and a longer
	// one's grams may occur apart: such words are verified on the contacts found.
	words, tiny := s.postingWords()
	if tiny {
		s.verify = true
	}
	maxNum := uint32(s.num.Sequence())
	if len(q.Text) > 0 {
		s.keptRanks(maxNum, 0)
	}
	if len(q.Text) == 0 && len(words) == 1 && words[0].mask != 0 && !s.verify {
		// Only one-digit words. When few digits are asked most phones hold them all: a walk
		// in display order reading records finds the first page sooner than decoding the mask
		// terms would (a record costs about s.b.RecordCost phone index entries, a postings entry
		// about a tenth of one); it gives up after s.b.TinyWalkBudget misses.
		p := phoneShare(words[0].mask)
		if reads := float64(limit) / p; reads <= float64(s.b.TinyWalkBudget) && reads*float64(s.b.RecordCost) < p*float64(maxNum)/10 {
			s.verify = true
			if rest, ok := s.walkN(nil, skip, limit, -1, s.b.TinyWalkBudget); ok {
				return appendHits(exact, rest), nil
			}
			s.verify = false
		}
	}
	if skip == nil && !s.verify {
		// Every word a kept prefix: the kept display order answers without ranking.
		if ids, ok, err := s.inKeptOrder(maxNum, limit); ok || err != nil {
			return ids, err
		}
	}
	var cands Set
	defer func() {
		if cands != nil {
			PutSet(cands)
		}
	}()
	n := 0 // cands.Count()
	for _, w := range words {
		if cands != nil && n <= s.b.VerifyDirect && w.postings(maxNum) >= n*s.b.RecordPostings {
			// Few enough candidates to read: the words left are checked on their records.
			s.verify = true
			break
		}
		ws := GetSet(maxNum)
		if err := s.addWord(ws, w); err != nil {
			PutSet(ws)
			return nil, err
		}
		if cands == nil {
			cands, n = ws, ws.Count()
		} else {
			n = cands.AndCount(ws)
			PutSet(ws)
		}
	}
	if s.verify && n > s.b.VerifyDirect {
		// Every text word was intersected (no early stop above), so only digit words are left
		// undecided. When matches come soon in display order a walk finds them, reading a few
		// records; else, when reading every candidate would cost more than one pass over the
		// phone index, that pass decides every digit word.
		if steps, ok := s.walkEstimate(cands, n, maxNum, limit); ok && steps*s.b.WalkStepCost < n*s.b.RankCost {
			if rest, ok := s.walkN(cands, skip, limit, max(s.b.WalkBudget, 4*steps), s.b.TinyWalkBudget); ok {
				return appendHits(exact, rest), nil
			}
		}
		if n*s.b.RecordCost > int(maxNum) {
			s.phoneFilter(cands)
			s.verify = false
			n = cands.Count()
		}
	}
	return appendHits(exact, s.plan(cands, n, maxNum, skip, limit)), nil
}

// plan orders the n candidates (every query word decided, or s.verify set) and returns the
// first limit that match.
func (s *searcher) plan(cands Set, n int, maxNum uint32, skip func([16]byte) bool, limit int) [][16]byte {
	if n == 0 || limit == 0 {
		return nil
	}
	// Walking the display order finds the first matches soonest when candidates are many and
	// sort early; ranking reads every candidate's rank. Samples of ranks say how far the walk
	// would go; a walk that goes much further than that gives up and ranks.
	// The estimate can fall short several times over (it reads the limit-th rank off a sample
	// of 256): a walk goes on at least as long as ranking would take, so that giving up never
	// costs a common prefix twice (`joh` at 1M: 6,600 steps, 0.2 ms; a walk given up after
	// 5,860 and then ranking 37,000 candidates, 2.2 ms).
	if steps, ok := s.walkEstimate(cands, n, maxNum, limit); ok && steps*s.b.WalkStepCost < n*s.b.RankCost {
		if rest, ok := s.walkN(cands, skip, limit, max(s.b.WalkBudget, 4*steps, walkStepsPerRank*n), -1); ok {
			return rest
		}
	}
	return s.byRank(cands, n, skip, limit)
}

func appendHits(exact []hit, rest [][16]byte) [][16]byte {
	out := make([][16]byte, 0, len(exact)+len(rest))
	for _, h := range exact {
		out = append(out, h.id)
	}
	return append(out, rest...)
}

// walk visits contacts in display order, keeping those in cands (every one when nil) that are
// not skipped and match q, up to limit.
func (s *searcher) walk(cands Set, skip func([16]byte) bool, limit int) [][16]byte {
	out, _ := s.walkN(cands, skip, limit, -1, -1)
	return out
}

// walkEstimate estimates how many contacts a walk in display order passes before it has met
// limit candidates: the limit-th smallest candidate rank is estimated from a sample of candidate
// ranks, and its position in the order from a sample of all contacts' ranks. ok is false when
// candidates are too few for a walk to pay.
func (s *searcher) walkEstimate(cands Set, n int, maxNum uint32, limit int) (int, bool) {
	if n <= s.b.RankDirect {
		return 0, false
	}
	const sampleN = 256
	sl := NewSlotReader(s.num)
	kept := s.keptRanks(maxNum, n)
	slot := func(num uint32) ([RankLen]byte, bool) {
		if rank, ok := kept.rank(num); ok {
			return rank, rank != [RankLen]byte{}
		}
		_, rank, ok := sl.Slot(num)
		return rank, ok
	}
	// Nums are given in creation order, which has nothing to do with names: the first
	// candidates by num are a fair sample of them.
	var cr [][RankLen]byte
	for i := 0; i < len(cands) && len(cr) < sampleN; i++ {
		for w := cands[i]; w != 0 && len(cr) < sampleN; w &= w - 1 {
			if rank, ok := slot(uint32(i*64 + bits.TrailingZeros64(w))); ok {
				cr = append(cr, rank)
			}
		}
	}
	at := limit * len(cr) / n
	if len(cr) == 0 || at >= len(cr) {
		return 0, false
	}
	// The limit-th rank is read a little past limit/n of the sample: at a handful of ranks in,
	// the order statistic's own error is as large as the estimate, and an estimate short of
	// the truth costs a long walk (`chr` at 1M: 15,000 candidates, most of them one block of
	// first names a tenth into the order; the second of 256 ranks said 28,000 steps where
	// 103,000 were needed, three times what ranking costs). Reading two standard deviations
	// further errs the other way, toward ranking, whose cost is bounded by the count.
	at = min(at+2*int(math.Ceil(math.Sqrt(float64(at+1)))), len(cr)-1)
	slices.SortFunc(cr, cmpRank)
	bound := cr[at]
	// All contacts: whole blocks spread over the nums.
	blocks := maxNum/numBlock + 1
	below, total := 0, 0
	for i := range uint32(8) {
		b := i * blocks / 8
		for j := range uint32(numBlock) {
			if rank, ok := slot(b*numBlock + j); ok {
				total++
				if cmpRank(rank, bound) <= 0 {
					below++
				}
			}
		}
	}
	if total == 0 {
		return 0, false
	}
	return int(uint64(below+1) * uint64(maxNum) / uint64(total)), true
}

// keptRanks is the view of the workspace's kept ranks this search may use, nil when none
// answers (kept_ranks.go); n candidates are to be ranked.
func (s *searcher) keptRanks(maxNum uint32, n int) *rankView {
	if s.kept != nil || s.e == nil || s.tx == nil {
		return s.kept // one view a search (nil for a searcher of the engine's tests)
	}
	s.kept = s.e.ranks.get(s.tx, s.ws, maxNum, n, s.b.KeptPrefixMin)
	return s.kept
}

// walkN is walk giving up (ok false) after budget contacts that are not candidates, or after
// failBudget candidates that fail verification (-1: never).
// Contacts with equal sort keys are ordered by num in the index but by id in results, so the
// walk goes on through the last one's equals and sorts them.
func (s *searcher) walkN(cands Set, skip func([16]byte) bool, limit, budget, failBudget int) ([][16]byte, bool) {
	var found []hit
	sl := NewSlotReader(s.num)
	others, failed := 0, 0
	c := s.order.Cursor()
	for k, _ := c.First(); k != nil && len(k) > 4; k, _ = c.Next() {
		sk, num := k[:len(k)-4], chunkFirst(k)
		if len(found) >= limit && !bytes.Equal(sk, found[len(found)-1].sort) {
			break
		}
		if cands != nil && !cands.Has(num) {
			if others++; budget >= 0 && others > budget {
				return nil, false
			}
			continue
		}
		id, _, ok := sl.Slot(num)
		if !ok || (skip != nil && skip(id)) {
			continue
		}
		if cands == nil || s.verify {
			if s.q.Empty() {
				// Listing everything: nothing to verify.
			} else if _, ok := s.check(id, false); !ok {
				if failed++; failBudget >= 0 && failed > failBudget {
					return nil, false
				}
				continue
			}
		}
		found = append(found, hit{num: num, id: id, sort: bytes.Clone(sk)})
	}
	sortHits(found)
	out := make([][16]byte, 0, min(len(found), limit))
	for _, h := range found[:min(len(found), limit)] {
		out = append(out, h.id)
	}
	return out, true
}
