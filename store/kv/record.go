package kv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"
)

// A write set is a sequence of operations, each an op byte and its fields: numbers as uvarints,
// byte strings as a uvarint length and the bytes. A bucket is named once by its path (opBucket:
// its number, its parent's number, 0 for the top level, and its name) and by its number after.
const (
	opBucket   byte = iota + 1 // id, parent id, name: declares a path
	opPut                      // id, key, value
	opDelete                   // id, key
	opCreate                   // id: creates the bucket when it is missing
	opDeleteB                  // id: deletes the bucket and everything in it
	opSequence                 // id, sequence
	opFill                     // id, float64 bits: the bucket's FillPercent
	// opDeadPut and opDeadDelete mark a put or delete that a later one of the same key
	// superseded; Bytes leaves them out.
	opDeadPut
	opDeadDelete
)

// Recorder collects the write set of one write transaction (or of several in turn: Reset).
//
// A key written several times in one transaction (a block of a thousand slots that each new
// contact appends to, a postings chunk each new message extends) is recorded once, at its last
// write: only the last put or delete of a key decides what the file holds after the
// transaction, and its place after every bucket creation and deletion before it is kept.
type Recorder struct {
	buf   []byte
	ids   map[pathKey]uint64
	fills map[uint64]float64
	last  map[string]int // bucket id | key → where its last put or delete starts in buf
	dead  int            // superseded operations in buf
	n     int            // operations recorded
}

type pathKey struct {
	parent uint64
	name   string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{ids: map[pathKey]uint64{}, fills: map[uint64]float64{}, last: map[string]int{}}
}

// Bytes is the write set recorded so far, superseded writes left out; it stays valid until the
// next change or Reset.
func (r *Recorder) Bytes() []byte {
	if r.dead > 0 {
		r.compact()
	}
	return r.buf
}

// compact drops the superseded operations from buf.
func (r *Recorder) compact() {
	out := make([]byte, 0, len(r.buf))
	d := decoder{b: r.buf}
	for !d.done() {
		start := len(r.buf) - len(d.b)
		op := d.byte()
		d.uvarint()
		switch op {
		case opBucket:
			d.uvarint()
			d.bytes()
		case opPut, opDeadPut:
			d.bytes()
			d.bytes()
		case opDelete, opDeadDelete:
			d.bytes()
		case opSequence:
			d.uvarint()
		case opFill:
			d.uint64()
		}
		if op != opDeadPut && op != opDeadDelete {
			out = append(out, r.buf[start:len(r.buf)-len(d.b)]...)
		}
	}
	r.buf, r.dead = out, 0
	clear(r.last) // offsets changed: later writes are recorded without looking back
}

// supersede marks the last put or delete of key in bucket id dead, and records where the new
// one starts.
func (r *Recorder) supersede(id uint64, key []byte) {
	k := string(binary.AppendUvarint(nil, id)) + "\x00" + string(key)
	if off, ok := r.last[k]; ok {
		if r.buf[off] == opPut {
			r.buf[off] = opDeadPut
		} else {
			r.buf[off] = opDeadDelete
		}
		r.dead++
	}
	r.last[k] = len(r.buf)
}

// Len is how many operations are recorded (the declarations of paths not counted).
func (r *Recorder) Len() int { return r.n }

// Reset empties the recorder for a new transaction.
func (r *Recorder) Reset() {
	r.buf = r.buf[:0]
	clear(r.ids)
	clear(r.fills)
	clear(r.last)
	r.dead, r.n = 0, 0
}

// id returns b's number, declaring its path first when it has none in this recording.
func (r *Recorder) id(b *Bucket) uint64 {
	if b.id != 0 {
		return b.id
	}
	var parent uint64
	if b.parent != nil {
		parent = r.id(b.parent)
	}
	k := pathKey{parent, string(b.name)}
	id, ok := r.ids[k]
	if !ok {
		id = uint64(len(r.ids) + 1)
		r.ids[k] = id
		r.buf = append(r.buf, opBucket)
		r.buf = binary.AppendUvarint(r.buf, id)
		r.buf = binary.AppendUvarint(r.buf, parent)
		r.buf = appendBytes(r.buf, b.name)
	}
	b.id = id
	return id
}

