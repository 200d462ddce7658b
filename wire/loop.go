package wire

import (
	"time"

	"github.com/cairn-dev/cairn"
)

// The JSON of the REST API's loop routes, shared by the server (package
// httpapi), its client and the MCP loop tools.

// PolicyJSON is a Policy and tiers as a request carries them; zero values
// mean the defaults.
type PolicyJSON struct {
	Tiers         []string `json:"tiers,omitempty"`
	EscalateAfter int      `json:"escalate_after,omitempty"`
	StuckAfter    int      `json:"stuck_after,omitempty"`
	ReviewAfter   int      `json:"review_after,omitempty"`
}

// Policy is the policy of j.
func (j PolicyJSON) Policy() cairn.LoopPolicy {
	return cairn.LoopPolicy{EscalateAfter: j.EscalateAfter, StuckAfter: j.StuckAfter, ReviewAfter: j.ReviewAfter}
}

// PolicyJSONOf is p and tiers as JSON.
func PolicyJSONOf(p cairn.LoopPolicy, tiers []string) PolicyJSON {
	return PolicyJSON{Tiers: tiers, EscalateAfter: p.EscalateAfter, StuckAfter: p.StuckAfter, ReviewAfter: p.ReviewAfter}
}

// RecordJSON is the body of POST /loop/iterations (and the MCP tool
// loop_record's arguments).
type RecordJSON struct {
	Run        string  `json:"run,omitempty" jsonschema:"the loop run's id, when it has one"`
	Task       string  `json:"task" jsonschema:"the task's id in the loop"`
	Iteration  int     `json:"iteration" jsonschema:"the loop's iteration number, from 1"`
	Model      string  `json:"model,omitempty" jsonschema:"the model or tier that ran it"`
	Outcome    string  `json:"outcome" jsonschema:"done, failed or no-signal"`
	DurationMS int64   `json:"duration_ms,omitempty" jsonschema:"how long it took, in milliseconds"`
	CostUSD    float64 `json:"cost_usd,omitempty" jsonschema:"what it cost, in dollars"`
	Result     string  `json:"result,omitempty" jsonschema:"the agent's output: its <failure-report>, <learning>, <difficulty-estimate> and MEMORY: signals are stored"`
	Agent      string  `json:"agent,omitempty" jsonschema:"the agent that ran, e.g. claude"`
	Session    string  `json:"session,omitempty" jsonschema:"the agent session id"`
	// SummarizeAfter is Record.SummarizeAfter.
	SummarizeAfter int `json:"summarize_after,omitempty" jsonschema:"summarise the learnings about one file or task once there are more than this many (default 5)"`
}

// Record is the record of j, at now.
func (j RecordJSON) Record(now time.Time) cairn.LoopRecord {
	return cairn.LoopRecord{Run: j.Run, Task: j.Task, Iteration: j.Iteration, Model: j.Model, Outcome: j.Outcome,
		DurationMS: j.DurationMS, CostUSD: j.CostUSD, Result: j.Result, Agent: j.Agent, Session: j.Session,
		SummarizeAfter: j.SummarizeAfter, Now: now}
}

// RecordJSONOf is r as JSON.
func RecordJSONOf(r cairn.LoopRecord) RecordJSON {
	return RecordJSON{Run: r.Run, Task: r.Task, Iteration: r.Iteration, Model: r.Model, Outcome: r.Outcome,
		DurationMS: r.DurationMS, CostUSD: r.CostUSD, Result: r.Result, Agent: r.Agent, Session: r.Session,
		SummarizeAfter: r.SummarizeAfter}
}

// IterationJSON is a recorded iteration.
type IterationJSON struct {
	Project    string  `json:"project"`
	Run        string  `json:"run"`
	Task       string  `json:"task"`
	Iteration  int     `json:"iteration"`
	Model      string  `json:"model"`
	Outcome    string  `json:"outcome"`
	DurationMS int64   `json:"duration_ms"`
	CostUSD    float64 `json:"cost_usd"`
	Difficulty string  `json:"difficulty"`
	FailureID  string  `json:"failure_id"`
	Summary    string  `json:"summary"`
	CreatedAt  string  `json:"created_at"`
}

