package recall

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// ValueRecaller is what ByValue needs: a listing, and the recording of use.
type ValueRecaller interface {
	FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error)
	RecordUse(ctx context.Context, ids []string, session string) error
}

// ByValue is seed 002's recall: the live memories of f (its project,
// types, agent …) ranked by confidence × (use count + 1), at most
// f.Limit (0 means 20), and their use recorded, so that what is recalled
// often ranks higher the next time. The memories are returned as they
// were before the use was recorded.
func ByValue(ctx context.Context, s ValueRecaller, f cairn.MemoryFilter, session string) ([]*cairn.Memory, error) {
	if f.Limit == 0 {
		f.Limit = 20
	}
	f.Sort, f.SkipTotal = cairn.SortValueDesc, true
	mems, _, err := s.FindMemories(ctx, f)
	if err != nil {
		return nil, err
	}
	live := mems[:0]
	for _, m := range mems {
		if m.SupersededBy == "" {
			live = append(live, m)
		}
	}
	if len(live) == 0 {
		return live, nil
	}
	ids := make([]string, len(live))
	for i, m := range live {
		ids[i] = m.ID
	}
	return live, s.RecordUse(ctx, ids, session)
}
