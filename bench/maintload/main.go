// Command maintload measures how the daily cleanup (engine.Maintain: decay,
// expiry, removal of low-value memories) holds up the requests a server
// answers meanwhile. It opens a SQLite database (give it a copy: the
// cleanup is applied), starts C clients that each ask in turn for a
// prompt's context block that records its use (a read and a write, as a
// session's hook does), then runs the cleanup of the project and prints
// how long it took, how many requests were answered while it ran, and
// the latency percentiles of those requests.
//
//	maintload -db /tmp/copy.db -project bench -queries queries.txt -c 4
//
// -json prints one line of JSON instead of text.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/bench/internal/benchio"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/sqlite"
)

type result struct {
	Memories    int     `json:"memories_changed"`
	MaintainSec float64 `json:"maintain_s"`
	Requests    int     `json:"requests_during"`
	Errors      int64   `json:"errors"`
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
	Maxms       float64 `json:"max_ms"`
}

func main() {
	path := flag.String("db", "", "the SQLite database `file` (a copy: the cleanup is applied)")
	project := flag.String("project", "bench", "the project to clean up")
	queries := flag.String("queries", "", "a `file` of prompts, one a line (default: a few fixed ones)")
	conc := flag.Int("c", 4, "concurrent clients (0: the cleanup alone)")
	asJSON := flag.Bool("json", false, "print one line of JSON")
	flag.Parse()
	if *path == "" || *conc < 0 {
		fmt.Fprintln(os.Stderr, "maintload: give -db FILE and -c ≥ 0")
		os.Exit(2)
	}
	qs := []string{"why does the build fail", "database migration", "retry the request", "config file format", "test timeout"}
	if *queries != "" {
		var err error
		if qs, err = benchio.ReadLines(*queries); err != nil || len(qs) == 0 {
			fmt.Fprintf(os.Stderr, "maintload: no queries in %s (%v)\n", *queries, err)
			os.Exit(2)
		}
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, *path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "maintload:", err)
		os.Exit(1)
	}
	defer st.Close()
	eng := engine.New(st, &engine.Options{CacheBytes: 64 << 20})
	svc := local.New(eng, *project, nil)

	var (
		mu       sync.Mutex
		spans    [][2]time.Time
		errs     atomic.Int64
		stop     atomic.Bool
		wg       sync.WaitGroup
		warmDone sync.WaitGroup
	)
	warmDone.Add(*conc)
	for c := 0; c < *conc; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := c; !stop.Load(); i += *conc {
				call := cairn.ContextCall{ContextRequest: cairn.ContextRequest{Profile: "prompt", Project: *project, Prompt: qs[i%len(qs)], Session: fmt.Sprintf("maintload-%d", c)}, Record: true}
				t0 := time.Now()
				_, err := svc.Context(ctx, call)
				t1 := time.Now()
				if i == c {
					warmDone.Done()
				}
				if err != nil {
					errs.Add(1)
					continue
				}
				mu.Lock()
				spans = append(spans, [2]time.Time{t0, t1})
				mu.Unlock()
			}
		}(c)
	}
	warmDone.Wait()
	t0 := time.Now()
	rep, err := eng.Maintain(ctx, *project, true)
	t1 := time.Now()
	took := t1.Sub(t0)
	stop.Store(true)
	wg.Wait()
	// The requests that overlap the cleanup: those that waited for it
	// count whole, also when they began before it or ended after it.
	var lat []time.Duration
	var during [][2]time.Time
	for _, s := range spans {
		if s[0].Before(t1) && s[1].After(t0) {
			lat = append(lat, s[1].Sub(s[0]))
			during = append(during, s)
		}
	}
	// The slowest requests, and when in the cleanup they began.
	slices.SortFunc(during, func(a, b [2]time.Time) int { return cmp.Compare(b[1].Sub(b[0]), a[1].Sub(a[0])) })
	var slowest []string
	for _, s := range during[:min(5, len(during))] {
		slowest = append(slowest, fmt.Sprintf("%.0f ms at %+.1f s", float64(s[1].Sub(s[0]).Microseconds())/1000, s[0].Sub(t0).Seconds()))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "maintload:", err)
		os.Exit(1)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	r := result{Memories: rep.Expired + rep.Deleted + rep.Decayed, MaintainSec: took.Seconds(), Requests: len(lat), Errors: errs.Load(),
		P50ms: pct(0.50), P99ms: pct(0.99), Maxms: pct(1)}
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	fmt.Printf("cleanup of %s: %d expired, %d deleted, %d decayed in %.1f s\n", *project, rep.Expired, rep.Deleted, rep.Decayed, r.MaintainSec)
	fmt.Printf("%d context requests answered during it (%d errors): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", r.Requests, r.Errors, r.P50ms, r.P99ms, r.Maxms)
	fmt.Printf("slowest: %s\n", strings.Join(slowest, ", "))
}