func appendBytes(buf, b []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(b)))
	return append(buf, b...)
}

func (r *Recorder) op(op byte, b *Bucket) {
	id := r.id(b)
	r.buf = append(r.buf, op)
	r.buf = binary.AppendUvarint(r.buf, id)
	r.n++
}

func (r *Recorder) put(b *Bucket, key, value []byte) {
	r.supersede(r.id(b), key)
	r.op(opPut, b)
	r.buf = appendBytes(r.buf, key)
	r.buf = appendBytes(r.buf, value)
}

func (r *Recorder) del(b *Bucket, key []byte) {
	r.supersede(r.id(b), key)
	r.op(opDelete, b)
	r.buf = appendBytes(r.buf, key)
}

func (r *Recorder) createBucket(b *Bucket) { r.op(opCreate, b) }

func (r *Recorder) deleteBucket(parent *Bucket, name []byte) {
	// The path is declared through a bucket value standing for it (deleted, so never read).
	r.op(opDeleteB, &Bucket{tx: nil, parent: parent, name: name})
	// A bucket made again under the same path starts with bbolt's default fill.
	clear(r.fills)
}

func (r *Recorder) setSequence(b *Bucket, v uint64) {
	r.op(opSequence, b)
	r.buf = binary.AppendUvarint(r.buf, v)
}

func (r *Recorder) fill(b *Bucket, f float64) {
	id := r.id(b)
	if old, ok := r.fills[id]; ok && old == f {
		return
	}
	r.fills[id] = f
	r.op(opFill, b)
	r.buf = binary.BigEndian.AppendUint64(r.buf, math.Float64bits(f))
}

// ErrCorrupt is returned by Apply for a write set it cannot read.
var ErrCorrupt = errors.New("kv: corrupt write set")

// applyPath is a declared path and, once looked up in the transaction, its bucket.
type applyPath struct {
	parent uint64
	name   []byte
	b      *bolt.Bucket
	fill   float64 // the FillPercent set through the write set, 0 for bbolt's default
}

// Apply applies the write set ops to the writable transaction tx: afterwards tx holds what the
// recorded transaction held when its write set was taken, provided tx started from the same
// contents. It stops at the first operation that fails.
func Apply(tx *bolt.Tx, ops []byte) error {
	paths := map[uint64]*applyPath{}
	var bucket func(id uint64) (*bolt.Bucket, error)
	bucket = func(id uint64) (*bolt.Bucket, error) {
		p := paths[id]
		if p == nil {
			return nil, fmt.Errorf("%w: bucket %d used before it was named", ErrCorrupt, id)
		}
		if p.b != nil {
			return p.b, nil
		}
		var b *bolt.Bucket
		if p.parent == 0 {
			b = tx.Bucket(p.name)
		} else {
			parent, err := bucket(p.parent)
			if err != nil {
				return nil, err
			}
			b = parent.Bucket(p.name)
		}
		if b == nil {
			return nil, fmt.Errorf("kv: apply: bucket %q is missing", p.name)
		}
		if p.fill != 0 {
			b.FillPercent = p.fill
		}
		p.b = b
		return b, nil
	}
	d := decoder{b: ops}
	for !d.done() {
		op := d.byte()
		id := d.uvarint()
		if d.err != nil {
			return d.err
		}
		var err error
		switch op {
		case opBucket:
			parent := d.uvarint()
			name := d.bytes()
			if d.err != nil {
				break
			}
			// A path is named once, after its parent (the recorder numbers them in order).
			if id == 0 || paths[id] != nil || parent >= id || (parent != 0 && paths[parent] == nil) {
				return fmt.Errorf("%w: bucket %d named out of order", ErrCorrupt, id)
			}
			paths[id] = &applyPath{parent: parent, name: name}
		case opPut:
			k, v := d.bytes(), d.bytes()
			if d.err != nil {
				break
			}
			var b *bolt.Bucket
			if b, err = bucket(id); err == nil {
				err = b.Put(k, v)
			}
		case opDelete:
			k := d.bytes()
			if d.err != nil {
				break
			}
			var b *bolt.Bucket
			if b, err = bucket(id); err == nil {
				err = b.Delete(k)
			}
		case opSequence:
			v := d.uvarint()
			if d.err != nil {
				break
			}
			var b *bolt.Bucket
			if b, err = bucket(id); err == nil {
				err = b.SetSequence(v)
			}
		case opFill:
			f := math.Float64frombits(d.uint64())
			if d.err != nil {
				break
			}
			p := paths[id]
			if p == nil {
				return fmt.Errorf("%w: bucket %d used before it was named", ErrCorrupt, id)
			}
			p.fill = f
			if p.b != nil {
				p.b.FillPercent = f
			}
		case opCreate:
			p := paths[id]
			if p == nil {
				return fmt.Errorf("%w: bucket %d used before it was named", ErrCorrupt, id)
			}
			var b *bolt.Bucket
			if p.parent == 0 {
				b, err = tx.CreateBucketIfNotExists(p.name)
			} else {
				var parent *bolt.Bucket
				if parent, err = bucket(p.parent); err == nil {
					b, err = parent.CreateBucketIfNotExists(p.name)
				}
			}
			if err == nil {
				p.b = b
				if p.fill != 0 {
					b.FillPercent = p.fill
				}
			}
		case opDeleteB:
			p := paths[id]
			if p == nil {
				return fmt.Errorf("%w: bucket %d used before it was named", ErrCorrupt, id)
			}
			if p.parent == 0 {
				err = tx.DeleteBucket(p.name)
			} else {
				var parent *bolt.Bucket
				if parent, err = bucket(p.parent); err == nil {
					err = parent.DeleteBucket(p.name)
				}
			}
			// Every bucket looked up under it is gone with it; one made again under a
			// path starts with the default fill.
			for _, q := range paths {
				q.b, q.fill = nil, 0
			}
		default:
			return fmt.Errorf("%w: unknown operation %d", ErrCorrupt, op)
		}
		if d.err != nil {
			return d.err
		}
		if err != nil {
			return fmt.Errorf("kv: apply: %w", err)
		}
	}
	return nil
}

