package recall

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// ValueRecaller is what ByValue reads: the listing of memories.
type ValueRecaller interface {
	FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error)
}

// ByValue is seed 002's recall in project, as
// cairn.ValueRecallService's RecallByValue says: the live memories r
// selects ranked by confidence × (use count + 1), their use recorded
// with record when r.Record. EINVALID for a limit out of range.
func ByValue(ctx context.Context, s ValueRecaller, project string, r cairn.ValueRecall, record Recorder) ([]*cairn.Memory, error) {
	if r.Limit == 0 {
		r.Limit = cairn.DefaultValueRecallLimit
	}
	if r.Limit < 1 || r.Limit > cairn.MaxLimit {
		return nil, cairn.Errorf(cairn.EINVALID, "the limit must be from 1 to %d", cairn.MaxLimit)
	}
	f := cairn.MemoryFilter{Project: project, IncludeGlobal: true, Types: r.Types, Agent: r.Agent, Limit: r.Limit,
		Sort: cairn.SortValueDesc, SkipTotal: true}
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
	if len(live) == 0 || !r.Record {
		return live, nil
	}
	ids := make([]string, len(live))
	for i, m := range live {
		ids[i] = m.ID
	}
	return live, record(ctx, ids, r.Session)
}
