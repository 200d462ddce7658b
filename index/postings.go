package index

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/cairn-dev/cairn"
)

// blockSize is the number of entries a block of a skip table spans.
const blockSize = 128

// Postings are one term's stored postings, checked and made ready for
// scoring: a skip table with the last document and the peaks of every
// block of entries (32 bytes a block of 128 entries, about 8 % of the
// postings' size), and the term's peaks, from which the scorer bounds
// what the term can add to a document, and to one of a block. A Postings is read-only and may
// be shared by any number of concurrent scorers.
type Postings struct {
	cairn.TermPostings
	blocks []block
	peaks  []peak
	// regular: the documents strictly increase and every term frequency
	// is at least 1, as every writer of the index makes them; the scorer
	// ranks other postings exhaustively.
	regular bool
}

// block is one entry of a skip table.
type block struct {
	off  int   // byte offset of the block's first entry
	prev int64 // the document before the block; -1 for the first block
	last int64 // the block's last document
	// peaks bound what the term adds to a document of the block: the
	// shortest length of the block's entries of term frequency 1, 2 and
	// 3, and the highest frequency above 3 with the shortest length of
	// those entries (a length of 255 and frequency 0 when there is none).
	peaks [blockPeaks]peak
}

// blockPeaks is how many peaks a block keeps.
const blockPeaks = 4

// noPeaks are the peaks of a block before its first entry.
var noPeaks = [blockPeaks]peak{{1, 255}, {2, 255}, {3, 255}, {0, 255}}

// addPeak counts an entry of term frequency tf and length dl in peaks.
func addPeak(peaks *[blockPeaks]peak, tf, dl byte) {
	if tf >= 1 && tf <= 3 {
		peaks[tf-1].dl = min(peaks[tf-1].dl, dl)
		return
	}
	p := &peaks[blockPeaks-1]
	p.tf, p.dl = max(p.tf, tf), min(p.dl, dl)
}

// peak is a term frequency of the term and the shortest length of a
// document that holds the term that often; a term's peaks leave out those
// that another has both a higher frequency and a shorter length than.
// BM25 grows with the frequency and falls with the length, so the most a
// term adds to a document is what it adds at one of its peaks.
type peak struct{ tf, dl byte }

// Prepare checks tp's postings and builds their skip table. It returns
// ErrCorrupt for postings Decode rejects.
func Prepare(tp cairn.TermPostings) (*Postings, error) {
	p := &Postings{TermPostings: tp, regular: true}
	data := tp.Data
	// An entry takes 3 bytes at least: at most this many blocks.
	p.blocks = make([]block, 0, len(data)/(3*blockSize)+1)
	var doc int64 = -1
	var cur block
	n := 0
	var shortest [256]uint16 // by term frequency; none: 256
	for i := range shortest {
		shortest[i] = 256
	}
	for i := 0; i < len(data); {
		start := i
		prev := doc
		if n%blockSize == 0 && shortBlock(data[i:]) && doc >= 0 && doc <= math.MaxInt64-blockSize*0x7f {
			// A block of one-byte gaps (see loadShort).
			if n > 0 {
				p.blocks = append(p.blocks, cur)
			}
			cur = block{off: start, prev: prev, peaks: noPeaks}
			d := (*[3 * blockSize]byte)(data[i:])
			for e := range blockSize {
				doc += int64(d[3*e])
				tf, dl := d[3*e+1], d[3*e+2]
				if tf == 0 {
					p.regular = false
				}
				shortest[tf] = min(shortest[tf], uint16(dl))
				addPeak(&cur.peaks, tf, dl)
			}
			cur.last = doc
			n += blockSize
			i += 3 * blockSize
			continue
		}
		v, w := uint64(data[i]), 1 // most entries start with a one-byte delta
		if v == 0 || v >= 0x80 {
			if v, w = binary.Uvarint(data[i:]); w <= 0 {
				return nil, ErrCorrupt
			}
		}
		i += w
		if v == 0 {
			a, w := binary.Uvarint(data[i:])
			if w <= 0 || a > math.MaxInt64 {
				return nil, ErrCorrupt
			}
			i += w
			doc = int64(a)
		} else {
			if doc < 0 || v > uint64(math.MaxInt64-doc) {
				return nil, ErrCorrupt
			}
			doc += int64(v)
		}
		if i+2 > len(data) {
			return nil, ErrCorrupt
		}
		tf, dl := data[i], data[i+1]
		i += 2
		if doc <= prev || tf == 0 {
			p.regular = false
		}
		shortest[tf] = min(shortest[tf], uint16(dl))
		if n%blockSize == 0 {
			if n > 0 {
				p.blocks = append(p.blocks, cur)
			}
			cur = block{off: start, prev: prev, peaks: noPeaks}
		}
		addPeak(&cur.peaks, tf, dl)
		cur.last = doc
		n++
	}
	if n > 0 {
		p.blocks = append(p.blocks, cur)
	}
	if cap(p.blocks)-len(p.blocks) > len(p.blocks)/16 {
		// The table was sized for entries of 3 bytes; a cache keeps what
		// the postings hold, so they keep little beyond its length.
		p.blocks = slices.Clone(p.blocks)
	}
	// The peaks, made on the stack and kept at their length.
	var buf [256]peak
	peaks, least := buf[:0], uint16(256)
	for tf := 255; tf >= 0; tf-- {
		if l := shortest[tf]; l < least {
			peaks = append(peaks, peak{byte(tf), byte(l)})
			least = l
		}
	}
	p.peaks = append(make([]peak, 0, len(peaks)), peaks...)
	return p, nil
}

