package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine"
)

// BenchmarkEventTo100Subscribers measures how long a memory written by
// another process takes to reach 100 subscribers of `cairn serve`'s event
// stream, on loopback: each iteration runs `cairn add` (a process of its
// own) and waits until every subscriber has the event. The writer either
// writes the database file itself (writer=database: CAIRN_NO_SERVER=1,
// the server learns of it from the database) or is answered by the
// server over its socket (writer=server, as `cairn add` is by default
// while a server runs). The delay of one
// delivery is from the write's time (the event's "at", the writer's
// clock when the write began, to the millisecond: the figures include the
// write's own commit and are at most 1 ms high) to when the subscriber
// read the frame's last line. Reported: the median and 99th percentile
// over all deliveries, the median of each event's slowest delivery, and
// the start-up floor of the machine (`cairn version`, whole process).
// ns/op is not a figure of interest: it holds a random pause and the
// writer's start-up.
//
//	go test -run '^$' -bench EventTo100 -benchtime 200x ./cmd/cairn
func BenchmarkEventTo100Subscribers(b *testing.B) {
	b.Run("writer=database", func(b *testing.B) { benchEventTo100(b, []string{"CAIRN_NO_SERVER=1"}) })
	b.Run("writer=server", func(b *testing.B) { benchEventTo100(b, nil) })
}

func benchEventTo100(b *testing.B, writerEnv []string) {
	const subscribers = 100
	h := startHTTPServe(b, "bench")
	type delivery struct {
		seq   int64
		delay time.Duration
	}
	got := make(chan delivery, subscribers*16)
	var wg sync.WaitGroup
	for range subscribers {
		s := openEvents(b, h, "bench", "")
		s.start(b)
		wg.Go(func() {
			for f := range s.frames {
				if f.comment || f.event != "created" {
					continue
				}
				var ev struct {
					Seq int64     `json:"seq"`
					At  time.Time `json:"at"`
				}
				if json.Unmarshal([]byte(f.data), &ev) == nil {
					got <- delivery{ev.Seq, f.recv.Sub(ev.At)}
				}
			}
		})
	}
	var all, slowest []time.Duration
	b.ResetTimer()
	for i := range b.N {
		// Writes come at random moments, as agents' do: waiting for each
		// event and writing the next at once would fall into step with
		// the server's checks for writes.
		time.Sleep(rand.N(engine.DefaultEventPoll))
		r := runBinEnv(b.Context(), h.dir, writerEnv, "--db", h.db, "--project", "bench", "add", "--session", "writer",
			fmt.Sprintf("Memory %d of the fan-out benchmark, written by another process.", i))
		if r.code != 0 {
			b.Fatal(r)
		}
		var worst time.Duration
		for range subscribers {
			select {
			case d := <-got:
				all = append(all, d.delay)
				worst = max(worst, d.delay)
			case <-time.After(30 * time.Second):
				b.Fatalf("event %d did not reach every subscriber", i)
			}
		}
		slowest = append(slowest, worst)
	}
	b.StopTimer()
	b.ReportMetric(millis(quantile(all, 0.5)), "p50-ms")
	b.ReportMetric(millis(quantile(all, 0.99)), "p99-ms")
	b.ReportMetric(millis(quantile(slowest, 0.5)), "p50-slowest-ms")
	var floor []time.Duration
	for range 21 {
		start := time.Now()
		if r := runBin(b.Context(), h.dir, "", "version"); r.code != 0 {
			b.Fatal(r)
		}
		floor = append(floor, time.Since(start))
	}
	b.ReportMetric(millis(quantile(floor, 0.5)), "startup-ms")
}

// runBinEnv runs the binary to completion with env added to its
// environment.
func runBinEnv(ctx context.Context, dir string, env []string, args ...string) result {
	cmd := exec.CommandContext(ctx, cairnBin, args...)
	cmd.Dir = dir
	cmd.Env = append(binEnv(dir), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := 0
	if err := cmd.Run(); err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return result{args: args, code: code, stdout: out.String(), stderr: errb.String()}
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1))]
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
