package index_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

type entry struct {
	Doc int64
	TF  int
	DL  byte
}

func decodeAll(t *testing.T, data []byte) []entry {
	t.Helper()
	var out []entry
	if err := index.Decode(data, func(doc int64, tf int, dl byte) {
		out = append(out, entry{doc, tf, dl})
	}); err != nil {
		t.Fatalf("Decode(%x): %v", data, err)
	}
	return out
}

// postingsOf returns the postings of term in tps.
func postingsOf(tps []cairn.TermPostings, term string) (cairn.TermPostings, bool) {
	for _, tp := range tps {
		if tp.Term == term {
			return tp, true
		}
	}
	return cairn.TermPostings{}, false
}

func TestAppendedChunksDecodeInOrder(t *testing.T) {
	t.Parallel()
	// Three chunks, as three transactions would append them: each starts
	// with a restart, and doc numbers need several varint bytes.
	type doc struct {
		num    int64
		tf, dl int
	}
	chunks := [][]doc{
		{{0, 1, 3}, {1, 2, 5}, {7, 300, 127}},
		{{200, 3, 128}, {201, 1, 0}, {100_000, 4, 5000}},
		{{1 << 40, 9, 1 << 30}},
	}
	var data []byte
	var want []entry
	for _, c := range chunks {
		b := index.NewBuilder()
		for _, d := range c {
			b.Add(d.num, d.dl, slices.Repeat([]string{"x"}, d.tf))
			want = append(want, entry{d.num, min(d.tf, 255), index.QuantLen(d.dl)})
		}
		tp, ok := postingsOf(b.Postings(), "x")
		if !ok {
			t.Fatal("builder lost term x")
		}
		if tp.DF != int64(len(c)) {
			t.Errorf("chunk DF = %d, want %d", tp.DF, len(c))
		}
		if tp.Data[0] != 0 {
			t.Errorf("chunk starts with %#x, want a restart (0x00)", tp.Data[0])
		}
		data = append(data, tp.Data...)
	}
	if got := decodeAll(t, data); !slices.Equal(got, want) {
		t.Errorf("decoded\n%v\nwant\n%v", got, want)
	}
}

func TestAppendPostingWritesOneRestartEntry(t *testing.T) {
	t.Parallel()
	var data []byte
	data = index.AppendPosting(data, 5, 2, 10)
	data = index.AppendPosting(data, 3, 300, 11) // restarts may go back; tf is capped
	data = index.AppendPosting(data, 9, 0, 12)   // tf is at least 1
	want := []entry{{5, 2, 10}, {3, 255, 11}, {9, 1, 12}}
	if got := decodeAll(t, data); !slices.Equal(got, want) {
		t.Errorf("decoded %v, want %v", got, want)
	}
	if !bytes.Equal(data[:4], []byte{0, 5, 2, 10}) {
		t.Errorf("first entry encoded as %x, want 0005020a", data[:4])
	}
}

func TestBuilderCountsTermFrequencyAndDocumentFrequency(t *testing.T) {
	t.Parallel()
	b := index.NewBuilder()
	b.Add(0, 3, []string{"go", "test", "go"})
	b.Add(1, 2, []string{"test", "race"})
	b.Add(2, 200, []string{"go"})
	if b.Docs != 3 || b.Len != 205 {
		t.Errorf("Docs, Len = %d, %d; want 3, 205", b.Docs, b.Len)
	}
	if b.Terms() != 3 {
		t.Errorf("Terms() = %d, want 3", b.Terms())
	}
	tps := b.Postings()
	var terms []string
	for _, tp := range tps {
		terms = append(terms, tp.Term)
	}
	if !slices.Equal(terms, []string{"go", "race", "test"}) {
		t.Fatalf("terms %v, want sorted [go race test]", terms)
	}
	want := map[string][]entry{
		"go":   {{0, 2, 3}, {2, 1, index.QuantLen(200)}},
		"race": {{1, 1, 2}},
		"test": {{0, 1, 3}, {1, 1, 2}},
	}
	for _, tp := range tps {
		got := decodeAll(t, tp.Data)
		if !slices.Equal(got, want[tp.Term]) {
			t.Errorf("%s: postings %v, want %v", tp.Term, got, want[tp.Term])
		}
		if tp.DF != int64(len(want[tp.Term])) {
			t.Errorf("%s: DF %d, want %d", tp.Term, tp.DF, len(want[tp.Term]))
		}
	}
}