func iterationJSON(it cairn.Iteration) IterationJSON {
	return IterationJSON{Project: it.Project, Run: it.Run, Task: it.Task, Iteration: it.Iteration, Model: it.Model,
		Outcome: it.Outcome, DurationMS: it.DurationMS, CostUSD: it.CostUSD, Difficulty: it.Difficulty,
		FailureID: it.FailureID, Summary: it.Summary, CreatedAt: it.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

func (j IterationJSON) iteration() cairn.Iteration {
	at, _ := time.Parse(time.RFC3339Nano, j.CreatedAt)
	return cairn.Iteration{Project: j.Project, Run: j.Run, Task: j.Task, Iteration: j.Iteration, Model: j.Model,
		Outcome: j.Outcome, DurationMS: j.DurationMS, CostUSD: j.CostUSD, Difficulty: j.Difficulty,
		FailureID: j.FailureID, Summary: j.Summary, CreatedAt: at}
}

// WrittenJSON is one memory a record wrote.
type WrittenJSON struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Type   string `json:"type"`
}

// ProblemJSON is a malformed signal of a result.
type ProblemJSON struct {
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// RecordedJSON answers POST /loop/iterations.
type RecordedJSON struct {
	Iteration     IterationJSON `json:"iteration"`
	Memories      []WrittenJSON `json:"memories"`
	MinimalReport bool          `json:"minimal_report"`
	Problems      []ProblemJSON `json:"problems"`
	Summaries     []WrittenJSON `json:"summaries"`
}

// RecordedJSONOf is r as JSON.
func RecordedJSONOf(r *cairn.LoopRecorded) RecordedJSON {
	out := RecordedJSON{Iteration: iterationJSON(r.Iteration), Memories: []WrittenJSON{}, MinimalReport: r.MinimalReport, Problems: []ProblemJSON{}}
	for _, w := range r.Memories {
		out.Memories = append(out.Memories, WrittenJSON{ID: w.Memory.ID, Status: w.Status, Type: w.Memory.Type})
	}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, ProblemJSON{Line: p.Line, Text: p.Text, Reason: p.Reason})
	}
	out.Summaries = []WrittenJSON{}
	for _, w := range r.Summaries {
		out.Summaries = append(out.Summaries, WrittenJSON{ID: w.Memory.ID, Status: w.Status, Type: w.Memory.Type})
	}
	return out
}

// Recorded is what j says was stored; each memory has its id and type.
func (j RecordedJSON) Recorded() *cairn.LoopRecorded {
	r := &cairn.LoopRecorded{Iteration: j.Iteration.iteration(), MinimalReport: j.MinimalReport}
	for _, w := range j.Memories {
		r.Memories = append(r.Memories, &cairn.WriteResult{Memory: &cairn.Memory{ID: w.ID, Type: w.Type}, Status: w.Status})
	}
	for _, p := range j.Problems {
		r.Problems = append(r.Problems, problem(p))
	}
	for _, w := range j.Summaries {
		r.Summaries = append(r.Summaries, &cairn.WriteResult{Memory: &cairn.Memory{ID: w.ID, Type: w.Type}, Status: w.Status})
	}
	return r
}

// ContextRequestJSON is the body of POST /loop/context.
type ContextRequestJSON struct {
	Task        string   `json:"task"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Files       []string `json:"files,omitempty"`
	Budget      int      `json:"budget,omitempty"`
	Iteration   int      `json:"iteration,omitempty"`
	Format      string   `json:"format,omitempty"`
	Explain     bool     `json:"explain,omitempty"`
	PolicyJSON
}

// Request is the request of j, at now.
func (j ContextRequestJSON) Request(now time.Time) cairn.LoopContextRequest {
	return cairn.LoopContextRequest{Task: j.Task, Title: j.Title, Description: j.Description, Files: j.Files, Budget: j.Budget,
		Iteration: j.Iteration, Tiers: j.Tiers, Policy: j.Policy(), Format: j.Format, Explain: j.Explain, Now: now}
}

// ContextRequestJSONOf is req as JSON.
func ContextRequestJSONOf(req cairn.LoopContextRequest) ContextRequestJSON {
	return ContextRequestJSON{Task: req.Task, Title: req.Title, Description: req.Description, Files: req.Files,
		Budget: req.Budget, Iteration: req.Iteration, Format: req.Format, Explain: req.Explain,
		PolicyJSON: PolicyJSONOf(req.Policy, req.Tiers)}
}

// ContextJSON answers POST /loop/context.
type ContextJSON struct {
	Text    string     `json:"text"`
	IDs     []string   `json:"ids"`
	Explain string     `json:"explain,omitempty"`
	Model   ChoiceJSON `json:"model"`
}

// ContextJSONOf is c as JSON.
func ContextJSONOf(c *cairn.LoopContext) ContextJSON {
	out := ContextJSON{Text: c.Text, IDs: []string{}, Explain: c.Explain, Model: ChoiceJSONOf(c.Choice)}
	for _, id := range c.IDs {
		if id != "" {
			out.IDs = append(out.IDs, id)
		}
	}
	return out
}

// Context is the context j holds (its text, the ids placed, the explain
// report and the model choice).
func (j ContextJSON) Context() *cairn.LoopContext {
	return &cairn.LoopContext{Text: j.Text, IDs: j.IDs, Explain: j.Explain, Choice: j.Model.Choice()}
}

// ChoiceJSON answers GET /loop/model.
type ChoiceJSON struct {
	Model               string `json:"model"`
	Tier                int    `json:"tier"`
	Reason              string `json:"reason"`
	Attempts            int    `json:"attempts"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	Stuck               bool   `json:"stuck"`
	Flagged             bool   `json:"flagged"`
	RecentDone          int    `json:"recent_done"`
	RecentCount         int    `json:"recent_count"`
}

