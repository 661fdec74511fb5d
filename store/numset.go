package store

import (
	"math/bits"
	"sync"
)

// numSet is a set of nums as a bitset.
type numSet []uint64

func newNumSet(maxNum uint32) numSet { return make(numSet, maxNum/64+1) }

// numSets recycles bitsets: a search of a million contacts needs a 125 KB one per query word,
// and allocating them each time made the garbage collector a search's slowest step.
var numSets sync.Pool

func getNumSet(maxNum uint32) numSet {
	words := int(maxNum/64 + 1)
	if p, ok := numSets.Get().(*numSet); ok && cap(*p) >= words {
		s := (*p)[:words]
		clear(s)
		return s
	}
	return newNumSet(maxNum)
}

func putNumSet(s numSet) { numSets.Put(&s) }

func (s numSet) add(n uint32) {
	if int(n/64) < len(s) {
		s[n/64] |= 1 << (n % 64)
	}
}

func (s numSet) has(n uint32) bool { return int(n/64) < len(s) && s[n/64]&(1<<(n%64)) != 0 }

func (s numSet) and(o numSet) {
	for i := range s {
		s[i] &= o[i]
	}
}

func (s numSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}
