package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// SearchLimit is the most contacts a search returns.
const SearchLimit = 100

// collectCap is the most postings the search collects (for the rarest query word); when every
// word has more, the contacts are walked in order, which then soon finds SearchLimit of them.
// streamCap is the most postings of another word streamed to narrow the candidates; a word with
// more is verified against each candidate read.
var (
	collectCap = 32_000
	streamCap  = 250_000
)

type cand struct {
	sort []byte
	id   [16]byte
}

// SearchContacts finds contacts by searchText with the rules and order of DESIGN §3
// (find-contact-action): exact phone or email equality first, then folded first name, last
// name, id; unnamed contacts last; at most SearchLimit.
func (s *Store) SearchContacts(workspaceID, searchText string) ([]Contact, error) {
	out := []Contact{}
	wsID, ok := ParseID(workspaceID)
	if !ok {
		return out, nil
	}
	q := ParseQuery(searchText)
	var records [][]byte
	err := s.db.View(func(tx *bolt.Tx) error {
		ids, err := searchIDs(tx, wsID[:], workspaceID, q)
		if err != nil {
			return err
		}
		contacts := tx.Bucket(bContacts)
		for _, id := range ids {
			if v := contacts.Get(append(wsID[:], id[:]...)); v != nil {
				records = append(records, bytes.Clone(v))
			}
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	return decodeContacts(records)
}

// decodeContacts decodes contact records on every core: decoding a hundred contacts' JSON is
// otherwise nearly half of a search.
func decodeContacts(records [][]byte) ([]Contact, error) {
	out := make([]Contact, len(records))
	errs := make([]error, len(records))
	workers := min(runtime.GOMAXPROCS(0), (len(records)+15)/16)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(records); i += workers {
				errs[i] = jsonUnmarshal(records[i], &out[i])
			}
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func searchIDs(tx *bolt.Tx, ws []byte, workspaceID string, q Query) ([][16]byte, error) {
	order := tx.Bucket(bContactOrder)
	orderPrefix := append(slices.Clone(ws), 0)
	if q.Empty() {
		return walkOrder(order, orderPrefix, q, nil, SearchLimit), nil
	}
	docs := tx.Bucket(bContactDoc)

	// Exact equality ranks first.
	var exact []cand
	addExact := func(id string) {
		u, ok := ParseID(id)
		if !ok || slices.ContainsFunc(exact, func(c cand) bool { return c.id == u }) {
			return
		}
		if v := docs.Get(append(slices.Clone(ws), u[:]...)); v != nil {
			if d := decodeDoc(v); d.matches(q) {
				exact = append(exact, cand{d.sortKey(), u})
			}
		}
	}
	if q.ExactDigits != "" {
		if id := contactIDByPhone(tx, workspaceID, "+"+q.ExactDigits); id != "" {
			addExact(id)
		}
	}
	if q.Exact != "" {
		// Emails are not unique: every contact with that email ranks first.
		for _, id := range idxIDs(tx.Bucket(bContactEmail), workspaceID, q.Exact) {
			addExact(id)
		}
	}
	sortCands(exact)
	if len(exact) > SearchLimit {
		exact = exact[:SearchLimit]
	}
	isExact := func(id [16]byte) bool { return slices.ContainsFunc(exact, func(c cand) bool { return c.id == id }) }

	terms := tx.Bucket(bContactTerms)
	// Candidate sets: for each query word (each gram of a digit word) the postings of its terms,
	// sorted by id, when there are at most collectCap; the sets' intersection is then narrowed by
	// the more common words, streamed through without being collected.
	type termScan struct {
		term  string
		exact bool // the term itself, not every term it prefixes
	}
	var scans []termScan
	for _, w := range q.Text {
		scans = append(scans, termScan{"t" + w, false})
	}
	verify := false
	for _, d := range q.Digits {
		if len(d) != digitGram {
			// Shorter words are not indexed; longer ones are found through their grams, which
			// may also occur apart.
			verify = true
		}
		for _, g := range digitGrams(d) {
			scans = append(scans, termScan{"d" + g, true})
		}
	}
	// Count each word's postings (chunk sizes only), collect the rarest word's, and narrow them
	// by streaming the others' in turn, rarest first: only one set is ever sorted.
	counts := make([]int, len(scans))
	for i, sc := range scans {
		counts[i] = countPostings(terms, termScanPrefix(ws, sc.term, sc.exact), streamCap)
	}
	byCount := make([]int, len(scans))
	for i := range byCount {
		byCount[i] = i
	}
	slices.SortStableFunc(byCount, func(a, b int) int { return counts[a] - counts[b] })

	limit := SearchLimit - len(exact)
	var rest [][16]byte
	if len(scans) == 0 || counts[byCount[0]] > collectCap {
		// Every word is common: walk contacts in order and stop at the limit.
		rest = walkOrder(order, orderPrefix, q, isExact, limit)
	} else {
		// Candidates are sorted by id (and one per contact) for the semi-joins and the walk;
		// one word alone needs only their ranks.
		first, byID := scans[byCount[0]], len(scans) > 1 || verify
		ps := scanPostings(terms, ws, first.term, first.exact, byID)
		for _, i := range byCount[1:] {
			if len(ps) == 0 {
				break
			}
			if counts[i] > streamCap {
				verify = true // too common even to stream: verified against the candidates' docs
				continue
			}
			ps = semiJoin(terms, ws, scans[i].term, scans[i].exact, ps)
		}
		walked := false
		if verify && len(ps) > walkMin {
			// Candidates must be read to be verified, and may match only far down in rank order
			// (a first name's contacts whose last name starts with a common prefix): walking
			// the order index reads them in order, one cheap step each, instead of one lookup
			// each. It gives up after walkBudget non-candidates (candidates spread thin).
			rest, walked = walkCandidates(order, orderPrefix, ps, q, isExact, limit)
		}
		if !walked {
			rest = firstByRank(docs, ws, ps, q, verify, isExact, limit)
		}
	}
	out := make([][16]byte, 0, len(exact)+len(rest))
	for _, c := range exact {
		out = append(out, c.id)
	}
	return append(out, rest...), nil
}

// semiJoin keeps the postings of ps (sorted by id) whose contact also has a term starting with
// term (term itself when exact). The term's postings are streamed, not collected: a bitset of
// ps's ids turns most of them away before a binary search.
func semiJoin(b *bolt.Bucket, ws []byte, term string, exact bool, ps []posting) []posting {
	size := 1024
	for size < 16*len(ps) {
		size *= 2
	}
	bits, mask := make([]uint64, size/64), uint64(size-1)
	for _, p := range ps {
		h := binary.BigEndian.Uint64(p.id[8:]) & mask // the random half of a ULID
		bits[h/64] |= 1 << (h % 64)
	}
	keep := make([]bool, len(ps))
	prefix := termScanPrefix(ws, term, exact)
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		for i := 0; i+postingLen <= len(v); i += postingLen {
			h := binary.BigEndian.Uint64(v[i+8:i+16]) & mask
			if bits[h/64]&(1<<(h%64)) == 0 {
				continue
			}
			id := [16]byte(v[i : i+16])
			if j, found := slices.BinarySearchFunc(ps, id, cmpPostingID); found {
				keep[j] = true
			}
		}
	}
	out := make([]posting, 0, len(ps))
	for j, p := range ps {
		if keep[j] {
			out = append(out, p)
		}
	}
	return out
}

func cmpPostingID(p posting, id [16]byte) int { return cmpID(p.id, id) }

// firstByRank returns the first limit candidates (ps, in any order, a contact maybe more than
// once) in display order that are not skipped and, when verify, match q. Ranks order the candidates without reading them: only those ranked
// among the first limit (ties included) are read and sorted, then, if some of them failed
// verification, the next ones, twice as many each time.
func firstByRank(docs *bolt.Bucket, ws []byte, ps []posting, q Query, verify bool, skip func([16]byte) bool, limit int) [][16]byte {
	ranks := make([][rankLen]byte, len(ps))
	for i, p := range ps {
		ranks[i] = p.rank
	}
	var found []cand
	seen := make(map[[16]byte]bool, 2*limit)
	key := make([]byte, 32)
	copy(key, ws)
	// read reads the candidates ranked in (lo, hi], or [0, hi] the first time.
	read := func(lo, hi [rankLen]byte, first bool) {
		for _, p := range ps {
			if (!first && cmpID(p.rank, lo) <= 0) || cmpID(p.rank, hi) > 0 || skip(p.id) {
				continue
			}
			if seen[p.id] {
				continue // a contact under two of the word's terms
			}
			seen[p.id] = true
			copy(key[16:], p.id[:])
			v := docs.Get(key)
			if v == nil || verify && !docMatches(v, q) {
				continue
			}
			found = append(found, cand{docSortKey(v), p.id})
		}
	}
	var prev [rankLen]byte
	for target, first := limit, true; ; target, first = 2*target, false {
		if target >= len(ranks) {
			read(prev, maxRank, first)
			break
		}
		hi := nthSmallest(ranks, target)
		read(prev, hi, first)
		if hi == maxRank || len(found) >= limit {
			break
		}
		prev = hi
	}
	// Every candidate not read ranks after every one read, so the first limit read are the
	// first limit of all.
	sortCands(found)
	out := make([][16]byte, 0, min(len(found), limit))
	for _, c := range found[:min(len(found), limit)] {
		out = append(out, c.id)
	}
	return out
}

var maxRank = [rankLen]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// nthSmallest returns the n-th smallest of vs (1 <= n <= len(vs)), keeping the n smallest seen
// in a max-heap: cheaper than sorting when n is small.
func nthSmallest(vs [][rankLen]byte, n int) [rankLen]byte {
	h := make([][rankLen]byte, 0, n)
	for _, v := range vs {
		switch {
		case len(h) < n:
			h = append(h, v)
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if cmpID(h[parent], h[i]) >= 0 {
					break
				}
				h[parent], h[i] = h[i], h[parent]
				i = parent
			}
		case cmpID(v, h[0]) < 0:
			h[0] = v
			for i := 0; ; {
				big, l, r := i, 2*i+1, 2*i+2
				if l < n && cmpID(h[l], h[big]) > 0 {
					big = l
				}
				if r < n && cmpID(h[r], h[big]) > 0 {
					big = r
				}
				if big == i {
					break
				}
				h[i], h[big] = h[big], h[i]
				i = big
			}
		}
	}
	return h[0]
}

// walkMin is the fewest candidates that are verified by walking the order index; walkBudget is
// how many other contacts such a walk passes before it gives up. (Variables so that tests can
// reach every plan with a few thousand contacts.)
var (
	walkMin    = 1000
	walkBudget = 20_000
)

// walkCandidates walks the order index from the first candidate's rank, keeping candidates (ps,
// sorted by id) that are not skipped and match q, up to limit; ok is false, with nothing, when
// it passed walkBudget non-candidates first.
func walkCandidates(order *bolt.Bucket, prefix []byte, ps []posting, q Query, skip func([16]byte) bool, limit int) (out [][16]byte, ok bool) {
	start := maxRank
	for _, p := range ps {
		if cmpID(p.rank, start) < 0 {
			start = p.rank
		}
	}
	// A rank is the sort key's first bytes, zero-padded: without the zeros it is a prefix of the
	// first candidate's sort key, so seeking it lands at or before that candidate.
	seek := append(slices.Clone(prefix), bytes.TrimRight(start[:], "\x00")...)
	others, seen := 0, 0
	c := order.Cursor()
	for k, v := c.Seek(seek); k != nil && len(out) < limit && seen < len(ps) && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		id := [16]byte(k[len(k)-16:])
		if _, in := slices.BinarySearchFunc(ps, id, cmpPostingID); !in {
			if others++; others > walkBudget {
				return nil, false
			}
			continue
		}
		seen++
		if !skip(id) && docMatches(v, q) {
			out = append(out, id)
		}
	}
	return out, true
}

// walkOrder visits contacts in display order, keeping those matching q, up to limit.
func walkOrder(order *bolt.Bucket, prefix []byte, q Query, skip func([16]byte) bool, limit int) [][16]byte {
	var out [][16]byte
	c := order.Cursor()
	for k, v := c.Seek(prefix); k != nil && len(out) < limit && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var id [16]byte
		copy(id[:], k[len(k)-16:])
		if skip != nil && skip(id) {
			continue
		}
		if q.Empty() || docMatches(v, q) {
			out = append(out, id)
		}
	}
	return out
}

