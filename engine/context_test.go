package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// ContextCandidates reads what a block chooses from in one call: the
// lasting tiers in order (pinned, global and static, critical, dynamic
// with its limit), what the session was shown, a search and the memories
// about files; it asks for nothing it is not asked.
func TestContextCandidatesReadsWhatABlockChoosesFrom(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	e := rankingEngine(t, now)
	pinned := put(t, e, &cairn.Memory{Type: "note", Content: "Always run make lint before pushing.", Pinned: true})
	global := put(t, e, &cairn.Memory{Project: "other", Scope: cairn.ScopeGlobal, Type: "preference", Content: "Prefers early returns."})
	decision := put(t, e, &cairn.Memory{Type: "decision", Content: "SQLite for local storage."})
	critical := put(t, e, &cairn.Memory{Type: "architecture", Content: "All writes go through the engine.", Confidence: 0.95})
	put(t, e, &cairn.Memory{Type: "architecture", Content: "Handlers live in internal/api.", Confidence: 0.6})
	s1 := put(t, e, &cairn.Memory{Type: "session", Content: "Session: fixed the export.", CreatedAt: now.Add(-2 * time.Hour)})
	s2 := put(t, e, &cairn.Memory{Type: "session", Content: "Session: added rate limiting.", CreatedAt: now.Add(-time.Hour)})
	about := put(t, e, &cairn.Memory{Type: "pitfall", Content: "subtests share one fake clock", FileRefs: []string{"internal/auth/*_test.go"}})
	put(t, e, &cairn.Memory{Type: "pattern", Content: "table tests for the auth package", FileRefs: []string{"internal/auth/"}})
	if err := e.RecordUse(t.Context(), []string{decision.ID}, "s-1"); err != nil {
		t.Fatal(err)
	}

	got, err := e.ContextCandidates(t.Context(), cairn.CandidateRequest{Project: "p", Session: "s-1", Pinned: true,
		StaticTypes: []string{"decision"}, StaticPerType: 5, CriticalTypes: []string{"architecture"}, CriticalConfidence: 0.9,
		DynamicTypes: []string{"session"}, DynamicCount: 1,
		Search: &cairn.Query{Text: "fake clock subtests", Limit: 5}, Files: []string{"internal/auth/session_test.go"}, FileTypes: []string{"pitfall"}})
	if err != nil {
		t.Fatal(err)
	}
	var tiers []string
	var ids [][]string
	for _, g := range got.Tiers {
		tiers = append(tiers, g.Tier)
		var gids []string
		for _, m := range g.Memories {
			gids = append(gids, m.ID)
		}
		ids = append(ids, gids)
		if g.Tier == cairn.ContextDynamic && g.Limit != 1 {
			t.Errorf("the dynamic tier's limit is %d, want 1", g.Limit)
		}
	}
	if want := []string{cairn.ContextPinned, cairn.ContextStatic, cairn.ContextStatic, cairn.ContextStatic, cairn.ContextDynamic}; !slices.Equal(tiers, want) {
		t.Fatalf("tiers %v, want %v", tiers, want)
	}
	for i, want := range [][]string{{pinned.ID}, {global.ID}, {decision.ID}, {critical.ID}, {s2.ID, s1.ID}} {
		if !slices.Equal(ids[i], want) {
			t.Errorf("tier %d (%s): %v, want %v", i, tiers[i], ids[i], want)
		}
	}
	if _, ok := got.Shown[decision.ID]; !ok || len(got.Shown) != 1 {
		t.Errorf("shown in the session: %v, want %s", got.Shown, decision.ID)
	}
	if len(got.Hits) == 0 || got.Hits[0].Memory.ID != about.ID || got.Hits[0].Explain != nil || got.Retrieval.Used != cairn.ModeLexical {
		t.Errorf("search: %v %+v", hitIDs(got.Hits), got.Retrieval)
	}
	if len(got.Files) != 1 || got.Files[0].ID != about.ID {
		t.Errorf("the memories about the file, of the pitfall type: %v", got.Files)
	}

	none, err := e.ContextCandidates(t.Context(), cairn.CandidateRequest{Project: "p"})
	if err != nil || len(none.Tiers)+len(none.Hits)+len(none.Files)+len(none.Shown) != 0 {
		t.Errorf("a request for nothing found %+v, %v", none, err)
	}
	if _, err := e.ContextCandidates(t.Context(), cairn.CandidateRequest{Project: ""}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("no project: %v, want EINVALID", err)
	}
}
