package index

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
	"switchboard/store/kv"
)

// TestPostings adds and removes nums of a few terms in random order, in transactions of
// random size, and checks the chunks against a plain set after each: every chunk within
// ChunkMax, keyed by its first num, decoding to ascending nums, and a prefix scan finding exactly
// the union of the terms it covers.
func TestPostings(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "postings.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	terms := []string{"tab", "tabc", "tabd", "d1234"}
	model := map[string]map[uint32]bool{}
	for _, term := range terms {
		model[term] = map[uint32]bool{}
	}
	r := rand.New(rand.NewPCG(1, 2))
	next := uint32(1)
	for round := range 60 {
		err := rawUpdate(db, func(tx *kv.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("terms"))
			if err != nil {
				return err
			}
			for range 1 + r.IntN(400) {
				term := terms[r.IntN(len(terms))]
				var num uint32
				if round < 30 && r.IntN(3) > 0 {
					num, next = next, next+uint32(1+r.IntN(300)) // ascending, as new contacts come
				} else {
					num = uint32(1 + r.IntN(int(next)))
				}
				if r.IntN(3) == 0 {
					_, err = removePosting(b, term, num)
					delete(model[term], num)
				} else {
					err = addPosting(b, term, num)
					model[term][num] = true
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		rawView(db, func(tx *kv.Tx) error {
			b := tx.Bucket([]byte("terms"))
			for _, term := range terms {
				checkChunks(t, b, term)
				got := NewSet(next)
				if err := addPostings(b, got, term, true); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(setNums(got), modelNums(model[term])) {
					t.Fatalf("round %d, term %s: scan has %d nums, want %d", round, term, got.Count(), len(model[term]))
				}
			}
			union := map[uint32]bool{}
			for _, term := range []string{"tab", "tabc", "tabd"} {
				for n := range model[term] {
					union[n] = true
				}
			}
			got := NewSet(next)
			if err := addPostings(b, got, "tab", false); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(setNums(got), modelNums(union)) {
				t.Fatalf("round %d: prefix scan has %d nums, want %d", round, got.Count(), len(union))
			}
			return nil
		})
	}
}

func setNums(s Set) []uint32 {
	var out []uint32
	for n := range uint32(len(s) * 64) {
		if s.Has(n) {
			out = append(out, n)
		}
	}
	return out
}

func modelNums(m map[uint32]bool) []uint32 {
	var out []uint32
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func checkChunks(t *testing.T, b *kv.Bucket, term string) {
	t.Helper()
	p := append([]byte(term), 0)
	var prev uint32
	c := b.Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if len(k) != len(p)+4 || len(v) > ChunkMax+binary.MaxVarintLen32 {
			t.Fatalf("bad chunk: key %x, %d bytes", k, len(v))
		}
		nums, err := decodeChunk(nil, chunkFirst(k), v)
		if err != nil {
			t.Fatalf("chunk %x: %v", k, err)
		}
		if prev != 0 && nums[0] <= prev {
			t.Fatalf("chunks out of order: %d then %d", prev, nums[0])
		}
		prev = nums[len(nums)-1]
	}
}

// rank16 is a rank that orders as r does.
func rank16(r uint64) [RankLen]byte {
	var out [RankLen]byte
	binary.BigEndian.PutUint64(out[:], r)
	return out
}

// FuzzDecodeChunk: any chunk value decodes to ascending nums or an error, never a panic; what
// decodes encodes back to the same nums; chunkLast agrees with it; and the search's own inline
// decoder (addPostings, reading the chunk from a bucket) finds the same nums or an error.
func FuzzDecodeChunk(f *testing.F) {
	f.Add(uint32(1), []byte{})
	f.Add(uint32(7), []byte{1, 2, 0x80, 1})
	f.Add(uint32(1<<32-2), []byte{1, 1})
	f.Add(uint32(3), []byte{0})
	f.Add(uint32(0), []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	db, err := bolt.Open(filepath.Join(f.TempDir(), "fuzz.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	f.Fuzz(func(t *testing.T, first uint32, v []byte) {
		nums, decErr := decodeChunk(nil, first, v)
		last, lastOK := chunkLast(first, v)
		if decErr == nil {
			for i := 1; i < len(nums); i++ {
				if nums[i] <= nums[i-1] {
					t.Fatalf("decodeChunk(%d, %x) = %v: not ascending", first, v, nums)
				}
			}
			back, err := decodeChunk(nil, nums[0], encodeChunk(nums))
			if err != nil || !slices.Equal(back, nums) {
				t.Fatalf("re-encoding %v gives %v, %v", nums, back, err)
			}
			if !lastOK || last != nums[len(nums)-1] {
				t.Fatalf("chunkLast(%d, %x) = %d, %v; want %d", first, v, last, lastOK, nums[len(nums)-1])
			}
		}
		if len(v) > 64 {
			return // the set below is sized for small nums only
		}
		err2 := rawUpdate(db, func(tx *kv.Tx) error {
			_ = tx.DeleteBucket([]byte("p"))
			b, err := tx.CreateBucket([]byte("p"))
			if err != nil {
				return err
			}
			if err := b.Put(termKey("tx", first), v); err != nil {
				return err
			}
			set := NewSet(1 << 12)
			addErr := addPostings(b, set, "tx", true)
			if (addErr == nil) != (decErr == nil) {
				t.Fatalf("chunk %d %x: addPostings error %v, decodeChunk error %v", first, v, addErr, decErr)
			}
			if addErr == nil {
				var want []uint32
				for _, n := range nums {
					if int(n) < len(set)*64 { // a set ignores nums beyond its size
						want = append(want, n)
					}
				}
				if got := setNums(set); !slices.Equal(got, want) {
					t.Fatalf("addPostings found %v, decodeChunk %v", got, want)
				}
			}
			return nil
		})
		if err2 != nil {
			t.Fatal(err2)
		}
	})
}

func TestNthSmallest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		vs := make([][RankLen]byte, 1+r.IntN(300))
		rs := make([]ranked, len(vs))
		for i := range vs {
			vs[i] = rank16(uint64(r.IntN(40)) << 56) // many ties
			rs[i].rank = vs[i]
		}
		n := 1 + r.IntN(len(vs))
		sorted := slices.SortedFunc(slices.Values(vs), func(a, b [RankLen]byte) int { return bytes.Compare(a[:], b[:]) })
		if got := nthSmallest(rs, n); got != sorted[n-1] {
			t.Fatalf("nthSmallest(%v, %d) = %d, want %d", vs, n, got, sorted[n-1])
		}
	}
}
