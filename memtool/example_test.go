package memtool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/memtool"
	"github.com/cairn-dev/cairn/sqlite"
)

// An application calling the Messages API declares the tool as
// {"type": "memory_20250818", "name": "memory"}, and for each memory
// tool_use block answers a tool_result with what Handle returns.
func ExampleTool_Handle() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "memtool")
	defer os.RemoveAll(dir)
	st, err := sqlite.Open(ctx, filepath.Join(dir, "cairn.db"), nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	tool := memtool.New(engine.New(st, nil), "myproject")

	for _, input := range []string{
		`{"command": "create", "path": "/memories/auth.md", "file_text": "Refresh returns nil, nil for unknown tokens.\n"}`,
		`{"command": "view", "path": "/memories"}`,
		`{"command": "view", "path": "/memories/auth.md"}`,
		`{"command": "view", "path": "/memories/nope.md"}`,
	} {
		result, isError := tool.Handle(ctx, json.RawMessage(input))
		fmt.Printf("is_error=%v\n%s\n", isError, result)
	}
	// Output:
	// is_error=false
	// File created successfully at: /memories/auth.md
	// is_error=false
	// Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:
	// 45B	/memories
	// 45B	/memories/auth.md
	// is_error=false
	// Here's the content of /memories/auth.md with line numbers:
	//      1	Refresh returns nil, nil for unknown tokens.
	// is_error=true
	// The path /memories/nope.md does not exist. Please provide a valid path.
}
