package server

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/jobs"
	"github.com/cairn-dev/cairn/mcpserver"
)

// The stdio MCP server over an engine owns its use writer: a context
// block's use is written in a batch after the answer, and at the latest
// when the session ends; a line that is not JSON is answered and the
// session goes on.
func TestStdioWritesTheUsesOfItsSessionWhenItEnds(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, filepath.Join(t.TempDir(), "c.db"))
	mem := addMemory(t, eng, &cairn.Memory{Project: "p", Type: "fix", Content: "Give each flaky auth test its own fake clock."})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var log syncBuffer
	stdio, err := NewStdio(StdioConfig{
		MCP: mcpserver.Options{Project: "p"}, Engine: eng,
		Uses: jobs.UseWriterConfig{FlushWait: time.Hour, MaxAge: time.Hour}, In: inR, Out: outW, Log: &log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- stdio.Run(t.Context()); outW.Close() }()
	answers := bufio.NewScanner(outR)
	answers.Buffer(nil, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id string) string {
		t.Helper()
		for answers.Scan() {
			var m struct{ ID json.RawMessage }
			if json.Unmarshal(answers.Bytes(), &m) == nil && string(m.ID) == id {
				return answers.Text()
			}
		}
		t.Fatalf("no answer to %s: %v", id, answers.Err())
		return ""
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	answer("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`not json`)
	if a := answer("null"); !strings.Contains(a, "-32700") {
		t.Errorf("a line that is not JSON: %s", a)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"context","arguments":{"prompt":"flaky auth clock"}}}`)
	if a := answer("2"); !strings.Contains(a, mem.ID) {
		t.Fatalf("the context tool does not show the memory: %s", a)
	}
	if m, _ := eng.FindMemoryByID(t.Context(), mem.ID); m.UseCount != 0 {
		t.Fatalf("use count %d before the batch was due", m.UseCount)
	}
	inW.Close() // the client goes away
	go io.Copy(io.Discard, outR)
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return once its input closed")
	}
	if m, _ := eng.FindMemoryByID(t.Context(), mem.ID); m.UseCount != 1 {
		t.Errorf("use count %d once the session ended, want 1", m.UseCount)
	}
	if !strings.Contains(log.String(), "the session goes on") {
		t.Errorf("the refused line is not logged: %q", log.String())
	}
}

// A stdio server takes an engine or a service, not both, and refuses a
// project that is not valid before it starts anything.
func TestNewStdioRefusesWhatCannotBeServed(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, filepath.Join(t.TempDir(), "c.db"))
	for name, cfg := range map[string]StdioConfig{
		"both":       {MCP: mcpserver.Options{Project: "p", Service: fakeService{}}, Engine: eng},
		"neither":    {MCP: mcpserver.Options{Project: "p"}},
		"no project": {Engine: eng},
	} {
		if s, err := NewStdio(cfg); err == nil || cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("%s: %v, %v; want EINVALID", name, s, err)
		}
	}
}

type fakeService struct{ mcpserver.Service }
