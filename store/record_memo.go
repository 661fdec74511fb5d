package store

import (
	"bytes"
	"sync"
)

// recordMemo keeps the decoded form of records that every API request reads (a token, its
// user's disabled flag), keyed by the record's key and held to the record's stored bytes: a read
// that finds the same bytes as an earlier decode reuses that decode, and a record that changed
// in any way is decoded afresh. It never answers in place of a read: the caller reads the
// record in its own transaction and hands the bytes in, so a revoked token or a disabled user
// is refused at once, exactly as without the memo.
type recordMemo[T any] struct {
	mu sync.Mutex
	m  map[string]memoEntry[T]
}

type memoEntry[T any] struct {
	raw []byte
	v   T
}

// memoMax bounds a memo's entries: when it is full it starts again empty, so that a stream of
// tokens that are used once does not grow it.
const memoMax = 4096

// decode returns the decoded form of raw, the stored bytes at key, from the memo when the same
// bytes were decoded before, else from decode (whose result is kept unless it failed).
func (m *recordMemo[T]) decode(key, raw []byte, decode func([]byte) (T, error)) (T, error) {
	m.mu.Lock()
	e, ok := m.m[string(key)]
	m.mu.Unlock()
	if ok && bytes.Equal(e.raw, raw) {
		return e.v, nil
	}
	v, err := decode(raw)
	if err != nil {
		return v, err
	}
	m.mu.Lock()
	if m.m == nil || len(m.m) >= memoMax {
		m.m = make(map[string]memoEntry[T])
	}
	m.m[string(key)] = memoEntry[T]{raw: bytes.Clone(raw), v: v}
	m.mu.Unlock()
	return v, nil
}