func sortCands(c []cand) {
	slices.SortFunc(c, func(a, b cand) int {
		if r := bytes.Compare(a.sort, b.sort); r != 0 {
			return r
		}
		return bytes.Compare(a.id[:], b.id[:])
	})
}

// ---- the term index: posting chunks ----
//
// idx_contact_terms maps a term to the contacts that have it, in chunks: the key
// workspace | 0x00 | term | 0x00 | id holds up to termChunkMax postings sorted by id, the first of
// them being the key's id. A posting is a contact id (16 bytes) and its rank: the first
// rankLen bytes of its sort key, zero-padded, which order candidates without reading them.
// One key per contact and term would cost a key (workspace, term, id and bbolt's entry header:
// about 60 bytes) per posting; a chunk costs 32 bytes per posting, and a search reads a common
// term's thousands of postings in a few dozen cursor steps. New contacts have the highest ids,
// so an import appends to each term's last chunk instead of writing all over the index.

const (
	// termChunkMax is the most postings one chunk holds.
	termChunkMax = 32
	// rankLen is the bytes of the sort key kept in a posting: first names up to 14 letters
	// and the start of the last name.
	rankLen = 16
	// postingLen is the size of a posting: id, then rank.
	postingLen = 16 + rankLen
)

// posting is one contact in a term's postings; rank orders like the contact's sort key, with
// ties when the sort keys share their first rankLen bytes.
type posting struct {
	id   [16]byte
	rank [rankLen]byte
}

