package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/ingest"
	"github.com/cairn-dev/cairn/sqlite"
)

const rollout = "rollout-2026-05-01T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"

func TestFileReadsACodexRolloutOnceAndTheLinesAddedLater(t *testing.T) {
	t.Parallel()
	eng, data := openWithRollout(t)
	// The file holds the first half of the session; the rest comes later.
	lines := strings.SplitAfter(string(data), "\n")
	path := filepath.Join(t.TempDir(), rollout)
	if err := os.WriteFile(path, []byte(strings.Join(lines[:7], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := ingest.Options{Kind: ingest.Codex, Project: "shop"}
	first, err := ingest.File(t.Context(), eng, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Types["fix"] != 0 || first.Types["session"] != 1 {
		t.Errorf("first half: %+v", first.Types)
	}
	again, err := ingest.File(t.Context(), eng, path, opts)
	if err != nil || !again.Unchanged {
		t.Errorf("an unchanged file was read again: %+v %v", again, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rest, err := ingest.File(t.Context(), eng, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The failure read in the first run and the pass in the second make a fix.
	if rest.Types["fix"] != 1 || rest.Types["decision"] != 1 || rest.Status["updated"] != 1 {
		t.Errorf("second half: types %+v status %+v", rest.Types, rest.Status)
	}
	if !strings.Contains(rest.Summary(), "1 fix") {
		t.Errorf("summary: %s", rest.Summary())
	}
	// Bad inputs tried: a kind it does not know, a file that is not there.
	if _, err := ingest.File(t.Context(), eng, path, ingest.Options{Kind: "cursor", Project: "shop"}); err == nil {
		t.Error("an unknown kind was accepted")
	}
	if _, err := ingest.File(t.Context(), eng, path+".missing", opts); err == nil {
		t.Error("a missing file was accepted")
	}
}

// unavailable is a service whose writes fail as a server that stopped
// answering does.
type unavailable struct{ ingest.Service }

func (unavailable) AddMemory(context.Context, *cairn.Memory) (*cairn.WriteResult, error) {
	return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the cairn server does not answer")
}

func (unavailable) IngestBatch(context.Context, string, cairn.IngestBatch) ([]cairn.IngestItem, error) {
	return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the cairn server does not answer")
}

// A batch stores the memories the service accepts and puts the cursor in
// one transaction; a refused memory is reported in its item and the
// others are stored. Bad inputs tried: an empty memory in the middle of a
// batch, a cursor without a source and one with a negative offset (the
// whole batch refused: nothing stored, no cursor), an empty project.
func TestIngestBatchStoresTheAcceptedMemoriesWithTheCursor(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, nil)
	ctx := t.Context()
	mems := func() []*cairn.Memory {
		return []*cairn.Memory{
			{Type: "fix", Content: "Batch: the heron test needs its own clock."},
			{Type: "fix", Content: "   "},
			{Type: "pitfall", Content: "Batch: the heron cache is never evicted.", Project: "elsewhere"},
			{Type: "fix", Content: "Batch: the heron test needs its own clock."},
		}
	}
	for _, bad := range []*cairn.IngestCursor{{Source: " ", Offset: 1}, {Source: "/t.jsonl", Offset: -1}} {
		if _, err := eng.IngestBatch(ctx, "shop", cairn.IngestBatch{Memories: mems(), Cursor: bad}); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("cursor %+v: %v, want EINVALID", bad, err)
		}
	}
	if _, err := eng.IngestBatch(ctx, "", cairn.IngestBatch{Memories: mems()}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("an empty project: %v", err)
	}
	if _, n, _ := eng.FindMemories(ctx, cairn.MemoryFilter{Project: "shop"}); n != 0 {
		t.Fatalf("a refused batch stored %d memories", n)
	}
	items, err := eng.IngestBatch(ctx, "shop", cairn.IngestBatch{Memories: mems(), Cursor: &cairn.IngestCursor{Source: "/t.jsonl", Offset: 42, Pending: "{}"}})
	if err != nil || len(items) != 4 {
		t.Fatalf("batch: %v %v", items, err)
	}
	if items[0].Result.Status != cairn.StatusCreated || cairn.ErrorCode(items[1].Err) != cairn.EINVALID ||
		items[2].Result.Memory.Project != "shop" || items[3].Result.Status != cairn.StatusReinforced || items[3].Result.Memory.ID != items[0].Result.Memory.ID {
		t.Errorf("items: %+v %+v %+v %+v", items[0], items[1], items[2], items[3])
	}
	if c, err := eng.FindIngestCursor(ctx, "shop", "/t.jsonl"); err != nil || c.Offset != 42 || c.Pending != "{}" {
		t.Errorf("cursor after the batch: %+v %v", c, err)
	}
}

// A transcript's cursor is its project's: the same file read into a
// second project is read again there. A service that stops answering
// stops the ingest with its error and leaves the cursor where it was.
func TestFileKeepsACursorPerProjectAndNoneWhenTheServiceIsGone(t *testing.T) {
	t.Parallel()
	eng, data := openWithRollout(t)
	path := filepath.Join(t.TempDir(), rollout)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.File(t.Context(), unavailable{eng}, path, ingest.Options{Kind: ingest.Codex, Project: "shop"}); cairn.ErrorCode(err) != cairn.EUNAVAILABLE {
		t.Fatalf("an ingest through a service that is gone: %v, want EUNAVAILABLE", err)
	}
	if c, err := eng.FindIngestCursor(t.Context(), "shop", path); err != nil || c.Offset != 0 {
		t.Errorf("the cursor moved although nothing was stored: %+v %v", c, err)
	}
	shop, err := ingest.File(t.Context(), eng, path, ingest.Options{Kind: ingest.Codex, Project: "shop"})
	if err != nil || shop.Unchanged || shop.Status[cairn.StatusCreated] == 0 {
		t.Fatalf("shop: %+v %v", shop, err)
	}
	other, err := ingest.File(t.Context(), eng, path, ingest.Options{Kind: ingest.Codex, Project: "other"})
	if err != nil || other.Unchanged || other.Status[cairn.StatusCreated] != shop.Status[cairn.StatusCreated] {
		t.Errorf("the same transcript into another project: %+v %v; shop got %+v", other, err, shop.Status)
	}
	if again, err := ingest.File(t.Context(), eng, path, ingest.Options{Kind: ingest.Codex, Project: "shop"}); err != nil || !again.Unchanged {
		t.Errorf("read again into shop: %+v %v", again, err)
	}
	// Bad cursors tried: an empty source, a negative offset.
	if err := eng.PutIngestCursor(t.Context(), "shop", cairn.IngestCursor{Source: "", Offset: 1}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("an empty source: %v", err)
	}
	if err := eng.PutIngestCursor(t.Context(), "shop", cairn.IngestCursor{Source: path, Offset: -1}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("a negative offset: %v", err)
	}
}

// openEngine is an engine over a new database that the test closes.
func openEngine(t *testing.T, opts *engine.Options) *engine.Engine {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return engine.New(st, opts)
}

// openWithRollout is an engine whose clock is the day after the Codex
// rollout of transcript's testdata, and that rollout's text.
func openWithRollout(t *testing.T) (*engine.Engine, []byte) {
	t.Helper()
	eng := openEngine(t, &engine.Options{Now: func() time.Time { return time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC) }})
	data, err := os.ReadFile("../transcript/testdata/codex-" + rollout)
	if err != nil {
		t.Fatal(err)
	}
	return eng, data
}
