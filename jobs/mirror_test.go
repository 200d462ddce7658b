package jobs

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, name))
	return string(b)
}

func setFolder(t *testing.T, ctx context.Context, m *Mirror, project, dir string) {
	t.Helper()
	if err := SetMirrorFolder(ctx, m.eng, project, dir); err != nil {
		t.Fatal(err)
	}
}

func round(t *testing.T, ctx context.Context, m *Mirror) []string {
	t.Helper()
	wrote, failed, err := m.runOnce(ctx)
	if err != nil || len(failed) > 0 {
		t.Fatalf("runOnce: %v %v", failed, err)
	}
	return wrote
}

// The files of every registered project follow the writes of any
// process: a change (not a use) rewrites them at the next round, a type
// without memories loses its file, a file the mirror does not own is left
// alone, and another project's memories never reach them. What was
// written is kept in the store, so a restart rewrites nothing unchanged.
func TestMirrorWritesTheFilesOfEveryRegisteredProjectThatChanged(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path, e, c := openDB(t)
	other := openEngine(t, path, c) // another process writes
	dirP := filepath.Join(t.TempDir(), "p", "memory")
	if err := os.MkdirAll(dirP, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dirP, "notes.jsonl"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewMirror(e, nil)
	setFolder(t, ctx, m, "p", dirP)
	add(t, other, &cairn.Memory{Project: "p", Type: "decision", Content: "Chose dayjs over moment.js"})
	pit := add(t, other, &cairn.Memory{Project: "p", Type: "pitfall", Content: "The sandbox refuses refunds on test cards"})
	used := add(t, other, &cairn.Memory{Project: "p", Type: "decision", Content: "API uses REST, not GraphQL"})
	if got := round(t, ctx, m); !slices.Equal(got, []string{"p"}) {
		t.Fatalf("first round wrote %v", got)
	}
	if strings.Count(read(t, dirP, "decision.jsonl"), "\n") != 2 || !strings.Contains(read(t, dirP, "pitfall.jsonl"), "refunds") {
		t.Fatalf("files: %q %q", read(t, dirP, "decision.jsonl"), read(t, dirP, "pitfall.jsonl"))
	}
	if got := round(t, ctx, m); len(got) != 0 {
		t.Errorf("a round without changes wrote %v", got)
	}
	if err := other.RecordUse(ctx, []string{used.ID}, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := round(t, ctx, m); len(got) != 0 {
		t.Errorf("a use rewrote %v", got)
	}
	if err := other.DeleteMemory(ctx, pit.ID); err != nil {
		t.Fatal(err)
	}
	if got := round(t, ctx, m); !slices.Equal(got, []string{"p"}) {
		t.Fatalf("after a delete: wrote %v", got)
	}
	if _, err := os.Stat(filepath.Join(dirP, "pitfall.jsonl")); !os.IsNotExist(err) {
		t.Errorf("pitfall.jsonl is still there: %v", err)
	}
	if read(t, dirP, "notes.jsonl") != "mine\n" {
		t.Error("a file the mirror does not own was changed")
	}

	// Another project: not in p's files; written once it has a folder.
	add(t, other, &cairn.Memory{Project: "q", Type: "issue", Content: "elsewhere"})
	if got := round(t, ctx, m); len(got) != 0 {
		t.Errorf("another project's write rewrote %v", got)
	}
	if _, err := os.Stat(filepath.Join(dirP, "issue.jsonl")); err == nil {
		t.Error("another project's memory was written into p's folder")
	}
	dirQ := filepath.Join(t.TempDir(), "q")
	setFolder(t, ctx, m, "q", dirQ)
	if got := round(t, ctx, m); !slices.Equal(got, []string{"q"}) || !strings.Contains(read(t, dirQ, "issue.jsonl"), "elsewhere") {
		t.Fatalf("q registered: wrote %v, issue.jsonl %q", got, read(t, dirQ, "issue.jsonl"))
	}

	// A restart finds the files up to date; a change is written.
	again := NewMirror(other, nil)
	if got := round(t, ctx, again); len(got) != 0 {
		t.Errorf("after a restart: wrote %v, want nothing", got)
	}
	add(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: "Webhooks arrive twice"})
	if got := round(t, ctx, again); !slices.Equal(got, []string{"p"}) || !strings.Contains(read(t, dirP, "pitfall.jsonl"), "twice") {
		t.Fatalf("after a restart and a change: wrote %v", got)
	}
	// A project whose folder is taken away is no longer written.
	setFolder(t, ctx, m, "p", "")
	add(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: "Refunds take a day"})
	if got := round(t, ctx, again); len(got) != 0 || strings.Contains(read(t, dirP, "pitfall.jsonl"), "a day") {
		t.Errorf("an unregistered project was written: %v", got)
	}
}

