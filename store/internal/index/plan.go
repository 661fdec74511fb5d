package index

import (
	"bytes"
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// termSet is the postings of one term (exact) or of every term a prefix starts.
type termSet struct {
	prefix string
	exact  bool
}

// postingWord is a query word's candidates: the union of its sets, or (mask set) of the mask
// terms that contain mask, of phones of minLen digits or more. cost estimates how many
// postings it reads, in units of one digit gram's.
type postingWord struct {
	sets   []termSet
	mask   uint16
	minLen int
	cost   int
}

// phoneShare estimates the share of phones holding every digit of mask: of phones of eleven
// digits drawn at random, by inclusion and exclusion over the digits missed.
func phoneShare(mask uint16) float64 {
	k := bits.OnesCount16(mask)
	p, choose := 0.0, 1.0
	for j := 0; j <= k; j++ {
		term := choose * math.Pow(float64(10-j)/10, 11)
		if j%2 == 1 {
			term = -term
		}
		p += term
		choose = choose * float64(k-j) / float64(j+1)
	}
	return max(p, 1e-4)
}

// maskCost is the cost of the mask word of mask: a digit gram holds about 8 of every 10,000
// phones' postings, the mask terms containing mask hold phoneShare(mask) of all.
func maskCost(mask uint16) int { return int(phoneShare(mask)*1250) + 1 }

// textWordCost estimates a text word's postings by its length: a one-letter prefix covers a
// large part of all words, a five-letter one about a name's.
func textWordCost(w string) int {
	switch len(w) {
	case 1:
		return 400
	case 2:
		return 40
	case 3:
		return 8
	case 4:
		return 2
	}
	return 1
}

// oneDigitMask is the digits of the query's one-digit words, as a digitMask.
func (q Query) oneDigitMask() uint16 {
	var m uint16
	for _, d := range q.Digits {
		if len(d) == 1 {
			m |= digitMask(d)
		}
	}
	return m
}

// postingWords are the query's words that the postings decide, the most selective first;
// undecided reports digit words the postings do not decide exactly (longer than a gram, whose
// grams may occur apart). The one-digit words, however many, are one word: the mask terms
// that hold all their digits (or all digits of every digit word, when that is cheaper).
func (s *searcher) postingWords() (words []postingWord, undecided bool) {
	for _, w := range s.q.Text {
		words = append(words, postingWord{sets: []termSet{{"t" + w, false}}, cost: textWordCost(w)})
	}
	var longer []postingWord // the words of digit words of two digits or more
	for _, d := range s.q.Digits {
		switch {
		case len(d) == 1:
			continue
		case len(d) == 2:
			ts := twoDigitSets(d)
			longer = append(longer, postingWord{sets: ts, cost: 300})
			continue
		case len(d) == digitGram-1:
			// Found exactly through the grams it starts or ends: a few thousand postings.
			var ts []termSet
			for _, t := range shortDigitTerms(d) {
				ts = append(ts, termSet{t, true})
			}
			longer = append(longer, postingWord{sets: ts, cost: len(ts)})
			continue
		case len(d) > digitGram:
			undecided = true
		}
		for _, g := range digitGrams(d) {
			longer = append(longer, postingWord{sets: []termSet{{"d" + g, true}}, cost: 1})
		}
	}
	// A phone holds every digit of every digit word: the mask of all of them is implied, and
	// when few phones hold them all (many different digits asked) it is the cheapest word by
	// far. It replaces the one-digit words' mask, which it contains; it is used only when
	// cheaper than every longer word, else it would repeat their work.
	one, all := s.q.oneDigitMask(), digitMask(strings.Join(s.q.Digits, ""))
	m := one
	if all != one && len(longer) > 0 && maskCost(all) < slices.MinFunc(longer, cmpCost).cost {
		m = all
	}
	words = append(words, longer...)
	if w, ok := s.lengthWord(all, longer); ok {
		// Its mask holds every digit asked: it replaces the one-digit words' mask.
		words, m = append(words, w), 0
	}
	if m != 0 {
		words = append(words, postingWord{mask: m, cost: maskCost(m)})
	}
	slices.SortStableFunc(words, cmpCost)
	return words, undecided
}

// lengthWord is the mask word of the phones long enough for the query's longest digit word
// and holding all its digits, when that word is longer than a gram (its grams only say that
// each occurs somewhere: a long word of few distinct grams, "9999999999999", has the
// candidates of one gram, every one read to verify) and the mask terms of such phones hold
// fewer postings than the cheapest of the longer words. Phones mostly have 10 to 13 digits:
// for a longer word they are few or none, and counting them costs a seek and a chunk or two.
func (s *searcher) lengthWord(all uint16, longer []postingWord) (postingWord, bool) {
	n := 0
	for _, d := range s.q.Digits {
		n = max(n, len(d))
	}
	if n <= digitGram || len(longer) == 0 || s.num == nil {
		return postingWord{}, false
	}
	maxNum := max(int(s.num.Sequence()), 1)
	cheapest := slices.MinFunc(longer, cmpCost)
	entries, ok, err := s.terms.maskEntries(all, n, max(cheapest.postings(uint32(maxNum)), s.b.VerifyDirect))
	if err != nil || !ok {
		return postingWord{}, false
	}
	return postingWord{mask: all, minLen: n, cost: entries * 1250 / maxNum}, true
}

func cmpCost(a, b postingWord) int { return cmp.Compare(a.cost, b.cost) }

// postings estimates how many postings entries w decodes among maxNum contacts: its cost is in
// digit grams, each of which holds about 1 in 1,250 phones.
func (w postingWord) postings(maxNum uint32) int { return w.cost * int(maxNum) / 1250 }

// twoDigitSets are the postings whose contacts are exactly those whose phone contains w, a
// two-digit word: in a phone of four digits or more, w lies inside some gram (at its start,
// second or third digit); a shorter phone is its own 's' term.
func twoDigitSets(w string) []termSet {
	ts := []termSet{{"d" + w, false}, {"s" + w, true}}
	for c := '0'; c <= '9'; c++ {
		ts = append(ts, termSet{"d" + string(c) + w, false}, termSet{"s" + string(c) + w, true}, termSet{"s" + w + string(c), true})
		for c2 := '0'; c2 <= '9'; c2++ {
			ts = append(ts, termSet{"d" + string(c) + string(c2) + w, true})
		}
	}
	return ts
}

// addPostings adds the postings of prefix to set, counting them.
func (s *searcher) addPostings(set Set, prefix string, exact bool) error {
	n, err := s.terms.AddPostings(set, prefix, exact)
	s.work.Postings += n
	return err
}

// addWord adds the candidates of w to set.
func (s *searcher) addWord(set Set, w postingWord) error {
	if w.mask != 0 {
		n, err := s.terms.addMaskPostings(set, w.mask, w.minLen)
		s.work.Postings += n
		return err
	}
	for _, st := range w.sets {
		if !st.exact {
			n, ok, err := s.terms.keptPrefix(set, s.kept, st.prefix, uint32(s.num.Sequence()))
			s.work.Postings += n
			if err != nil {
				return err
			}
			if ok {
				continue
			}
		}
		if err := s.addPostings(set, st.prefix, st.exact); err != nil {
			return err
		}
	}
	return nil
}

// phoneFilter keeps in cands the contacts whose phone contains every digit word of the query,
// reading the phone index once (phone → num; no record is read).
func (s *searcher) phoneFilter(cands Set) {
	b := ReadSplit(s.tx, s.e.l.Phone, s.ws)
	keep := GetSet(uint32(len(cands)*64 - 1))
	defer PutSet(keep)
	if b.Exists() {
		want := make([][]byte, len(s.q.Digits))
		for i, d := range s.q.Digits {
			want[i] = []byte(d)
		}
		var buf [64]byte
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			s.work.Phones++
			if len(v) != 4 {
				continue
			}
			num := chunkFirst(v)
			if !cands.Has(num) {
				continue
			}
			digits := buf[:0]
			for _, ch := range k {
				if ch >= '0' && ch <= '9' && len(digits) < len(buf) {
					digits = append(digits, ch)
				}
			}
			if !slices.ContainsFunc(want, func(d []byte) bool { return !bytes.Contains(digits, d) }) {
				keep.Add(num)
			}
		}
	}
	copy(cands, keep)
}
