package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/loop"
)

// Iteration memory for agent loops (seed 003): the same as cairn loop.

// LoopRecordIn is one finished iteration of an agent loop.
type LoopRecordIn struct {
	Task       string  `json:"task" jsonschema:"the task's id in the loop"`
	Iteration  int     `json:"iteration" jsonschema:"the loop's iteration number, from 1"`
	Outcome    string  `json:"outcome" jsonschema:"done, failed or no-signal"`
	Model      string  `json:"model,omitempty" jsonschema:"the model or tier that ran it"`
	DurationMS int64   `json:"duration_ms,omitempty" jsonschema:"how long it took, in milliseconds"`
	CostUSD    float64 `json:"cost_usd,omitempty" jsonschema:"what it cost, in dollars"`
	Result     string  `json:"result,omitempty" jsonschema:"the agent's output: its <failure-report>, <learning>, <difficulty-estimate> and MEMORY: signals are stored"`
	Run        string  `json:"run,omitempty" jsonschema:"the loop run's id, when it has one"`
	Agent      string  `json:"agent,omitempty" jsonschema:"the agent that ran, e.g. claude"`
	Session    string  `json:"session,omitempty" jsonschema:"the agent session id"`
}

// LoopRecordOut is what was stored.
type LoopRecordOut struct {
	FailureID     string   `json:"failure_id,omitempty"`
	Difficulty    string   `json:"difficulty,omitempty"`
	MemoryIDs     []string `json:"memory_ids"`
	MinimalReport bool     `json:"minimal_report"`
	Problems      []string `json:"problems,omitempty"`
}

// LoopContextIn asks for the next iteration's context on a task.
type LoopContextIn struct {
	Task        string   `json:"task" jsonschema:"the task's id"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Files       []string `json:"files,omitempty" jsonschema:"files the task is about"`
	Budget      int      `json:"budget,omitempty" jsonschema:"the most characters (default from the configuration, 4000)"`
}

// LoopModelIn asks for the model tier of the next attempt.
type LoopModelIn struct {
	Task  string   `json:"task" jsonschema:"the task's id"`
	Tiers []string `json:"tiers,omitempty" jsonschema:"model tiers, cheapest first (default from the configuration)"`
}

// LoopModelOut is the choice and why.
type LoopModelOut struct {
	Model               string `json:"model"`
	Reason              string `json:"reason"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	Stuck               bool   `json:"stuck"`
	Flagged             bool   `json:"flagged"`
}

// LoopStatusIn filters the status.
type LoopStatusIn struct {
	NeedsAttention bool `json:"needs_attention,omitempty" jsonschema:"only the tasks that are stuck or flagged for human review"`
}

