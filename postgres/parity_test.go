package postgres_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/internal/corpus"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestSearchIsTheSameOnBothBackends imports one corpus into SQLite and
// into PostgreSQL and runs the same searches on both: the same hits, in
// the same order, with the same scores (ranking is the engine's; the
// backends only store and fetch). Then it edits and deletes the same
// memories on both and searches again, so that index maintenance is
// compared too.
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
	opts := &engine.Options{Now: func() time.Time { return corpus.Now }}
	engines := []*engine.Engine{engine.New(lite, opts), engine.New(pg, opts)}
	ms := corpus.Memories(3000)
	for _, e := range engines {
		rep, err := e.Import(ctx, corpus.Records(ms), cairn.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Created < 2500 {
			t.Fatalf("import created only %d memories: %+v", rep.Created, rep)
		}
	}
	qs := corpus.Queries()
	compare := func(stage string) {
		t.Helper()
		a, err := corpus.Search(ctx, engines[0], qs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := corpus.Search(ctx, engines[1], qs)
		if err != nil {
			t.Fatal(err)
		}
		if d := corpus.Diff(qs, a, b); d != "" {
			t.Errorf("%s: SQLite, then PostgreSQL:\n%s", stage, d)
		}
		if n := corpus.Count(a); n < len(qs)*3 {
			t.Errorf("%s: only %d hits in all: the queries compare too little", stage, n)
		}
	}
	compare("after import")

	for _, e := range engines {
		for i := 0; i < 200; i += 7 {
			text := "rewritten: retry timeout handler for ParseConfig " + fmt.Sprint(i)
			if _, err := e.UpdateMemory(ctx, ms[i].ID, cairn.MemoryUpdate{Content: &text}); err != nil {
				t.Fatalf("update %s: %v", ms[i].ID, err)
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