// rankOf is the rank of a sort key: its first rankLen bytes, zero-padded (0x00 sorts first,
// so a shorter key still ranks before the keys it prefixes).
func rankOf(sortKey []byte) [rankLen]byte {
	var r [rankLen]byte
	copy(r[:], sortKey)
	return r
}

// termPrefix is workspace | 0x00 | term | 0x00: the keys of term's chunks and nothing else
// (terms hold no 0x00).
func termPrefix(ws []byte, term string) []byte {
	p := make([]byte, 0, len(ws)+2+len(term)+16)
	p = append(p, ws...)
	p = append(p, 0)
	p = append(p, term...)
	return append(p, 0)
}

func chunkKey(prefix, first []byte) []byte {
	k := make([]byte, 0, len(prefix)+16)
	return append(append(k, prefix...), first[:16]...)
}

func isChunkOf(k, prefix []byte) bool {
	return len(k) == len(prefix)+16 && bytes.HasPrefix(k, prefix)
}

// findChunk positions on the chunks of prefix around id: at is the chunk whose first id is id
// (exact) or else the greatest below it, next the first chunk after id; nil when there is none.
func findChunk(b *bolt.Bucket, prefix []byte, id [16]byte) (atK, atV []byte, exact bool, nextK, nextV []byte) {
	c := b.Cursor()
	seek := chunkKey(prefix, id[:])
	k, v := c.Seek(seek)
	if k != nil && bytes.Equal(k, seek) {
		return k, v, true, nil, nil
	}
	if k != nil && isChunkOf(k, prefix) {
		nextK, nextV = k, v
	}
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k != nil && isChunkOf(k, prefix) {
		return k, v, false, nextK, nextV
	}
	return nil, nil, false, nextK, nextV
}