// Tried: repeats far apart, a term repeated more than 255 times (capped
// tf), a document without terms, a document of one term, a long document.
func TestAddCountedRecordsWhatAddRecords(t *testing.T) {
	t.Parallel()
	many := slices.Repeat([]string{"x"}, 300)
	docs := [][]string{
		{"go", "test", "go", "race", "go"},
		{},
		append([]string{"y"}, many...),
		{"test"},
		strings.Fields(strings.Repeat("alpha beta gamma alpha delta ", 60)),
	}
	plain, counted := index.NewBuilder(), index.NewBuilder()
	for i, terms := range docs {
		plain.Add(int64(i*3), len(terms), terms)
		counted.AddCounted(int64(i*3), len(terms), index.CountTerms(terms))
	}
	if plain.Docs != counted.Docs || plain.Len != counted.Len {
		t.Errorf("Docs, Len = %d, %d counted; %d, %d by Add", counted.Docs, counted.Len, plain.Docs, plain.Len)
	}
	if a, b := plain.Postings(), counted.Postings(); !slices.EqualFunc(a, b, func(x, y cairn.TermPostings) bool {
		return x.Term == y.Term && x.DF == y.DF && bytes.Equal(x.Data, y.Data)
	}) {
		t.Errorf("postings differ:\nAdd        %v\nAddCounted %v", a, b)
	}
	got := index.CountTerms([]string{"b", "a", "b", "c", "b"})
	if want := []index.TermFreq{{"b", 3}, {"a", 1}, {"c", 1}}; !slices.Equal(got, want) {
		t.Errorf("CountTerms = %v, want %v", got, want)
	}
	long := strings.Fields(strings.Repeat("b a b c b ", 10) + "d")
	if got, want := index.CountTerms(long), []index.TermFreq{{"b", 30}, {"a", 10}, {"c", 10}, {"d", 1}}; !slices.Equal(got, want) {
		t.Errorf("CountTerms(%d terms) = %v, want %v", len(long), got, want)
	}
}

func TestDecodeOfCorruptDataReturnsErrCorrupt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
	}{
		{"truncated delta varint", []byte{0x80}},
		{"truncated restart varint", []byte{0x00, 0x80}},
		{"restart without doc", []byte{0x00}},
		{"missing tf and dl", []byte{0x00, 0x05}},
		{"missing dl", []byte{0x00, 0x05, 0x01}},
		{"entry after a good one missing dl", []byte{0x00, 0x05, 0x01, 0x02, 0x01, 0x01}},
		{"delta before any restart", []byte{0x03, 0x01, 0x01}},
		{"overlong varint", append([]byte{0x00}, bytes.Repeat([]byte{0xff}, 11)...)},
		{"restart doc beyond int64", append(binary.AppendUvarint([]byte{0x00}, math.MaxUint64), 1, 1)},
		{"delta overflowing int64", append(binary.AppendUvarint(append(binary.AppendUvarint([]byte{0x00}, math.MaxInt64-1), 1, 1), 10), 1, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var docs []int64
			err := index.Decode(tt.data, func(doc int64, tf int, dl byte) { docs = append(docs, doc) })
			if !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("Decode(%x) = %v (docs %v), want ErrCorrupt", tt.data, err, docs)
			}
			for _, d := range docs {
				if d < 0 {
					t.Errorf("Decode(%x) reported negative doc %d", tt.data, d)
				}
			}
		})
	}
}

func TestDecodeOfEmptyDataCallsNothing(t *testing.T) {
	t.Parallel()
	called := false
	if err := index.Decode(nil, func(int64, int, byte) { called = true }); err != nil || called {
		t.Errorf("Decode(nil) = %v, called %v; want nil, false", err, called)
	}
}

