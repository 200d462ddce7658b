package mcpserver

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RecallFileIn are the arguments of the recall_file tool.
type RecallFileIn struct {
	Path   string `json:"path" jsonschema:"the file's path, relative to the project's folder (e.g. internal/auth/token.go)"`
	Budget int    `json:"budget,omitempty" jsonschema:"answer in at most this many tokens (default 800, at least 50)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many memories, 1 to 100 (default 10)"`
}

// RecallErrorIn are the arguments of the recall_error tool.
type RecallErrorIn struct {
	Error  string `json:"error" jsonschema:"the error text or the failing output, as it was printed"`
	Budget int    `json:"budget,omitempty" jsonschema:"answer in at most this many tokens (default 800, at least 50)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many memories, 1 to 100 (default 10)"`
}

// RecallCommandIn are the arguments of the recall_command tool.
type RecallCommandIn struct {
	Command string `json:"command" jsonschema:"the tool or the start of the command, e.g. go test, pytest, make"`
	Budget  int    `json:"budget,omitempty" jsonschema:"answer in at most this many tokens (default 800, at least 50)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many command lines and memories, 1 to 100 (default 10)"`
}

func (s *server) addLookupTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "recall_file",
		InputSchema:  inputSchemaFor[RecallFileIn](),
		Description:  "What is known about a file before you change it: the decisions, pitfalls and fixes that name it, and the sessions that changed it, ranked, within a token budget.",
		OutputSchema: schemaFor[wire.Lookup](),
		Annotations:  annotations("What is known about a file", true, false, true),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RecallFileIn) (*mcp.CallToolResult, wire.Lookup, error) {
		return s.lookup(ctx, "recall_file", cairn.LookupRequest{Kind: cairn.LookupFile, Subject: in.Path, Budget: in.Budget, Limit: in.Limit})
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "recall_error",
		InputSchema:  inputSchemaFor[RecallErrorIn](),
		Description:  "What fixed this error before: the fixes of the same failure, then related pitfalls and issues; nothing when no memory matches well.",
		OutputSchema: schemaFor[wire.Lookup](),
		Annotations:  annotations("What fixed an error", true, false, true),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RecallErrorIn) (*mcp.CallToolResult, wire.Lookup, error) {
		return s.lookup(ctx, "recall_error", cairn.LookupRequest{Kind: cairn.LookupError, Subject: in.Error, Budget: in.Budget, Limit: in.Limit})
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "recall_command",
		InputSchema:  inputSchemaFor[RecallCommandIn](),
		Description:  "How a command was run when it worked: the command lines that passed (most often seen first, with when), and what the memories say about running it.",
		OutputSchema: schemaFor[wire.Lookup](),
		Annotations:  annotations("How a command was run", true, false, true),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RecallCommandIn) (*mcp.CallToolResult, wire.Lookup, error) {
		return s.lookup(ctx, "recall_command", cairn.LookupRequest{Kind: cairn.LookupCommand, Subject: in.Command, Budget: in.Budget, Limit: in.Limit})
	})
}

func (s *server) lookup(ctx context.Context, tool string, req cairn.LookupRequest) (*mcp.CallToolResult, wire.Lookup, error) {
	req.Project = s.project
	res, err := s.eng.Lookup(ctx, req)
	if err != nil {
		return nil, wire.Lookup{}, s.toolError(tool, err)
	}
	text := res.Text
	if text == "" {
		text = "nothing is known about " + res.Subject
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, wire.LookupOf(res), nil
}
