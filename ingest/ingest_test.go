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
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := engine.New(st, &engine.Options{Now: func() time.Time { return time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC) }})
	data, err := os.ReadFile("../transcript/testdata/codex-" + rollout)
	if err != nil {
		t.Fatal(err)
	}
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

// A transcript's cursor is its project's: the same file read into a
// second project is read again there. A service that stops answering
// stops the ingest with its error and leaves the cursor where it was.
func TestFileKeepsACursorPerProjectAndNoneWhenTheServiceIsGone(t *testing.T) {
	t.Parallel()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := engine.New(st, &engine.Options{Now: func() time.Time { return time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC) }})
	data, err := os.ReadFile("../transcript/testdata/codex-" + rollout)
	if err != nil {
		t.Fatal(err)
	}
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