func TestQuantLenIsExactBelow128AndMonotonic(t *testing.T) {
	t.Parallel()
	for dl := 0; dl < 128; dl++ {
		if q := index.QuantLen(dl); int(q) != dl || index.DequantLen(q) != float64(dl) {
			t.Fatalf("QuantLen(%d) = %d, DequantLen = %v; want exact", dl, q, index.DequantLen(q))
		}
	}
	if q := index.QuantLen(-5); q != 0 {
		t.Errorf("QuantLen(-5) = %d, want 0", q)
	}
	prev := index.QuantLen(0)
	for dl := 1; dl < 1<<22; dl += 1 + dl/64 {
		q := index.QuantLen(dl)
		if q < prev {
			t.Fatalf("QuantLen(%d) = %d < %d: not monotonic", dl, q, prev)
		}
		prev = q
		if dl >= 128 && q < 255 {
			// A bucket stands for lengths within one sixteenth of a doubling.
			if d := index.DequantLen(q); d > float64(dl)*1.0001 || d < float64(dl)/math.Pow(2, 1.0/16)*0.9999 {
				t.Fatalf("DequantLen(QuantLen(%d)) = %v: not within its bucket", dl, d)
			}
		}
	}
	if q := index.QuantLen(math.MaxInt32); q != 255 {
		t.Errorf("QuantLen(MaxInt32) = %d, want 255", q)
	}
	for b := 1; b < 256; b++ {
		if index.DequantLen(byte(b)) <= index.DequantLen(byte(b-1)) {
			t.Fatalf("DequantLen(%d) <= DequantLen(%d): not increasing", b, b-1)
		}
	}
}

func TestDeadSetTracksMembership(t *testing.T) {
	t.Parallel()
	var d index.DeadSet
	if d.Has(0) || d.Len() != 0 {
		t.Fatal("empty set is not empty")
	}
	for _, doc := range []int64{0, 63, 64, 1000} {
		if !d.Add(doc) {
			t.Errorf("Add(%d) on a live doc = false", doc)
		}
	}
	if d.Add(63) {
		t.Error("Add(63) twice = true, want false")
	}
	if d.Add(-1) {
		t.Error("Add(-1) = true, want false")
	}
	for _, doc := range []int64{0, 63, 64, 1000} {
		if !d.Has(doc) {
			t.Errorf("Has(%d) = false after Add", doc)
		}
	}
	for _, doc := range []int64{-1, 1, 62, 65, 999, 1001, 1 << 20} {
		if d.Has(doc) {
			t.Errorf("Has(%d) = true, never added", doc)
		}
	}
	if d.Len() != 4 {
		t.Errorf("Len() = %d, want 4", d.Len())
	}
}

func TestDeadSetEncodingRoundTrips(t *testing.T) {
	t.Parallel()
	for _, docs := range [][]int64{nil, {0}, {5}, {0, 1, 2}, {0, 64, 65, 4096, 1 << 20}, {127, 128}} {
		var d index.DeadSet
		for _, doc := range docs {
			d.Add(doc)
		}
		enc := index.EncodeDead(d)
		got, err := index.DecodeDead(enc)
		if err != nil {
			t.Fatalf("DecodeDead(EncodeDead(%v)): %v", docs, err)
		}
		if got.Len() != len(docs) {
			t.Errorf("round trip of %v has %d docs", docs, got.Len())
		}
		for _, doc := range docs {
			if !got.Has(doc) {
				t.Errorf("round trip of %v lost %d", docs, doc)
			}
		}
	}
	if _, err := index.DecodeDead([]byte{0x80}); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("DecodeDead(truncated) = %v, want ErrCorrupt", err)
	}
}

// TestDecodeDeadRejectsAbsurdDocNumbers: a damaged dead set must fail
// decoding, not make the process allocate a bitmap for 2^62 documents.
func TestDecodeDeadRejectsAbsurdDocNumbers(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{
		binary.AppendUvarint(nil, 1<<62),
		binary.AppendUvarint(binary.AppendUvarint(nil, 5), math.MaxUint64-2), // wraps below zero
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("DecodeDead(%x) panicked: %v", data, r)
				}
			}()
			if _, err := index.DecodeDead(data); !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("DecodeDead(%x) = %v, want ErrCorrupt", data, err)
			}
		}()
	}
}

