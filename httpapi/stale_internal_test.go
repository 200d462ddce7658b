package httpapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// listService lists memories from a slice, newest first, as the stores
// do for the filters findStale uses.
type listService struct {
	Service
	mems  []*cairn.Memory
	calls int
}

func (s *listService) FindMemories(_ context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	s.calls++
	var out []*cairn.Memory
	for _, m := range s.mems {
		if (!f.HasFileRefs || len(m.FileRefs) > 0) && (f.Before.IsZero() || m.CreatedAt.Before(f.Before)) {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	out = out[min(f.Offset, len(out)):]
	return out[:min(f.Limit, len(out))], 0, nil
}

// findStale reads every memory with file references once, across
// batches that end inside a millisecond and batches wholly of one
// millisecond, and pages what is stale.
func TestFindStaleReadsEveryMemoryOnce(t *testing.T) {
	old := staleBatch
	staleBatch = 4
	t.Cleanup(func() { staleBatch = old })
	root := t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, mt := range map[string]time.Time{"new.go": base.Add(time.Hour), "old.go": base.Add(-time.Hour)} {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	svc := &listService{}
	var want []string
	// 30 memories: ten in one millisecond (more than a batch), the
	// others two to a millisecond; every third refers to the old file,
	// and every fifth to none.
	for i := range 30 {
		at := base.Add(-time.Duration(i/2) * time.Millisecond)
		if i < 10 {
			at = base.Add(-time.Minute)
		}
		m := &cairn.Memory{ID: fmt.Sprintf("m-%02d", i), CreatedAt: at, UpdatedAt: base, FileRefs: []string{"new.go"}}
		switch {
		case i%5 == 0:
			m.FileRefs = nil
		case i%3 == 0:
			m.FileRefs = []string{"old.go"}
		default:
			want = append(want, m.ID)
		}
		svc.mems = append(svc.mems, m)
	}
	var got []string
	total := 0
	for offset := 0; ; offset += 3 {
		page, n, err := findStale(t.Context(), svc, cairn.MemoryFilter{Project: "p", Limit: 3, Offset: offset}, root)
		if err != nil {
			t.Fatal(err)
		}
		total = n
		for _, m := range page {
			got = append(got, m.ID)
		}
		if len(page) < 3 {
			break
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) || total != len(want) {
		t.Errorf("stale pages = %v (total %d), want %v (%d)", got, total, want, len(want))
	}
}
