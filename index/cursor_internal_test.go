package index

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestCursorWalksAndSeeksLikeADecode moves a cursor over random postings
// (several blocks, chunks appended with restarts, gaps of every varint
// width, chunks of one-byte gaps only or nearly, whose full blocks take 3
// bytes an entry) by random steps and seeks, and checks every entry it
// lands on against a plain Decode: the first entry at or after each
// target, with its term frequency and length, and endDoc past the last.
// Some postings end in a block of fewer entries that takes as many bytes
// as a full block of one-byte gaps, and some hold a frequency of 0. The
// term's peaks and whether its postings are regular must be those of the
// entries. skipDead must land on the first entry from the current one
// whose document is live or at or past its bound.
func TestCursorWalksAndSeeksLikeADecode(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 80 {
		var data []byte
		doc := int64(r.IntN(1000))
		for chunk := 0; chunk < 1+r.IntN(4); chunk++ {
			var e encoder
			mode := r.IntN(3) // 0: every width; 1: one byte; 2: a longer gap in 300
			for n := r.IntN([]int{700, 2000, 2000}[mode]); n > 0; n-- {
				gaps := []int64{1, 1 + r.Int64N(100), 1 + r.Int64N(20000), 1 + r.Int64N(1<<30)}
				gap := gaps[r.IntN(len(gaps))]
				if mode > 0 {
					gap = 1 + r.Int64N(127)
					if mode == 2 && r.IntN(300) == 0 {
						gap = 128 + r.Int64N(20000)
					}
				}
				doc += gap
				tf := byte(1 + r.IntN(255))
				if mode > 0 && r.IntN(3000) == 0 {
					tf = 0 // postings the scorer must not bound
				}
				e.add(doc, tf, byte(r.IntN(256)))
			}
			data = append(data, e.buf...)
		}
		if round%8 == 7 {
			// A last block of 127 entries in 3 × blockSize bytes: 124 of
			// 3 bytes and 3 of 4, after full blocks of one-byte gaps.
			var e encoder
			for n := range 3*blockSize + blockSize - 1 {
				gap := int64(1 + r.IntN(127))
				if n >= 3*blockSize+blockSize-4 {
					gap = 128 + r.Int64N(16000)
				}
				doc += gap
				e.add(doc, byte(1+r.IntN(255)), byte(r.IntN(256)))
			}
			data = append(data, e.buf...)
		}
		var ref []struct {
			doc    int64
			tf, dl byte
		}
		if err := Decode(data, func(d int64, tf int, dl byte) {
			ref = append(ref, struct {
				doc    int64
				tf, dl byte
			}{d, byte(tf), dl})
		}); err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(cairn.TermPostings{Term: "t", DF: int64(len(ref)), Data: data})
		if err != nil {
			t.Fatal(err)
		}
		// The peaks: the shortest length at each frequency, less those a
		// higher frequency has as short a length as.
		regular, shortest := true, map[byte]byte{}
		for _, e := range ref {
			if e.tf == 0 {
				regular = false
			}
			if l, ok := shortest[e.tf]; !ok || e.dl < l {
				shortest[e.tf] = e.dl
			}
		}
		var peaks []peak
		for tf, least := 255, 256; tf >= 0; tf-- {
			if l, ok := shortest[byte(tf)]; ok && int(l) < least {
				peaks = append(peaks, peak{byte(tf), l})
				least = int(l)
			}
		}
		if p.regular != regular || !slices.Equal(p.peaks, peaks) {
			t.Fatalf("round %d: Prepare made regular %v, peaks %v; want %v, %v", round, p.regular, p.peaks, regular, peaks)
		}
		// The dead documents skipDead passes over: most of them, as a
		// search narrowed to types has, in stretches of whole blocks
		// sometimes; next, past which none counts as dead, sometimes
		// within the postings. (Documents from 1<<24 on, which the
		// widest gaps reach, are left live: the set would be too big.)
		var dead DeadSet
		kill := func(doc int64) {
			if doc < 1<<24 {
				dead.Add(doc)
			}
		}
		share := []float64{0.5, 0.9, 0.99, 1}[r.IntN(4)]
		for i := 0; i < len(ref); i++ {
			if r.IntN(50) == 0 {
				for end := min(len(ref), i+r.IntN(3*blockSize)); i < end; i++ {
					kill(ref[i].doc)
				}
			}
			if i < len(ref) && r.Float64() < share {
				kill(ref[i].doc)
			}
		}
		next := int64(endDoc)
		if r.IntN(3) == 0 {
			next = ref[r.IntN(len(ref))].doc
		}
		var c cursor
		c.reset(p)
		at := 0 // the reference entry the cursor must be at
		for step := 0; ; step++ {
			if at == len(ref) {
				if c.doc != endDoc {
					t.Fatalf("round %d step %d: past the last entry at doc %d, want the end", round, step, c.doc)
				}
				break
			}
			if c.doc != ref[at].doc || c.tf() != ref[at].tf || c.dl() != ref[at].dl {
				t.Fatalf("round %d step %d: at (%d, %d, %d), want (%d, %d, %d)", round, step,
					c.doc, c.tf(), c.dl(), ref[at].doc, ref[at].tf, ref[at].dl)
			}
			switch r.IntN(4) {
			case 0:
				c.next()
				at++
			case 1:
				c.skipDead(dead, next)
				for at < len(ref) && ref[at].doc < next && dead.Has(ref[at].doc) {
					at++
				}
			default:
				// A target at, before or past an entry, near or far.
				i := min(len(ref), at+r.IntN([]int{3, 130, 2000}[r.IntN(3)]))
				target := ref[at].doc + 1
				if i < len(ref) {
					target = ref[i].doc - int64(r.IntN(2))
				} else {
					target = ref[len(ref)-1].doc + 1 + int64(r.IntN(2))
				}
				c.seek(target)
				for at < len(ref) && ref[at].doc < target {
					at++
				}
			}
		}
	}
}