func TestCompactDropsDeadDocsAndKeepsOthers(t *testing.T) {
	t.Parallel()
	var data []byte
	var all []entry
	for doc := int64(0); doc < 10; doc++ {
		e := entry{doc, int(doc%3) + 1, byte(doc + 4)}
		data = index.AppendPosting(data, e.Doc, e.TF, e.DL) // ten restarts
		all = append(all, e)
	}
	var dead index.DeadSet
	for _, doc := range []int64{0, 3, 4, 9} {
		dead.Add(doc)
	}
	out, n, err := index.Compact(data, dead)
	if err != nil {
		t.Fatal(err)
	}
	var want []entry
	for _, e := range all {
		if !dead.Has(e.Doc) {
			want = append(want, e)
		}
	}
	if got := decodeAll(t, out); !slices.Equal(got, want) {
		t.Errorf("compacted to %v, want %v", got, want)
	}
	if n != int64(len(want)) {
		t.Errorf("count %d, want %d", n, len(want))
	}
	// One restart, then deltas: 4 bytes for the first entry, 3 for the rest.
	if len(out) != 4+3*(len(want)-1) {
		t.Errorf("compacted to %d bytes (%x), want one restart and deltas", len(out), out)
	}

	out, n, err = index.Compact(data, nil)
	if err != nil || n != 10 || !slices.Equal(decodeAll(t, out), all) {
		t.Errorf("Compact with no dead docs = %d entries, %v; want all 10", n, err)
	}

	var allDead index.DeadSet
	for doc := int64(0); doc < 10; doc++ {
		allDead.Add(doc)
	}
	out, n, err = index.Compact(data, allDead)
	if err != nil || n != 0 || len(out) != 0 {
		t.Errorf("Compact with every doc dead = %x, %d, %v; want empty", out, n, err)
	}

	if _, _, err := index.Compact([]byte{0x05, 1, 1}, nil); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("Compact(corrupt) = %v, want ErrCorrupt", err)
	}
}

// corpus builds one partition from documents given as term lists.
func corpus(docs ...[]string) (*cairn.PartitionStats, []cairn.TermPostings) {
	b := index.NewBuilder()
	for i, terms := range docs {
		b.Add(int64(i), len(terms), terms)
	}
	stats := &cairn.PartitionStats{Name: "p", Docs: b.Docs, TotalLen: b.Len, NextDoc: b.Docs}
	return stats, b.Postings()
}

