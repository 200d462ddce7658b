// Command typing measures search as a person types it in the web page:
// for each query of a file, one keep-alive client sends GET
// .../search?q=PREFIX&limit=100 (what the page asks) for every prefix of
// the query as it grows by one character, one request at a time, and it
// prints the latency percentiles of the answers, measured from the
// request's first byte sent to the answer's last byte read.
//
//	typing -url http://127.0.0.1:7421/api/projects/bench -queries queries.txt
//
// A request that fails or answers other than 200 or 400 (a prefix of
// only punctuation is the API's 400) makes the exit status 1.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/internal/benchio"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:7421/api/projects/bench", "the project's API `URL`")
	queries := flag.String("queries", "", "a `file` of queries, one a line")
	limit := flag.Int("limit", 100, "hits asked for per search (the page asks 100)")
	max := flag.Int("max", 40, "at most this many characters of a query are typed")
	flag.Parse()
	qs, err := benchio.ReadLines(*queries)
	if err != nil || len(qs) == 0 {
		fmt.Fprintf(os.Stderr, "typing: give -queries FILE with at least one query (%v)\n", err)
		os.Exit(2)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	var lat []time.Duration
	for _, q := range qs {
		rs := []rune(q)
		for n := 1; n <= len(rs) && n <= *max; n++ {
			prefix := strings.TrimSpace(string(rs[:n]))
			if prefix == "" {
				continue
			}
			u := fmt.Sprintf("%s/search?limit=%d&q=%s", strings.TrimSuffix(*base, "/"), *limit, url.QueryEscape(prefix))
			start := time.Now()
			res, err := client.Get(u)
			if err != nil {
				fmt.Fprintf(os.Stderr, "typing: %v\n", err)
				os.Exit(1)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			d := time.Since(start)
			if res.StatusCode != 200 && res.StatusCode != 400 {
				fmt.Fprintf(os.Stderr, "typing: %s answered %d\n", u, res.StatusCode)
				os.Exit(1)
			}
			lat = append(lat, d)
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return benchio.MS(benchio.Percentile(lat, p*100)) }
	fmt.Printf("%d searches as typed: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms\n",
		len(lat), pct(0.50), pct(0.95), pct(0.99), float64(lat[len(lat)-1])/1e6)
}