// chunkSearch returns where the posting of id is or would be in a chunk.
func chunkSearch(v []byte, id [16]byte) (int, bool) {
	lo, hi := 0, len(v)/postingLen
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(v[postingLen*m:postingLen*m+16], id[:]); {
		case c == 0:
			return m, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return lo, false
}

// withPosting returns a new chunk value: v's postings with p inserted at position i.
func withPosting(v []byte, i int, p []byte) []byte {
	out := make([]byte, 0, len(v)+postingLen)
	out = append(out, v[:postingLen*i]...)
	out = append(out, p...)
	return append(out, v[postingLen*i:]...)
}

// addTermID adds the posting of id, ranked rank, to term's chunks.
func addTermID(b *bolt.Bucket, ws []byte, term string, id [16]byte, rank [rankLen]byte) error {
	prefix := termPrefix(ws, term)
	p := append(id[:], rank[:]...)
	atK, atV, exact, nextK, nextV := findChunk(b, prefix, id)
	if exact {
		if bytes.Equal(atV[:postingLen], p) {
			return nil
		}
		return b.Put(bytes.Clone(atK), append(bytes.Clone(p), atV[postingLen:]...))
	}
	// prepend puts id at the head of the next chunk, re-keyed, when it has room.
	prepend := func() error {
		if nextK != nil && len(nextV)/postingLen < termChunkMax {
			v := withPosting(nextV, 0, p)
			if err := b.Delete(bytes.Clone(nextK)); err != nil {
				return err
			}
			return b.Put(chunkKey(prefix, id[:]), v)
		}
		return b.Put(chunkKey(prefix, id[:]), bytes.Clone(p))
	}
	if atK == nil {
		return prepend() // id precedes the term's chunks
	}
	i, found := chunkSearch(atV, id)
	n := len(atV) / postingLen
	switch {
	case found:
		if bytes.Equal(atV[postingLen*i:postingLen*(i+1)], p) {
			return nil
		}
		v := bytes.Clone(atV)
		copy(v[postingLen*i:], p)
		return b.Put(bytes.Clone(atK), v)
	case n < termChunkMax:
		return b.Put(bytes.Clone(atK), withPosting(atV, i, p))
	case i == n:
		// After a full chunk: appends keep every chunk but the last full.
		return prepend()
	}
	// Into the middle of a full chunk: split it in halves.
	half := n / 2
	left, right := bytes.Clone(atV[:postingLen*half]), bytes.Clone(atV[postingLen*half:])
	if i < half {
		left = withPosting(left, i, p)
	} else {
		right = withPosting(right, i-half, p)
	}
	if err := b.Put(bytes.Clone(atK), left); err != nil {
		return err
	}
	return b.Put(chunkKey(prefix, right), right)
}

// removeTermID removes the posting of id from term's chunks; one that is not there is no error.
func removeTermID(b *bolt.Bucket, ws []byte, term string, id [16]byte) error {
	prefix := termPrefix(ws, term)
	atK, atV, exact, _, _ := findChunk(b, prefix, id)
	if atK == nil {
		return nil
	}
	if exact {
		rest := bytes.Clone(atV[postingLen:])
		if err := b.Delete(bytes.Clone(atK)); err != nil || len(rest) == 0 {
			return err
		}
		return b.Put(chunkKey(prefix, rest), rest)
	}
	i, found := chunkSearch(atV, id)
	if !found {
		return nil
	}
	v := make([]byte, 0, len(atV)-postingLen)
	v = append(v, atV[:postingLen*i]...)
	v = append(v, atV[postingLen*(i+1):]...)
	return b.Put(bytes.Clone(atK), v)
}

// termScanPrefix is workspace | 0x00 | term, followed by 0x00 when exact: the keys of every
// term that term prefixes, or of term alone.
func termScanPrefix(ws []byte, term string, exact bool) []byte {
	p := make([]byte, 0, len(ws)+2+len(term))
	p = append(append(append(p, ws...), 0), term...)
	if exact {
		p = append(p, 0)
	}
	return p
}

// countPostings counts the postings under prefix, reading only chunk sizes, and stops counting
// past limit.
func countPostings(b *bolt.Bucket, prefix []byte, limit int) int {
	n := 0
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && n <= limit && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		n += len(v) / postingLen
	}
	return n
}

