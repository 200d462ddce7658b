package postgres_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/embed"
	"github.com/cairn-dev/cairn/embed/embedtest"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/internal/corpus"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestVectorSearchIsTheSameOnBothBackends embeds one corpus on SQLite
// and on PostgreSQL through the same test endpoint and runs the same
// searches in the vector and hybrid modes: the same hits, in the same
// order, with the same scores, and every memory embedded on both.
func TestVectorSearchIsTheSameOnBothBackends(t *testing.T) {
	url := testURL(t)
	t.Parallel()
	ctx := t.Context()
	srv := embedtest.NewServer(t, map[string]string{
		"deploy": "ship", "release": "ship", "build": "ship", "commit": "ship",
		"retry": "failure", "timeout": "failure", "alert": "failure", "lock": "failure",
	})
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "v.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := postgres.Open(ctx, url, &postgres.Options{Schema: newSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	var engines []*engine.Engine
	for _, st := range []cairn.Store{lite, pg} {
		client, err := embed.New(embed.Config{BaseURL: srv.URL(), Model: "test-embed", BatchSize: 64, Retries: -1}, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		engines = append(engines, engine.New(st, &engine.Options{Now: func() time.Time { return corpus.Now }, Embedder: client}))
	}
	ms := corpus.Memories(600)
	for _, e := range engines {
		if _, err := e.Import(ctx, corpus.Records(ms), cairn.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		rep, err := e.FillVectors(ctx, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Embedded == 0 || rep.Before != 0 {
			t.Fatalf("fill: %+v", rep)
		}
		if n, _, ok, err := e.VectorCoverage(ctx, "alpha"); err != nil || !ok || n.Embedded != n.Memories || n.Memories == 0 {
			t.Fatalf("coverage of alpha: %+v %v %v", n, ok, err)
		}
	}
	for _, mode := range []string{cairn.ModeVector, cairn.ModeHybrid} {
		qs := corpus.Queries()
		for i := range qs {
			qs[i].Mode = mode
		}
		for _, e := range engines {
			if _, r, err := e.SearchRetrieval(ctx, qs[0]); err != nil || r.Used != mode || r.Fallback != "" {
				t.Fatalf("%s search %q: ranked %+v, %v", mode, qs[0].Text, r, err)
			}
		}
		a, err := corpus.Search(ctx, engines[0], qs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := corpus.Search(ctx, engines[1], qs)
		if err != nil {
			t.Fatal(err)
		}
		if d := corpus.Diff(qs, a, b); d != "" {
			t.Errorf("%s mode: SQLite, then PostgreSQL:\n%s", mode, d)
		}
		if n := corpus.Count(a); n < len(qs)*3 {
			t.Errorf("%s mode: only %d hits in all: the queries compare too little", mode, n)
		}
	}
}
