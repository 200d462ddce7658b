package main

// BenchmarkRESTSearch100k: GET /api/projects/bench/search?q=…&limit=10
// answered by a `cairn serve` (package server, in process) over the
// generated corpus, from 8 keep-alive clients in the same process, as
// bench/rest.sh sends them from a second one:
//
//	go test -run '^$' -bench RESTSearch -benchtime 4000x ./bench/gen
//
// Each request is a query not asked before (up to 5,000). Besides ns/op
// it reports p50-ms and p99-ms over every request, and cpu-ms: the CPU
// time of the process, server and clients together, per request. On a
// machine whose cores the clients and the server share, as
// bench/rest.sh's do, the number of cores over cpu-ms bounds the
// requests per second (budget at 100,000 memories: 5,000 requests/s on
// 2 cores, so cpu-ms ≤ 0.4 for the server and the clients together).

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/bench/latency"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/server"
)

func BenchmarkRESTSearch100k(b *testing.B) {
	benchRESTSearch(b, benchN(b), 8)
}

func benchRESTSearch(b *testing.B, n, clients int) {
	srv, _ := benchServer(b, n)
	api := "http://" + srv.Addr() + "/api/projects/" + benchProject + "/search?limit=10&q="
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	get := func(q string) {
		resp, err := client.Get(api + url.QueryEscape(q))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%q: status %d", q, resp.StatusCode)
		}
	}
	pool := distinctQueries(b, 5000+benchQueries)
	for _, q := range pool[:benchQueries] {
		get(q)
	}
	fresh := pool[benchQueries:]
	var (
		mu   sync.Mutex
		durs []time.Duration
	)
	work := make(chan string)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for q := range work {
				t0 := time.Now()
				get(q)
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			durs = append(durs, mine...)
			mu.Unlock()
		}()
	}
	i := 0
	b.ResetTimer()
	cpu0 := latency.ProcessCPU()
	for b.Loop() {
		work <- fresh[i%len(fresh)]
		i++
	}
	close(work)
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(latency.ProcessCPU()-cpu0)/float64(time.Millisecond)/float64(max(i, 1)), "cpu-ms")
	slices.Sort(durs)
	b.ReportMetric(latency.PercentileMS(durs, 50), "p50-ms")
	b.ReportMetric(latency.PercentileMS(durs, 99), "p99-ms")
}

// benchServer opens a server over n generated memories, on the bench's
// clock, answering HTTP on a loopback port, in a folder of its own
// (dir); both are gone when the benchmark ends.
func benchServer(b *testing.B, n int) (srv *server.Server, dir string) {
	srv, _, dir = benchServerEngine(b, n)
	return srv, dir
}

// benchServerEngine is benchServer with the engine it serves.
func benchServerEngine(b *testing.B, n int) (srv *server.Server, eng *engine.Engine, dir string) {
	b.Helper()
	_, eng = openBench(b, database(b, n), 64<<20, benchTime(b))
	dir, err := os.MkdirTemp("", "bs") // a short path: Unix socket paths are limited
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	srv, err = server.New(server.Config{Engine: eng, Project: benchProject, Path: filepath.Join(dir, "s.db"), Addr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv, eng, dir
}
