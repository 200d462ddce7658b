// Command team measures cairn's budgets for a team's shared memory: one
// database of many projects, on SQLite and on PostgreSQL in the same run.
//
//	go run ./bench/team -corpus corpus.jsonl -queries queries.txt \
//	    -sqlite /tmp/team.db -postgres 'postgres://…' -projects 100
//
// For each backend it imports the corpus (JSON Lines whose records name
// their projects, as bench/postgres.sh writes it) into an empty database
// through the engine, in one import as `cairn import` does, and reports
// memories/s (open, import and close); then it runs the queries through
// the engine, each in one project (query i in project 7i mod -projects),
// with the postings cache `cairn serve` keeps ("resident") and without it
// ("uncached", as a process opened for one query), and reports the p50
// and p99 of the single searches (nearest rank). The first 200 distinct
// queries warm the engine up; each measured search asks one of the others,
// never asked before, so -queries needs 200 more distinct lines than
// -runs. "repeated" is the resident engine asked the warm-up's queries
// again, which it answers from the searches it keeps: a repeated query's
// figure, never the search's. Beside the import's wall
// time it reports its CPU time: of this process (cpu-s) and, for a
// PostgreSQL server on this machine, of the server processes of the
// import's connections (srv-cpu-s), so that a run on a busy machine
// still says what the import costs.
//
// The PostgreSQL database gets its tables in schema -schema, which is
// dropped first unless -reuse is given; -reuse also keeps an existing
// SQLite file, and skips the import of a database that holds memories.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/bench/latency"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/wire"
	"github.com/jackc/pgx/v5"
)

func main() {
	corpus := flag.String("corpus", "", "the corpus, JSON Lines")
	queriesFile := flag.String("queries", "", "search texts, one a line")
	sqlitePath := flag.String("sqlite", "", "the SQLite database to measure (\"\" for none)")
	pgURL := flag.String("postgres", "", "the PostgreSQL database to measure (\"\" for none)")
	schema := flag.String("schema", "cairn_bench", "the schema of the PostgreSQL database that holds the tables; dropped first unless -reuse")
	projects := flag.Int("projects", 100, "the corpus's projects are p00, p01, …")
	runs := flag.Int("runs", 2000, "measured searches per figure")
	nowFlag := flag.String("now", "2026-11-01T00:00:00Z", "the clock of the import and the searches")
	reuse := flag.Bool("reuse", false, "keep the databases and import only into an empty one")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the imports to this file")
	flag.Parse()
	now, err := time.Parse(time.RFC3339, *nowFlag)
	if err != nil {
		fail("-now: %v", err)
	}
	qs, err := readLines(*queriesFile)
	if err != nil {
		fail("%v", err)
	}
	ctx := context.Background()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail("%v", err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	type backend struct {
		name string
		open func() (cairn.Store, error)
	}
	var bs []backend
	if *sqlitePath != "" {
		if !*reuse {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(*sqlitePath + suffix)
			}
		}
		bs = append(bs, backend{"sqlite", func() (cairn.Store, error) { return sqlite.Open(ctx, *sqlitePath, nil) }})
	}
	if *pgURL != "" {
		// An application name of its own, by which serverCPU finds the
		// server processes of this run's connections only.
		if u, err := url.Parse(*pgURL); err == nil && u.Scheme != "" {
			if u.Query().Get("application_name") == "" {
				// Appended, not re-encoded: libpq's options would change.
				if u.RawQuery != "" {
					u.RawQuery += "&"
				}
				u.RawQuery += fmt.Sprintf("application_name=cairn_team_%d", os.Getpid())
				*pgURL = u.String()
			}
		}
		if !*reuse {
			if err := dropSchema(ctx, *pgURL, *schema); err != nil {
				fail("%v", err)
			}
		}
		bs = append(bs, backend{"postgres", func() (cairn.Store, error) {
			return postgres.Open(ctx, *pgURL, &postgres.Options{Schema: *schema})
		}})
	}
	fmt.Printf("%-9s %9s %9s %12s %9s %9s %9s %9s %9s %9s %9s %9s\n", "backend", "memories", "import-s", "memories/s",
		"res-p50", "res-p99", "unc-p50", "unc-p99", "cpu-s", "srv-cpu-s", "rep-p50", "rep-p99")
	for _, b := range bs {
		n, secs, cpu, err := importInto(ctx, b.open, *corpus, now)
		if err != nil {
			fail("%s: import: %v", b.name, err)
		}
		rate := "-"
		if secs > 0 {
			rate = fmt.Sprintf("%.0f", float64(n)/secs)
		}
		var figs []float64
		for _, c := range []struct {
			cache    int64
			repeated bool
		}{{64 << 20, false}, {0, false}, {64 << 20, true}} {
			p50, p99, err := searchTimes(ctx, b.open, c.cache, qs, *projects, *runs, now, c.repeated)
			if err != nil {
				fail("%s: search: %v", b.name, err)
			}
			figs = append(figs, p50, p99)
		}
		fmt.Printf("%-9s %9d %9.1f %12s %9.2f %9.2f %9.2f %9.2f %9.1f %9.1f %9.2f %9.2f\n", b.name, n, secs, rate, figs[0], figs[1], figs[2], figs[3], cpu.self, cpu.server, figs[4], figs[5])
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "team: "+format+"\n", args...)
	os.Exit(1)
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no queries", path)
	}
	return out, nil
}