// decoder reads a write set; its first failure sticks in err.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) done() bool { return len(d.b) == 0 || d.err != nil }

func (d *decoder) fail() { d.err, d.b = ErrCorrupt, nil }

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if uint64(len(d.b)) < n {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// OpKind is what an operation of a write set does.
type OpKind byte

// The kinds of operations Walk reports.
const (
	Put          = OpKind(opPut)
	Delete       = OpKind(opDelete)
	CreateBucket = OpKind(opCreate)
	DeleteBucket = OpKind(opDeleteB)
	Sequence     = OpKind(opSequence)
	Fill         = OpKind(opFill)
)

// Op is one operation of a write set: its kind, the path of its bucket from the top level, and
// the key and value of a Put (the key of a Delete). Its slices point into the write set.
type Op struct {
	Kind       OpKind
	Path       [][]byte
	Key, Value []byte
}

// Walk calls fn for each operation of the write set ops, in order.
func Walk(ops []byte, fn func(op Op) error) error {
	paths := map[uint64][][]byte{}
	d := decoder{b: ops}
	for !d.done() {
		op := d.byte()
		id := d.uvarint()
		if op == opBucket {
			parent := d.uvarint()
			name := d.bytes()
			if d.err != nil {
				return d.err
			}
			pp, ok := paths[parent]
			if _, again := paths[id]; id == 0 || again || parent >= id || (parent != 0 && !ok) {
				return fmt.Errorf("%w: bucket %d named out of order", ErrCorrupt, id)
			}
			paths[id] = append(pp[:len(pp):len(pp)], name)
			continue
		}
		o := Op{Kind: OpKind(op), Path: paths[id]}
		switch op {
		case opPut:
			o.Key, o.Value = d.bytes(), d.bytes()
		case opDelete:
			o.Key = d.bytes()
		case opSequence:
			d.uvarint()
		case opFill:
			d.uint64()
		case opCreate, opDeleteB:
		default:
			return fmt.Errorf("%w: unknown operation %d", ErrCorrupt, op)
		}
		if d.err != nil {
			return d.err
		}
		if o.Path == nil {
			return fmt.Errorf("%w: bucket %d used before it was named", ErrCorrupt, id)
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return d.err
}
