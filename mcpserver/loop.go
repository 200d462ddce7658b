package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Iteration memory for agent loops (seed 003): the same as cairn loop.

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

// LoopStatusIn filters the status.
type LoopStatusIn struct {
	NeedsAttention bool `json:"needs_attention,omitempty" jsonschema:"only the tasks that are stuck or flagged for human review"`
}

func (s *server) addLoopTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "loop_record",
		InputSchema: inputSchemaFor[wire.RecordJSON](),
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
		OutputSchema: schemaFor[wire.ChoiceJSON](),
		Annotations:  annotations("Choose a model tier", true, false, true),
	}, s.loopModel)
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "loop_status",
		InputSchema:  inputSchemaFor[LoopStatusIn](),
		Description:  "Every task of the loop with its attempts and failures; tasks flagged for human review and stuck ones first.",
		OutputSchema: schemaFor[wire.StatusJSON](),
		Annotations:  annotations("Loop status", true, false, true),
	}, s.loopStatus)
}

func (s *server) loopPolicy(ctx context.Context) (cairn.LoopPolicy, []string, int, error) {
	cfg, err := s.settings(ctx)
	if err != nil {
		return cairn.LoopPolicy{}, nil, 0, err
	}
	return cfg.Loop.Policy(), cfg.Loop.Tiers, cfg.Loop.BudgetChars, nil
}

func (s *server) loopRecord(ctx context.Context, _ *mcp.CallToolRequest, in wire.RecordJSON) (*mcp.CallToolResult, wire.RecordedJSON, error) {
	r, err := s.eng.LoopRecord(ctx, in.Record(s.eng.Now()))
	if err != nil {
		return nil, wire.RecordedJSON{}, s.toolError("loop_record", err)
	}
	text := fmt.Sprintf("recorded iteration %d of task %s (%s); %d %s", r.Iteration.Iteration, r.Iteration.Task, r.Iteration.Outcome, len(r.Memories), plural(len(r.Memories), "memory", "memories"))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, wire.RecordedJSONOf(r), nil
}

func (s *server) loopContext(ctx context.Context, _ *mcp.CallToolRequest, in LoopContextIn) (*mcp.CallToolResult, ContextOut, error) {
	p, tiers, budget, err := s.loopPolicy(ctx)
	if err != nil {
		return nil, ContextOut{}, s.toolError("loop_context", err)
	}
	if in.Budget > 0 {
		budget = in.Budget
	}
	c, err := s.eng.LoopContext(ctx, cairn.LoopContextRequest{Project: s.project, Task: in.Task, Title: in.Title,
		Description: in.Description, Files: in.Files, Budget: budget, Tiers: tiers, Policy: p, Root: s.root, Now: s.eng.Now()})
	if err != nil {
		return nil, ContextOut{}, s.toolError("loop_context", err)
	}
	j := wire.ContextJSONOf(c)
	text := c.Text
	if strings.TrimSpace(text) == "" {
		text = "Nothing is recorded for this task yet."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, ContextOut{Block: j.Text, IDs: j.IDs}, nil
}

func (s *server) loopModel(ctx context.Context, _ *mcp.CallToolRequest, in LoopModelIn) (*mcp.CallToolResult, wire.ChoiceJSON, error) {
	p, tiers, _, err := s.loopPolicy(ctx)
	if err != nil {
		return nil, wire.ChoiceJSON{}, s.toolError("loop_model", err)
	}
	if len(in.Tiers) > 0 {
		tiers = in.Tiers
	}
	if strings.TrimSpace(in.Task) == "" {
		return nil, wire.ChoiceJSON{}, s.toolError("loop_model", cairn.Errorf(cairn.EINVALID, "the task is required"))
	}
	c, err := s.eng.LoopModel(ctx, in.Task, tiers, p)
	if err != nil {
		return nil, wire.ChoiceJSON{}, s.toolError("loop_model", err)
	}
	return nil, wire.ChoiceJSONOf(c), nil
}

func (s *server) loopStatus(ctx context.Context, _ *mcp.CallToolRequest, in LoopStatusIn) (*mcp.CallToolResult, wire.StatusJSON, error) {
	p, _, _, err := s.loopPolicy(ctx)
	if err != nil {
		return nil, wire.StatusJSON{}, s.toolError("loop_status", err)
	}
	states, err := s.eng.LoopStatus(ctx, p)
	if err != nil {
		return nil, wire.StatusJSON{}, s.toolError("loop_status", err)
	}
	if in.NeedsAttention {
		states = slices.DeleteFunc(states, func(st cairn.TaskState) bool { return !st.Stuck }) // flagged tasks are stuck too
	}
	return nil, wire.StatusJSONOf(states), nil
}
