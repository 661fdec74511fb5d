package index

import (
	"math/bits"
	"sync"
)

// Set is a set of nums as a bitset.
type Set []uint64

// NewSet returns an empty set that holds nums up to maxNum.
func NewSet(maxNum uint32) Set { return make(Set, maxNum/64+1) }

// setPool recycles bitsets: a search of a million contacts needs a 125 KB one per query word,
// and allocating them each time made the garbage collector a search's slowest step.
var setPool sync.Pool

// GetSet is NewSet taking a recycled bitset when one is free; give it back with PutSet.
func GetSet(maxNum uint32) Set {
	words := int(maxNum/64 + 1)
	if p, ok := setPool.Get().(*Set); ok && cap(*p) >= words {
		s := (*p)[:words]
		clear(s)
		return s
	}
	return NewSet(maxNum)
}

// PutSet recycles s; the caller no longer uses it.
func PutSet(s Set) { setPool.Put(&s) }

// Add puts n in s (a num beyond s's size is left out).
func (s Set) Add(n uint32) {
	if int(n/64) < len(s) {
		s[n/64] |= 1 << (n % 64)
	}
}

// Has reports whether n is in s.
func (s Set) Has(n uint32) bool { return int(n/64) < len(s) && s[n/64]&(1<<(n%64)) != 0 }

// And keeps in s only the nums also in o (as long as s).
func (s Set) And(o Set) {
	for i := range s {
		s[i] &= o[i]
	}
}

// AndCount is And, returning the number of nums left in s.
func (s Set) AndCount(o Set) int {
	n := 0
	for i := range s {
		s[i] &= o[i]
		n += bits.OnesCount64(s[i])
	}
	return n
}

// Count is the number of nums in s.
func (s Set) Count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}
