package postgres_test

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/sqlite"
)

var parityNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// corpus returns n deterministic memories over a few projects, with
// identifiers, paths and common words drawn with skewed frequencies (so
// that idf, coverage and recency all matter to the ranking), some of them
// global, some keyed, some sharing content (reinforced on import).
func corpus(n int) []*cairn.Memory {
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
			CreatedAt: parityNow.Add(-time.Duration(r.IntN(90*24)) * time.Hour),
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

func records(ms []*cairn.Memory) iter.Seq[cairn.ImportRecord] {
	return func(yield func(cairn.ImportRecord) bool) {
		for i, m := range ms {
			c := *m
			if !yield(cairn.ImportRecord{Line: i + 1, Memory: &c}) {
				return
			}
		}
	}
}

// parityQueries are searches of every kind: common and rare words,
// identifiers and path parts, filters, and words no memory has.
func parityQueries() []cairn.Query {
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
			cairn.Query{Project: p, Text: "worker queue", After: parityNow.Add(-30 * 24 * time.Hour)})
	}
	return qs
}

type hitKey struct {
	ID    string
	Score float64
}

func searchAll(t *testing.T, e *engine.Engine, qs []cairn.Query) [][]hitKey {
	t.Helper()
	out := make([][]hitKey, len(qs))
	for i, q := range qs {
		hits, err := e.Search(t.Context(), q)
		if err != nil {
			t.Fatalf("Search(%+v): %v", q, err)
		}
		for _, h := range hits {
			out[i] = append(out[i], hitKey{h.Memory.ID, h.Score})
		}
	}
	return out
}

// TestSearchIsTheSameOnBothBackends imports one corpus into SQLite and
// into PostgreSQL and runs the same searches on both: the same hits, in
// the same order, with the same scores (ranking is the engine's; the
// backends only store and fetch). Then it edits, deletes and re-searches,
// so that index maintenance is compared too.
func TestSearchIsTheSameOnBothBackends(t *testing.T) {
	url := testURL(t)
	t.Parallel()
	ctx := t.Context()
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := postgres.Open(ctx, url, &postgres.Options{Schema: newSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	opts := &engine.Options{Now: func() time.Time { return parityNow }}
	engines := []*engine.Engine{engine.New(lite, opts), engine.New(pg, opts)}
	ms := corpus(3000)
	for _, e := range engines {
		rep, err := e.Import(ctx, records(ms), cairn.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Created < 2500 {
			t.Fatalf("import created only %d memories: %+v", rep.Created, rep)
		}
	}
	qs := parityQueries()
	compare := func(stage string) {
		t.Helper()
		a, b := searchAll(t, engines[0], qs), searchAll(t, engines[1], qs)
		found := 0
		for i := range qs {
			found += len(a[i])
			if len(a[i]) != len(b[i]) {
				t.Errorf("%s: %q in %s: %d hits on SQLite, %d on PostgreSQL", stage, qs[i].Text, qs[i].Project, len(a[i]), len(b[i]))
				continue
			}
			for j := range a[i] {
				if a[i][j].ID != b[i][j].ID || math.Abs(a[i][j].Score-b[i][j].Score) > 1e-9 {
					t.Errorf("%s: %q in %s, hit %d: %v on SQLite, %v on PostgreSQL", stage, qs[i].Text, qs[i].Project, j+1, a[i][j], b[i][j])
					break
				}
			}
		}
		if found < len(qs)*3 {
			t.Errorf("%s: only %d hits in all: the queries compare too little", stage, found)
		}
	}
	compare("after import")

	// The same edits and deletes on both, then compare again.
	for _, e := range engines {
		for i := 0; i < 200; i += 7 {
			id := ms[i].ID
			text := "rewritten: retry timeout handler for ParseConfig " + fmt.Sprint(i)
			if _, err := e.UpdateMemory(ctx, id, cairn.MemoryUpdate{Content: &text}); err != nil {
				t.Fatalf("update %s: %v", id, err)
			}
		}
		for i := 1; i < 300; i += 11 {
			if err := e.DeleteMemory(ctx, ms[i].ID); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
				t.Fatalf("delete %s: %v", ms[i].ID, err)
			}
		}
	}
	compare("after edits and deletes")
}
