package recall

import (
	"context"
	"sort"
	"time"

	"github.com/cairn-dev/cairn"
)

// maxConflictScan bounds the memories tagged as in conflict one listing
// reads.
const maxConflictScan = 1000

// Reader is what the listing of conflicts reads: cairn.Service's listing.
type Reader interface {
	FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error)
}

// Conflicts lists the project's unresolved conflicts, newest first: pairs
// of live memories that the engine linked because they contradict each
// other (or share a key across types). A pair one side of which was
// superseded, expired or deleted is resolved and not listed.
func Conflicts(ctx context.Context, r Reader, project string, now time.Time) ([]cairn.Conflict, error) {
	mems, _, err := r.FindMemories(ctx, cairn.MemoryFilter{Project: project, Tags: []string{cairn.TagConflict},
		SkipTotal: true, Limit: maxConflictScan})
	if err != nil {
		return nil, err
	}
	byID := map[string]*cairn.Memory{}
	for _, m := range mems {
		byID[m.ID] = m
	}
	seen := map[[2]string]bool{}
	var out []cairn.Conflict
	for _, m := range mems {
		for _, id := range m.ConflictsWith() {
			o := byID[id]
			if o == nil || !m.Live(now) || !o.Live(now) {
				continue
			}
			a, b := m, o
			if b.CreatedAt.Before(a.CreatedAt) || b.CreatedAt.Equal(a.CreatedAt) && b.ID < a.ID {
				a, b = b, a
			}
			k := [2]string{a.ID, b.ID}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, cairn.Conflict{Old: a, New: b})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].New.CreatedAt.Equal(out[j].New.CreatedAt) {
			return out[i].New.CreatedAt.After(out[j].New.CreatedAt)
		}
		return out[i].New.ID < out[j].New.ID
	})
	return out, nil
}