func score(t *testing.T, stats *cairn.PartitionStats, tps []cairn.TermPostings, dead index.DeadSet, query ...string) *index.Scorer {
	t.Helper()
	s := &index.Scorer{Params: index.DefaultParams(), Stats: stats, Dead: dead}
	for _, q := range query {
		if tp, ok := postingsOf(tps, q); ok {
			if err := s.Add(tp, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

func words(s string) []string { return strings.Fields(s) }

// near compares scores to the precision a scorer may accumulate in
// (float32).
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want))
}

func TestScorerComputesBM25(t *testing.T) {
	t.Parallel()
	stats, tps := corpus(words("a b c"), words("a a d e f g"), words("h"))
	s := score(t, stats, tps, nil, "a")
	top := s.Top(10)
	if len(top) != 2 {
		t.Fatalf("Top = %v, want docs 0 and 1", top)
	}
	idf := math.Log(1 + (3-2+0.5)/(2+0.5))
	check := func(p index.Params, pivot float64, top []index.Scored) {
		t.Helper()
		bm25 := func(tf, dl float64) float64 {
			return idf * tf * (p.K1 + 1) / (tf + p.K1*(1-p.B+p.B*dl/pivot))
		}
		want := map[int64]float64{0: bm25(1, 3), 1: bm25(2, 6)}
		for _, sc := range top {
			if !near(sc.Score, want[sc.Doc]) {
				t.Errorf("%+v: doc %d scored %v, want %v", p, sc.Doc, sc.Score, want[sc.Doc])
			}
		}
	}
	// The default: lengths measured against a fixed pivot.
	check(index.DefaultParams(), index.DefaultParams().Pivot, top)
	// Pivot 0: against the partition's average length.
	avg := index.Params{K1: 1.2, B: 0.75}
	s = &index.Scorer{Params: avg, Stats: stats}
	tp, _ := postingsOf(tps, "a")
	if err := s.Add(tp, 1); err != nil {
		t.Fatal(err)
	}
	check(avg, 10.0/3, s.Top(10))
	if got := index.IDF(3, 2); !near(got, idf) {
		t.Errorf("IDF(3, 2) = %v, want %v", got, idf)
	}
	if index.IDF(3, 3) <= 0 || index.IDF(3, 7) <= 0 {
		t.Error("IDF of a term in every document is not positive")
	}
}

func TestRareTermOutranksCommonTerm(t *testing.T) {
	t.Parallel()
	var docs [][]string
	for i := 0; i < 20; i++ {
		docs = append(docs, words(fmt.Sprintf("common filler%d", i)))
	}
	docs = append(docs, words("rare filler"))
	stats, tps := corpus(docs...)
	top := score(t, stats, tps, nil, "common", "rare").Top(3)
	if len(top) == 0 || top[0].Doc != 20 {
		t.Errorf("Top = %v, want doc 20 (the rare term) first", top)
	}
}

func TestHigherTermFrequencyRanksHigherAtEqualLength(t *testing.T) {
	t.Parallel()
	stats, tps := corpus(words("x y y y"), words("x x x y"), words("z z z z"))
	top := score(t, stats, tps, nil, "x").Top(10)
	if len(top) != 2 || top[0].Doc != 1 || top[1].Doc != 0 || top[0].Score <= top[1].Score {
		t.Errorf("Top = %v, want doc 1 (tf 3) above doc 0 (tf 1)", top)
	}
}

func TestShorterDocumentRanksHigherAtEqualFrequency(t *testing.T) {
	t.Parallel()
	stats, tps := corpus(words("x y y y y y y y"), words("x y"), words("z z z"))
	top := score(t, stats, tps, nil, "x").Top(10)
	if len(top) != 2 || top[0].Doc != 1 || top[0].Score <= top[1].Score {
		t.Errorf("Top = %v, want doc 1 (shorter) first", top)
	}
}

func TestScorerSkipsDeadDocs(t *testing.T) {
	t.Parallel()
	stats, tps := corpus(words("x"), words("x"), words("x y"))
	var dead index.DeadSet
	dead.Add(1)
	s := score(t, stats, tps, dead, "x")
	if s.Matches() != 2 {
		t.Errorf("Matches() = %d, want 2", s.Matches())
	}
	for _, sc := range s.Top(10) {
		if sc.Doc == 1 {
			t.Errorf("dead doc 1 scored: %v", sc)
		}
	}
}

func TestScorerIgnoresDocsWrittenAfterItsStats(t *testing.T) {
	t.Parallel()
	stats, tps := corpus(words("x"), words("x"), words("x"))
	stats.NextDoc, stats.Docs = 2, 2 // the third doc was added later
	top := score(t, stats, tps, nil, "x").Top(10)
	if len(top) != 2 {
		t.Errorf("Top = %v, want only docs 0 and 1", top)
	}
}

func TestScorerOfEmptyPartitionMatchesNothing(t *testing.T) {
	t.Parallel()
	_, tps := corpus(words("x"))
	s := score(t, &cairn.PartitionStats{}, tps, nil, "x")
	if s.Matches() != 0 || len(s.Top(5)) != 0 {
		t.Errorf("empty partition matched %d", s.Matches())
	}
}

func TestTopReturnsBestFirstAndRespectsK(t *testing.T) {
	t.Parallel()
	// doc i contains "x" i+1 times among 10 tokens: higher docs score higher.
	var docs [][]string
	for i := 0; i < 10; i++ {
		d := slices.Repeat([]string{"x"}, i+1)
		docs = append(docs, append(d, slices.Repeat([]string{"pad"}, 9-i)...))
	}
	stats, tps := corpus(docs...)
	s := score(t, stats, tps, nil, "x")
	top := s.Top(3)
	if len(top) != 3 || top[0].Doc != 9 || top[1].Doc != 8 || top[2].Doc != 7 {
		t.Errorf("Top(3) = %v, want docs 9, 8, 7", top)
	}
	all := s.Top(100)
	if len(all) != 10 {
		t.Fatalf("Top(100) = %d docs, want 10", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Score > all[i-1].Score {
			t.Errorf("Top not sorted at %d: %v", i, all)
		}
	}
	if got := s.Top(0); len(got) != 0 {
		t.Errorf("Top(0) = %v, want none", got)
	}
}

func TestTopBreaksTiesTowardNewerDocs(t *testing.T) {
	t.Parallel()
	var docs [][]string
	for i := 0; i < 8; i++ {
		docs = append(docs, words("same words"))
	}
	stats, tps := corpus(docs...)
	s := score(t, stats, tps, nil, "same")
	top := s.Top(3)
	if len(top) != 3 || top[0].Doc != 7 || top[1].Doc != 6 || top[2].Doc != 5 {
		t.Errorf("Top(3) of equal scores = %v, want docs 7, 6, 5", top)
	}
}

func TestTermWeightScalesScore(t *testing.T) {
	t.Parallel()
	stats, tps := corpus(words("x"), words("y"))
	tp, _ := postingsOf(tps, "x")
	s1 := &index.Scorer{Params: index.DefaultParams(), Stats: stats}
	s2 := &index.Scorer{Params: index.DefaultParams(), Stats: stats}
	s1.Add(tp, 1)
	s2.Add(tp, 2)
	a, b := s1.Top(1), s2.Top(1)
	if len(a) != 1 || len(b) != 1 || !near(b[0].Score, 2*a[0].Score) {
		t.Errorf("weight 2 scored %v, weight 1 %v; want double", b, a)
	}
}

// TestScorerRejectsCorruptDocNumbers: stored postings are data, and a
// damaged row must fail the search, not crash the process.
func TestScorerRejectsCorruptDocNumbers(t *testing.T) {
	t.Parallel()
	stats := &cairn.PartitionStats{Docs: 3, TotalLen: 3, NextDoc: 3}
	for _, data := range [][]byte{
		append(binary.AppendUvarint([]byte{0x00}, 1<<63), 1, 1),                                                 // restart to a negative doc
		append(binary.AppendUvarint([]byte{0x00}, math.MaxUint64), 1, 1),                                        // restart to -1
		append(append(index.AppendPosting(nil, 2, 1, 1), binary.AppendUvarint(nil, math.MaxUint64-1)...), 1, 1), // delta wrapping to 0
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("Scorer.Add(%x) panicked: %v", data, r)
				}
			}()
			s := &index.Scorer{Params: index.DefaultParams(), Stats: stats}
			if err := s.Add(cairn.TermPostings{Term: "x", DF: 1, Data: data}, 1); !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("Scorer.Add(%x) = %v, want ErrCorrupt", data, err)
			}
		}()
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x00, 0x05, 0x01, 0x02, 0x03, 0x01, 0x01})
	f.Add([]byte{0x80})
	f.Add([]byte{0x03, 0x01, 0x01})
	f.Add(index.AppendPosting(index.AppendPosting(nil, 1<<40, 3, 200), 7, 1, 1))
	f.Add(append(binary.AppendUvarint([]byte{0x00}, math.MaxUint64), 1, 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []entry
		err := index.Decode(data, func(doc int64, tf int, dl byte) {
			got = append(got, entry{doc, tf, dl})
		})
		// Prepare, which scoring reads postings through, accepts what
		// Decode accepts.
		if _, perr := index.Prepare(cairn.TermPostings{Term: "t", DF: int64(len(got)), Data: data}); (perr == nil) != (err == nil) {
			t.Fatalf("Prepare error %v, Decode error %v", perr, err)
		}
		if err != nil {
			if !errors.Is(err, index.ErrCorrupt) {
				t.Fatalf("Decode error %v is not ErrCorrupt", err)
			}
			return
		}
		if len(got)*3 > len(data) {
			t.Fatalf("%d entries from %d bytes", len(got), len(data))
		}
		// Compacting with no dead docs keeps every entry.
		out, n, err := index.Compact(data, nil)
		if err != nil || n != int64(len(got)) {
			t.Fatalf("Compact = %d, %v; Decode saw %d entries", n, err, len(got))
		}
		var again []entry
		if err := index.Decode(out, func(doc int64, tf int, dl byte) {
			again = append(again, entry{doc, tf, dl})
		}); err != nil || !slices.Equal(again, got) {
			t.Fatalf("Compact changed the entries: %v, %v -> %v", err, got, again)
		}
	})
}

