// Package index is cairn's lexical search index: the encoding of postings
// that backends store as opaque bytes, the accumulation of postings for new
// documents, and BM25 scoring over them.
//
// The index is split into partitions (a project's memories, or the
// global-scope memories). Each document of a partition has a number, given
// in increasing order as documents are added. A term's postings are a byte
// string of entries in increasing document order:
//
//	entry   = uvarint(delta) tf dl        delta > 0: doc = previous doc + delta
//	        | 0x00 uvarint(doc) tf dl     a restart: doc is absolute
//	tf, dl  = one byte each: term frequency (capped at 255) and quantised
//	          document length (see QuantLen)
//
// Every appended chunk starts with a restart, so a backend can append new
// postings to a term without reading the old ones; compaction re-encodes a
// term with a single restart. Postings of deleted or changed documents stay
// until compaction; the partition's dead set tells the scorer to skip them.
//
// Scoring is Okapi BM25 with Lucene's always-positive idf. It reads only the
// postings of the query's terms, so its cost grows with their document
// frequency, not with the size of the partition.
package index

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"sort"
	"sync"

	"github.com/cairn-dev/cairn"
)

// ErrCorrupt is returned when stored postings cannot be decoded.
var ErrCorrupt = errors.New("index: corrupt postings")

// QuantLen maps a document length to one byte: exact below 128, then
// logarithmic buckets (16 per doubling) up to about 31,000 tokens, where
// it saturates.
func QuantLen(dl int) byte {
	if dl < 128 {
		if dl < 0 {
			return 0
		}
		return byte(dl)
	}
	q := 128 + int(math.Log2(float64(dl)/128)*16)
	if q > 255 {
		q = 255
	}
	return byte(q)
}

var lenTable = func() (t [256]float64) {
	for i := range t {
		if i < 128 {
			t[i] = float64(i)
		} else {
			t[i] = 128 * math.Pow(2, float64(i-128)/16)
		}
	}
	return t
}()

// DequantLen is the length a QuantLen byte stands for.
func DequantLen(b byte) float64 { return lenTable[b] }

// AppendPosting appends one restart entry for doc to dst.
func AppendPosting(dst []byte, doc int64, tf int, dl byte) []byte {
	dst = append(dst, 0)
	dst = binary.AppendUvarint(dst, uint64(doc))
	return append(dst, capTF(tf), dl)
}

func capTF(tf int) byte {
	if tf > 255 {
		return 255
	}
	if tf < 1 {
		return 1
	}
	return byte(tf)
}

// Decode calls fn for every entry of data in order.
func Decode(data []byte, fn func(doc int64, tf int, dl byte)) error {
	var doc int64 = -1
	for i := 0; i < len(data); {
		v, n := binary.Uvarint(data[i:])
		if n <= 0 {
			return ErrCorrupt
		}
		i += n
		if v == 0 {
			a, n := binary.Uvarint(data[i:])
			if n <= 0 || a > math.MaxInt64 {
				return ErrCorrupt
			}
			i += n
			doc = int64(a)
		} else {
			if doc < 0 || v > uint64(math.MaxInt64-doc) {
				return ErrCorrupt
			}
			doc += int64(v)
		}
		if i+2 > len(data) {
			return ErrCorrupt
		}
		fn(doc, int(data[i]), data[i+1])
		i += 2
	}
	return nil
}

// encoder writes delta-encoded entries with one leading restart.
type encoder struct {
	buf  []byte
	last int64
	n    int64
}

func (e *encoder) add(doc int64, tf byte, dl byte) {
	if e.n == 0 || doc <= e.last {
		e.buf = append(e.buf, 0)
		e.buf = binary.AppendUvarint(e.buf, uint64(doc))
	} else {
		e.buf = binary.AppendUvarint(e.buf, uint64(doc-e.last))
	}
	e.buf = append(e.buf, tf, dl)
	e.last = doc
	e.n++
}

// Builder accumulates the postings of new documents, to be appended to a
// partition in one write. Documents must be added in increasing number.
// A Builder is not safe for concurrent use.
type Builder struct {
	terms map[string]*encoder
	tf    map[string]int
	Docs  int64 // documents added
	Len   int64 // their total length
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{terms: map[string]*encoder{}, tf: map[string]int{}}
}

// Add records document doc of length dl with the given terms (repeats
// count as term frequency).
func (b *Builder) Add(doc int64, dl int, terms []string) {
	clear(b.tf)
	for _, t := range terms {
		b.tf[t]++
	}
	q := QuantLen(dl)
	for t, n := range b.tf {
		e := b.terms[t]
		if e == nil {
			e = &encoder{}
			b.terms[t] = e
		}
		e.add(doc, capTF(n), q)
	}
	b.Docs++
	b.Len += int64(dl)
}

