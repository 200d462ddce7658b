package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/sqlite"
)

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// fixture is an engine over a fresh SQLite file, with a clock the test
// moves.
type fixture struct {
	t   *testing.T
	e   *engine.Engine
	now time.Time
	n   int // iterations recorded
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f := &fixture{t: t, now: t0}
	f.e = engine.New(s, &engine.Options{Now: func() time.Time { return f.now }})
	return f
}

func (f *fixture) record(task, model, outcome, result string) *cairn.LoopRecorded {
	f.t.Helper()
	f.n++
	f.now = f.now.Add(10 * time.Minute)
	r, err := loop.RecordIteration(f.t.Context(), f.e, cairn.LoopRecord{Project: "p", Task: task, Iteration: f.n, Model: model,
		Outcome: outcome, DurationMS: 60000, CostUSD: 0.3, Result: result, Agent: "claude", Now: f.now})
	if err != nil {
		f.t.Fatalf("record %s #%d: %v", task, f.n, err)
	}
	return r
}

func (f *fixture) context(req cairn.LoopContextRequest) string {
	f.t.Helper()
	req.Project = "p"
	req.Now = f.now
	c, err := recall.LoopBlock(f.t.Context(), f.e, req)
	if err != nil {
		f.t.Fatal(err)
	}
	return c.Text
}

const failedResult = `I changed the retry loop in sync/client.go but go test ./sync still times out.
<failure-report>
error: TestSyncRetries times out after 30s
approach: raised the retry count to 10
avoid: raising the retry count: the server rate-limits the client
files: sync/client.go
</failure-report>
<learning category="pitfall" files="sync/client.go">The sync server rate-limits clients that retry faster than once a second.</learning>
<difficulty-estimate>hard: the retry logic is shared by three callers</difficulty-estimate>`

// A failed iteration leaves its report, its learning and its difficulty;
// the next context on the task holds the report (what was tried, the
// error, what to avoid) and the status.
func TestTheNextAttemptSeesWhatFailedBefore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.record("7", "sonnet", cairn.OutcomeFailed, failedResult)
	if r.MinimalReport || r.Iteration.FailureID == "" || r.Iteration.Difficulty != "hard" {
		t.Fatalf("recorded %+v", r.Iteration)
	}
	types := map[string]bool{}
	for _, m := range r.Memories {
		types[m.Memory.Type] = true
		if m.Memory.TaskID != "7" || m.Memory.Agent != "claude" {
			t.Errorf("memory %s lacks its provenance: task %q agent %q", m.Memory.ID, m.Memory.TaskID, m.Memory.Agent)
		}
	}
	for _, typ := range []string{"failure", "pitfall", "task_result"} {
		if !types[typ] {
			t.Errorf("no %s memory stored: %v", typ, types)
		}
	}
	text := f.context(cairn.LoopContextRequest{Task: "7", Title: "Make sync retries pass"})
	for _, want := range []string{"### Previous Attempts", "Attempt 1 (iteration 1, sonnet, failed)", "TestSyncRetries times out",
		"raised the retry count to 10", "**Avoid:**", "### Loop Status", "Iteration 2. Task 7: 1 earlier attempt, 1 failed (1 in a row)",
		"### Learnings from Previous Iterations", "rate-limits clients"} {
		if !strings.Contains(text, want) {
			t.Errorf("the context lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Stuck Loop Warning") {
		t.Errorf("a warning after one failure:\n%s", text)
	}
	// Another task has no attempts; an unknown task with no words gets nothing.
	if text := f.context(cairn.LoopContextRequest{Task: "99"}); strings.Contains(text, "Previous Attempts") {
		t.Errorf("task 99 shows another task's attempts:\n%s", text)
	}
}

// A failed or signal-less iteration without a report gets a minimal one
// from the end of its result and its outcome.
func TestAnIterationWithoutAReportGetsAMinimalOne(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	long := strings.Repeat("compiling… ", 400) + "panic: nil map write in cache.Put"
	r := f.record("3", "haiku", cairn.OutcomeNoSignal, long)
	if !r.MinimalReport || r.Iteration.FailureID == "" {
		t.Fatalf("no minimal report: %+v", r)
	}
	m, err := f.e.FindMemoryByID(t.Context(), r.Iteration.FailureID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != "failure" || !strings.Contains(m.Content, "ended without saying") || !strings.Contains(m.Content, "panic: nil map write") || len(m.Content) > 1500 {
		t.Errorf("minimal report %q (%d bytes)", m.Content, len(m.Content))
	}
	if len(r.Iteration.Summary) > cairn.MaxIterationSummary {
		t.Errorf("summary of %d bytes", len(r.Iteration.Summary))
	}
	// An empty result still says what happened; a done one has no report.
	if r := f.record("3", "haiku", cairn.OutcomeFailed, ""); !r.MinimalReport {
		t.Errorf("an empty failed result got no report")
	}
	if r := f.record("3", "haiku", cairn.OutcomeDone, "all green"); r.MinimalReport || r.Iteration.FailureID != "" {
		t.Errorf("a done iteration got a failure report: %+v", r.Iteration)
	}
}

// Malformed signals are reported and lose nothing else; bad records are
// refused with a clear error and store nothing.
func TestBadInputIsReportedAndLosesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.record("5", "sonnet", cairn.OutcomeFailed, "<learning>never closed\n<difficulty-estimate>impossible</difficulty-estimate>\nMEMORY:fix:restart the daemon after editing its config")
	if len(r.Problems) < 2 {
		t.Errorf("problems %v, want the unclosed learning and the bad difficulty", r.Problems)
	}
	if !r.MinimalReport {
		t.Errorf("the failed iteration lost its report")
	}
	var fix bool
	for _, m := range r.Memories {
		fix = fix || m.Memory.Type == "fix"
	}
	if !fix {
		t.Errorf("the good MEMORY: line was lost beside the bad signals")
	}
	for _, bad := range []cairn.LoopRecord{
		{Project: "p", Task: "", Iteration: 1, Outcome: "failed"},
		{Project: "p", Task: "5", Iteration: 0, Outcome: "failed"},
		{Project: "p", Task: "5", Iteration: 1, Outcome: "maybe"},
		{Project: "p", Task: "5", Iteration: 1, Outcome: "done", CostUSD: -1},
	} {
		if _, err := loop.RecordIteration(t.Context(), f.e, bad); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("record %+v: %v, want EINVALID", bad, err)
		}
	}
	its, err := f.e.FindIterations(t.Context(), cairn.IterationFilter{Project: "p"})
	if err != nil || len(its) != 1 {
		t.Errorf("iterations %d (%v), want the one good record", len(its), err)
	}
}

