package oauth

import (
	"github.com/oklog/ulid/v2"

	"switchboard/store"
	"switchboard/store/kv"
)

// ---- keys and encoding ----

func idKey(id string) []byte { return store.IDKey(id) }

func idString(b []byte) string {
	var u ulid.ULID
	copy(u[:], b)
	return u.String()
}

func pairKey(a, b string) []byte { return append(idKey(a), idKey(b)...) }

func grantTokenKey(grantID string, kind byte, tokenID string) []byte {
	k := append(idKey(grantID), kind)
	return append(k, idKey(tokenID)...)
}

func putJSON(b *kv.Bucket, key []byte, v any) error { return store.PutJSON(b, key, v) }

func getJSON(b *kv.Bucket, key []byte, v any) (bool, error) { return store.GetJSON(b, key, v) }

func notFound(msg string) error { return &store.Error{Err: store.ErrNotFound, Msg: msg} }