// shortBlock reports whether data starts with blockSize entries of 3
// bytes: each a gap of one byte (1 to 0x7f), a term frequency and a
// length.
func shortBlock(data []byte) bool {
	if len(data) < 3*blockSize {
		return false
	}
	d := (*[3 * blockSize]byte)(data)
	for e := range blockSize {
		if v := d[3*e]; v == 0 || v >= 0x80 {
			return false
		}
	}
	return true
}

// Size is how many bytes p holds in memory: its struct and what its
// slices were allocated with (the data as read, which its reader may have
// allocated beyond its length, the skip table and the peaks). The term's
// text is not counted: its holder (a cache's key) shares it.
func (p *Postings) Size() int {
	return int(unsafe.Sizeof(*p)) + cap(p.Data) + cap(p.blocks)*int(unsafe.Sizeof(block{})) + cap(p.peaks)*int(unsafe.Sizeof(peak{}))
}

// endDoc is a cursor's document once it has passed the last entry.
const endDoc = math.MaxInt64

// cursor walks the entries of checked postings in document order. It
// decodes a block of entries at a time: a tight loop, and moving to the
// next entry is an increment.
type cursor struct {
	data   []byte
	blocks []block
	blk    int   // the block decoded into the buffer
	k, n   int   // the current entry in the buffer, and how many it holds
	doc    int64 // the current entry's document; endDoc after the last
	docs   [blockSize]int64
	// tds holds each entry's term frequency (low byte) and quantised
	// length (high byte), as they lie side by side in the postings.
	tds [blockSize]uint16
}

// reset places c before the first entry of p.
func (c *cursor) reset(p *Postings) {
	c.data, c.blocks, c.blk = p.Data, p.blocks, -1
	c.load()
}

// load decodes the block after the current one and moves to its first
// entry.
func (c *cursor) load() {
	b := c.blk + 1
	if b >= len(c.blocks) {
		c.blk, c.k, c.n, c.doc = len(c.blocks), 0, 0, endDoc
		return
	}
	c.blk = b
	end := len(c.data)
	if b+1 < len(c.blocks) {
		// Every block but the last holds blockSize entries.
		end = c.blocks[b+1].off
		if off := c.blocks[b].off; end-off == 3*blockSize {
			c.loadShort(c.data[off:end])
			return
		}
	}
	// The postings were checked by Prepare, so this decodes without
	// checks of its own.
	data, doc, n := c.data[:end], c.blocks[b].prev, 0
	for i := c.blocks[b].off; i < len(data); n++ {
		if v := data[i]; v != 0 && v < 0x80 {
			doc += int64(v)
			i++
		} else {
			d, w := binary.Uvarint(data[i:])
			i += w
			if d == 0 {
				a, w := binary.Uvarint(data[i:])
				i += w
				doc = int64(a)
			} else {
				doc += int64(d)
			}
		}
		c.docs[n], c.tds[n] = doc, uint16(data[i])|uint16(data[i+1])<<8
		i += 2
	}
	c.k, c.n, c.doc = 0, n, c.docs[0]
}

// loadShort is load for a block of blockSize entries that take 3 bytes: a
// gap of one byte, the term frequency and the length, as most entries of
// a common term's postings do. An entry takes 3 bytes at least (a restart
// takes 4), so a block of blockSize entries in 3 × blockSize bytes has no
// restart and no longer gap, and decodes without a branch.
func (c *cursor) loadShort(data []byte) {
	d := (*[3 * blockSize]byte)(data)
	doc := c.blocks[c.blk].prev
	// Four entries a turn, through fixed-size views checked once a turn,
	// an entry's frequency and length copied as one uint16: about half
	// the instructions an entry of decoding one at a time.
	for n := 0; n < blockSize; n += 4 {
		e := (*[12]byte)(d[3*n : 3*n+12])
		docs := (*[4]int64)(c.docs[n : n+4])
		tds := (*[4]uint16)(c.tds[n : n+4])
		d0 := doc + int64(e[0])
		d1 := d0 + int64(e[3])
		d2 := d1 + int64(e[6])
		doc = d2 + int64(e[9])
		docs[0], docs[1], docs[2], docs[3] = d0, d1, d2, doc
		tds[0] = binary.LittleEndian.Uint16(e[1:3])
		tds[1] = binary.LittleEndian.Uint16(e[4:6])
		tds[2] = binary.LittleEndian.Uint16(e[7:9])
		tds[3] = binary.LittleEndian.Uint16(e[10:12])
	}
	c.k, c.n, c.doc = 0, blockSize, c.docs[0]
}