// scanPostings collects the postings of every term starting with term (only term itself when
// exact); sorted by id and one per contact when byID, else in key order, a contact once per
// term it has.
func scanPostings(b *bolt.Bucket, ws []byte, term string, exact, byID bool) []posting {
	prefix := termScanPrefix(ws, term, exact)
	ps := make([]posting, 0, countPostings(b, prefix, math.MaxInt))
	var runs []int // where each term's postings start in ps; a term's chunks are in id order
	var last []byte
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if t := k[:len(k)-16]; !bytes.Equal(t, last) {
			runs = append(runs, len(ps))
			last = t
		}
		for i := 0; i+postingLen <= len(v); i += postingLen {
			ps = append(ps, posting{[16]byte(v[i : i+16]), [rankLen]byte(v[i+16 : i+postingLen])})
		}
	}
	if !byID {
		return ps
	}
	return mergeRuns(ps, runs)
}

// mergeRuns sorts postings made of runs sorted by id, starting at runs, and keeps one per id.
func mergeRuns(ps []posting, runs []int) []posting {
	if len(runs) > 1 {
		buf := make([]posting, len(ps))
		for len(runs) > 1 {
			// Merge neighbouring runs pairwise, halving their number.
			var next []int
			for r := 0; r < len(runs); r += 2 {
				lo, mid, hi := runs[r], len(ps), len(ps)
				if r+1 < len(runs) {
					mid = runs[r+1]
				}
				if r+2 < len(runs) {
					hi = runs[r+2]
				}
				next = append(next, lo)
				mergeInto(buf[lo:hi], ps[lo:mid], ps[mid:hi])
			}
			ps, buf, runs = buf, ps, next
		}
	}
	return slices.CompactFunc(ps, func(a, b posting) bool { return a.id == b.id })
}

func mergeInto(dst, a, b []posting) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmpID(a[i].id, b[j].id) <= 0 {
			dst[k] = a[i]
			i++
		} else {
			dst[k] = b[j]
			j++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// cmpID orders ids (and ranks) as bytes.Compare does, in two word comparisons.
func cmpID(a, b [16]byte) int {
	if c := cmp.Compare(binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])); c != 0 {
		return c
	}
	return cmp.Compare(binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:]))
}