// BenchmarkCursor walks, and looks up one document in three of, postings
// of 200,000 entries as a common word's at 1,000,000 documents have them
// (gaps of 1 to 9 documents, a restart every 10,000 entries as separate
// writes append them): the decoding a search's scorer spends most of its
// time in.
func BenchmarkCursor(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var data []byte
	var docs []int64
	doc := int64(0)
	for len(docs) < 200000 {
		var e encoder
		for range 10000 {
			doc += 1 + r.Int64N(9)
			e.add(doc, byte(1+r.IntN(3)), byte(r.IntN(120)))
			docs = append(docs, doc)
		}
		data = append(data, e.buf...)
	}
	p, err := Prepare(cairn.TermPostings{Term: "t", DF: int64(len(docs)), Data: data})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		var c cursor
		for b.Loop() {
			n := 0
			for c.reset(p); c.doc != endDoc; c.next() {
				n += int(c.tf())
			}
			if n == 0 {
				b.Fatal("no entries")
			}
		}
	})
	b.Run("lookup", func(b *testing.B) {
		var c cursor
		for b.Loop() {
			c.reset(p)
			for i := 0; i < len(docs); i += 3 {
				if c.seek(docs[i]); c.doc != docs[i] {
					b.Fatalf("seek(%d) at %d", docs[i], c.doc)
				}
			}
		}
	})
}

// TestPrepareKeepsLittleBeyondItsTables prepares postings whose entries
// take more than the 3 bytes the skip table is first sized for (gaps of
// two bytes): the table and the peaks must keep little capacity beyond
// their length, and Size must count what the slices were allocated with,
// so that a cache bounded by Size holds what it counts.
func TestPrepareKeepsLittleBeyondItsTables(t *testing.T) {
	var e encoder
	for n := range 20 * blockSize {
		e.add(int64(1000*(n+1)), byte(1+n%7), byte(n%200))
	}
	p, err := Prepare(cairn.TermPostings{Term: "t", DF: 20 * blockSize, Data: e.buf})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.blocks) != 20 {
		t.Fatalf("%d blocks, want 20", len(p.blocks))
	}
	if c, l := cap(p.blocks), len(p.blocks); c-l > l/16+2 {
		t.Errorf("skip table of %d blocks keeps a capacity of %d", l, c)
	}
	if cap(p.peaks) != len(p.peaks) {
		t.Errorf("%d peaks keep a capacity of %d", len(p.peaks), cap(p.peaks))
	}
	if min := cap(p.Data) + cap(p.blocks)*24 + cap(p.peaks)*2; p.Size() < min {
		t.Errorf("Size %d, under the %d bytes its slices were allocated with", p.Size(), min)
	}
}
