package index

import (
	"bytes"
	"cmp"
	"slices"

	"switchboard/store/kv"
)

// ImportBuf collects the index entries of contacts created in one transaction (an import
// batch) and writes them at the end of it, each index in key order: the postings term by term
// (one cursor seek and one Put per term and batch instead of per term and contact), and the
// phone, email and display-order entries sorted, so that consecutive Puts walk the same branch
// pages instead of a random path each (at a million contacts those random walks were most of
// an import's time in bbolt). The nums of new contacts ascend, so each term's are appended
// after its existing chunks. A nil *ImportBuf holds nothing.
//
// Nothing written between add and Flush may read these indexes: an update of a contact first
// flushes, and a row whose phone is still buffered (PendingPhone) flushes before it is looked
// up, so a phone repeated in a file finds the contact its earlier row created.
type ImportBuf struct {
	e     *Engine
	ws    []byte
	terms map[string][]uint32
	// blocks are the nums blocks written in this transaction, each with room for numBlock
	// slots: a new contact's slot goes into its block in place instead of copying the block
	// (7 KB) once per contact.
	blocks map[uint32][]byte
	phones []phoneEntry
	phoneN map[string]struct{} // the phones in phones
	emails [][]byte            // Email index keys
	order  [][]byte            // Order index keys
}

type phoneEntry struct {
	phone string
	num   uint32
}

// NewImportBuf returns an empty buffer for one write transaction.
func (e *Engine) NewImportBuf() *ImportBuf {
	return &ImportBuf{e: e, terms: map[string][]uint32{}, blocks: map[uint32][]byte{}, phoneN: map[string]struct{}{}}
}

// putSlot writes num's slot as the function putSlot does, into the block p already holds for
// this transaction.
func (p *ImportBuf) putSlot(b *kv.Bucket, num uint32, id [16]byte, rank [RankLen]byte) error {
	blk := num / numBlock
	return putInBlock(b, p.blocks, blk, NumKey(blk), numBlock*slotLen, slotLen*int(num%numBlock), id[:], rank[:])
}

// putInBlock writes parts, one after another, at offset off of the block under k in b, a block
// of at most size bytes that blocks holds for this transaction: bbolt keeps the value given to
// Put (it does not copy it until the commit), so the block is changed in place and put again
// instead of copied per entry; a block written meanwhile by another path (a different array is
// in the bucket) is read afresh.
func putInBlock(b *kv.Bucket, blocks map[uint32][]byte, blk uint32, k []byte, size, off int, parts ...[]byte) error {
	cur := b.Get(k)
	v, ok := blocks[blk]
	if !ok || len(cur) == 0 || len(v) == 0 || &cur[0] != &v[0] {
		v = make([]byte, len(cur), size)
		copy(v, cur)
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	v = v[:max(len(v), off+n)]
	for _, p := range parts {
		off += copy(v[off:], p)
	}
	blocks[blk] = v
	return b.Put(k, v)
}

func (p *ImportBuf) setWorkspace(ws []byte) {
	if p.ws != nil && !bytes.Equal(p.ws, ws) {
		panic("index: an import buffer holds one workspace") // imports write one workspace
	}
	p.ws = ws
}

func (p *ImportBuf) add(ws []byte, terms []string, num uint32) {
	p.setWorkspace(ws)
	for _, t := range terms {
		p.terms[t] = append(p.terms[t], num)
	}
}

// addEntries buffers a new contact's phone, email and display-order entries.
func (p *ImportBuf) addEntries(ws []byte, phone string, emailKey, orderKey []byte, num uint32) {
	p.setWorkspace(ws)
	if phone != "" {
		p.phones = append(p.phones, phoneEntry{phone, num})
		p.phoneN[phone] = struct{}{}
	}
	if emailKey != nil {
		p.emails = append(p.emails, emailKey)
	}
	p.order = append(p.order, orderKey)
}

// PendingPhone reports whether phone's index entry waits in p: the lookup of a phone repeated
// in a batch flushes p first, so that it finds the contact its earlier row created.
func (p *ImportBuf) PendingPhone(phone string) bool {
	if p == nil {
		return false
	}
	_, ok := p.phoneN[phone]
	return ok
}

// Flush writes what p holds, in tx, and empties it; phones handed to nums are reported to the
// kept sets through sets.
func (p *ImportBuf) Flush(tx *kv.Tx, sets *SetWriter) error {
	if p == nil || p.ws == nil {
		return nil
	}
	if err := p.flushEntries(tx, sets); err != nil {
		return err
	}
	if len(p.terms) == 0 {
		return nil
	}
	w, err := p.e.openRecent(tx, p.e.l.Terms, p.ws)
	if err != nil {
		return err
	}
	w.main.SetFillPercent(FillPostings)
	w.recent.SetFillPercent(FillPostings)
	terms := make([]string, 0, len(p.terms))
	for t := range p.terms {
		terms = append(terms, t)
	}
	slices.Sort(terms) // in key order: neighbouring terms share pages
	added, err := w.putPostings(terms, p.terms)
	if err != nil {
		return err
	}
	if err := w.settlePostings(added); err != nil {
		return err
	}
	clear(p.terms)
	return nil
}

// flushEntries writes the buffered phone, email and order entries into the recent parts of
// their indexes, each in key order.
func (p *ImportBuf) flushEntries(tx *kv.Tx, sets *SetWriter) error {
	if len(p.phones) > 0 {
		w, err := p.e.openRecent(tx, p.e.l.Phone, p.ws)
		if err != nil {
			return err
		}
		idx := w.index()
		// Stable: of two contacts given one phone, the first created keeps it, as when written
		// one by one.
		slices.SortStableFunc(p.phones, func(x, y phoneEntry) int { return cmp.Compare(x.phone, y.phone) })
		keys, vals := make([][]byte, 0, len(p.phones)), make([][]byte, 0, len(p.phones))
		for i, e := range p.phones {
			// The phone is unique in a workspace; the first contact indexed under it keeps it.
			if (i > 0 && p.phones[i-1].phone == e.phone) || idx.Get([]byte(e.phone)) != nil {
				continue
			}
			sets.phoneOwnerChanged(tx, p.ws, e.phone, e.num) // the list's kept sets map phones to nums
			keys, vals = append(keys, []byte(e.phone)), append(vals, NumKey(e.num))
		}
		if err := putRecent(w, keys, vals); err != nil {
			return err
		}
		p.phones = p.phones[:0]
		clear(p.phoneN)
	}
	for _, e := range []struct {
		top  Split
		keys *[][]byte
	}{{p.e.l.Email, &p.emails}, {p.e.l.Order, &p.order}} {
		if len(*e.keys) == 0 {
			continue
		}
		w, err := p.e.openRecent(tx, e.top, p.ws)
		if err != nil {
			return err
		}
		slices.SortFunc(*e.keys, bytes.Compare)
		if err := putRecent(w, *e.keys, nil); err != nil {
			return err
		}
		*e.keys = (*e.keys)[:0]
	}
	return nil
}

func putRecent(w *recentWriter, keys, vals [][]byte) error {
	if err := w.put(keys, vals); err != nil {
		return err
	}
	return w.settle(len(keys))
}
