package mcpserver

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/memtool"
)

// memoryToolSchema is the input of Anthropic's memory tool
// (memory_20250818), field for field.
func memoryToolSchema() *jsonschema.Schema {
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"command"},
		Properties: map[string]*jsonschema.Schema{
			"command": {Type: "string", Enum: []any{"view", "create", "str_replace", "insert", "delete", "rename"},
				Description: "what to do: view a directory or file, create a file, str_replace text in it, insert lines, delete or rename a file or directory"},
			"path": str("the file or directory, /memories or a path under it (all commands but rename)"),
			"view_range": {Type: "array", Items: &jsonschema.Schema{Type: "integer"}, MinItems: jsonschema.Ptr(2), MaxItems: jsonschema.Ptr(2),
				Description: "view of a file: [first line, last line], 1-based; -1 as the last line means the end"},
			"file_text":   str("create: the whole text of the file"),
			"old_str":     str("str_replace: the text to replace; it must occur exactly once"),
			"new_str":     str("str_replace: the replacement (left out: old_str is deleted)"),
			"insert_line": {Type: "integer", Minimum: jsonschema.Ptr(0.0), Description: "insert: the line after which to insert (0: before the first line)"},
			"insert_text": str("insert: the text to insert"),
			"old_path":    str("rename: the file or directory to rename"),
			"new_path":    str("rename: its new path"),
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// registerMemoryTool registers Anthropic's file-style memory tool
// (memory_20250818) as the MCP tool "memory": the /memories directory it
// shows is a view of this project's memories (package memtool), so what
// an agent writes there is searched and injected like any other memory.
// Its answers are memtool's, which follow Anthropic's reference; a
// mistake in the command is a tool error with memtool's message, and a
// store failure a tool error that reveals nothing of it (logged).
func registerMemoryTool(srv *mcp.Server, s *server) {
	tool := memtool.New(s.eng, s.project)
	mcp.AddTool(srv, &mcp.Tool{
		Name: memtool.ToolName,
		Description: "Anthropic's memory tool (memory_20250818): read and write notes as files under /memories " +
			"(view, create, str_replace, insert, delete, rename). Each file is one cairn memory of this project.",
		InputSchema: memoryToolSchema(),
		Annotations: annotations("Memory files", false, true, false),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, c memtool.Command) (*mcp.CallToolResult, any, error) {
		out, err := tool.Run(ctx, c)
		if err != nil {
			var me *memtool.Error
			if !errors.As(err, &me) {
				s.log.Error("tool failed", "tool", memtool.ToolName, "project", s.project, "err", err)
			}
			return nil, nil, &toolErr{msg: memtool.ErrorText(err)}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil, nil
	})
}
