// Package loop is iteration memory for agent loops (seed 003): a loop
// claims a task, runs a fresh agent session on it, reads its result and
// repeats. Record stores what one iteration did (its outcome and metrics,
// a failure report, the learnings and estimates its result signals);
// Context renders what the next iteration on a task needs (Previous
// Attempts, Learnings from Previous Iterations, Loop Status and, once the
// task keeps failing, a Stuck Loop Warning); ChooseModel picks the model
// tier from the recorded metrics; Status lists the tasks and flags those
// that need a person. docs/agent-loops.md is the whole design.
package loop

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
)

// Service is what the loop needs of cairn: the engine implements it.
type Service interface {
	AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error)
	FindMemoryByID(ctx context.Context, id string) (*cairn.Memory, error)
	FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error)
	UpdateMemory(ctx context.Context, id string, upd cairn.MemoryUpdate) (*cairn.Memory, error)
	Search(ctx context.Context, q cairn.Query) ([]cairn.Hit, error)
	PutIteration(ctx context.Context, it *cairn.Iteration) error
	FindIterations(ctx context.Context, f cairn.IterationFilter) ([]*cairn.Iteration, error)
	IterationTotals(ctx context.Context, project, task string) ([]cairn.IterationTotals, error)
	AggregateIterations(ctx context.Context, project string, before time.Time) (int, error)
	// Now is the service's clock: what a zero Now of a request means.
	Now() time.Time
}

// maxMinimalReport bounds the result text quoted by a minimal failure
// report, in bytes.
const maxMinimalReport = 1200

// RecordIteration stores one iteration: every signal of the result as a
// memory of the task (learnings and MEMORY: lines tagged "loop" and with
// the files, error types and tools the result names — file:PATH,
// error:KIND, tool:NAME —, the difficulty estimate, a retry suggestion), the first <failure-report> as the iteration's
// failure report (a failed or signal-less iteration without one gets a
// minimal report made from the result text and the outcome), and the
// iteration's outcome and metrics, linked to its failure report.
//
// Each iteration's failure report is its own memory (keyed by run, task
// and iteration), so that two attempts that failed alike stay two
// attempts. Recording the same iteration again replaces its row and its
// report, and neither duplicates nor reinforces its other memories: they
// are written as of the iteration's session (Record.Session, else one
// named after the run, task and iteration), and a repeat from the session
// that wrote a memory is the same observation read again.
func RecordIteration(ctx context.Context, svc Service, r cairn.LoopRecord) (*cairn.LoopRecorded, error) {
	r.Task = strings.TrimSpace(r.Task)
	it := cairn.Iteration{Project: r.Project, Run: r.Run, Task: r.Task, Iteration: r.Iteration, Model: r.Model,
		Outcome: r.Outcome, DurationMS: r.DurationMS, CostUSD: r.CostUSD, CreatedAt: r.Now,
		Summary: strings.Join(strings.Fields(r.Result), " ")} // on one line; the engine cuts it to size
	// Refused before anything is stored: a bad record leaves nothing.
	if err := it.Check(); err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "loop record: %s", cairn.ErrorMessage(err))
	}
	if !utf8.ValidString(r.Result) {
		r.Result = strings.ToValidUTF8(r.Result, "\uFFFD")
	}
	out := &cairn.LoopRecorded{}
	sigs, probs := capture.Parse(r.Result)
	out.Problems = signalProblems(probs)
	prov := capture.Provenance{Agent: r.Agent, Task: r.Task, Session: r.Session}
	if prov.Session == "" {
		prov.Session = iterationSession(r)
	}
	reported := false
	relevance := relevanceTags(r.Result)
	for _, s := range sigs {
		m := s.MemoryFrom(r.Project, prov)
		if s.Kind == capture.KindLearning || s.Kind == capture.KindMemory {
			// Tagged for relevance (seed 003): the files, error types and
			// tools of the iteration.
			for _, t := range append([]string{"loop"}, relevance...) {
				if !slices.Contains(m.Tags, t) && len(m.Tags) < cairn.MaxTags {
					m.Tags = append(m.Tags, t)
				}
			}
		}
		if s.Kind == capture.KindFailureReport && !reported && r.Outcome != cairn.OutcomeDone {
			m.Key, reported = reportKey(r), true
		}
		res, err := svc.AddMemory(ctx, m)
		if cairn.ErrorCode(err) == cairn.EINVALID {
			// One bad signal does not lose the others, nor the iteration.
			out.Problems = append(out.Problems, cairn.SignalProblem{Line: s.Line, Text: s.Title,
				Reason: "cannot store the " + strings.ReplaceAll(s.Kind, "_", " ") + ": " + cairn.ErrorMessage(err)})
			continue
		}
		if err != nil {
			return nil, err
		}
		out.Memories = append(out.Memories, res)
		if (s.Kind == capture.KindLearning || s.Kind == capture.KindMemory) && res.Status == cairn.StatusCreated {
			sum, err := summarize(ctx, svc, res.Memory, r.SummarizeAfter, cmp.Or(r.Now, svc.Now()))
			if err != nil {
				return nil, err
			}
			if sum != nil {
				out.Summaries = append(out.Summaries, sum)
			}
		}
		switch s.Kind {
		case capture.KindFailureReport:
			if it.FailureID == "" && r.Outcome != cairn.OutcomeDone {
				it.FailureID = res.Memory.ID
			}
		case capture.KindDifficulty:
			it.Difficulty = s.Fields["level"]
		}
	}
	if r.Outcome != cairn.OutcomeDone && it.FailureID == "" {
		res, err := svc.AddMemory(ctx, minimalReport(r, prov))
		if err != nil {
			return nil, err
		}
		out.Memories = append(out.Memories, res)
		out.MinimalReport = true
		it.FailureID = res.Memory.ID
	}
	if err := svc.PutIteration(ctx, &it); err != nil {
		return nil, err
	}
	out.Iteration = it
	return out, nil
}

