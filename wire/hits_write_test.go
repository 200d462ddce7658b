package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"testing"
	"time"
)

// encodeStd is what AppendHits must write: encoding/json's Encoder, as
// the HTTP API wrote hits before.
func encodeStd(t testing.TB, hits []Hit) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	err := json.NewEncoder(&buf).Encode(hits)
	return buf.Bytes(), err
}

// randomHits makes hits with what a store can hold and what it seldom
// does: empty and absent fields, HTML characters, control characters,
// U+2028, invalid UTF-8, zero and far times, tiny, huge and negative
// numbers, a hit without its memory.
func randomHits(r *rand.Rand, n int) []Hit {
	strs := []string{"", "plain", "<b>&amp;</b>", "tab\tnew\nline\r\x00\x1f", "quote \" back \\ slash",
		"café – 日本語 🎉", "line\u2028sep\u2029", "bad \xff\xfe utf8", "\x7f del", "ok."}
	floats := []float64{0, 1, -1, 0.5, 1.0573, 0.9612, 1e-7, -2.5e-9, 1e21, 123456789012, 1e20, math.Copysign(0, -1), 0.0001, 3.14159265358979}
	times := []time.Time{{}, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 7, 9, 54, 12, 741_345_678, time.UTC),
		time.Date(1999, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := func() string { return strs[r.Intn(len(strs))] }
	f := func() float64 { return floats[r.Intn(len(floats))] }
	tm := func() Time { return Time(times[r.Intn(len(times))]) }
	list := func() List {
		switch r.Intn(3) {
		case 0:
			return nil
		case 1:
			return List{}
		}
		l := List{}
		for range 1 + r.Intn(3) {
			l = append(l, s())
		}
		return l
	}
	hits := make([]Hit, n)
	for i := range hits {
		h := Hit{Score: f(), Relevance: f(), Salience: f()}
		if r.Intn(3) == 0 {
			h.Explain = &HitExplain{BM25: f(), Coverage: f(), Match: f(), Strength: f(), DateFactor: f(), SalienceFactor: f()}
			if r.Intn(2) == 0 {
				h.Explain.Lent, h.Explain.LentBy = f(), s()
				h.Explain.LexicalRank, h.Explain.VectorRank = r.Intn(3), r.Intn(3)
				h.Explain.Similarity, h.Explain.Fused = f(), f()
			}
		}
		if r.Intn(10) > 0 {
			h.Memory = &Memory{ID: s(), Project: s(), Scope: s(), Type: s(), Key: s(), Title: s(), Content: s(),
				Tags: list(), FileRefs: list(), Confidence: f(), Source: s(),
				CreatedByAgent: Text(s()), CreatedByHat: Text(s()), CreatedByTaskID: Text(s()), CreatedBySessionID: Text(s()),
				CreatedAt: tm(), UpdatedAt: tm(), LastUsedAt: tm(), VerifiedAt: tm(), ExpiresAt: tm(),
				UseCount: r.Intn(5) - 1, Pinned: r.Intn(2) == 0, SupersededBy: s(), Flag: s()}
		}
		hits[i] = h
	}
	return hits
}

func TestAppendHitsWritesWhatEncodingJSONWrites(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 3000 {
		hits := randomHits(r, r.Intn(4))
		want, err := encodeStd(t, hits)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := AppendHits([]byte("prefix"), hits)
		if !ok || string(got) != "prefix"+string(want) {
			t.Fatalf("case %d: AppendHits (ok %v)\n%s\nencoding/json\n%s", i, ok, got, want)
		}
	}
	// No hits: an empty array, as for a search that finds nothing.
	if got, _ := AppendHits(nil, []Hit{}); string(got) != "[]\n" {
		t.Fatalf("no hits: %q", got)
	}
}

// What encoding/json refuses, AppendHits leaves to it: the caller's
// answer is then encoding/json's error, not a document it would not
// write.
func TestAppendHitsRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for field := range 3 {
			h := randomHits(rand.New(rand.NewSource(2)), 2)
			switch field {
			case 0:
				h[1].Score = bad
			case 1:
				h[1].Explain = &HitExplain{Coverage: bad}
			case 2:
				h[1].Memory = &Memory{Confidence: bad}
			}
			if _, err := encodeStd(t, h); err == nil {
				t.Fatalf("encoding/json wrote %v", bad)
			}
			if got, ok := AppendHits([]byte("x"), h); ok || string(got) != "x" {
				t.Fatalf("field %d = %v: AppendHits gave %q, %v", field, bad, got, ok)
			}
		}
	}
}

func FuzzAppendHits(f *testing.F) {
	f.Add(int64(1), uint8(3))
	f.Fuzz(func(t *testing.T, seed int64, n uint8) {
		hits := randomHits(rand.New(rand.NewSource(seed)), int(n%8))
		want, err := encodeStd(t, hits)
		got, ok := AppendHits(nil, hits)
		if ok != (err == nil) || (ok && !bytes.Equal(got, want)) {
			t.Fatalf("AppendHits %v\n%s\nencoding/json %v\n%s", ok, got, err, want)
		}
	})
}

func BenchmarkAppendHits(b *testing.B) {
	hits := randomHits(rand.New(rand.NewSource(3)), 10)
	b.Run("AppendHits", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = AppendHits(buf[:0], hits)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			json.NewEncoder(&buf).Encode(hits)
		}
	})
}
