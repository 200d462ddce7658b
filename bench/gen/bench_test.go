// Go benchmarks for cairn's in-process performance budgets, over the same
// synthetic corpus that bench/run.sh measures with the cairn binary: 100,000
// memories in project "bench" (vocabulary seed 1, corpus seed 1, ending
// 2026-11-01T00:00:00Z) and 200 queries (seed 2).
//
// They are benchmarks only, so a plain `go test ./...` runs none of them and
// builds no corpus. Run them with
//
//	go test -run '^$' -bench . -benchtime 2000x ./bench/gen
//
// or one at a time (an import of 100,000 memories takes seconds, so give
// it few iterations):
//
//	go test -run '^$' -bench Search -benchtime 2000x ./bench/gen
//	go test -run '^$' -bench Import -benchtime 2x ./bench/gen
//
// CAIRN_BENCH_N sets the number of memories (default 100000); the budgets
// below are for 100,000.
//
// The figures and the budgets they are checked against:
//
//   - BenchmarkSearch100k/resident: one Search (limit 10) by an engine that
//     keeps 64 MiB of postings in memory, as `cairn serve` does. Besides
//     ns/op it reports p50-ms and p99-ms, nearest-rank percentiles of the
//     per-query times. Budget: p50 ≤ 2 ms in process (the whole-process
//     budget of `cairn search`, median ≤ 15 ms and p99 ≤ 40 ms, is measured
//     by bench/run.sh).
//   - BenchmarkSearch100k/uncached: the same without the postings cache,
//     reading through SQLite's own page cache only (a process that opens
//     the database for one query). For comparison; no budget of its own.
//   - BenchmarkImport100k: one import of the whole corpus into a fresh
//     database file (open, import, close), reported as memories/s.
//     Budget: ≥ 20,000 memories/s.
//
// Each search sub-benchmark first runs every query once, unmeasured, so
// the figures are warm-cache ones; the queries then cycle, one per
// iteration.
package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/bench/latency"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/wire"
)

const (
	benchProject = "bench"
	benchQueries = 200
	benchNow     = "2026-11-01T00:00:00Z" // main's default -now
)

// benchCorpus is the generated corpus and queries, made once per process.
var benchCorpus struct {
	once    sync.Once
	err     error
	n       int
	now     time.Time
	jsonl   []byte   // the corpus as JSON Lines
	queries []string // one search text each
}

// benchDB is the corpus imported into a database, made once per process.
var benchDB struct {
	once sync.Once
	err  error
	path string
}

// benchDir holds the databases; TestMain removes it.
var benchDir struct {
	mu   sync.Mutex
	path string
}

func TestMain(m *testing.M) {
	code := m.Run()
	benchDir.mu.Lock()
	if benchDir.path != "" {
		os.RemoveAll(benchDir.path)
	}
	benchDir.mu.Unlock()
	os.Exit(code)
}

// tempDir returns the process's benchmark folder, creating it on first use.
func tempDir() (string, error) {
	benchDir.mu.Lock()
	defer benchDir.mu.Unlock()
	if benchDir.path == "" {
		d, err := os.MkdirTemp("", "cairn-gobench-")
		if err != nil {
			return "", err
		}
		benchDir.path = d
	}
	return benchDir.path, nil
}

// corpus returns the generated corpus, generating it on first use.
func corpus(b *testing.B) (n int, now time.Time, jsonl []byte, queries []string) {
	b.Helper()
	c := &benchCorpus
	c.once.Do(func() {
		c.n = 100000
		if s := os.Getenv("CAIRN_BENCH_N"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 1 {
				c.err = fmt.Errorf("CAIRN_BENCH_N=%q: want a positive number of memories", s)
				return
			}
			c.n = v
		}
		if c.now, c.err = time.Parse(time.RFC3339, benchNow); c.err != nil {
			return
		}
		v := newVocab(1)

		var buf bytes.Buffer
		w := bufio.NewWriterSize(&buf, 1<<20)
		r := rand.New(rand.NewPCG(1, 0xda3e39cb94b95bdb))
		if c.err = writeCorpus(w, v, r, c.n, benchProject, c.now); c.err != nil {
			return
		}
		if c.err = w.Flush(); c.err != nil {
			return
		}
		c.jsonl = buf.Bytes()

		var qbuf bytes.Buffer
		w = bufio.NewWriter(&qbuf)
		r = rand.New(rand.NewPCG(2, 0xda3e39cb94b95bdb))
		if c.err = writeQueries(w, v, r, benchQueries, false, benchProject, benchNow, 10); c.err != nil {
			return
		}
		if c.err = w.Flush(); c.err != nil {
			return
		}
		c.queries = strings.Split(strings.TrimRight(qbuf.String(), "\n"), "\n")
	})
	if c.err != nil {
		b.Fatalf("generating the corpus: %v", c.err)
	}
	return c.n, c.now, c.jsonl, c.queries
}

// importCorpus opens a new database at path, imports the corpus into it
// and closes it.
func importCorpus(ctx context.Context, path string, n int, now time.Time, jsonl []byte) error {
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		return err
	}
	eng := engine.New(st, &engine.Options{Now: func() time.Time { return now }})
	rep, err := eng.Import(ctx, wire.Read(bytes.NewReader(jsonl)), cairn.ImportOptions{Project: benchProject})
	if err == nil && (rep.Created != n || len(rep.Skipped) > 0) {
		err = fmt.Errorf("import read %d records: %d created, %d updated, %d reinforced, %d unchanged, %d skipped; want %d created",
			rep.Read, rep.Created, rep.Updated, rep.Reinforced, rep.Unchanged, len(rep.Skipped), n)
	}
	if err == nil {
		err = st.Checkpoint(ctx)
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

// database returns the path of the imported corpus, importing it on first
// use.
func database(b *testing.B) string {
	b.Helper()
	n, now, jsonl, _ := corpus(b)
	d := &benchDB
	d.once.Do(func() {
		dir, err := tempDir()
		if err != nil {
			d.err = err
			return
		}
		d.path = filepath.Join(dir, "search.db")
		d.err = importCorpus(context.Background(), d.path, n, now, jsonl)
	})
	if d.err != nil {
		b.Fatalf("importing the corpus: %v", d.err)
	}
	return d.path
}

func BenchmarkSearch100k(b *testing.B) {
	b.Run("resident", func(b *testing.B) { benchSearch(b, 64<<20) })
	b.Run("uncached", func(b *testing.B) { benchSearch(b, 0) })
}

func benchSearch(b *testing.B, cacheBytes int64) {
	_, now, _, queries := corpus(b)
	path := database(b)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	eng := engine.New(st, &engine.Options{CacheBytes: cacheBytes})
	search := func(q string) {
		if _, err := eng.Search(ctx, cairn.Query{Project: benchProject, Text: q, Limit: 10, Now: now}); err != nil {
			b.Fatalf("search %q: %v", q, err)
		}
	}
	latency.Bench(b, queries, search)
}

func BenchmarkImport100k(b *testing.B) {
	n, now, jsonl, _ := corpus(b)
	dir, err := tempDir()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		path := filepath.Join(dir, fmt.Sprintf("import-%d.db", i))
		if err := importCorpus(ctx, path, n, now, jsonl); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "memories/s")
}
