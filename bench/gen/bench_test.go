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
// CAIRN_BENCH_N sets the number of memories of the 100k benchmarks
// (default 100000); the budgets below are for 100,000. BenchmarkSearch1M
// runs only with CAIRN_BENCH_1M=1, because its corpus takes about 90
// seconds to generate and import:
//
//	CAIRN_BENCH_1M=1 go test -run '^$' -bench Search1M -benchtime 1000x -timeout 30m ./bench/gen
//
// CAIRN_BENCH_KEEP=DIR keeps the search databases in DIR (search-N.db,
// and files-N.txt, the files the Edit benchmarks edit) and reuses them in
// later runs; remove them when the index format changes,
// or the first search rebuilds the index inside the warm-up.
//
// The figures and the budgets they are checked against:
//
//   - BenchmarkSearch100k/resident: one Search (limit 10) by an engine that
//     keeps 64 MiB of postings in memory, as `cairn serve` does, each
//     measured call with a query not asked before (up to 5,000), so that
//     the searches the engine keeps do not answer it. Besides ns/op it
//     reports p50-ms and p99-ms, nearest-rank percentiles of the per-query
//     times. Budget: p50 ≤ 1 ms in process (the whole-process budget of
//     `cairn search` is measured by bench/run.sh).
//   - BenchmarkSearch100k/uncached: the same without the postings cache,
//     reading through SQLite's own page cache only (a process that opens
//     the database for one query). For comparison; no budget of its own.
//   - BenchmarkSearch100k/repeated: the resident engine over 200 queries
//     in turn, each asked before: answered from the searches the engine
//     keeps. A repeated query's figure, for comparison; never the
//     search's.
//   - BenchmarkSearch1M/resident, /uncached and /repeated: the same over
//     1,000,000 memories. Budget: p50 ≤ 2 ms, p99 ≤ 6 ms (resident).
//   - BenchmarkHookContext100k/prompt, /bash, /edit: the block of Claude
//     Code's user-prompt-submit hook and of its pre-tool-use hook before a
//     Bash command and before an Edit, as `cairn serve` builds it, each
//     call with a query (or file) not asked before, so that the searches
//     the engine keeps do not answer it. No budget of its own: it is most
//     of the server's share of the whole-process hook budgets that
//     bench/run.sh measures.
//   - BenchmarkHookContext100k/prompt-shown: /prompt in a session that
//     was shown 500 memories an hour before (on a copy of the database),
//     as a long session's blocks are built.
//   - BenchmarkHookContext100k/prompt-cold and /bash-cold: /prompt and
//     /bash with every cache evicted before each call (latency.BenchCold,
//     untimed), as the seconds between an agent's hooks leave them. No
//     budget of its own: the engine's share of a cold http hook
//     (BenchmarkHTTPHook100k's -cold figures).
//   - BenchmarkHookContext100k/edit-cold: /edit the same way.
//   - BenchmarkHookContext1M/prompt, /bash, /edit, /failure, /edit-cold:
//     the same over 1,000,000 memories (CAIRN_BENCH_1M=1).
//   - BenchmarkRecordUses100k: the writing of the use of the memories
//     contexts showed, as `cairn serve` batches it (10 random memories a
//     context, batches of 1 to 200 contexts), on a copy of the corpus's
//     database; it reports CPU µs and KiB written per use. No budget of
//     its own.
//   - BenchmarkImport100k: one import of the whole corpus into a fresh
//     database file (open, import, close), reported as memories/s.
//     Budget: ≥ 20,000 memories/s.
//
// Each sub-benchmark first runs 200 queries, unmeasured, so that the
// postings the engine keeps and SQLite's page cache are warm; then every
// measured call asks a query (or a file) not asked before, except in
// /repeated, which says so in its name.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/wire"
)

const (
	benchProject = "bench"
	benchQueries = 200
	benchNow     = "2026-11-01T00:00:00Z" // main's default -now
)

// corpusSet is a generated corpus.
type corpusSet struct {
	once  sync.Once
	err   error
	jsonl []byte // the corpus as JSON Lines
}

// dbSet is a corpus imported into a database.
type dbSet struct {
	once sync.Once
	err  error
	path string
}

// bench holds what the benchmarks make once per process, by corpus size.
var bench struct {
	mu      sync.Mutex
	corpora map[int]*corpusSet
	queries struct {
		once sync.Once
		err  error
		list []string // one search text each
	}
	dbs map[int]*dbSet
	dir string // holds the databases; TestMain removes it
}