// The escalation lifecycle: the first failure leaves a report, the second
// escalates the model, the third makes the task stuck (warning, most
// capable tier), the fifth flags it for a person; a done attempt resets.
func TestFailuresEscalateThenWarnThenFlag(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	choose := func() *cairn.LoopChoice {
		t.Helper()
		c, err := loop.ChooseModel(t.Context(), f.e, "p", "7", nil, cairn.LoopPolicy{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := choose(); c.Model != "sonnet" {
		t.Errorf("first attempt: %s (%s), want sonnet", c.Model, c.Reason)
	}
	f.record("7", "sonnet", cairn.OutcomeFailed, "tests fail")
	if c := choose(); c.Model != "sonnet" || !strings.Contains(c.Reason, "not escalated after one failure") {
		t.Errorf("after one failure: %s (%s), want sonnet", c.Model, c.Reason)
	}
	f.record("7", "sonnet", cairn.OutcomeNoSignal, "ran out of turns")
	if c := choose(); c.Model != "opus" || !strings.Contains(c.Reason, "escalated: 2 failures in a row") {
		t.Errorf("after two failures: %s (%s), want opus", c.Model, c.Reason)
	}
	if text := f.context(cairn.LoopContextRequest{Task: "7"}); strings.Contains(text, "Stuck Loop Warning") {
		t.Errorf("stuck after two failures:\n%s", text)
	}
	f.record("7", "opus", cairn.OutcomeFailed, "still failing")
	text := f.context(cairn.LoopContextRequest{Task: "7"})
	if !strings.Contains(text, "### Stuck Loop Warning") || !strings.Contains(text, "failed 3 times in a row") || !strings.Contains(text, "Split the task") {
		t.Errorf("no stuck warning after three failures:\n%s", text)
	}
	if strings.Index(text, "Stuck Loop Warning") > strings.Index(text, "Previous Attempts") {
		t.Errorf("the warning is not first:\n%s", text)
	}
	f.record("7", "opus", cairn.OutcomeFailed, "4")
	f.record("7", "opus", cairn.OutcomeFailed, "5")
	st, err := loop.Status(t.Context(), f.e, "p", cairn.LoopPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 1 || !st[0].Flagged || st[0].ConsecutiveFailures != 5 {
		t.Fatalf("status %+v, want task 7 flagged after 5 failures", st)
	}
	f.record("7", "opus", cairn.OutcomeDone, "finally")
	if c := choose(); c.State.ConsecutiveFailures != 0 || c.State.Stuck || c.Model == "opus" && !strings.Contains(c.Reason, "up") {
		t.Errorf("after a done attempt: %+v", c)
	}
	// Tiers of the loop's own: a fresh task of a project whose recent
	// iterations mostly failed starts one tier up.
	c, _ := loop.ChooseModel(t.Context(), f.e, "p", "8", []string{"small", "large"}, cairn.LoopPolicy{})
	if c.Model != "large" || !strings.Contains(c.Reason, "small by default; up: only 1 of the last 6") {
		t.Errorf("two tiers, fresh task: %s (%s), want large", c.Model, c.Reason)
	}
}

// Recent success lowers the tier; a hard estimate raises it.
func TestSuccessAndDifficultyMoveTheTier(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 6 {
		f.record(fmt.Sprint(100+i), "sonnet", cairn.OutcomeDone, "ok")
	}
	c, err := loop.ChooseModel(t.Context(), f.e, "p", "200", nil, cairn.LoopPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "haiku" || !strings.Contains(c.Reason, "6 of the last 6") {
		t.Errorf("after 6 successes: %s (%s), want haiku", c.Model, c.Reason)
	}
	f.record("200", "haiku", cairn.OutcomeFailed, "<difficulty-estimate>5</difficulty-estimate>")
	c, _ = loop.ChooseModel(t.Context(), f.e, "p", "200", nil, cairn.LoopPolicy{})
	if c.Model != "opus" || !strings.Contains(c.Reason, "estimated hard") {
		t.Errorf("a hard task: %s (%s), want opus", c.Model, c.Reason)
	}
}

// A learning from one task reaches another task about the same files;
// the learnings keep to the budget; the failure reports of a task done
// long ago are archived and old metrics are folded into totals that still
// count.
func TestLearningsCrossTasksAndOldDataIsPruned(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.record("7", "sonnet", cairn.OutcomeFailed, failedResult)
	f.record("7", "opus", cairn.OutcomeDone, "<learning category=\"pattern\" files=\"sync/client.go\">Back off exponentially in sync/client.go, starting at one second.</learning>")
	text := f.context(cairn.LoopContextRequest{Task: "12", Title: "Add a timeout to sync/client.go", Files: []string{"sync/client.go"}})
	if !strings.Contains(text, "Back off exponentially") || !strings.Contains(text, "rate-limits clients") {
		t.Errorf("task 12 lacks task 7's learnings:\n%s", text)
	}
	if strings.Contains(text, "Previous Attempts") {
		t.Errorf("task 12 shows task 7's attempts:\n%s", text)
	}
	if small := f.context(cairn.LoopContextRequest{Task: "12", Title: "Add a timeout to sync/client.go", Budget: 400}); len([]rune(small)) > 400 {
		t.Errorf("a 400-character budget gave %d characters", len([]rune(small)))
	}

	f.now = f.now.Add(100 * 24 * time.Hour)
	p, err := loop.Prune(t.Context(), f.e, "p", cairn.LoopPruneOptions{Now: f.now})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Archived) != 1 || p.Aggregated != 2 {
		t.Fatalf("pruned %+v, want task 7's report archived and 2 iterations folded", p)
	}
	if m, _ := f.e.FindMemoryByID(t.Context(), p.Archived[0]); m.Live(f.now) {
		t.Errorf("the archived report is still live")
	}
	st, err := loop.Status(t.Context(), f.e, "p", cairn.LoopPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 1 || st[0].Attempts != 2 || st[0].Failures != 1 {
		t.Errorf("status after folding: %+v, want task 7 with 2 attempts, 1 failed", st)
	}
	if p, _ := loop.Prune(t.Context(), f.e, "p", cairn.LoopPruneOptions{Now: f.now}); len(p.Archived) != 0 || p.Aggregated != 0 {
		t.Errorf("a second prune did more: %+v", p)
	}
}

// Recording the same iteration again replaces its row, and leaves its
// memories as they were: the same observation read twice is no second
// use (with and without the agent's session).
func TestRecordingAgainIsSafe(t *testing.T) {
	t.Parallel()
	for _, session := range []string{"", "s-1"} {
		f := newFixture(t)
		rec := cairn.LoopRecord{Project: "p", Task: "1", Iteration: 1, Outcome: cairn.OutcomeFailed, Session: session, Now: t0,
			Result: "boom\n<learning>The fixture server needs a free port.</learning>"}
		first, err := loop.RecordIteration(context.Background(), f.e, rec)
		if err != nil {
			t.Fatal(err)
		}
		rec.Now = t0.Add(time.Minute)
		again, err := loop.RecordIteration(context.Background(), f.e, rec)
		if err != nil {
			t.Fatal(err)
		}
		its, _ := f.e.FindIterations(t.Context(), cairn.IterationFilter{Project: "p"})
		if len(its) != 1 {
			t.Errorf("%d rows after recording twice, want 1", len(its))
		}
		for i, w := range again.Memories {
			was := first.Memories[i].Memory
			now, _ := f.e.FindMemoryByID(t.Context(), w.Memory.ID)
			if w.Memory.ID != was.ID || now.UseCount != was.UseCount || now.Confidence != was.Confidence {
				t.Errorf("session %q: %s %s was %s (uses %d, confidence %.2f), now %s (uses %d, confidence %.2f) after recording again",
					session, w.Status, w.Memory.Type, was.ID, was.UseCount, was.Confidence, now.ID, now.UseCount, now.Confidence)
			}
		}
	}
}

// Three iterations that failed alike are three attempts, each with its own
// report, not one attempt that names another iteration.
func TestAttemptsThatFailedAlikeStayApart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	same := "go test ./parser reports TestTokenize expected 3 tokens got 2 in parser/lex.go after the change to the lexer state machine."
	report := "<failure-report>\nerror: TestTokenize: expected 3 tokens, got 2\napproach: rewrote the lexer states\navoid: the state table\n</failure-report>"
	f.record("7", "sonnet", cairn.OutcomeFailed, same)
	f.record("7", "sonnet", cairn.OutcomeFailed, same)
	f.record("7", "opus", cairn.OutcomeFailed, report)
	f.record("7", "opus", cairn.OutcomeFailed, report)
	text := f.context(cairn.LoopContextRequest{Task: "7"})
	for _, want := range []string{
		"Attempt 4 (iteration 4, opus, failed)**: **Error:** TestTokenize",
		"Attempt 3 (iteration 3, opus, failed)**: **Error:** TestTokenize",
		"Attempt 2 (iteration 2, sonnet, failed)**: **Error:** iteration 2 failed",
		"Attempt 1 (iteration 1, sonnet, failed)**: **Error:** iteration 1 failed",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the context lacks %q:\n%s", want, text)
		}
	}
}

// The task's own learnings are in its context even when the loop gives
// no title to search by; memories of other tasks that share only its
// generic words (fix, test) are not.
func TestTheTaskSeesItsOwnLearningsNotUnrelatedOnes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, c := range []struct{ typ, content string }{
		{"fix", "Fix the flaky login test by waiting for the session cookie"},
		{"learning", "Run the migrations before starting the test server"},
		{"pitfall", "The test database is reset between packages"},
		{"pattern", "Handlers return errors wrapped with fmt.Errorf"},
	} {
		if _, err := f.e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: c.typ, Content: c.content}); err != nil {
			t.Fatal(err)
		}
	}
	f.record("7", "sonnet", cairn.OutcomeFailed, "<failure-report>\nerror: TestParseExpr fails: unexpected token ) at parser/expr.go:88\n"+
		"approach: rewrote precedence climbing\navoid: changing the precedence table\n</failure-report>\n"+
		"<learning>Binary operators must consume their right operand before returning.</learning>")
	own := "Binary operators must consume"
	if text := f.context(cairn.LoopContextRequest{Task: "7"}); !strings.Contains(text, own) {
		t.Errorf("without a title, the context lacks the task's own learning:\n%s", text)
	}
	text := f.context(cairn.LoopContextRequest{Task: "7", Title: "Fix the failing test in the parser"})
	if !strings.Contains(text, own) {
		t.Errorf("the context lacks the task's own learning:\n%s", text)
	}
	for _, unrelated := range []string{"flaky login", "migrations", "reset between packages", "fmt.Errorf"} {
		if strings.Contains(text, unrelated) {
			t.Errorf("the context holds the unrelated %q:\n%s", unrelated, text)
		}
	}
}