// TestHeldOfPostingsOutOfOrder: postings whose documents do not increase
// (which no writer makes, and which are scored exhaustively) still give
// every document returned its Held bits.
func TestHeldOfPostingsOutOfOrder(t *testing.T) {
	t.Parallel()
	var a, b []byte
	a = index.AppendPosting(a, 5, 1, 3)
	a = index.AppendPosting(a, 2, 1, 3) // a restart that goes back
	b = index.AppendPosting(b, 2, 2, 3)
	b = index.AppendPosting(b, 4, 1, 3)
	stats := &cairn.PartitionStats{Name: "p", Docs: 6, TotalLen: 18, NextDoc: 6}
	for _, exhaustive := range []bool{false, true} {
		s := &index.Scorer{Params: index.DefaultParams(), Stats: stats, Exhaustive: exhaustive}
		for _, tp := range []cairn.TermPostings{{Term: "a", DF: 2, Data: a}, {Term: "none"}, {Term: "b", DF: 2, Data: b}} {
			if err := s.Add(tp, 1); err != nil {
				t.Fatal(err)
			}
		}
		want := map[int64]uint64{2: 0b11, 4: 0b10, 5: 0b01}
		top := s.Top(10)
		if len(top) != len(want) {
			t.Fatalf("exhaustive %v: Top = %v, want docs 2, 4 and 5", exhaustive, top)
		}
		for _, sc := range top {
			if sc.Held != want[sc.Doc] {
				t.Errorf("exhaustive %v: document %d holds terms %b, want %b", exhaustive, sc.Doc, sc.Held, want[sc.Doc])
			}
		}
	}
}