func TestMain(m *testing.M) {
	code := m.Run()
	bench.mu.Lock()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	bench.mu.Unlock()
	os.Exit(code)
}

// tempDir returns the process's benchmark folder, creating it on first use.
func tempDir() (string, error) {
	bench.mu.Lock()
	defer bench.mu.Unlock()
	if bench.dir == "" {
		d, err := os.MkdirTemp("", "cairn-gobench-")
		if err != nil {
			return "", err
		}
		bench.dir = d
	}
	return bench.dir, nil
}

// benchN is the corpus size of the 100k benchmarks: CAIRN_BENCH_N, or
// 100,000.
func benchN(b *testing.B) int {
	b.Helper()
	s := os.Getenv("CAIRN_BENCH_N")
	if s == "" {
		return 100000
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		b.Fatalf("CAIRN_BENCH_N=%q: want a positive number of memories", s)
	}
	return v
}

// benchTime is benchNow parsed: the end of the corpus's time span and the
// searches' now.
func benchTime(b *testing.B) time.Time {
	b.Helper()
	now, err := time.Parse(time.RFC3339, benchNow)
	if err != nil {
		b.Fatal(err)
	}
	return now
}

// entryFor returns the entry for corpus size n of one of bench's maps,
// adding an empty one on first use.
func entryFor[T any](m *map[int]*T, n int) *T {
	bench.mu.Lock()
	defer bench.mu.Unlock()
	if *m == nil {
		*m = map[int]*T{}
	}
	e := (*m)[n]
	if e == nil {
		e = new(T)
		(*m)[n] = e
	}
	return e
}

// corpus returns the generated corpus of n memories, generating it on
// first use.
func corpus(b *testing.B, n int) []byte {
	b.Helper()
	c := entryFor(&bench.corpora, n)
	now := benchTime(b)
	c.once.Do(func() {
		var buf bytes.Buffer
		w := bufio.NewWriterSize(&buf, 1<<20)
		r := rand.New(rand.NewPCG(1, 0xda3e39cb94b95bdb))
		if c.err = writeCorpus(w, newVocab(1), r, n, benchProject, "bench", now); c.err != nil {
			return
		}
		if c.err = w.Flush(); c.err != nil {
			return
		}
		c.jsonl = buf.Bytes()
	})
	if c.err != nil {
		b.Fatalf("generating the corpus: %v", c.err)
	}
	return c.jsonl
}

// queries returns the benchmark's search texts, generating them on first
// use; they share the corpora's vocabulary.
func queries(b *testing.B) []string {
	b.Helper()
	q := &bench.queries
	q.once.Do(func() {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		r := rand.New(rand.NewPCG(2, 0xda3e39cb94b95bdb))
		if q.err = writeQueries(w, newVocab(1), r, benchQueries, false, benchProject, benchNow, 10); q.err != nil {
			return
		}
		if q.err = w.Flush(); q.err != nil {
			return
		}
		q.list = strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	})
	if q.err != nil {
		b.Fatalf("generating the queries: %v", q.err)
	}
	return q.list
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

// database returns the path of the imported corpus of n memories,
// importing it on first use. With CAIRN_BENCH_KEEP=DIR the database is
// DIR/search-N.db, kept after the run and reused by later runs.
func database(b *testing.B, n int) string {
	b.Helper()
	d := entryFor(&bench.dbs, n)
	d.once.Do(func() {
		dir := os.Getenv("CAIRN_BENCH_KEEP")
		if dir != "" {
			d.path = filepath.Join(dir, fmt.Sprintf("search-%d.db", n))
			if _, err := os.Stat(d.path); err == nil {
				return
			}
		} else {
			if dir, d.err = tempDir(); d.err != nil {
				return
			}
			d.path = filepath.Join(dir, fmt.Sprintf("search-%d.db", n))
		}
		d.err = importCorpus(context.Background(), d.path, n, benchTime(b), corpus(b, n))
		if d.err != nil {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(d.path + suffix)
			}
		}
	})
	if d.err != nil {
		b.Fatalf("importing the corpus: %v", d.err)
	}
	return d.path
}

