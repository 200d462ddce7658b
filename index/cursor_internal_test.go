package index

import (
	"math/rand/v2"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestCursorWalksAndSeeksLikeADecode moves a cursor over random postings
// (several blocks, chunks appended with restarts, gaps of every varint
// width) by random steps and seeks, and checks every entry it lands on
// against a plain Decode: the first entry at or after each target, with
// its term frequency and length, and endDoc past the last.
func TestCursorWalksAndSeeksLikeADecode(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 40 {
		var data []byte
		doc := int64(r.IntN(1000))
		for chunk := 0; chunk < 1+r.IntN(4); chunk++ {
			var e encoder
			for n := r.IntN(700); n > 0; n-- {
				gaps := []int64{1, 1 + r.Int64N(100), 1 + r.Int64N(20000), 1 + r.Int64N(1<<30)}
				doc += gaps[r.IntN(len(gaps))]
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
			switch r.IntN(3) {
			case 0:
				c.next()
				at++
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