// A document up to the pivot holds a term it holds in full; a longer one
// by how densely it holds it; without a pivot, every document in full.
func TestDensityMeasuresLongDocumentsAgainstThePivot(t *testing.T) {
	t.Parallel()
	p := index.Params{K1: 1.2, B: 1, Pivot: 64}
	for _, c := range []struct {
		tf   int
		dl   float64
		want float64
	}{
		{0, 10, 0}, {1, 10, 1}, {3, 64, 1}, {1, 128, 0.5}, {1, 640, 0.1}, {4, 640, 0.4}, {20, 640, 1},
	} {
		if got := p.Density(c.tf, c.dl); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Density(%d, %v) = %v, want %v", c.tf, c.dl, got, c.want)
		}
	}
	if got := (index.Params{K1: 1.2, B: 0.75}).Density(1, 640); got != 1 {
		t.Errorf("without a pivot, Density(1, 640) = %v, want 1", got)
	}
}

// Coverage counts a term a long document holds by how densely it holds
// it: a document of 200 terms that holds each of three query words once
// covers less of the query than a short one that states one of them, and
// ranks below it, where full coverage would have lifted it above.
func TestCoverageCountsATermByItsDensity(t *testing.T) {
	t.Parallel()
	short := append([]string{"a"}, slices.Repeat([]string{"x"}, 9)...)
	long := append([]string{"a", "b", "c"}, slices.Repeat([]string{"y"}, 197)...)
	docs := [][]string{short, long}
	for i := range 8 {
		docs = append(docs, []string{"z", fmt.Sprint(i)})
	}
	stats, tps := corpus(docs...)
	s := &index.Scorer{Params: index.DefaultParams(), Stats: stats, Coord: 3, CoordShare: 0.5}
	for _, q := range []string{"a", "b", "c"} {
		tp, _ := postingsOf(tps, q)
		if err := s.Add(tp, 1); err != nil {
			t.Fatal(err)
		}
	}
	top := s.Top(2)
	if len(top) != 2 || top[0].Doc != 0 {
		t.Fatalf("Top = %+v, want the short document 0 first", top)
	}
	if want := 64 / index.DequantLen(index.QuantLen(200)); !near(top[1].Coverage, want) {
		t.Errorf("the long document covers %v, want %v (each word once in 200 terms, pivot 64)", top[1].Coverage, want)
	}
	if !near(top[0].Coverage, 1.0/3) {
		t.Errorf("the short document covers %v, want 1/3", top[0].Coverage)
	}
}

// BenchmarkDecodeDead1M decodes the dead set of a partition of 1,000,000
// documents of which 179,366 were removed, as a cleanup of the generated
// million leaves it: what a search paid before a long-lived engine kept
// the decoding (engine.deadSet).
func BenchmarkDecodeDead1M(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var d index.DeadSet
	for d.Len() < 179366 {
		d.Add(r.Int64N(1000000))
	}
	data := index.EncodeDead(d)
	for b.Loop() {
		if _, err := index.DecodeDead(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data)), "stored-bytes")
}
