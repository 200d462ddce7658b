// Command hookload times Claude Code's http hooks on a running `cairn
// serve`: S sessions at once, each with a client that keeps its
// connection alive (as Claude Code does), POST the hook's JSON for each
// line of a file of prompts (or commands), each line once, and it prints
// the latency percentiles of the answers.
//
//	hookload -url http://127.0.0.1:7421/hooks/claude/UserPromptSubmit -each prompts.txt -sessions 10 -runs 1000
//
// -event prompt sends UserPromptSubmit payloads (the line is the prompt),
// -event bash PreToolUse payloads of a Bash call (the line is the
// command), -event read PreToolUse payloads of a Read (of the file the
// line names, in the cwd), which the hooks answer with nothing: the
// floor of the route, HTTP and the payload's decoding without a block.
// -cwd is the payload's folder, whose name is the project.
// -pace makes each session start a call at most that often (an agent's
// hooks come a model turn apart); without it they come back to back, and
// the figures are those of a server kept busy.
// Every call is of a session of its own, so that what a session was
// shown never leaves a measured block empty. The first -warmup
// lines are sent first, unmeasured; the measured ones follow, so that no
// measured line was asked before when the file has warmup+runs lines. A
// request that fails or answers other than 200 makes the exit status 1.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/bench/internal/benchio"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:7421/hooks/claude/UserPromptSubmit", "the hook's `URL`")
	each := flag.String("each", "", "a `file` of prompts or commands, one a line")
	event := flag.String("event", "prompt", "prompt (UserPromptSubmit), bash (PreToolUse of a Bash call) or read (PreToolUse of a Read, answered with nothing)")
	cwd := flag.String("cwd", "/tmp/bench", "the payloads' cwd (its name is the project)")
	sessions := flag.Int("sessions", 1, "sessions at once, each with its own kept-alive connection")
	runs := flag.Int("runs", 1000, "measured calls")
	warmup := flag.Int("warmup", 100, "unmeasured calls first")
	pace := flag.Duration("pace", 0, "each session sends a call at most this often (0: back to back); sessions start spread over it")
	label := flag.String("label", "", "a name to print with the figures")
	asJSON := flag.Bool("json", false, "print one line of JSON")
	flag.Parse()
	lines, err := benchio.ReadLines(*each)
	if err != nil || len(lines) == 0 || *sessions < 1 || *runs < 1 || *warmup < 0 || *event != "prompt" && *event != "bash" && *event != "read" {
		fmt.Fprintf(os.Stderr, "hookload: give -each FILE, -event prompt|bash|read, -sessions ≥ 1, -runs ≥ 1 (%v)\n", err)
		os.Exit(2)
	}
	payload := func(i int) []byte {
		return benchio.HookPayload(*event, fmt.Sprintf("bench-%d", i), *cwd, lines[i%len(lines)])
	}
	if len(lines) < *warmup+*runs {
		fmt.Fprintf(os.Stderr, "hookload: %d lines for %d calls: some measured ones were asked before\n", len(lines), *warmup+*runs)
	}
	clients := make([]*http.Client, *sessions)
	for i := range clients {
		clients[i] = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
	}
	post := func(c *http.Client, body []byte) error {
		req, err := http.NewRequest("POST", *url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Cairn-Timeout", "10")
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
	lat, failed := run(clients, *warmup, *runs, *pace, payload, post)
	if failed != nil {
		fmt.Fprintf(os.Stderr, "hookload: %v\n", failed)
		os.Exit(1)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return benchio.MS(benchio.Percentile(lat, p)) }
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(map[string]any{"label": *label, "runs": len(lat), "sessions": *sessions, "pace_ms": benchio.MS(*pace),
			"median_ms": pct(50), "p90_ms": pct(90), "p99_ms": pct(99), "max_ms": pct(100)})
		return
	}
	fmt.Printf("%s %d calls, %d sessions: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		*label, len(lat), *sessions, pct(50), pct(90), pct(99), pct(100))
}

// run sends the warm-up calls, then the measured ones, from len(clients)
// sessions at once, each starting a call at most every pace, and returns
// the measured latencies.
func run(clients []*http.Client, warmup, runs int, pace time.Duration, payload func(int) []byte, post func(*http.Client, []byte) error) ([]time.Duration, error) {
	for i := range warmup {
		if err := post(clients[i%len(clients)], payload(i)); err != nil {
			return nil, err
		}
	}
	work := make(chan int)
	var (
		mu     sync.Mutex
		lat    []time.Duration
		failed error
		wg     sync.WaitGroup
	)
	start := time.Now()
	for s, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			next := start.Add(pace * time.Duration(s) / time.Duration(len(clients)))
			for {
				time.Sleep(time.Until(next))
				i, ok := <-work
				if !ok {
					break
				}
				body := payload(i)
				t0 := time.Now()
				next = t0.Add(pace)
				err := post(c, body)
				d := time.Since(t0)
				if err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					continue
				}
				mine = append(mine, d)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	for i := range runs {
		work <- warmup + i
	}
	close(work)
	wg.Wait()
	return lat, failed
}
