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

// lenTable is the length each QuantLen byte stands for: i below 128, else
// 128 × 2^((i-128)/16), written out (TestLenTableIsTheFormula) so that no
// process computes it when it starts.
var lenTable = [256]float64{
	0, 1, 2, 3,
	4, 5, 6, 7,
	8, 9, 10, 11,
	12, 13, 14, 15,
	16, 17, 18, 19,
	20, 21, 22, 23,
	24, 25, 26, 27,
	28, 29, 30, 31,
	32, 33, 34, 35,
	36, 37, 38, 39,
	40, 41, 42, 43,
	44, 45, 46, 47,
	48, 49, 50, 51,
	52, 53, 54, 55,
	56, 57, 58, 59,
	60, 61, 62, 63,
	64, 65, 66, 67,
	68, 69, 70, 71,
	72, 73, 74, 75,
	76, 77, 78, 79,
	80, 81, 82, 83,
	84, 85, 86, 87,
	88, 89, 90, 91,
	92, 93, 94, 95,
	96, 97, 98, 99,
	100, 101, 102, 103,
	104, 105, 106, 107,
	108, 109, 110, 111,
	112, 113, 114, 115,
	116, 117, 118, 119,
	120, 121, 122, 123,
	124, 125, 126, 127,
	128, 133.66704415070896, 139.58498978115298, 145.76494524885652,
	152.2185107203483, 158.95779994540595, 165.99546299532923, 173.3447100079223,
	181.01933598375618, 189.03374668025592, 197.40298565221642, 206.14276248950455,
	215.2694823049509, 224.80027652778233, 234.75303506039583, 245.14643985883487,
	256, 267.3340883014179, 279.16997956230597, 291.52989049771304,
	304.4370214406966, 317.9155998908119, 331.99092599065847, 346.6894200158446,
	362.0386719675123, 378.06749336051183, 394.80597130443283, 412.2855249790091,
	430.5389646099018, 449.60055305556466, 469.50607012079166, 490.29287971766973,
	512, 534.6681766028358, 558.3399591246119, 583.0597809954261,
	608.8740428813932, 635.8311997816238, 663.9818519813169, 693.3788400316892,
	724.0773439350246, 756.1349867210237, 789.6119426088657, 824.5710499580182,
	861.0779292198037, 899.2011061111293, 939.0121402415833, 980.5857594353395,
	1024, 1069.3363532056717, 1116.6799182492239, 1166.1195619908522,
	1217.7480857627863, 1271.6623995632476, 1327.9637039626339, 1386.7576800633783,
	1448.1546878700492, 1512.2699734420473, 1579.2238852177313, 1649.1420999160364,
	1722.1558584396073, 1798.4022122222586, 1878.0242804831666, 1961.171518870679,
	2048, 2138.6727064113434, 2233.3598364984477, 2332.2391239817043,
	2435.4961715255727, 2543.3247991264952, 2655.9274079252677, 2773.5153601267566,
	2896.3093757400984, 3024.5399468840947, 3158.4477704354626, 3298.2841998320728,
	3444.3117168792146, 3596.8044244445173, 3756.0485609663333, 3922.343037741358,
	4096, 4277.345412822687, 4466.7196729968955, 4664.478247963409,
	4870.992343051145, 5086.6495982529905, 5311.8548158505355, 5547.030720253513,
	5792.618751480197, 6049.079893768189, 6316.895540870925, 6596.5683996641455,
	6888.623433758429, 7193.608848889035, 7512.097121932667, 7844.686075482716,
	8192, 8554.690825645373, 8933.439345993791, 9328.956495926817,
	9741.98468610229, 10173.299196505981, 10623.709631701071, 11094.061440507026,
	11585.237502960394, 12098.159787536379, 12633.79108174185, 13193.136799328291,
	13777.246867516858, 14387.21769777807, 15024.194243865333, 15689.372150965432,
	16384, 17109.381651290747, 17866.878691987582, 18657.912991853635,
	19483.96937220458, 20346.598393011962, 21247.419263402142, 22188.122881014053,
	23170.475005920787, 24196.319575072757, 25267.5821634837, 26386.273598656582,
	27554.493735033717, 28774.43539555614, 30048.388487730666, 31378.744301930863,
}

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