func dropSchema(ctx context.Context, url, schema string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect to %s: %v", postgres.Redact(url), err)
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}

// cpuTimes is the CPU time an import took: of this process, and of the
// PostgreSQL server processes of its connections (when the server runs
// on this machine; 0 otherwise).
type cpuTimes struct{ self, server float64 }

// importInto imports the corpus into the store unless it holds memories
// already, and returns how many memories the store holds, how long the
// import took (0 when skipped) and the CPU time it used.
func importInto(ctx context.Context, open func() (cairn.Store, error), corpus string, now time.Time) (int, float64, cpuTimes, error) {
	var cpu cpuTimes
	t0, c0 := time.Now(), selfCPU()
	st, err := open()
	if err != nil {
		return 0, 0, cpu, err
	}
	eng := engine.New(st, &engine.Options{Now: func() time.Time { return now }})
	n, err := count(ctx, st)
	if err != nil || n > 0 {
		st.Close()
		return n, 0, cpu, err
	}
	f, err := os.Open(corpus)
	if err != nil {
		st.Close()
		return 0, 0, cpu, err
	}
	defer f.Close()
	rep, err := eng.Import(ctx, wire.Read(bufio.NewReaderSize(f, 1<<20)), cairn.ImportOptions{})
	if err == nil && len(rep.Skipped) > 0 {
		err = fmt.Errorf("%d records skipped, the first: %s", len(rep.Skipped), rep.Skipped[0].Message)
	}
	if err == nil {
		if st.SupportsCheckpoint() {
			err = st.Checkpoint(ctx)
		}
	}
	if pg, ok := st.(*postgres.Store); ok && err == nil {
		cpu.server = serverCPU(ctx, pg)
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, 0, cpu, err
	}
	cpu.self = selfCPU() - c0
	return rep.Created, time.Since(t0).Seconds(), cpu, nil
}

// selfCPU is this process's user and system CPU time so far, in seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// serverCPU is the CPU time, in seconds, of the server processes of the
// store's connections, read from /proc: 0 when the server is elsewhere.
func serverCPU(ctx context.Context, st *postgres.Store) float64 {
	rows, err := st.Pool().Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = current_setting('application_name') AND datname = current_database()`)
	if err != nil {
		return 0
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return 0
	}
	total := 0.0
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The fields after the command name (which may hold spaces):
		// utime and stime are the 14th and 15th of the line.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseFloat(f[11], 64)
			s, _ := strconv.ParseFloat(f[12], 64)
			total += (u + s) / 100 // clock ticks of 10 ms
		}
	}
	return total
}

// count returns how many memories the store holds, by project totals.
func count(ctx context.Context, st cairn.Store) (int, error) {
	n := 0
	err := st.View(ctx, func(tx cairn.Tx) error {
		return tx.ScanMemoryKeys(ctx, func(string, string, string) { n++ })
	})
	return n, err
}

// warmQueries is how many of the queries warm an engine up before its
// searches are measured.
const warmQueries = 200

// searchTimes runs the first warmQueries queries to warm up, then
// measures runs searches and returns their p50 and p99 in ms. Each
// measured search asks a query not asked before, the next of qs, unless
// repeated: then the warm-up's queries again, in turn, which an engine
// with a cache answers from the searches it keeps.
func searchTimes(ctx context.Context, open func() (cairn.Store, error), cache int64, qs []string, projects, runs int, now time.Time, repeated bool) (float64, float64, error) {
	if !repeated && len(qs) < warmQueries+runs {
		return 0, 0, fmt.Errorf("%d distinct queries, want at least %d (%d to warm up and one for each measured search)", len(qs), warmQueries+runs, warmQueries)
	}
	st, err := open()
	if err != nil {
		return 0, 0, err
	}
	defer st.Close()
	eng := engine.New(st, &engine.Options{CacheBytes: cache, Now: func() time.Time { return now }})
	search := func(i int) error {
		q := cairn.Query{Project: fmt.Sprintf("p%02d", (i*7)%projects), Text: qs[i%len(qs)], Limit: 10, Now: now}
		_, err := eng.Search(ctx, q)
		return err
	}
	warm := min(warmQueries, len(qs))
	for i := range warm {
		if err := search(i); err != nil {
			return 0, 0, err
		}
	}
	durs := make([]time.Duration, 0, runs)
	for i := 0; i < runs; i++ {
		j := warm + i
		if repeated {
			j = i % warm
		}
		t0 := time.Now()
		if err := search(j); err != nil {
			return 0, 0, err
		}
		durs = append(durs, time.Since(t0))
	}
	slices.Sort(durs)
	return latency.PercentileMS(durs, 50), latency.PercentileMS(durs, 99), nil
}