func BenchmarkSearch100k(b *testing.B) {
	n := benchN(b)
	b.Run("resident", func(b *testing.B) { benchSearchFresh(b, n, 64<<20) })
	b.Run("uncached", func(b *testing.B) { benchSearchFresh(b, n, 0) })
	b.Run("repeated", func(b *testing.B) { benchSearch(b, n, 64<<20) })
}

// BenchmarkSearch1M is BenchmarkSearch100k over 1,000,000 memories. It
// runs only with CAIRN_BENCH_1M=1: generating and importing its corpus
// takes about 90 seconds (CAIRN_BENCH_KEEP keeps the database for later
// runs).
func BenchmarkSearch1M(b *testing.B) {
	if os.Getenv("CAIRN_BENCH_1M") != "1" {
		b.Skip("set CAIRN_BENCH_1M=1 to run it (about 90 s to set up)")
	}
	b.Run("resident", func(b *testing.B) { benchSearchFresh(b, 1000000, 64<<20) })
	b.Run("uncached", func(b *testing.B) { benchSearchFresh(b, 1000000, 0) })
	b.Run("repeated", func(b *testing.B) { benchSearch(b, 1000000, 64<<20) })
}

// openBench opens the database at path with an engine that keeps
// cacheBytes of postings (0: none) and, when now is set, reads that
// clock; the store closes when the benchmark ends.
func openBench(b *testing.B, path string, cacheBytes int64, now time.Time) (*sqlite.Store, *engine.Engine) {
	b.Helper()
	st, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	opts := &engine.Options{CacheBytes: cacheBytes}
	if !now.IsZero() {
		opts.Now = func() time.Time { return now }
	}
	return st, engine.New(st, opts)
}

// benchSearchFresh is a search by an engine that keeps cacheBytes of
// postings (0: none), with a query not asked before at every measured
// call (up to 5,000 iterations), so that the searches the engine keeps do
// not answer it: the ranking's whole cost. It warms up with 200 other
// queries.
func benchSearchFresh(b *testing.B, n int, cacheBytes int64) {
	now := benchTime(b)
	ctx := context.Background()
	_, eng := openBench(b, database(b, n), cacheBytes, time.Time{})
	pool := distinctQueries(b, 5000+benchQueries)
	search := func(q string) {
		if _, err := eng.Search(ctx, cairn.Query{Project: benchProject, Text: q, Limit: 10, Now: now}); err != nil {
			b.Fatalf("search %q: %v", q, err)
		}
	}
	latency.BenchFresh(b, pool[:benchQueries], pool[benchQueries:], search)
}

// benchSearch is a search by an engine that keeps cacheBytes of postings,
// over the 200 queries in turn, each asked during the warm-up: with a
// cache, the engine answers from the searches it keeps (a repeated
// query's figure, never the search's).
func benchSearch(b *testing.B, n int, cacheBytes int64) {
	now := benchTime(b)
	queries := queries(b)
	ctx := context.Background()
	_, eng := openBench(b, database(b, n), cacheBytes, time.Time{})
	search := func(q string) {
		if _, err := eng.Search(ctx, cairn.Query{Project: benchProject, Text: q, Limit: 10, Now: now}); err != nil {
			b.Fatalf("search %q: %v", q, err)
		}
	}
	latency.Bench(b, queries, search)
}