// iterationSession names the session of an iteration whose loop gave
// none: what it wrote is one observation, however often it is recorded.
func iterationSession(r cairn.LoopRecord) string {
	s := fmt.Sprintf("loop:%s#%d", r.Task, r.Iteration)
	if r.Run != "" {
		s = "loop:" + r.Run + "/" + s[len("loop:"):]
	}
	return s
}

// reportKey is the key of an iteration's failure report: one memory per
// iteration, replaced when the iteration is recorded again.
func reportKey(r cairn.LoopRecord) string {
	return "failure:" + strings.TrimPrefix(iterationSession(r), "loop:")
}

// minimalReport is the failure report of an iteration whose agent wrote
// none: the outcome and the end of the result text, where agents say what
// went wrong.
func minimalReport(r cairn.LoopRecord, prov capture.Provenance) *cairn.Memory {
	what := "failed"
	if r.Outcome == cairn.OutcomeNoSignal {
		what = "ended without saying whether the task was done"
	}
	text := strings.TrimSpace(r.Result)
	if len(text) > maxMinimalReport {
		i := len(text) - maxMinimalReport
		for i < len(text) && !utf8.RuneStart(text[i]) {
			i++
		}
		text = "…" + text[i:]
	}
	if text == "" {
		text = "(the agent printed nothing)"
	}
	content := fmt.Sprintf("**Error:** iteration %d %s (no failure report).\n**Result:** %s", r.Iteration, what, text)
	m := &cairn.Memory{
		Project: r.Project, Type: "failure", Source: cairn.SourceAutomatic,
		Title:   fmt.Sprintf("Failed: task %s, iteration %d (%s)", r.Task, r.Iteration, r.Outcome),
		Content: content, Tags: []string{"failure-report", "minimal"}, Key: reportKey(r),
	}
	m.Agent, m.TaskID, m.SessionID = prov.Agent, prov.Task, prov.Session
	return m
}

// signalProblems are probs as the root package says them.
func signalProblems(probs []capture.Problem) []cairn.SignalProblem {
	if len(probs) == 0 {
		return nil
	}
	out := make([]cairn.SignalProblem, 0, len(probs))
	for _, p := range probs {
		out = append(out, cairn.SignalProblem(p))
	}
	return out
}