// TermFreq is a distinct term of a document and how often it occurs.
type TermFreq struct {
	Term string
	TF   int
}

// CountTerms returns the distinct terms of a document (repeats count as
// term frequency), in the order of their first occurrence: what Add does
// first, done apart so that it can run away from the Builder, on another
// goroutine. It is safe for concurrent use.
func CountTerms(terms []string) []TermFreq {
	var out []TermFreq
	if len(terms) <= 16 {
		out = make([]TermFreq, 0, len(terms))
	next:
		for _, t := range terms {
			for i := range out {
				if out[i].Term == t {
					out[i].TF++
					continue next
				}
			}
			out = append(out, TermFreq{t, 1})
		}
		return out
	}
	counts := countMaps.Get().(map[string]int)
	for _, t := range terms {
		counts[t]++
	}
	out = make([]TermFreq, 0, len(counts))
	for _, t := range terms {
		if n := counts[t]; n > 0 {
			out = append(out, TermFreq{t, n})
			counts[t] = 0 // counted
		}
	}
	clear(counts)
	countMaps.Put(counts)
	return out
}

// countMaps are CountTerms's maps from a term to its frequency.
var countMaps = sync.Pool{New: func() any { return map[string]int{} }}

// AddCounted is Add for terms already counted by CountTerms: Add(doc, dl,
// terms) and AddCounted(doc, dl, CountTerms(terms)) record the same.
func (b *Builder) AddCounted(doc int64, dl int, tfs []TermFreq) {
	q := QuantLen(dl)
	for _, tf := range tfs {
		e := b.terms[tf.Term]
		if e == nil {
			e = &encoder{}
			b.terms[tf.Term] = e
		}
		e.add(doc, capTF(tf.TF), q)
	}
	b.Docs++
	b.Len += int64(dl)
}

// Terms reports how many distinct terms the builder holds.
func (b *Builder) Terms() int { return len(b.terms) }

// Postings returns the accumulated postings sorted by term, one chunk per
// term, ready for Tx.AppendPostings.
func (b *Builder) Postings() []cairn.TermPostings {
	out := make([]cairn.TermPostings, 0, len(b.terms))
	for t, e := range b.terms {
		out = append(out, cairn.TermPostings{Term: t, DF: e.n, Data: e.buf})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Term < out[j].Term })
	return out
}

// Compact re-encodes data without the entries of dead documents and
// returns the new data and its entry count. Empty data means the term has
// no live postings left.
func Compact(data []byte, dead DeadSet) ([]byte, int64, error) {
	var e encoder
	err := Decode(data, func(doc int64, tf int, dl byte) {
		if !dead.Has(doc) {
			e.add(doc, byte(tf), dl)
		}
	})
	return e.buf, e.n, err
}

// DeadSet is the set of document numbers whose postings are stale, as a
// bitmap: testing a document costs one shift and one load.
type DeadSet []uint64

// Has reports whether doc is dead.
func (d DeadSet) Has(doc int64) bool {
	w := doc >> 6
	return doc >= 0 && w < int64(len(d)) && d[w]&(1<<(doc&63)) != 0
}

// Add marks doc dead and reports whether it was live.
func (d *DeadSet) Add(doc int64) bool {
	if doc < 0 || d.Has(doc) {
		return false
	}
	w := int(doc >> 6)
	if w >= len(*d) {
		*d = append(*d, make([]uint64, w+1-len(*d))...)
	}
	(*d)[w] |= 1 << (doc & 63)
	return true
}

// Len counts the dead documents.
func (d DeadSet) Len() int {
	n := 0
	for _, w := range d {
		n += bits.OnesCount64(w)
	}
	return n
}

// maxDeadDoc bounds the document numbers a dead set may hold, so that
// damaged data cannot ask for an absurd bitmap.
const maxDeadDoc = 1 << 32

// DecodeDead reads a dead set stored by EncodeDead.
func DecodeDead(data []byte) (DeadSet, error) {
	var d DeadSet
	var doc int64
	for i := 0; i < len(data); {
		v, n := binary.Uvarint(data[i:])
		if n <= 0 || v > maxDeadDoc-uint64(doc) {
			return nil, ErrCorrupt
		}
		i += n
		doc += int64(v)
		d.Add(doc)
	}
	return d, nil
}

// EncodeDead encodes a dead set compactly (increasing deltas).
func EncodeDead(d DeadSet) []byte {
	var buf []byte
	var prev int64
	for w, word := range d {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			doc := int64(w)<<6 | int64(b)
			buf = binary.AppendUvarint(buf, uint64(doc-prev))
			prev = doc
		}
	}
	return buf
}