// ChoiceJSONOf is c as JSON.
func ChoiceJSONOf(c *cairn.LoopChoice) ChoiceJSON {
	if c == nil {
		return ChoiceJSON{}
	}
	return ChoiceJSON{Model: c.Model, Tier: c.Tier, Reason: c.Reason, Attempts: c.State.Attempts,
		ConsecutiveFailures: c.State.ConsecutiveFailures, Stuck: c.State.Stuck, Flagged: c.State.Flagged,
		RecentDone: c.RecentDone, RecentCount: c.RecentCount}
}

// Choice is the choice j holds (its task state without the iterations).
func (j ChoiceJSON) Choice() *cairn.LoopChoice {
	return &cairn.LoopChoice{Model: j.Model, Tier: j.Tier, Reason: j.Reason, RecentDone: j.RecentDone, RecentCount: j.RecentCount,
		State: cairn.TaskState{Attempts: j.Attempts, ConsecutiveFailures: j.ConsecutiveFailures, Stuck: j.Stuck, Flagged: j.Flagged}}
}

// TaskJSON is one task of GET /loop/status.
type TaskJSON struct {
	Task                string `json:"task"`
	Attempts            int    `json:"attempts"`
	Failures            int    `json:"failures"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	LastOutcome         string `json:"last_outcome"`
	LastModel           string `json:"last_model"`
	LastAt              string `json:"last_at"`
	Difficulty          string `json:"difficulty"`
	Done                bool   `json:"done"`
	Stuck               bool   `json:"stuck"`
	Flagged             bool   `json:"flagged"`
}

// StatusJSON answers GET /loop/status.
type StatusJSON struct {
	Tasks []TaskJSON `json:"tasks"`
}

// StatusJSONOf is states as JSON.
func StatusJSONOf(states []cairn.TaskState) StatusJSON {
	out := StatusJSON{Tasks: []TaskJSON{}}
	for _, st := range states {
		at := ""
		if !st.LastAt.IsZero() {
			at = st.LastAt.UTC().Format(time.RFC3339Nano)
		}
		out.Tasks = append(out.Tasks, TaskJSON{Task: st.Task, Attempts: st.Attempts, Failures: st.Failures,
			ConsecutiveFailures: st.ConsecutiveFailures, LastOutcome: st.LastOutcome, LastModel: st.LastModel,
			LastAt: at, Difficulty: st.Difficulty, Done: st.Done, Stuck: st.Stuck, Flagged: st.Flagged})
	}
	return out
}

// States are the task states j holds (without their iterations).
func (j StatusJSON) States() []cairn.TaskState {
	out := make([]cairn.TaskState, 0, len(j.Tasks))
	for _, t := range j.Tasks {
		at, _ := time.Parse(time.RFC3339Nano, t.LastAt)
		out = append(out, cairn.TaskState{Task: t.Task, Attempts: t.Attempts, Failures: t.Failures,
			ConsecutiveFailures: t.ConsecutiveFailures, LastOutcome: t.LastOutcome, LastModel: t.LastModel,
			LastAt: at, Difficulty: t.Difficulty, Done: t.Done, Stuck: t.Stuck, Flagged: t.Flagged})
	}
	return out
}

// PruneJSON is the body of POST /loop/prune: durations in hours, 0 for the
// defaults.
type PruneJSON struct {
	ArchiveAfterHours   float64 `json:"archive_after_hours,omitempty"`
	AggregateAfterHours float64 `json:"aggregate_after_hours,omitempty"`
}

// Options are the prune options of j, at now.
func (j PruneJSON) Options(now time.Time) cairn.LoopPruneOptions {
	return cairn.LoopPruneOptions{ArchiveAfter: time.Duration(j.ArchiveAfterHours * float64(time.Hour)),
		AggregateAfter: time.Duration(j.AggregateAfterHours * float64(time.Hour)), Now: now}
}

// PruneJSONOf is o as JSON.
func PruneJSONOf(o cairn.LoopPruneOptions) PruneJSON {
	return PruneJSON{ArchiveAfterHours: o.ArchiveAfter.Hours(), AggregateAfterHours: o.AggregateAfter.Hours()}
}

// PrunedJSON answers POST /loop/prune.
type PrunedJSON struct {
	Archived   []string `json:"archived"`
	Aggregated int      `json:"aggregated"`
}

// PrunedJSONOf is p as JSON.
func PrunedJSONOf(p *cairn.LoopPruned) PrunedJSON {
	return PrunedJSON{Archived: append([]string{}, p.Archived...), Aggregated: p.Aggregated}
}

// Pruned is what j says was done.
func (j PrunedJSON) Pruned() *cairn.LoopPruned {
	return &cairn.LoopPruned{Archived: j.Archived, Aggregated: j.Aggregated}
}

func problem(p ProblemJSON) cairn.SignalProblem {
	return cairn.SignalProblem{Line: p.Line, Text: p.Text, Reason: p.Reason}
}