func BenchmarkImport100k(b *testing.B) {
	n, now := benchN(b), benchTime(b)
	jsonl := corpus(b, n)
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

// BenchmarkHookContext100k is the block of each per-call hook of Claude
// Code as `cairn serve` builds it (resident postings cache), over queries
// never asked before: /context is `cairn context --prompt` (every tier,
// the configuration's defaults), /prompt is `user-prompt-submit` (the
// relevant and parallel-work tiers, the default budget; /prompt-shown
// the same in a session already shown 500 memories), /bash is
// `pre-tool-use` for a Bash command (the known failures of the command:
// the fixes tagged with it and the memories that name it, 300 tokens),
// /failure `post-tool-use-failure` (the memory of the same error), /edit
// `pre-tool-use` before an Edit of a file the memories refer to
// (the relevant tier narrowed to the types worth reading before an
// action, 300 tokens: its path is the search text, and memories whose
// file references name it, its folders or a glob matching it are
// candidates too). The use of the memories shown is not recorded (a
// server records it after answering).
func BenchmarkHookContext100k(b *testing.B) {
	n := benchN(b)
	prompt := cairn.ContextRequest{Profile: cairn.ProfilePrompt}
	edit := cairn.ContextRequest{Profile: cairn.ProfileEdit}
	b.Run("context", func(b *testing.B) { benchHook(b, n, cairn.ContextRequest{}, nil) })
	b.Run("prompt", func(b *testing.B) { benchHook(b, n, prompt, nil) })
	b.Run("prompt-shown", func(b *testing.B) {
		benchHookIn(b, shownDatabase(b, n, "bench-shown", 500), "bench-shown", prompt, nil)
	})
	b.Run("bash", func(b *testing.B) { benchPoint(b, n, cairn.ProfileCommand) })
	b.Run("edit", func(b *testing.B) { benchHook(b, n, edit, corpusFiles(b, n)) })
	b.Run("failure", func(b *testing.B) { benchPoint(b, n, cairn.ProfileFailure) })
	b.Run("prompt-cold", func(b *testing.B) {
		benchHookWith(b, latency.BenchCold, database(b, n), "bench-hooks", prompt, nil)
	})
	b.Run("bash-cold", func(b *testing.B) { benchPointWith(b, latency.BenchCold, n, cairn.ProfileCommand) })
	b.Run("edit-cold", func(b *testing.B) {
		benchHookWith(b, latency.BenchCold, database(b, n), "bench-hooks", edit, corpusFiles(b, n))
	})
}

// BenchmarkHookContext1M is BenchmarkHookContext100k over 1,000,000
// memories (the database of BenchmarkSearch1M). It runs only with
// CAIRN_BENCH_1M=1, as BenchmarkSearch1M does:
//
//	CAIRN_BENCH_1M=1 CAIRN_BENCH_KEEP=DIR go test -run '^$' -bench HookContext1M -benchtime 1000x -timeout 30m ./bench/gen
func BenchmarkHookContext1M(b *testing.B) {
	if os.Getenv("CAIRN_BENCH_1M") != "1" {
		b.Skip("set CAIRN_BENCH_1M=1 to run it (about 90 s to set up)")
	}
	const n = 1000000
	prompt := cairn.ContextRequest{Profile: cairn.ProfilePrompt}
	edit := cairn.ContextRequest{Profile: cairn.ProfileEdit}
	b.Run("prompt", func(b *testing.B) { benchHook(b, n, prompt, nil) })
	b.Run("bash", func(b *testing.B) { benchPoint(b, n, cairn.ProfileCommand) })
	b.Run("edit", func(b *testing.B) { benchHook(b, n, edit, corpusFiles(b, n)) })
	b.Run("failure", func(b *testing.B) { benchPoint(b, n, cairn.ProfileFailure) })
	b.Run("edit-cold", func(b *testing.B) {
		benchHookWith(b, latency.BenchCold, database(b, n), "bench-hooks", edit, corpusFiles(b, n))
	})
}

// benchPoint is the hook's answer at the point of a command, in a
// session, leaving out what the session was shown: before a Bash command
// (the command profile: what is known about the failures of the
// command), or after one failed (the failure profile: the memory of the
// same error; the output is an error line of the query's words, which no
// fix carries, so that the error search that follows is measured too).
func benchPoint(b *testing.B, n int, profile string) {
	benchPointWith(b, latency.BenchFresh, n, profile)
}

// benchFunc times calls: latency.BenchFresh, or latency.BenchCold for
// calls after the caches were evicted.
type benchFunc func(b *testing.B, warm, queries []string, call func(q string))

// benchPointWith is benchPoint timed by measure.
func benchPointWith(b *testing.B, measure benchFunc, n int, profile string) {
	now := benchTime(b)
	ctx := context.Background()
	_, eng := openBench(b, database(b, n), 64<<20, time.Time{})
	pool := distinctQueries(b, 5000+benchQueries)
	answer := func(q string) {
		req := cairn.LookupRequest{Project: benchProject, Profile: profile, Command: q, Now: now,
			Session: "bench-hooks", ShownTimes: 1}
		if profile == cairn.ProfileFailure {
			req.Subject, req.Command, req.ShownTimes = "Exit code 2\npanic: "+q+" failed in the worker", "", 2
		}
		if _, err := recall.Lookup(ctx, eng, req); err != nil {
			b.Fatalf("%s %q: %v", profile, q, err)
		}
	}
	measure(b, pool[:benchQueries], pool[benchQueries:], answer)
}

// corpusFiles returns the distinct file paths (not globs) the corpus's
// memories refer to, in the order first referred to. With
// CAIRN_BENCH_KEEP=DIR they are kept in DIR (files-N.txt, one a line), so
// that a run over a kept database need not generate the corpus (about
// 20 s at 1,000,000 memories, far longer under valgrind).
func corpusFiles(b *testing.B, n int) []string {
	b.Helper()
	var keep string
	if dir := os.Getenv("CAIRN_BENCH_KEEP"); dir != "" {
		keep = filepath.Join(dir, fmt.Sprintf("files-%d.txt", n))
		if data, err := os.ReadFile(keep); err == nil {
			return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		}
	}
	out := corpusFilesOf(b, n)
	if keep != "" {
		if err := os.WriteFile(keep, []byte(strings.Join(out, "\n")+"\n"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// corpusFilesOf is corpusFiles, read from the generated corpus.
func corpusFilesOf(b *testing.B, n int) []string {
	b.Helper()
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(corpus(b, n)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			FileRefs []string `json:"file_refs"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			b.Fatal(err)
		}
		for _, f := range m.FileRefs {
			if !seen[f] && !strings.ContainsAny(f, "*?[") {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func benchHook(b *testing.B, n int, req cairn.ContextRequest, files []string) {
	benchHookIn(b, database(b, n), "bench-hooks", req, files)
}

// shownDatabase returns a copy of the imported corpus of n memories in
// which session was shown shown memories an hour before the benchmark's
// now (the newest ones, in one use): the database of a session that has
// run a while. The copy is removed when the benchmark ends.
func shownDatabase(b *testing.B, n int, session string, shown int) string {
	b.Helper()
	src, dir := database(b, n), b.TempDir()
	path := filepath.Join(dir, "shown.db")
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(src + suffix)
		if suffix != "" && os.IsNotExist(err) {
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	at := benchTime(b).Add(-time.Hour)
	st, eng := openBench(b, path, 0, at)
	ms, _, err := eng.FindMemories(ctx, cairn.MemoryFilter{Project: benchProject, Sort: cairn.SortCreatedDesc, Limit: shown, SkipTotal: true})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	if err := eng.RecordUse(ctx, ids, session); err != nil {
		b.Fatal(err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchHookIn is benchHook over the database at path, each block of
// session.
func benchHookIn(b *testing.B, path, session string, req cairn.ContextRequest, files []string) {
	benchHookWith(b, latency.BenchFresh, path, session, req, files)
}

// benchHookWith is benchHookIn timed by measure.
func benchHookWith(b *testing.B, measure benchFunc, path, session string, req cairn.ContextRequest, files []string) {
	now := benchTime(b)
	ctx := context.Background()
	_, eng := openBench(b, path, 64<<20, time.Time{})
	// A hook's command is seldom asked twice: every measured call is a
	// query not asked before (up to 5,000 iterations), so that the
	// searches kept by the engine do not answer it.
	pool := distinctQueries(b, 5000+benchQueries)
	if files != nil {
		pool = files
		if len(pool) < 2*benchQueries {
			b.Fatalf("the corpus refers to %d files, want at least %d", len(pool), 2*benchQueries)
		}
	}
	build := func(q string) {
		call := cairn.ContextCall{ContextRequest: req, Now: now}
		call.Project, call.Prompt, call.Session = benchProject, q, session
		if files != nil {
			call.Prompt, call.Files = "", []string{q}
		}
		if _, err := recall.AnswerCall(ctx, eng, nil, call, nil); err != nil {
			b.Fatalf("context %q: %v", q, err)
		}
	}
	measure(b, pool[:benchQueries], pool[benchQueries:], build)
}

// distinctQueries returns n generated search texts (seed 3, the corpora's
// vocabulary), none twice.
func distinctQueries(b *testing.B, n int) []string {
	b.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	r := rand.New(rand.NewPCG(3, 0x9e3779b97f4a7c15))
	if err := writeQueries(w, newVocab(1), r, 2*n, false, benchProject, benchNow, 10); err != nil {
		b.Fatalf("generating the queries: %v", err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, q := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		if !seen[q] && len(out) < n {
			seen[q] = true
			out = append(out, q)
		}
	}
	if len(out) < n {
		b.Fatalf("generated %d distinct queries, want %d", len(out), n)
	}
	return out
}
