package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

	"switchboard/store/kv"
)

// Writing a transaction's rollup changes, and the encodings of the rollup records.

// flushReports writes what the transaction changed in the rollups, keys in order. A row whose
// counters all come to zero is deleted, so the rollups of a workspace hold only what happened.
func (tx *wtx) flushReports() error {
	if tx.rep == nil {
		return nil
	}
	buf := tx.rep
	tx.rep = nil
	days := tx.Bucket(bReportDays)
	for _, k := range sortedKeys(buf.rows, func(k *rowKey) []byte { return k[:] }) {
		d := buf.rows[k]
		if *d == (dayRow{}) {
			continue
		}
		var cur dayRow
		if err := decodeRow(days.Get(k[:]), cur[:]); err != nil {
			return err
		}
		for i := range cur {
			cur[i] += d[i]
		}
		if err := putRow(days, k[:], cur[:]); err != nil {
			return err
		}
	}
	bcasts := tx.Bucket(bReportBcasts)
	for _, k := range sortedKeys(buf.bcasts, func(k *bcastKey) []byte { return k[:] }) {
		var cur bcastRow
		if err := decodeRow(bcasts.Get(k[:]), cur[:]); err != nil {
			return err
		}
		for i, n := range buf.bcasts[k] {
			cur[i] += n
		}
		if err := putRow(bcasts, k[:], cur[:]); err != nil {
			return err
		}
	}
	samples := tx.Bucket(bReportSamples)
	for _, k := range sortedKeys(buf.samples, func(k *sampleKey) []byte { return k[:] }) {
		d := buf.samples[k]
		cur, err := decodeSamples(samples.Get(k[:]))
		if err != nil {
			return err
		}
		if cur = applySamples(cur, d); len(cur) == 0 {
			err = samples.Delete(k[:])
		} else {
			err = samples.Put(k[:], encodeSamples(cur))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// sortedKeys lists m's keys in the order of their bytes (as bbolt keeps them).
func sortedKeys[K comparable, V any](m map[K]V, raw func(*K) []byte) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b K) int { return bytes.Compare(raw(&a), raw(&b)) })
	return keys
}

var errRollup = errors.New("store: report rollup record is damaged")

// A row is stored sparse: (field, value) pairs of its non-zero counters, as uvarints.
func decodeRow(b []byte, into []int64) error {
	for len(b) > 0 {
		f, n := binary.Uvarint(b)
		if n <= 0 || f >= uint64(len(into)) {
			return errRollup
		}
		v, m := binary.Uvarint(b[n:])
		if m <= 0 {
			return errRollup
		}
		into[f] = int64(v)
		b = b[n+m:]
	}
	return nil
}

func encodeRow(r []int64) []byte {
	var b []byte
	for f, v := range r {
		if v != 0 {
			b = binary.AppendUvarint(b, uint64(f))
			b = binary.AppendUvarint(b, uint64(v))
		}
	}
	return b
}

// putRow writes a row, or deletes it when every counter is zero. A counter never goes below
// zero: taking back what was never counted would be a bug of the rollups, which the tests that
// recount every figure catch; a send must not fail for it.
func putRow(b *kv.Bucket, k []byte, r []int64) error {
	for i, v := range r {
		r[i] = max(v, 0)
	}
	enc := encodeRow(r)
	if len(enc) == 0 {
		return b.Delete(k)
	}
	return b.Put(k, enc)
}

// Samples are stored sorted, as uvarint gaps from the one before.
func decodeSamples(b []byte) ([]uint32, error) {
	var out []uint32
	var last uint64
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || last+d > 1<<32-1 {
			return nil, errRollup
		}
		last += d
		out = append(out, uint32(last))
		b = b[n:]
	}
	return out, nil
}

func encodeSamples(s []uint32) []byte {
	b := make([]byte, 0, len(s)*2)
	var last uint32
	for _, v := range s {
		b = binary.AppendUvarint(b, uint64(v-last))
		last = v
	}
	return b
}

// applySamples adds d's samples to the sorted cur and takes d's deletions out, one occurrence
// each (one that is not there is skipped, as putRow keeps counters at zero).
func applySamples(cur []uint32, d *sampleDelta) []uint32 {
	cur = append(cur, d.add...)
	slices.Sort(cur)
	for _, v := range d.del {
		if i, ok := slices.BinarySearch(cur, v); ok {
			cur = slices.Delete(cur, i, i+1)
		}
	}
	return cur
}
