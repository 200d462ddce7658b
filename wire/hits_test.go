package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// hitSeeds are hit lists the fast path must accept (the first group) or
// leave to encoding/json (the second).
var hitSeeds = []string{
	`[]`, ` [ ] `, `[{}]`,
	`[{"score":1.5,"relevance":0.25,"salience":-3e-2,"explain":null,"id":"a","content":"x \u003cb\u003e \"q\"","tags":[],"use_count":2}]`,
	`[{"score":null,"explain":{"bm25":1,"coverage":0.5,"match":null,"strength":2,"lent":0.1,"lent_by":"s-1","date_factor":1,"salience_factor":0.9,"lexical_rank":3,"vector_rank":0,"similarity":0.7,"fused":0.01}},{"id":null}]`,

	`null`, `{}`, `[null]`, `[1]`, `[{"score":"1"}]`, `[{"score":1,"score":2}]`, `[{"Score":1}]`,
	`[{"explain":{"lexical_rank":1.5}}]`, `[{"explain":{"bm25":1,"bm25":2}}]`, `[{"explain":{"other":1}}]`,
	`[{"explain":[]}]`, `[{"id":"a"},]`, `[{"id":"a"}`, `[{"id":"a"}] x`, `[{"id":"\ud83d\ude00"}]`,
	`[{"score":1e999}]`, `[{"explain":{"lent_by":1}}]`,
}

// Hits decodes as encoding/json decodes a []Hit: the same hits, or an
// error when encoding/json gives one. Inputs tried: hitSeeds above (nulls,
// escapes, every explain field, duplicate, unknown and differently cased
// keys, wrong types, trailing text, truncation), and the JSON that the
// API writes for generated hits with and without their explanation.
func TestHitsDecodeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for i, s := range hitSeeds {
		if got, want := checkHits(t, []byte(s)), i < 5; got != want {
			t.Errorf("the fast path accepts %s: %v, want %v", s, got, want)
		}
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 8000, time.UTC)
	var hits []Hit
	for i, text := range []string{"plain", "quotes \" and \\ and <html> & \u2028", "tab\tnew\nline é 中", ""} {
		m := &cairn.Memory{ID: "m-" + text, Project: "p", Type: "fix", Title: text, Content: text + text,
			Tags: []string{"a", text}, FileRefs: []string{"x/" + text}, Confidence: 0.123456789,
			Agent: "claude", SessionID: "s", CreatedAt: at, UpdatedAt: at.Add(time.Hour), UseCount: i, Pinned: i%2 == 0}
		if i == 2 {
			m.LastUsedAt, m.VerifiedAt, m.ExpiresAt = at, at, at.Add(24*time.Hour)
		}
		h := cairn.Hit{Memory: m, Score: 1.0 / 3, Relevance: 0.5, Salience: 0.7, Strength: 0.9, Explain: &cairn.HitExplain{Lexical: 2.25, Coverage: 0.8,
			Match: 1.8, Lent: 0.1, LentBy: "s", DateFactor: 1, LexicalRank: 1, VectorRank: 2, Similarity: 0.3, Fused: 0.02}}
		hits = append(hits, FromHit(h, false), FromHit(h, true), FromHitExact(h))
	}
	b, err := json.Marshal(hits)
	if err != nil {
		t.Fatal(err)
	}
	if !checkHits(t, b) {
		t.Fatalf("the fast path refuses the API's own hits: %s", b)
	}
	var got Hits
	if err := json.Unmarshal(b, &got); err != nil || len(got) != len(hits) || got[4].Explain == nil || got[4].Memory.Title != hits[4].Memory.Title {
		t.Fatalf("decoding through encoding/json's Unmarshal: %v, %+v", err, got)
	}
}

// checkHits checks Hits.UnmarshalJSON against encoding/json on b and
// reports whether the fast path accepted b.
func checkHits(t *testing.T, b []byte) bool {
	t.Helper()
	var slow []Hit
	slowErr := json.Unmarshal(b, &slow)
	var got Hits
	err := got.UnmarshalJSON(b)
	if (err == nil) != (slowErr == nil) || err == nil && !reflect.DeepEqual([]Hit(got), slow) {
		t.Fatalf("%q:\nHits          %+v, %v\nencoding/json %+v, %v", b, got, err, slow, slowErr)
	}
	_, ok := decodeHitsFast(b)
	if ok && !utf8.Valid(b) {
		return false
	}
	return ok
}

func FuzzHits(f *testing.F) {
	for _, s := range hitSeeds {
		f.Add(s)
	}
	f.Add(strings.Repeat(`[{"score":1,"id":"x","explain":{"bm25":1}}]`, 2))
	f.Fuzz(func(t *testing.T, s string) {
		checkHits(t, []byte(s))
	})
}