// LoopTaskOut is one task's state.
type LoopTaskOut struct {
	Task                string `json:"task"`
	Attempts            int    `json:"attempts"`
	Failures            int    `json:"failures"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	LastOutcome         string `json:"last_outcome,omitempty"`
	Stuck               bool   `json:"stuck"`
	Flagged             bool   `json:"flagged"`
}

// LoopStatusOut is every task, flagged and stuck ones first.
type LoopStatusOut struct {
	Tasks []LoopTaskOut `json:"tasks"`
}

func (s *server) addLoopTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "loop_record",
		InputSchema: inputSchemaFor[LoopRecordIn](),
		Description: "Record one finished iteration of an agent loop: its outcome and metrics, the signals of its result, " +
			"and a failure report (a minimal one made from the result when a failed iteration wrote none).",
		Annotations: annotations("Record a loop iteration", false, false, true),
	}, s.loopRecord)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "loop_context",
		InputSchema: inputSchemaFor[LoopContextIn](),
		Description: "What the next iteration on a task needs: Previous Attempts (what was tried, the error, what to avoid), " +
			"Learnings from Previous Iterations, Loop Status and, when the task keeps failing, a Stuck Loop Warning.",
		Annotations: annotations("Loop context for a task", true, false, true),
	}, s.loopContext)
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "loop_model",
		InputSchema:  inputSchemaFor[LoopModelIn](),
		Description:  "The model tier for the next attempt at a task, from the recorded metrics, and why.",
		OutputSchema: schemaFor[LoopModelOut](),
		Annotations:  annotations("Choose a model tier", true, false, true),
	}, s.loopModel)
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "loop_status",
		InputSchema:  inputSchemaFor[LoopStatusIn](),
		Description:  "Every task of the loop with its attempts and failures; tasks flagged for human review and stuck ones first.",
		OutputSchema: schemaFor[LoopStatusOut](),
		Annotations:  annotations("Loop status", true, false, true),
	}, s.loopStatus)
}

func (s *server) loopPolicy() (loop.Policy, []string, int, error) {
	cfg, err := s.config()
	if err != nil {
		return loop.Policy{}, nil, 0, err
	}
	return loop.PolicyOf(cfg.Loop), cfg.Loop.Tiers, cfg.Loop.BudgetChars, nil
}

func (s *server) loopRecord(ctx context.Context, _ *mcp.CallToolRequest, in LoopRecordIn) (*mcp.CallToolResult, LoopRecordOut, error) {
	r, err := loop.RecordIteration(ctx, s.eng, loop.Record{Project: s.project, Run: in.Run, Task: in.Task, Iteration: in.Iteration,
		Model: in.Model, Outcome: in.Outcome, DurationMS: in.DurationMS, CostUSD: in.CostUSD, Result: in.Result,
		Agent: in.Agent, Session: in.Session, Now: s.eng.Now()})
	if err != nil {
		return nil, LoopRecordOut{}, s.toolError("loop_record", err)
	}
	out := LoopRecordOut{FailureID: r.Iteration.FailureID, Difficulty: r.Iteration.Difficulty, MemoryIDs: []string{}, MinimalReport: r.MinimalReport}
	for _, w := range r.Memories {
		out.MemoryIDs = append(out.MemoryIDs, w.Memory.ID)
	}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, fmt.Sprintf("line %d: %s", p.Line, p.Reason))
	}
	text := fmt.Sprintf("recorded iteration %d of task %s (%s); %d memories", r.Iteration.Iteration, r.Iteration.Task, r.Iteration.Outcome, len(out.MemoryIDs))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

func (s *server) loopContext(ctx context.Context, _ *mcp.CallToolRequest, in LoopContextIn) (*mcp.CallToolResult, ContextOut, error) {
	p, tiers, budget, err := s.loopPolicy()
	if err != nil {
		return nil, ContextOut{}, s.toolError("loop_context", err)
	}
	if in.Budget > 0 {
		budget = in.Budget
	}
	c, err := loop.BuildContext(ctx, s.eng, loop.ContextRequest{Project: s.project, Task: in.Task, Title: in.Title,
		Description: in.Description, Files: in.Files, Budget: budget, Tiers: tiers, Policy: p, Now: s.eng.Now()})
	if err != nil {
		return nil, ContextOut{}, s.toolError("loop_context", err)
	}
	out := ContextOut{Block: c.Text, IDs: []string{}}
	for _, pl := range c.Placed {
		if pl.ID != "" {
			out.IDs = append(out.IDs, pl.ID)
		}
	}
	text := c.Text
	if strings.TrimSpace(text) == "" {
		text = "Nothing is recorded for this task yet."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

func (s *server) loopModel(ctx context.Context, _ *mcp.CallToolRequest, in LoopModelIn) (*mcp.CallToolResult, LoopModelOut, error) {
	p, tiers, _, err := s.loopPolicy()
	if err != nil {
		return nil, LoopModelOut{}, s.toolError("loop_model", err)
	}
	if len(in.Tiers) > 0 {
		tiers = in.Tiers
	}
	if strings.TrimSpace(in.Task) == "" {
		return nil, LoopModelOut{}, s.toolError("loop_model", cairn.Errorf(cairn.EINVALID, "the task is required"))
	}
	c, err := loop.ChooseModel(ctx, s.eng, s.project, in.Task, tiers, p)
	if err != nil {
		return nil, LoopModelOut{}, s.toolError("loop_model", err)
	}
	return nil, LoopModelOut{Model: c.Model, Reason: c.Reason, ConsecutiveFailures: c.State.ConsecutiveFailures,
		Stuck: c.State.Stuck, Flagged: c.State.Flagged}, nil
}

func (s *server) loopStatus(ctx context.Context, _ *mcp.CallToolRequest, in LoopStatusIn) (*mcp.CallToolResult, LoopStatusOut, error) {
	p, _, _, err := s.loopPolicy()
	if err != nil {
		return nil, LoopStatusOut{}, s.toolError("loop_status", err)
	}
	states, err := loop.Status(ctx, s.eng, s.project, p)
	if err != nil {
		return nil, LoopStatusOut{}, s.toolError("loop_status", err)
	}
	out := LoopStatusOut{Tasks: []LoopTaskOut{}}
	for _, st := range states {
		if in.NeedsAttention && !st.Stuck {
			continue // flagged tasks are stuck too
		}
		out.Tasks = append(out.Tasks, LoopTaskOut{Task: st.Task, Attempts: st.Attempts, Failures: st.Failures,
			ConsecutiveFailures: st.ConsecutiveFailures, LastOutcome: st.LastOutcome, Stuck: st.Stuck, Flagged: st.Flagged})
	}
	return nil, out, nil
}
