package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// Key encodings and JSON values shared by every entity. Records are keyed by their 16-byte ULID
// (idKey), workspace-owned records by workspace | id (wsKey), and index entries by
// workspace | 0x00 | term | 0x00 | id (idxKey), so a cursor over a prefix lists one
// workspace's entries, or one term's, in id order.

// IDKey is the 16-byte binary form of a ULID used in keys; see idKey for strings that are not
// ULIDs.
func IDKey(id string) []byte { return idKey(id) }

// PutJSON stores v as JSON at key; GetJSON decodes it back, copied out of the transaction, and
// reports whether the key existed. Packages with buckets of their own (oauth) use these too.
func PutJSON(b *kv.Bucket, key []byte, v any) error { return putJSON(b, key, v) }

// GetJSON: see PutJSON.
func GetJSON(b *kv.Bucket, key []byte, v any) (bool, error) { return getJSON(b, key, v) }

// noID is the key of every string that is not a ULID: sixteen zero bytes, the ULID of the
// first millisecond of 1970, which NewID never makes. A lookup with it finds nothing and a prefix
// scan with it visits nothing, so an id from a client that is not a ULID is simply not found.
// (Using the raw bytes instead let a crafted 16- or 32-byte string collide with a real key.)
var noID = make([]byte, 16)

func idKey(id string) []byte {
	u, ok := ParseID(id)
	if !ok || u == (ulid.ULID{}) {
		return slices.Clone(noID)
	}
	return u[:]
}

func wsKey(ws, id string) []byte {
	k := make([]byte, 0, 32)
	k = append(k, idKey(ws)...)
	return append(k, idKey(id)...)
}

// idxKey builds workspace | 0x00 | term | 0x00 | id.
func idxKey(ws, term, id string) []byte {
	k := make([]byte, 0, 16+1+len(term)+1+16)
	k = append(k, idKey(ws)...)
	k = append(k, 0)
	k = append(k, term...)
	k = append(k, 0)
	return append(k, idKey(id)...)
}

// idxPrefix is workspace | 0x00 | term | 0x00: every id indexed under exactly term.
func idxPrefix(ws, term string) []byte {
	k := make([]byte, 0, 16+1+len(term)+1)
	k = append(k, idKey(ws)...)
	k = append(k, 0)
	k = append(k, term...)
	return append(k, 0)
}

func idFromKey(k []byte) string {
	if len(k) < 16 {
		return ""
	}
	var u ulid.ULID
	copy(u[:], k[len(k)-16:])
	return u.String()
}

// idxFirst returns the first id indexed under exactly term, or "".
func idxFirst(b *kv.Bucket, ws, term string) string {
	p := idxPrefix(ws, term)
	k, _ := b.Cursor().Seek(p)
	if k != nil && bytes.HasPrefix(k, p) && len(k) == len(p)+16 {
		return idFromKey(k)
	}
	return ""
}

// idxIDs returns every id indexed under exactly term.
func idxIDs(b *kv.Bucket, ws, term string) []string {
	p := idxPrefix(ws, term)
	var ids []string
	c := b.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if len(k) == len(p)+16 {
			ids = append(ids, idFromKey(k))
		}
	}
	return ids
}

func putJSON(b *kv.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encode: %w", err)
	}
	return b.Put(key, data)
}

// getJSON decodes the value at key into v; false when absent. The decode copies out of the
// transaction's memory, so v stays valid after the transaction.
func getJSON(b *kv.Bucket, key []byte, v any) (bool, error) {
	data := b.Get(key)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("store: decode: %w", err)
	}
	return true, nil
}

func encodeUint(v uint64) []byte {
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

func decodeUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// hasKey reports whether key is in b. Get cannot tell: a key put with an empty value in the
// same transaction reads back as nil.
func hasKey(b *kv.Bucket, key []byte) bool {
	k, _ := b.Cursor().Seek(key)
	return bytes.Equal(k, key)
}
