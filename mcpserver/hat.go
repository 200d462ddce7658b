package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/capture"
)

// HatTransitionIn are the arguments of the hat_transition tool.
type HatTransitionIn struct {
	Transition string `json:"transition" jsonschema:"the hand-over: explorer:planner (keeps architecture and dependencies) or planner:creator (keeps decisions and constraints)"`
	Output     string `json:"output" jsonschema:"what the agent wrote at that point (its findings, or its plan)"`
	Session    string `json:"session,omitempty" jsonschema:"the current session id"`
	Agent      string `json:"agent,omitempty" jsonschema:"the agent, e.g. claude"`
	Task       string `json:"task,omitempty" jsonschema:"the task id"`
}

// HatTransitionOut is what hat_transition stored.
type HatTransitionOut struct {
	Stored []WriteOut `json:"stored"`
}

func (s *server) addHatTool(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "hat_transition",
		InputSchema: inputSchemaFor[HatTransitionIn](),
		Description: "At a hand-over between roles, keep what the next sessions need from the output: " +
			"explorer:planner stores the architecture and dependencies it describes, planner:creator the decisions and constraints " +
			"(sentences and list items, no model). The same sentence again reinforces the memory stored.",
		OutputSchema: schemaFor[HatTransitionOut](),
		Annotations:  annotations("Extract at a hat transition", false, false, false),
	}, s.hatTransition)
}

func (s *server) hatTransition(ctx context.Context, _ *mcp.CallToolRequest, in HatTransitionIn) (*mcp.CallToolResult, HatTransitionOut, error) {
	sigs, err := capture.HatTransition(in.Transition, in.Output)
	if err != nil {
		return nil, HatTransitionOut{}, &toolErr{msg: "invalid input: " + err.Error() + " (correct the arguments and call again)"}
	}
	hat, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(in.Transition)), ":")
	out := HatTransitionOut{Stored: []WriteOut{}}
	for _, sig := range sigs {
		m := sig.MemoryFrom(s.project, capture.Provenance{Hat: hat, Agent: in.Agent, Task: in.Task, Session: in.Session})
		res, err := s.eng.AddMemory(ctx, m)
		if err != nil {
			return nil, HatTransitionOut{}, s.toolError("hat_transition", err)
		}
		out.Stored = append(out.Stored, WriteOut{ID: res.Memory.ID, Status: res.Status, Type: res.Memory.Type, Title: res.Memory.Title, Project: res.Memory.Project})
	}
	text := fmt.Sprintf("stored %d %s from the %s hand-over", len(out.Stored), plural(len(out.Stored), "memory", "memories"), in.Transition)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// plural is one or many, by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
