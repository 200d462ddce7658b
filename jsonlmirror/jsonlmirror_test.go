package jsonlmirror_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/jsonlmirror"
	"github.com/cairn-dev/cairn/sqlite"
)

func TestTheFilesFollowTheWritesOfAnyProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	st, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := engine.New(st, nil)
	// Another process's engine over the same file writes.
	st2, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	other := engine.New(st2, nil)

	dir := filepath.Join(t.TempDir(), "data", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.jsonl"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	writes := 0
	m := &jsonlmirror.Mirror{Eng: eng, Project: "p", Dir: dir, Debounce: 50 * time.Millisecond,
		Written: func(map[string]int, error) { mu.Lock(); writes++; mu.Unlock() }}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()

	add := func(typ, content string) string {
		w, err := other.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: typ, Content: content})
		if err != nil {
			t.Fatal(err)
		}
		return w.Memory.ID
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(dir, name)); return string(b) }
	add("decision", "Chose dayjs over moment.js")
	pit := add("pitfall", "The sandbox refuses refunds on test cards")
	add("decision", "API uses REST, not GraphQL")
	waitFor("the decisions and the pitfall", func() bool {
		return strings.Count(read("decision.jsonl"), "\n") == 2 && strings.Contains(read("pitfall.jsonl"), "refunds")
	})
	if err := other.DeleteMemory(t.Context(), pit); err != nil {
		t.Fatal(err)
	}
	waitFor("pitfall.jsonl to go", func() bool {
		_, err := os.Stat(filepath.Join(dir, "pitfall.jsonl"))
		return os.IsNotExist(err)
	})
	if read("notes.jsonl") != "mine\n" {
		t.Error("a file the mirror does not own was changed")
	}
	// Another project's writes are not this project's files.
	if _, err := other.AddMemory(t.Context(), &cairn.Memory{Project: "q", Type: "issue", Content: "elsewhere"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "issue.jsonl")); err == nil {
		t.Error("another project's memory was written")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if writes < 2 || writes > 6 {
		t.Errorf("%d writes for 5 changes in bursts: debounced?", writes)
	}
}
