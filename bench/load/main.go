// Command load measures the REST API of a running `cairn serve`: C
// concurrent keep-alive clients send GET .../search?q=QUERY for a
// duration, over a list of queries taken in turn, and it prints the
// requests per second and the latency percentiles of the answers.
//
//	load -url http://127.0.0.1:7421/api/projects/bench -queries queries.txt -c 8 -d 20s
//
// With -once each query is sent at most once, the warm-up's first, and the
// run ends early when every query has been sent: a server keeps the
// searches it answered recently, so a query asked again measures that
// cache, not the search. With -mix the requests take turns among a
// search, a prompt's context block (POST .../context, profile prompt), the
// answer before a shell command (POST .../lookup, profile command) and the
// answer after a failure (profile failure), each of the next query; -n
// stops after that many measured requests.
//
// A request that fails or answers other than 200 counts as an error and
// not in the latencies; any error makes the exit status 1. -json prints
// one line of JSON instead of text.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/bench/internal/benchio"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:7421/api/projects/bench", "the project's API `URL`")
	queries := flag.String("queries", "", "a `file` of queries, one a line")
	conc := flag.Int("c", 8, "concurrent clients")
	dur := flag.Duration("d", 20*time.Second, "how long to send requests")
	warm := flag.Duration("warmup", 2*time.Second, "send requests this long first, not measured")
	limit := flag.Int("limit", 10, "hits asked for per search")
	token := flag.String("token", os.Getenv("CAIRN_TOKEN"), "a bearer `token` (default $CAIRN_TOKEN)")
	asJSON := flag.Bool("json", false, "print one line of JSON")
	once := flag.Bool("once", false, "send each query at most once; stop when all are sent")
	mix := flag.Bool("mix", false, "take turns among search, context and the two hook lookups")
	most := flag.Int64("n", 0, "stop after this many measured requests (0: no limit)")
	slow := flag.Duration("slow", 0, "print each measured request that took longer than this to standard error (0: none)")
	flag.Parse()
	qs, err := benchio.ReadLines(*queries)
	if err != nil || len(qs) == 0 || *conc < 1 || *dur <= 0 {
		fmt.Fprintf(os.Stderr, "load: give -queries FILE with at least one query, -c ≥ 1 and -d > 0 (%v)\n", err)
		os.Exit(2)
	}
	api := strings.TrimSuffix(*base, "/")
	reqs := make([]request, len(qs))
	for i, q := range qs {
		reqs[i] = request{method: "GET", url: fmt.Sprintf("%s/search?limit=%d&q=%s", api, *limit, url.QueryEscape(q))}
		if !*mix {
			continue
		}
		var body any
		switch i % 4 {
		case 1:
			body = map[string]any{"profile": "prompt", "prompt": q, "session": fmt.Sprintf("load-%d", i%50)}
		case 2:
			body = map[string]any{"profile": "command", "command": q, "session": fmt.Sprintf("load-%d", i%50), "shown_times": 1, "record": true}
		case 3:
			body = map[string]any{"profile": "failure", "subject": "Exit code 2\npanic: " + q + " failed in the worker",
				"session": fmt.Sprintf("load-%d", i%50), "shown_times": 2, "record": true}
		}
		if body != nil {
			b, _ := json.Marshal(body)
			reqs[i] = request{method: "POST", url: api + "/context", body: b}
			if i%4 != 1 {
				reqs[i].url = api + "/lookup"
			}
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: *conc, MaxIdleConnsPerHost: *conc, MaxConnsPerHost: *conc}}
	var next atomic.Int64
	if *warm > 0 {
		run(client, reqs, &next, *once, 0, *token, *conc, *warm)
	}
	slowest = *slow
	r := run(client, reqs, &next, *once, *most, *token, *conc, *dur)
	slices.Sort(r.lat)
	pct := func(p float64) float64 { return benchio.MS(benchio.Percentile(r.lat, p*100)) }
	rate := float64(len(r.lat)) / r.elapsed.Seconds()
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(map[string]any{"requests": len(r.lat), "errors": r.errors, "seconds": r.elapsed.Seconds(),
			"rps": rate, "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99), "max_ms": pct(1), "clients": *conc})
	} else {
		fmt.Printf("%d requests in %.1f s, %d clients: %.0f req/s; latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms; %d errors\n",
			len(r.lat), r.elapsed.Seconds(), *conc, rate, pct(0.50), pct(0.90), pct(0.99), pct(1), r.errors)
	}
	if r.errors > 0 {
		fmt.Fprintf(os.Stderr, "load: %d requests failed; first: %s\n", r.errors, r.firstErr)
		os.Exit(1)
	}
}

// slowest is -slow: the measured requests that take longer are printed
// to standard error, with when they were sent (from the run's start).
var slowest time.Duration

// request is one request load sends.
type request struct {
	method, url string
	body        []byte // JSON, for a POST
}

type result struct {
	lat      []time.Duration
	errors   int64
	firstErr string
	elapsed  time.Duration
}

// run sends requests from conc clients for d and returns the latencies
// of the answers that succeeded. next is the index of the next request,
// shared with earlier runs; with once the clients stop when every request
// has been sent, and with most > 0 after most requests.
func run(client *http.Client, reqs []request, next *atomic.Int64, once bool, most int64, token string, conc int, d time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	first := next.Load()
	var errs atomic.Int64
	var mu sync.Mutex
	var res result
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 1<<14)
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if once && i >= int64(len(reqs)) || most > 0 && i-first >= most {
					break
				}
				rq := reqs[int(i)%len(reqs)]
				u := rq.url
				var body io.Reader
				if rq.body != nil {
					body = bytes.NewReader(rq.body)
				}
				req, _ := http.NewRequest(rq.method, u, body)
				if rq.body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("%s: status %d", u, resp.StatusCode)
					}
				}
				if err != nil {
					errs.Add(1)
					mu.Lock()
					if res.firstErr == "" {
						res.firstErr = err.Error()
					}
					mu.Unlock()
					continue
				}
				took := time.Since(t0)
				if slowest > 0 && took > slowest {
					fmt.Fprintf(os.Stderr, "load: slow: %.1f ms, sent %.3f s into the run: %s %s %s\n",
						benchio.MS(took), t0.Sub(start).Seconds(), rq.method, u, rq.body)
				}
				lat = append(lat, took)
			}
			mu.Lock()
			res.lat = append(res.lat, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.errors = errs.Load()
	return res
}