// tf and dl are the current entry's term frequency and quantised
// document length.
func (c *cursor) tf() byte { return byte(c.tds[c.k&(blockSize-1)]) }
func (c *cursor) dl() byte { return byte(c.tds[c.k&(blockSize-1)] >> 8) }

// next moves to the following entry.
func (c *cursor) next() {
	if c.k++; c.k < c.n {
		c.doc = c.docs[c.k&(blockSize-1)]
	} else {
		c.load()
	}
}

// skipDead moves c to its first entry from the current one whose
// document is not in dead, or is next or after it (documents written
// after the statistics were read, which a walk passes over as it finds
// them): the entries of dead documents are passed over within their
// block, without the walk's work for each document.
func (c *cursor) skipDead(dead DeadSet, next int64) {
	// Past both next and the set's end no document is dead.
	end := min(next, int64(len(dead))<<6)
	for c.doc != endDoc {
		for k := c.k; k < c.n; k++ {
			d := c.docs[k&(blockSize-1)]
			if uint64(d) >= uint64(end) || dead[d>>6]&(1<<(d&63)) == 0 {
				c.k, c.doc = k, d
				return
			}
		}
		c.load()
	}
}

// seek moves to the first entry whose document is target or after it,
// skipping whole blocks that end before target without decoding them.
func (c *cursor) seek(target int64) {
	if c.doc >= target {
		return
	}
	if b := c.blk; c.blocks[b].last < target {
		for b++; b < len(c.blocks) && c.blocks[b].last < target; b++ {
		}
		c.blk = b - 1
		c.load()
	}
	k := c.k
	if n := c.n; k+8 < n && c.docs[k+8] < target {
		// Far into the block, as when the walked term is rarer: halve
		// the distance.
		lo, hi := k+9, n
		for lo < hi {
			if mid := int(uint(lo+hi) >> 1); c.docs[mid&(blockSize-1)] < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		k = lo
	}
	for k < c.n && c.docs[k] < target {
		k++
	}
	if k == c.n { // only after the last block
		c.k, c.doc = k, endDoc
		return
	}
	c.k, c.doc = k, c.docs[k]
}

// MarkDocs adds every document of p to set.
func (p *Postings) MarkDocs(set *DeadSet) {
	var c cursor
	for c.reset(p); c.doc != endDoc; c.next() {
		set.Add(c.doc)
	}
}

// NewestDocs returns the documents that any of ps holds, below end and
// not in skip, the highest first, at most n: what marking every document
// of ps in a set (MarkDocs) and reading the set from end down gives. It
// reads each postings list from its last block back and stops once it
// has n, so that the newest documents of a term that very many hold cost
// what those of a rare one do.
func NewestDocs(ps []*Postings, skip DeadSet, end int64, n int) []int64 {
	if n <= 0 {
		return nil
	}
	for _, p := range ps {
		if !p.regular {
			return newestMarked(ps, skip, end, n)
		}
	}
	// One cursor a list, each walking its entries backwards; the highest
	// document of all is taken next, once, however many lists hold it.
	cs := make([]cursor, 0, len(ps))
	for _, p := range ps {
		if len(p.blocks) == 0 {
			continue
		}
		cs = append(cs, cursor{data: p.Data, blocks: p.blocks})
		c := &cs[len(cs)-1]
		c.loadBack(len(p.blocks) - 1)
		// A skip past the blocks that begin at end or after it.
		for c.doc >= end && c.blocks[c.blk].prev >= end && c.blk > 0 {
			c.loadBack(c.blk - 1)
		}
	}
	var out []int64
	for len(out) < n {
		doc := int64(-1)
		for i := range cs {
			doc = max(doc, cs[i].doc)
		}
		if doc < 0 {
			break
		}
		for i := range cs {
			if cs[i].doc == doc {
				cs[i].back()
			}
		}
		if doc < end && !skip.Has(doc) {
			out = append(out, doc)
		}
	}
	return out
}

// loadBack decodes block b and moves to its last entry.
func (c *cursor) loadBack(b int) {
	c.blk = b - 1
	c.load()
	c.k = c.n - 1
	c.doc = c.docs[c.k]
}

// back moves to the entry before the current one; the document is -1
// before the first. Only for regular postings, whose documents increase.
func (c *cursor) back() {
	switch {
	case c.k > 0:
		c.k--
		c.doc = c.docs[c.k]
	case c.blk > 0:
		c.loadBack(c.blk - 1)
	default:
		c.doc = -1
	}
}

// newestMarked is NewestDocs through a set of every document of ps, for
// postings whose documents may come in any order.
func newestMarked(ps []*Postings, skip DeadSet, end int64, n int) []int64 {
	var set DeadSet
	for _, p := range ps {
		p.MarkDocs(&set)
	}
	var out []int64
	for w := len(set) - 1; w >= 0 && len(out) < n; w-- {
		word := set[w]
		if w < len(skip) {
			word &^= skip[w]
		}
		for word != 0 && len(out) < n {
			b := 63 - bits.LeadingZeros64(word)
			word &^= 1 << b
			if doc := int64(w)*64 + int64(b); doc < end {
				out = append(out, doc)
			}
		}
	}
	return out
}
