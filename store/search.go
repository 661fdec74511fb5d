package store

import (
	"bytes"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// SearchLimit is the most contacts a search returns.
const SearchLimit = 100

// sparseCap is how many index entries one query term may yield before the search stops
// collecting candidates for it and, if every term is that common, walks the order index instead.
const sparseCap = 4000

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
	err := s.db.View(func(tx *bolt.Tx) error {
		ids, err := searchIDs(tx, wsID[:], workspaceID, q)
		if err != nil {
			return err
		}
		contacts := tx.Bucket(bContacts)
		for _, id := range ids {
			var c Contact
			if ok, err := getJSON(contacts, append(wsID[:], id[:]...), &c); err != nil {
				return err
			} else if ok {
				out = append(out, c)
			}
		}
		return nil
	})
	return out, err
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

	// Candidates from the rarest terms; every term complete means the intersection is the answer.
	terms := bContactTermsOf(tx)
	var sets [][][16]byte
	verify := false
	for _, w := range q.Text {
		ids, complete := scanTerm(terms, ws, "t"+w, sparseCap)
		if complete {
			sets = append(sets, ids)
		} else {
			verify = true
		}
	}
	for _, d := range q.Digits {
		term := d
		if len(term) > digitSuffixLen {
			term, verify = term[:digitSuffixLen], true
		}
		ids, complete := scanTerm(terms, ws, "d"+term, sparseCap)
		if complete {
			sets = append(sets, ids)
		} else {
			verify = true
		}
	}

	var rest [][16]byte
	if len(sets) == 0 {
		// Every term is common: walk contacts in order and stop at the limit.
		rest = walkOrder(order, orderPrefix, q, isExact, SearchLimit-len(exact))
	} else {
		ids := sets[0]
		for _, other := range sets[1:] {
			ids = intersect(ids, other)
		}
		cands := make([]cand, 0, len(ids))
		key := make([]byte, 32)
		copy(key, ws)
		for _, id := range ids {
			if isExact(id) {
				continue
			}
			copy(key[16:], id[:])
			v := docs.Get(key)
			if v == nil {
				continue
			}
			d := decodeDoc(v)
			if verify && !d.matches(q) {
				continue
			}
			cands = append(cands, cand{d.sortKey(), id})
		}
		sortCands(cands)
		for _, c := range cands {
			if len(rest)+len(exact) >= SearchLimit {
				break
			}
			rest = append(rest, c.id)
		}
	}
	out := make([][16]byte, 0, len(exact)+len(rest))
	for _, c := range exact {
		out = append(out, c.id)
	}
	return append(out, rest...), nil
}

func bContactTermsOf(tx *bolt.Tx) *bolt.Bucket { return tx.Bucket(bContactTerms) }

// scanTerm collects the ids under every term starting with term, sorted and unique; complete is
// false when more than limit entries were there.
func scanTerm(b *bolt.Bucket, ws []byte, term string, limit int) ([][16]byte, bool) {
	prefix := make([]byte, 0, 17+len(term))
	prefix = append(append(append(prefix, ws...), 0), term...)
	var ids [][16]byte
	c := b.Cursor()
	n := 0
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if n++; n > limit {
			return nil, false
		}
		var id [16]byte
		copy(id[:], k[len(k)-16:])
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(ids), true
}

func intersect(a, b [][16]byte) [][16]byte {
	out := a[:0:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := bytes.Compare(a[i][:], b[j][:]); {
		case c == 0:
			out = append(out, a[i])
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return out
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
		if q.Empty() || decodeDoc(v).matches(q) {
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
