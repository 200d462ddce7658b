package storetest

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// The iteration part of the suite: agent-loop iterations (seed 003).

var iterationStoreTests = []struct {
	name string
	fn   func(t *testing.T, s cairn.Store)
}{
	{"IterationsRoundTripNewestFirstAndFiltered", testIterationsRoundTrip},
	{"RecordingAnIterationAgainReplacesIt", testIterationReplaced},
	{"IterationWithABadOutcomeIsInvalid", testIterationBadOutcome},
	{"OldIterationsFoldIntoTotals", testIterationsAggregate},
	{"FailuresInARowAreNeverFolded", testIterationsAggregateKeepsFailing},
}

// iterationTx is tx's iteration role; the test is skipped for a backend
// without it.
func iterationTx(t *testing.T, tx cairn.Tx) cairn.IterationTx {
	t.Helper()
	if !tx.SupportsIterations() {
		t.Skip("the store keeps no iterations")
	}
	return tx.Iterations()
}

func putIterations(t *testing.T, s cairn.Store, its ...*cairn.Iteration) {
	t.Helper()
	if err := s.Update(t.Context(), func(tx cairn.Tx) error {
		for _, it := range its {
			if err := iterationTx(t, tx).PutIteration(t.Context(), it); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func findIterations(t *testing.T, s cairn.Store, f cairn.IterationFilter) []*cairn.Iteration {
	t.Helper()
	var out []*cairn.Iteration
	if err := s.View(t.Context(), func(tx cairn.Tx) error {
		var err error
		out, err = iterationTx(t, tx).FindIterations(t.Context(), f)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

var iterDay = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func testIterationsRoundTrip(t *testing.T, s cairn.Store) {
	a := &cairn.Iteration{Project: "p", Run: "r1", Task: "7", Iteration: 1, Model: "sonnet", Outcome: cairn.OutcomeFailed,
		DurationMS: 61000, CostUSD: 0.42, Difficulty: "hard", FailureID: "mem-1", Summary: "tests fail: ‹timeout›", CreatedAt: iterDay}
	b := &cairn.Iteration{Project: "p", Run: "r1", Task: "8", Iteration: 2, Model: "haiku", Outcome: cairn.OutcomeDone, CreatedAt: iterDay.Add(time.Minute)}
	c := &cairn.Iteration{Project: "p", Run: "r1", Task: "7", Iteration: 3, Model: "opus", Outcome: cairn.OutcomeNoSignal, CreatedAt: iterDay.Add(2 * time.Minute)}
	other := &cairn.Iteration{Project: "q", Task: "7", Iteration: 1, Outcome: cairn.OutcomeDone, CreatedAt: iterDay}
	putIterations(t, s, a, b, c, other)

	all := findIterations(t, s, cairn.IterationFilter{Project: "p"})
	if len(all) != 3 || all[0].Iteration != 3 || all[1].Iteration != 2 || all[2].Iteration != 1 {
		t.Fatalf("project p: %v, want iterations 3, 2, 1", iterationNumbers(all))
	}
	if got := *all[2]; got != *a {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, *a)
	}
	task7 := findIterations(t, s, cairn.IterationFilter{Project: "p", Task: "7"})
	if len(task7) != 2 || task7[0].Iteration != 3 || task7[1].Iteration != 1 {
		t.Errorf("task 7: %v, want 3, 1", iterationNumbers(task7))
	}
	if got := findIterations(t, s, cairn.IterationFilter{Project: "p", Limit: 1}); len(got) != 1 || got[0].Iteration != 3 {
		t.Errorf("limit 1: %v, want 3", iterationNumbers(got))
	}
	if got := findIterations(t, s, cairn.IterationFilter{Project: "p", Since: iterDay.Add(time.Minute)}); len(got) != 2 {
		t.Errorf("since: %v, want 3, 2", iterationNumbers(got))
	}
	if got := findIterations(t, s, cairn.IterationFilter{Project: "nobody"}); len(got) != 0 {
		t.Errorf("unknown project: %v", iterationNumbers(got))
	}
}

func testIterationReplaced(t *testing.T, s cairn.Store) {
	it := &cairn.Iteration{Project: "p", Task: "7", Iteration: 1, Model: "sonnet", Outcome: cairn.OutcomeNoSignal, CreatedAt: iterDay}
	putIterations(t, s, it)
	again := *it
	again.Outcome, again.FailureID = cairn.OutcomeFailed, "mem-2"
	putIterations(t, s, &again)
	// Another run's iteration 1 of the same task is another row.
	putIterations(t, s, &cairn.Iteration{Project: "p", Run: "r2", Task: "7", Iteration: 1, Outcome: cairn.OutcomeDone, CreatedAt: iterDay})
	got := findIterations(t, s, cairn.IterationFilter{Project: "p", Task: "7"})
	if len(got) != 2 {
		t.Fatalf("%d iterations, want 2 (one replaced, one of another run)", len(got))
	}
	for _, g := range got {
		if g.Run == "" && (g.Outcome != cairn.OutcomeFailed || g.FailureID != "mem-2") {
			t.Errorf("the iteration recorded again kept %+v", g)
		}
	}
}

func testIterationBadOutcome(t *testing.T, s cairn.Store) {
	err := s.Update(t.Context(), func(tx cairn.Tx) error {
		return iterationTx(t, tx).PutIteration(t.Context(), &cairn.Iteration{Project: "p", Task: "1", Iteration: 1, Outcome: "maybe", CreatedAt: iterDay})
	})
	if cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("outcome maybe: %v, want EINVALID", err)
	}
	if got := findIterations(t, s, cairn.IterationFilter{Project: "p"}); len(got) != 0 {
		t.Errorf("a refused iteration was stored: %v", iterationNumbers(got))
	}
}

func testIterationsAggregate(t *testing.T, s cairn.Store) {
	var its []*cairn.Iteration
	for i := 1; i <= 5; i++ {
		o := cairn.OutcomeFailed
		if i%2 == 0 {
			o = cairn.OutcomeDone
		}
		its = append(its, &cairn.Iteration{Project: "p", Task: "7", Iteration: i, Model: "sonnet", Outcome: o,
			DurationMS: 1000, CostUSD: 0.5, CreatedAt: iterDay.Add(time.Duration(i) * time.Hour)})
	}
	its = append(its, &cairn.Iteration{Project: "q", Task: "7", Iteration: 1, Model: "sonnet", Outcome: cairn.OutcomeDone, CreatedAt: iterDay})
	putIterations(t, s, its...)
	fold := func(before time.Time) int {
		var n int
		if err := s.Update(t.Context(), func(tx cairn.Tx) error {
			var err error
			n, err = iterationTx(t, tx).AggregateIterations(t.Context(), "p", before)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := fold(iterDay.Add(3*time.Hour + time.Minute)); n != 3 {
		t.Fatalf("folded %d, want 3 (iterations 1-3)", n)
	}
	if n := fold(iterDay.Add(4*time.Hour + time.Minute)); n != 1 {
		t.Fatalf("folded %d the second time, want 1 (iteration 4)", n)
	}
	left := findIterations(t, s, cairn.IterationFilter{Project: "p"})
	if len(left) != 1 || left[0].Iteration != 5 {
		t.Fatalf("left %v, want 5", iterationNumbers(left))
	}
	var totals []cairn.IterationTotals
	if err := s.View(t.Context(), func(tx cairn.Tx) error {
		var err error
		totals, err = iterationTx(t, tx).FindIterationTotals(t.Context(), "p", "7")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	byOutcome := map[string]cairn.IterationTotals{}
	for _, tt := range totals {
		byOutcome[tt.Outcome] = tt
	}
	f, d := byOutcome[cairn.OutcomeFailed], byOutcome[cairn.OutcomeDone]
	if len(totals) != 2 || f.Count != 2 || d.Count != 2 || f.DurationMS != 2000 || f.CostUSD != 1 {
		t.Fatalf("totals %+v, want 2 failed and 2 done of 1 s and $0.50 each", totals)
	}
	if !f.First.Equal(iterDay.Add(time.Hour)) || !f.Last.Equal(iterDay.Add(3*time.Hour)) || !d.Last.Equal(iterDay.Add(4*time.Hour)) {
		t.Errorf("first/last: failed %v-%v, done %v", f.First, f.Last, d.Last)
	}
	if got := findIterations(t, s, cairn.IterationFilter{Project: "q"}); len(got) != 1 {
		t.Errorf("another project's iterations were folded: %v", iterationNumbers(got))
	}
}

// A task's failures since its latest done iteration stay, however old:
// folded, the task would lose its failures in a row (and its stuck state).
func testIterationsAggregateKeepsFailing(t *testing.T, s cairn.Store) {
	at := func(h int) time.Time { return iterDay.Add(time.Duration(h) * time.Hour) }
	putIterations(t, s,
		&cairn.Iteration{Project: "p", Task: "8", Iteration: 1, Outcome: cairn.OutcomeDone, CreatedAt: at(1)},
		&cairn.Iteration{Project: "p", Task: "8", Iteration: 2, Outcome: cairn.OutcomeFailed, CreatedAt: at(2)},
		&cairn.Iteration{Project: "p", Task: "8", Iteration: 3, Outcome: cairn.OutcomeNoSignal, CreatedAt: at(3)},
		&cairn.Iteration{Project: "p", Task: "9", Iteration: 1, Outcome: cairn.OutcomeFailed, CreatedAt: at(1)},
		// Done in the same millisecond as a failure: the higher iteration is the later.
		&cairn.Iteration{Project: "p", Task: "10", Iteration: 1, Outcome: cairn.OutcomeFailed, CreatedAt: at(1)},
		&cairn.Iteration{Project: "p", Task: "10", Iteration: 2, Outcome: cairn.OutcomeDone, CreatedAt: at(1)},
	)
	var n int
	if err := s.Update(t.Context(), func(tx cairn.Tx) error {
		var err error
		n, err = iterationTx(t, tx).AggregateIterations(t.Context(), "p", at(100))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("folded %d, want 3 (task 8's done iteration, task 10's two)", n)
	}
	left := map[string][]int{}
	for _, it := range findIterations(t, s, cairn.IterationFilter{Project: "p"}) {
		left[it.Task] = append(left[it.Task], it.Iteration)
	}
	if len(left) != 2 || len(left["8"]) != 2 || len(left["9"]) != 1 {
		t.Errorf("left %v, want task 8's iterations 3 and 2 and task 9's 1", left)
	}
}

func iterationNumbers(its []*cairn.Iteration) []int {
	out := make([]int, len(its))
	for i, it := range its {
		out[i] = it.Iteration
	}
	return out
}
