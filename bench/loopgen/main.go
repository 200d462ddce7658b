// Command loopgen fills a database with agent-loop iterations for the
// benchmarks of cairn loop: n iterations over 1,000 tasks, one in five
// failed with a failure report and a learning about a file.
//
//	go run ./bench/loopgen -db /tmp/loop.db -n 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/sqlite"
)

func main() {
	db := flag.String("db", "", "the database `path` (required)")
	n := flag.Int("n", 10000, "iterations to record")
	project := flag.String("project", "bench", "the project")
	flag.Parse()
	if *db == "" {
		fmt.Fprintln(os.Stderr, "loopgen: -db is required")
		os.Exit(2)
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, *db, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopgen:", err)
		os.Exit(1)
	}
	defer s.Close()
	now := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	e := engine.New(s, &engine.Options{Now: func() time.Time { return now }})
	for i := 1; i <= *n; i++ {
		now = now.Add(time.Minute)
		outcome, result := cairn.OutcomeDone, "done"
		if i%5 == 0 {
			outcome = cairn.OutcomeFailed
			result = fmt.Sprintf("<failure-report>\nerror: test %d fails in pkg%d\napproach: approach %d\navoid: approach %d\n</failure-report>\n"+
				"<learning files=\"pkg%d/file.go\">pkg%d needs its fixture regenerated (%d)</learning>", i, i%97, i, i, i%97, i%97, i)
		}
		if _, err := loop.RecordIteration(ctx, e, cairn.LoopRecord{Project: *project, Task: fmt.Sprint(i % 1000), Iteration: i,
			Model: "sonnet", Outcome: outcome, Result: result, Now: now}); err != nil {
			fmt.Fprintln(os.Stderr, "loopgen:", err)
			os.Exit(1)
		}
	}
}
