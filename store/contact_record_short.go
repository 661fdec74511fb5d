package store

import (
	"encoding/binary"

	"github.com/oklog/ulid/v2"
)

// The short forms a contact record uses for what is nearly always derivable from the record's
// own id: a default channel id made right after the contact's (chIDNext) and a CreatedAt in the
// id's millisecond (ctCreatedByID).

// idDelta is how far id lies after base, when both are ULIDs in their canonical form and id
// follows base closely enough that the distance takes fewer bytes than id (as a uvarint: 8 or
// fewer, so below 2^56).
func idDelta(base, id string) (uint64, bool) {
	b, ok := ParseID(base)
	if !ok || b.String() != base {
		return 0, false
	}
	u, ok := ParseID(id)
	if !ok || u.String() != id || binary.BigEndian.Uint64(u[:8]) != binary.BigEndian.Uint64(b[:8]) {
		return 0, false
	}
	lo, blo := binary.BigEndian.Uint64(u[8:]), binary.BigEndian.Uint64(b[8:])
	if lo <= blo || lo-blo >= 1<<56 {
		return 0, false
	}
	return lo - blo, true
}

// idMillis is the millisecond time of id, a ULID in its canonical form.
func idMillis(id string) (int64, bool) {
	u, ok := ParseID(id)
	if !ok || u.String() != id || u.Time() > 1<<53 {
		return 0, false
	}
	return int64(u.Time()), true
}

// idAfter is the ULID delta after base (idDelta's inverse): the low 64 bits of base plus delta,
// carried into the high ones.
func idAfter(base ulid.ULID, delta uint64) ulid.ULID {
	hi, lo := binary.BigEndian.Uint64(base[:8]), binary.BigEndian.Uint64(base[8:])
	sum := lo + delta
	if sum < lo {
		hi++
	}
	var out ulid.ULID
	binary.BigEndian.PutUint64(out[:8], hi)
	binary.BigEndian.PutUint64(out[8:], sum)
	return out
}