// A folder that cannot be written (a file stands where it should be) is a
// failure naming the project and the folder, tried again at the next
// round; the other projects are written all the same.
func TestMirrorFailureOfOneFolderLeavesTheOthersWritten(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, e, _ := openDB(t)
	blocked := filepath.Join(t.TempDir(), "blocked")
	if err := os.WriteFile(blocked, []byte("a file, not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "good")
	m := NewMirror(e, nil)
	setFolder(t, ctx, m, "a", blocked)
	setFolder(t, ctx, m, "b", good)
	add(t, e, &cairn.Memory{Project: "a", Type: "decision", Content: "a decides"})
	add(t, e, &cairn.Memory{Project: "b", Type: "decision", Content: "b decides"})
	wrote, failed, err := m.runOnce(ctx)
	if err != nil || !slices.Equal(wrote, []string{"b"}) || len(failed) != 1 {
		t.Fatalf("runOnce: wrote %v, failed %v, %v", wrote, failed, err)
	}
	if msg := cairn.ErrorMessage(failed[0]); !strings.Contains(msg, "project a") || !strings.Contains(msg, blocked) {
		t.Errorf("failure %q names neither the project nor the folder", msg)
	}
	if !strings.Contains(read(t, good, "decision.jsonl"), "b decides") {
		t.Error("b's files were not written")
	}
	// Fixed, it is written at the next round.
	os.Remove(blocked)
	if wrote, failed, err := m.runOnce(ctx); err != nil || len(failed) != 0 || !slices.Equal(wrote, []string{"a"}) {
		t.Fatalf("after the fix: wrote %v, failed %v, %v", wrote, failed, err)
	}
}

// Run writes at once, then each Every; its rounds are signalled.
func TestMirrorRunFollowsWritesRoundByRound(t *testing.T) {
	t.Parallel()
	_, e, _ := openDB(t)
	dir := filepath.Join(t.TempDir(), "memory")
	if err := SetMirrorFolder(t.Context(), e, "p", dir); err != nil {
		t.Fatal(err)
	}
	add(t, e, &cairn.Memory{Project: "p", Type: "decision", Content: "Chose dayjs over moment.js"})
	cfg := &MirrorConfig{Every: 5 * time.Millisecond}
	cfg.TestSignals.Init()
	m := NewMirror(e, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	if got := cfg.TestSignals.Ran.Wait(t); !slices.Equal(got, []string{"p"}) || !strings.Contains(read(t, dir, "decision.jsonl"), "dayjs") {
		t.Fatalf("first round: %v", got)
	}
	add(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: "The sandbox refuses refunds"})
	for {
		if got := cfg.TestSignals.Ran.Wait(t); len(got) > 0 {
			break
		}
	}
	if !strings.Contains(read(t, dir, "pitfall.jsonl"), "refunds") {
		t.Fatal("the write did not reach the files")
	}
}

func TestSetMirrorFolderRefusesABadProject(t *testing.T) {
	t.Parallel()
	_, e, _ := openDB(t)
	if err := SetMirrorFolder(t.Context(), e, "", "/tmp/x"); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("empty project: %v", err)
	}
}
