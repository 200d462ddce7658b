package mcpserver_test

// BenchmarkMCPSearch100k: one `search` tool call (limit 10) through the
// SDK's client and the in-memory transport, against a server whose engine
// keeps 64 MiB of postings in memory as `cairn serve` and `cairn mcp` do:
// JSON-RPC, schema validation, the search and the answer's encoding. The
// corpus is bench/gen's (100,000 memories of project "bench", vocabulary
// and corpus seed 1), generated with `go run ./bench/gen` and imported
// once per process; each measured call asks a query not asked before
// (seed 3). Budget: p50 ≤ 2 ms.
//
//	go test -run '^$' -bench MCPSearch -benchtime 2000x ./mcpserver
//
// CAIRN_BENCH_N sets the number of memories (default 100000).

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/bench/latency"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/wire"
)

const benchNow = "2026-11-01T00:00:00Z"

// gen runs bench/gen with args and returns its output.
func gen(b *testing.B, args ...string) []byte {
	b.Helper()
	cmd := exec.Command("go", append([]string{"run", "../bench/gen"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("go run ../bench/gen %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

func BenchmarkMCPSearch100k(b *testing.B) {
	n := "100000"
	if v := os.Getenv("CAIRN_BENCH_N"); v != "" {
		n = v
	}
	ctx := context.Background()
	now, _ := time.Parse(time.RFC3339, benchNow)
	path := filepath.Join(b.TempDir(), "bench.db")
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	corpus := gen(b, "-n", n, "-project", "bench", "-seed", "1", "-now", benchNow)
	rep, err := engine.New(st, &engine.Options{Now: func() time.Time { return now }}).
		Import(ctx, wire.Read(bytes.NewReader(corpus)), cairn.ImportOptions{Project: "bench"})
	if err != nil || len(rep.Skipped) > 0 {
		b.Fatalf("import: %v %+v", err, rep)
	}
	if err := st.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
	// Every measured call asks a query not asked before (up to 5,000), so
	// that the searches the engine keeps do not answer it; 200 others warm
	// the server up.
	var queries []string
	seen := map[string]bool{}
	for _, q := range strings.Split(strings.TrimSpace(string(gen(b, "-queries", "12000", "-seed", "3"))), "\n") {
		if !seen[q] && len(queries) < 5200 {
			seen[q] = true
			queries = append(queries, q)
		}
	}

	eng := engine.New(st, &engine.Options{CacheBytes: 64 << 20, Now: func() time.Time { return now }})
	srv, err := mcpserver.New(mcpserver.Options{Service: local.New(eng, "bench", nil), Project: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ct, stt := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, stt, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	search := func(q string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": q, "limit": 10}})
		if err != nil || res.IsError {
			b.Fatalf("search %q: %v %v", q, err, res)
		}
	}
	latency.BenchFresh(b, queries[:200], queries[200:], search)
}
