package recall

import (
	"context"
	"slices"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/contextpack"
)

// Parallel work: a block for a session (Request.Session) starts with what
// other agent sessions of the project learned since the session's
// previous context (engine.NewFromOtherSessions), so that parallel tasks
// learn from each other as they work. At most ParallelLimit memories, and
// at most ParallelShare of the budget; memories the block shows elsewhere
// are not repeated. Their use is recorded with the rest of the block, so
// the next context shows only what is newer still.

// ParallelLimit is the most memories the section holds.
const ParallelLimit = 3

// ParallelShare is the most of the budget the section may take.
const ParallelShare = 0.25

// parallelTitle is the section's heading.
const parallelTitle = "New from Parallel Work"

// withParallel returns sections with the parallel-work section after the
// pinned one, when req asks for it (a session, and no Tiers or Tiers
// naming cairn.ContextParallel) and other sessions wrote something.
func withParallel(ctx context.Context, eng Service, req cairn.ContextRequest, p Profile, sel *Selection, sections []contextpack.Section) ([]contextpack.Section, error) {
	if req.Session == "" || !p.shows(cairn.ContextParallel) {
		return sections, nil
	}
	ms, err := eng.NewFromOtherSessions(ctx, req.Project, req.Session, ParallelLimit+len(sel.Items))
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	for _, it := range sel.Items {
		shown[it.Memory.ID] = true
	}
	sec := contextpack.Section{Kind: cairn.ContextParallel, Title: parallelTitle, Priority: 1,
		Share: ParallelShare, ShareGroup: cairn.ContextParallel}
	for _, m := range ms {
		if shown[m.ID] || len(sec.Items) == ParallelLimit {
			continue
		}
		sec.Items = append(sec.Items, contextpack.Item{
			ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content, Tags: m.Tags, FileRefs: m.FileRefs,
			CreatedAt: m.CreatedAt, Flag: m.Flag,
			// Worth more than most static or relevant memories: it is
			// news to this session, and the section is small.
			Value:   1 + m.Confidence,
			Reasons: []contextpack.Reason{{Name: cairn.ContextParallel, Value: 1}, {Name: "confidence", Value: m.Confidence}},
		})
	}
	if len(sec.Items) == 0 {
		return sections, nil
	}
	at := 0
	if len(sections) > 0 && sections[0].Kind == "pinned" {
		at = 1
	}
	return slices.Insert(sections, at, sec), nil
}
