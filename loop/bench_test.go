package loop_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/sqlite"
)

// benchEngine is an engine over a database holding n iterations of 1,000
// tasks (one in five failed, with a report) and their learnings.
func benchEngine(b *testing.B, n int) *engine.Engine {
	b.Helper()
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "c.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	now := t0
	e := engine.New(s, &engine.Options{Now: func() time.Time { return now }})
	for i := 1; i <= n; i++ {
		now = now.Add(time.Minute)
		task := fmt.Sprint(i % 1000)
		outcome, result := cairn.OutcomeDone, "done"
		if i%5 == 0 {
			outcome = cairn.OutcomeFailed
			result = fmt.Sprintf("<failure-report>\nerror: test %d fails in pkg%d\napproach: approach %d\navoid: approach %d\n</failure-report>\n"+
				"<learning files=\"pkg%d/file.go\">pkg%d needs its fixture regenerated (%d)</learning>", i, i%97, i, i, i%97, i%97, i)
		}
		if _, err := loop.RecordIteration(b.Context(), e, cairn.LoopRecord{Project: "p", Task: task, Iteration: i, Model: "sonnet",
			Outcome: outcome, Result: result, Now: now}); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// Recording one failed iteration with a report and a learning (budget:
// 5 ms in process).
func BenchmarkRecordIteration(b *testing.B) {
	e := benchEngine(b, 0)
	b.ResetTimer()
	for i := range b.N {
		if _, err := loop.RecordIteration(b.Context(), e, cairn.LoopRecord{Project: "p", Task: fmt.Sprint(i % 100), Iteration: i + 1,
			Model: "sonnet", Outcome: cairn.OutcomeFailed,
			Result: fmt.Sprintf("<failure-report>\nerror: TestX fails (%d)\napproach: a\navoid: b\n</failure-report>\n<learning>x%d needs y</learning>", i, i)}); err != nil {
			b.Fatal(err)
		}
	}
}

// The next iteration's context on a task with 10,000 iterations recorded.
func BenchmarkLoopContext10k(b *testing.B) {
	e := benchEngine(b, 10000)
	b.ResetTimer()
	for i := range b.N {
		c, err := recall.LoopBlock(b.Context(), e, cairn.LoopContextRequest{Project: "p", Task: fmt.Sprint(i%200*5 + 5),
			Title: "make pkg5 tests pass", Files: []string{"pkg5/file.go"}})
		if err != nil || c.Text == "" {
			b.Fatal(err, "empty context")
		}
	}
}