// A task that still fails keeps its iterations however old they are:
// folded into totals it would lose its failures in a row, and its stuck
// state with them.
func TestPruneKeepsAStillFailingTaskStuck(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for range 3 {
		f.record("7", "opus", cairn.OutcomeFailed, failedResult)
	}
	f.now = f.now.Add(100 * 24 * time.Hour)
	p, err := loop.Prune(t.Context(), f.e, "p", cairn.LoopPruneOptions{Now: f.now})
	if err != nil {
		t.Fatal(err)
	}
	if p.Aggregated != 0 || len(p.Archived) != 0 {
		t.Errorf("pruned %+v, want nothing of a task that still fails", p)
	}
	st, err := loop.Status(t.Context(), f.e, "p", cairn.LoopPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 1 || !st[0].Stuck || st[0].ConsecutiveFailures != 3 {
		t.Errorf("status after prune: %+v, want task 7 stuck with 3 failures in a row", st)
	}
	if text := f.context(cairn.LoopContextRequest{Task: "7"}); !strings.Contains(text, "Stuck Loop Warning") {
		t.Errorf("the context lost the warning:\n%s", text)
	}
}

// A learning whose file changed after it was written is marked possibly
// stale in the next iteration's context, as in every context block.
func TestALearningWhoseFileChangedIsMarkedStale(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sync"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "sync", "client.go")
	if err := os.WriteFile(file, []byte("package sync\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(file, old, old)
	f.now = time.Now().Add(-24 * time.Hour)
	f.record("7", "sonnet", cairn.OutcomeFailed, failedResult) // a learning about sync/client.go
	f.now = time.Now()
	req := cairn.LoopContextRequest{Task: "12", Title: "Add a timeout to sync/client.go", Files: []string{"sync/client.go"}, Root: root}
	if text := f.context(req); !strings.Contains(text, "rate-limits clients") || strings.Contains(text, "possibly stale") {
		t.Fatalf("before the file changed:\n%s", text)
	}
	os.Chtimes(file, time.Now(), time.Now())
	if text := f.context(req); !strings.Contains(text, "[possibly stale] The sync server rate-limits clients") {
		t.Errorf("after the file changed, the learning is not marked:\n%s", text)
	}
}

// A learning is tagged with the files, error types and tools its
// iteration names (seed 003's relevance tags).
func TestALearningIsTaggedWithItsIterationsFilesErrorsAndTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.record("7", "sonnet", cairn.OutcomeFailed, "go test ./sync fails: panic: runtime error: invalid memory address or nil pointer dereference in sync/client.go\n"+failedResult)
	var learning *cairn.Memory
	for _, w := range r.Memories {
		if w.Memory.Type == "pitfall" {
			learning = w.Memory
		}
	}
	if learning == nil {
		t.Fatalf("no learning stored: %+v", r.Memories)
	}
	for _, want := range []string{"loop", "file:sync/client.go", "error:timeout", "error:nil-pointer", "error:panic", "error:rate-limit", "tool:go"} {
		if !learning.HasTag(want) {
			t.Errorf("the learning's tags %v lack %q", learning.Tags, want)
		}
	}
	if learning.HasTag("error:compile") || learning.HasTag("tool:npm") {
		t.Errorf("the learning's tags %v name what the result does not", learning.Tags)
	}
}

// A task's model follows what earlier tasks of the same estimate needed:
// hard tasks done on sonnet keep a new hard task on sonnet; hard tasks
// that only failed on sonnet move it up.
func TestTheModelFollowsEarlierTasksOfTheSameDifficulty(t *testing.T) {
	t.Parallel()
	hard := "<difficulty-estimate>hard: many callers</difficulty-estimate>"
	f := newFixture(t)
	f.record("1", "sonnet", cairn.OutcomeDone, hard)
	f.record("2", "sonnet", cairn.OutcomeDone, hard)
	f.record("3", "sonnet", cairn.OutcomeFailed, "it broke\n"+hard)
	c, err := loop.ChooseModel(t.Context(), f.e, "p", "3", nil, cairn.LoopPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "sonnet" || !strings.Contains(c.Reason, "earlier tasks estimated hard were done on it (2 of 2 iterations)") {
		t.Errorf("after two hard tasks done on sonnet: %s (%s), want sonnet by them", c.Model, c.Reason)
	}

	f = newFixture(t)
	f.record("1", "sonnet", cairn.OutcomeFailed, hard)
	f.record("2", "sonnet", cairn.OutcomeFailed, hard)
	f.record("3", "haiku", cairn.OutcomeFailed, "<difficulty-estimate>hard</difficulty-estimate>")
	c, err = loop.ChooseModel(t.Context(), f.e, "p", "3", nil, cairn.LoopPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "opus" || !strings.Contains(c.Reason, "earlier tasks estimated hard failed on sonnet (2 iterations)") {
		t.Errorf("after two hard tasks failed on sonnet: %s (%s), want opus by them", c.Model, c.Reason)
	}
	if text := f.context(cairn.LoopContextRequest{Task: "3"}); !strings.Contains(text, "earlier tasks estimated hard failed on sonnet") {
		t.Errorf("Loop Status does not give the reason:\n%s", text)
	}
}

// Once more than five live learnings of one type are about one file, they
// are merged into one summary that names each of them, and they are
// superseded by it; the next context shows the summary.
func TestLearningsBeyondTheThresholdAreSummarised(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	facts := []string{
		"The sync server rate-limits clients that retry faster than once a second.",
		"Retries in the sync client must carry the idempotency key of the first try.",
		"The sync client's backoff is capped at thirty seconds by the gateway.",
		"Sync uploads over four megabytes are split into chunks by the client.",
		"The sync client reuses one HTTP connection per account.",
		"Cancelling a sync leaves a lock file that the next run removes.",
	}
	var rec *cairn.LoopRecorded
	var ids []string
	for i, fact := range facts {
		rec = f.record(fmt.Sprint(20+i), "sonnet", cairn.OutcomeDone, `<learning category="pitfall" files="sync/client.go">`+fact+`</learning> edited sync/client.go`)
		if i < 5 && len(rec.Summaries) != 0 {
			t.Fatalf("learning %d: summarised %v at or below the threshold", i+1, rec.Summaries)
		}
		ids = append(ids, rec.Memories[0].Memory.ID)
	}
	if len(rec.Summaries) != 1 {
		t.Fatalf("the sixth learning about sync/client.go made %d summaries, want 1", len(rec.Summaries))
	}
	sum, err := f.e.FindMemoryByID(t.Context(), rec.Summaries[0].Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Type != "pitfall" || !strings.Contains(sum.Title, "Summary of 6 learnings about sync/client.go") || !sum.HasTag("summary") || !sum.HasTag("file:sync/client.go") {
		t.Errorf("summary %q (%s, tags %v)", sum.Title, sum.Type, sum.Tags)
	}
	for i, id := range ids {
		if !strings.Contains(sum.Content, id) || !strings.Contains(sum.Content, facts[i][:30]) {
			t.Errorf("the summary does not name source %s (%q):\n%s", id, facts[i], sum.Content)
		}
		m, _ := f.e.FindMemoryByID(t.Context(), id)
		if m.SupersededBy != sum.ID {
			t.Errorf("source %s is superseded by %q, want the summary %s", id, m.SupersededBy, sum.ID)
		}
	}
	text := f.context(cairn.LoopContextRequest{Task: "40", Title: "Make sync/client.go retry less", Files: []string{"sync/client.go"}})
	if !strings.Contains(text, "Summary of 6 learnings") || strings.Count(text, "(id mem-") != 1 {
		t.Errorf("the context does not show the summary alone:\n%s", text)
	}
}

// A learning whose iteration named a file reaches a later task about that
// file by its relevance tag (tags are searched with a memory's words),
// though neither its text nor its files name it.
func TestALearningReachesATaskAboutAFileItsIterationNamed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.record("7", "sonnet", cairn.OutcomeDone, "Changed billing/invoice.go and its tests.\n<learning>Amounts are integer cents everywhere; never use floats for money.</learning>")
	text := f.context(cairn.LoopContextRequest{Task: "8", Title: "Add a discount line", Files: []string{"billing/invoice.go"}})
	if !strings.Contains(text, "integer cents") {
		t.Errorf("the learning tagged file:billing/invoice.go is not in the context of a task about that file:\n%s", text)
	}
}
