package vector

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func randVec(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

func TestDotMatchesThePortableCodeAtEveryLengthAndExtreme(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 100, 768, 1536, 4096} {
		a, b := make([]int8, n), make([]int16, n)
		for i := range a {
			a[i] = int8(r.IntN(256) - 128)
			b[i] = int16(r.IntN(2*queryScale+1) - queryScale)
		}
		if got, want := dot(a, b), dotGo(a, b); got != want {
			t.Errorf("n=%d: %d, want %d", n, got, want)
		}
		for i := range a { // the extremes a unit vector can reach
			a[i], b[i] = -127, -queryScale
		}
		if got, want := dot(a, b), dotGo(a, b); got != want || got <= 0 {
			t.Errorf("n=%d extremes: %d, want %d", n, got, want)
		}
	}
}

func TestSearchReturnsTheExactBestWithCosineScores(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	const n, dims, k = 20000, 96, 10 // above the size searched in parallel
	vs := make([][]float32, n)
	ix := New(dims)
	for i := range vs {
		vs[i] = randVec(r, dims)
		if err := ix.Add(string(rune('a'+i%26))+string(rune(i)), vs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for trial := 0; trial < 5; trial++ {
		q := randVec(r, dims)
		got, err := ix.Search(q, k, nil)
		if err != nil || len(got) != k {
			t.Fatalf("%d results, %v", len(got), err)
		}
		// Brute force over the same quantised scores.
		type ps struct {
			pos int
			s   float32
		}
		qc, qs, _ := quantiseQuery(q)
		all := make([]ps, n)
		for i := range all {
			all[i] = ps{i, float32(dotGo(ix.codes[i*dims:(i+1)*dims], qc)) * ix.scales[i] * qs}
		}
		sort.Slice(all, func(i, j int) bool {
			if all[i].s != all[j].s {
				return all[i].s > all[j].s
			}
			return all[i].pos < all[j].pos
		})
		for i, res := range got {
			if res.Pos != all[i].pos || res.ID != ix.ID(all[i].pos) {
				t.Fatalf("rank %d: %d, want %d", i, res.Pos, all[i].pos)
			}
			if d := math.Abs(float64(res.Score) - cosine(q, vs[res.Pos])); d > 0.01 {
				t.Errorf("score %.4f is %.4f off the cosine", res.Score, d)
			}
		}
	}
}

func TestSearchFindsTheSameVectorFirstAndKeepsFilters(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	ix := New(32)
	var vs [][]float32
	for i := 0; i < 100; i++ {
		v := randVec(r, 32)
		vs = append(vs, v)
		ix.Add(string(rune('A'+i)), v)
	}
	got, _ := ix.Search(vs[42], 3, nil)
	if got[0].Pos != 42 || got[0].Score < 0.99 {
		t.Errorf("self: %+v", got[0])
	}
	got, _ = ix.Search(vs[42], 100, func(pos int) bool { return pos%2 == 1 })
	if len(got) != 50 {
		t.Errorf("%d results kept, want 50", len(got))
	}
	for _, res := range got {
		if res.Pos%2 == 0 {
			t.Fatalf("position %d was filtered out", res.Pos)
		}
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Fatalf("not best first at %d", i)
		}
	}
}

// Bad input tried: a vector or query of the wrong length, of zeros, with
// NaN or Inf.
func TestBadVectorsAreRefused(t *testing.T) {
	t.Parallel()
	ix := New(3)
	if err := ix.Add("a", []float32{1, 2}); !errors.Is(err, ErrDims) {
		t.Errorf("short: %v", err)
	}
	if err := ix.Add("a", []float32{0, 0, 0}); !errors.Is(err, ErrZero) {
		t.Errorf("zeros: %v", err)
	}
	if err := ix.Add("a", []float32{1, float32(math.NaN()), 0}); !errors.Is(err, ErrZero) {
		t.Errorf("NaN: %v", err)
	}
	if ix.Len() != 0 {
		t.Errorf("refused vectors were kept: %d", ix.Len())
	}
	ix.Add("b", []float32{1, 0, 0})
	if _, err := ix.Search([]float32{1, 0}, 1, nil); !errors.Is(err, ErrDims) {
		t.Errorf("short query: %v", err)
	}
	if _, err := ix.Search([]float32{float32(math.Inf(1)), 0, 0}, 1, nil); !errors.Is(err, ErrZero) {
		t.Errorf("Inf query: %v", err)
	}
	if got, err := ix.Search([]float32{0, 1, 0}, 1, nil); err != nil || len(got) != 1 || math.Abs(float64(got[0].Score)) > 0.01 {
		t.Errorf("orthogonal: %+v %v", got, err)
	}
}

// BenchmarkSearch100k768 is the budget's case: 100,000 vectors of 768
// dimensions, the best 20.
func BenchmarkSearch100k768(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	ix := New(768)
	for i := 0; i < 100_000; i++ {
		ix.Add("mem-0000000000000000", randVec(r, 768))
	}
	q := randVec(r, 768)
	b.Run("simd", func(b *testing.B) {
		for b.Loop() {
			ix.Search(q, 20, nil)
		}
		b.ReportMetric(float64(ix.Bytes())/(1<<20), "MB")
	})
	b.Run("portable", func(b *testing.B) {
		defer setPortable()()
		for b.Loop() {
			ix.Search(q, 20, nil)
		}
	})
}
