// Package corpus makes a deterministic set of memories and queries for
// tests that compare backends: the same data must give the same search
// results whatever stores it.
package corpus

import (
	"context"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// Now is the clock the corpus is made against.
var Now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// Memories returns n deterministic memories over a few projects, with
// identifiers, paths and common words drawn with skewed frequencies (so
// that idf, coverage and recency all matter to the ranking), some of them
// global, some keyed, some sharing content (reinforced on import).
func Memories(n int) []*cairn.Memory {
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields(`deploy build test cache index query retry timeout config migrate schema token
		worker queue lock release branch commit review lint format parser handler router client server
		session context memory search rank score import export backup restore metric trace log alert`)
	idents := []string{"ParseConfig", "http_client", "pkg/store/tx.go", "RetryPolicy", "AWS_PROFILE",
		"cmd/cairn/main.go", "useCount", "maxConns", "pg_advisory_lock", "ErrNotFound", "v1.2.3"}
	types := []string{"note", "decision", "pattern", "issue", "runbook"}
	projects := []string{"alpha", "beta", "gamma", "delta"}
	pick := func(xs []string) string { return xs[int(math.Pow(r.Float64(), 2)*float64(len(xs)))] }
	out := make([]*cairn.Memory, 0, n)
	for i := 0; i < n; i++ {
		var b strings.Builder
		for j := 0; j < 8+r.IntN(20); j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			if r.IntN(6) == 0 {
				b.WriteString(pick(idents))
			} else {
				b.WriteString(pick(words))
			}
		}
		m := &cairn.Memory{
			ID:        fmt.Sprintf("mem-%06d", i),
			Project:   projects[i%len(projects)],
			Type:      types[r.IntN(len(types))],
			Content:   b.String() + ".",
			CreatedAt: Now.Add(-time.Duration(r.IntN(90*24)) * time.Hour),
		}
		if r.IntN(20) == 0 {
			m.Scope = cairn.ScopeGlobal
		}
		if r.IntN(15) == 0 {
			m.Key = fmt.Sprintf("k%d", r.IntN(10))
		}
		out = append(out, m)
	}
	return out
}

// Records yields copies of ms as import records.
func Records(ms []*cairn.Memory) iter.Seq[cairn.ImportRecord] {
	return func(yield func(cairn.ImportRecord) bool) {
		for i, m := range ms {
			c := *m
			if !yield(cairn.ImportRecord{Line: i + 1, Memory: &c}) {
				return
			}
		}
	}
}

// Queries are searches of every kind: common and rare words,
// identifiers and path parts, filters, and words no memory has.
func Queries() []cairn.Query {
	var qs []cairn.Query
	for _, p := range []string{"alpha", "beta", "gamma", "delta"} {
		for _, text := range []string{"deploy", "retry timeout", "ParseConfig", "store tx", "http client retry",
			"cache index query rank", "AWS_PROFILE deploy staging", "nothingmatchesthis", "lock", "v1.2.3 release"} {
			qs = append(qs, cairn.Query{Project: p, Text: text, Limit: 20})
		}
		qs = append(qs,
			cairn.Query{Project: p, Text: "deploy build", Types: []string{"decision", "runbook"}},
			cairn.Query{Project: p, Text: "search score", NoGlobal: true},
			cairn.Query{Project: p, Text: "migrate schema", NoFeedback: true},
			cairn.Query{Project: p, Text: "worker queue", After: Now.Add(-30 * 24 * time.Hour)})
	}
	return qs
}

// Hit is a search hit as compared across backends.
type Hit struct {
	ID    string
	Score float64
}

// Search runs every query on e and returns the hits of each.
func Search(ctx context.Context, e *engine.Engine, qs []cairn.Query) ([][]Hit, error) {
	out := make([][]Hit, len(qs))
	for i, q := range qs {
		hits, err := e.Search(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("search %q in %s: %w", q.Text, q.Project, err)
		}
		for _, h := range hits {
			out[i] = append(out[i], Hit{h.Memory.ID, h.Score})
		}
	}
	return out, nil
}

// Diff describes how two result sets of qs differ ("" when they do not):
// the same hits in the same order with scores within 1e-9.
func Diff(qs []cairn.Query, a, b [][]Hit) string {
	var out []string
	for i := range qs {
		if len(a[i]) != len(b[i]) {
			out = append(out, fmt.Sprintf("%q in %s: %d hits, then %d", qs[i].Text, qs[i].Project, len(a[i]), len(b[i])))
			continue
		}
		for j := range a[i] {
			if a[i][j].ID != b[i][j].ID || math.Abs(a[i][j].Score-b[i][j].Score) > 1e-9 {
				out = append(out, fmt.Sprintf("%q in %s, hit %d: %v, then %v", qs[i].Text, qs[i].Project, j+1, a[i][j], b[i][j]))
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// Count is the number of hits of a result set.
func Count(rs [][]Hit) int {
	n := 0
	for _, r := range rs {
		n += len(r)
	}
	return n
}
