package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// contextFixture stores a small project's memories under a fixed clock.
func contextFixture(t *testing.T) (*engine.Engine, map[string]string, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	e := engine.New(newStore(t), &engine.Options{Now: func() time.Time { return now }})
	ids := map[string]string{}
	add := func(name string, m *cairn.Memory) {
		t.Helper()
		if m.Project == "" {
			m.Project = "p"
		}
		res, err := e.AddMemory(t.Context(), m)
		if err != nil {
			t.Fatalf("add %s: %v", name, err)
		}
		ids[name] = res.Memory.ID
	}
	add("decision", &cairn.Memory{Type: "decision", Content: "SQLite for local storage; Postgres for teams."})
	add("pinned", &cairn.Memory{Type: "note", Content: "Always run make lint before pushing.", Pinned: true})
	add("global", &cairn.Memory{Project: "other", Scope: cairn.ScopeGlobal, Type: "preference", Content: "Prefers early returns over nested ifs."})
	add("critical", &cairn.Memory{Type: "architecture", Content: "All writes go through the engine package.", Confidence: 0.95})
	add("plainarch", &cairn.Memory{Type: "architecture", Content: "Handlers live in internal/api.", Confidence: 0.6})
	add("session1", &cairn.Memory{Type: "session", Content: "Session: fixed the billing export.", CreatedAt: now.Add(-48 * time.Hour)})
	add("session2", &cairn.Memory{Type: "session", Content: "Session: added rate limiting.", CreatedAt: now.Add(-24 * time.Hour)})
	add("oldsession", &cairn.Memory{Type: "session", Content: "Session: very old work.", CreatedAt: now.Add(-60 * 24 * time.Hour)})
	add("flaky", &cairn.Memory{Type: "pitfall", Content: "session_test.go is flaky when subtests share the fake clock.", FileRefs: []string{"internal/auth/*_test.go"}, Hat: "critic", Tags: []string{"testing"}})
	add("flakyother", &cairn.Memory{Type: "fix", Content: "The flaky auth test needed its own clock.", Hat: "planner"})
	add("mine", &cairn.Memory{Type: "learning", Content: "The flaky auth test was written in this very session.", SessionID: "s-now"})
	add("replaced", &cairn.Memory{Type: "pattern", Content: "Auth tests used the global clock for flaky cases."})
	add("otherproject", &cairn.Memory{Project: "other", Type: "pitfall", Content: "flaky auth test in another project"})
	if _, err := e.UpdateMemory(t.Context(), ids["replaced"], cairn.MemoryUpdate{SupersededBy: ptr(ids["flaky"])}); err != nil {
		t.Fatal(err)
	}
	return e, ids, now
}

func ptr[T any](v T) *T { return &v }

func TestSelectContextFillsTheTiersAndLeavesOutWhatItMust(t *testing.T) {
	t.Parallel()
	e, ids, _ := contextFixture(t)
	req := cairn.DefaultContextRequest("p")
	req.Prompt = "fix the flaky auth test"
	req.Files = []string{"internal/auth/session_test.go"}
	req.Hat = "critic"
	req.Session = "s-now"
	req.DynamicCount = 2
	sel, err := e.SelectContext(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	tier := map[string]string{}
	for _, it := range sel.Items {
		tier[it.Memory.ID] = it.Tier
	}
	want := map[string]string{
		"pinned": cairn.ContextPinned, "decision": cairn.ContextStatic, "global": cairn.ContextStatic,
		"critical": cairn.ContextStatic, "session2": cairn.ContextDynamic, "session1": cairn.ContextDynamic,
		"flaky": cairn.ContextRelevant,
	}
	for name, w := range want {
		if got := tier[ids[name]]; got != w {
			t.Errorf("%s: tier %q, want %q", name, got, w)
		}
	}
	for _, name := range []string{"plainarch", "oldsession", "mine", "replaced", "otherproject"} {
		if _, ok := tier[ids[name]]; ok {
			for _, it := range sel.Items {
				if it.Memory.ID == ids[name] {
					t.Errorf("%s was chosen (%s, %v %v); it must be left out", name, it.Tier, it.Score, it.Reasons)
				}
			}
		}
	}
	left := map[string]string{}
	for _, l := range sel.LeftOut {
		left[l.ID] = l.Reason
	}
	if left[ids["mine"]] != "current session" {
		t.Errorf("the session's own memory: reason %q", left[ids["mine"]])
	}
	if r := left[ids["replaced"]]; r == "" {
		t.Errorf("the superseded memory was not reported as left out")
	}
	// The critic's own pitfall about the file being edited outranks the
	// planner's fix: same hat and file overlap count (seed 000).
	var flaky, other cairn.ContextItem
	for _, it := range sel.Items {
		switch it.Memory.ID {
		case ids["flaky"]:
			flaky = it
		case ids["flakyother"]:
			other = it
		}
	}
	if flaky.Score <= other.Score {
		t.Errorf("flaky %v (%v) should outrank flakyother %v (%v)", flaky.Score, flaky.Reasons, other.Score, other.Reasons)
	}
	names := []string{}
	for _, r := range flaky.Reasons {
		names = append(names, r.Name)
	}
	for _, n := range []string{"relevance", "confidence", "same hat", "file overlap", "tag match"} {
		if !slices.Contains(names, n) {
			t.Errorf("flaky's reasons %v lack %q", names, n)
		}
	}
}

func TestSelectContextWithoutPromptHasNoRelevantTier(t *testing.T) {
	t.Parallel()
	e, ids, _ := contextFixture(t)
	sel, err := e.SelectContext(t.Context(), cairn.DefaultContextRequest("p"))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range sel.Items {
		if it.Tier == cairn.ContextRelevant {
			t.Errorf("relevant item %s without a prompt", it.Memory.ID)
		}
		if it.Memory.ID == ids["flaky"] {
			t.Errorf("a relevant-tier memory was chosen without a prompt")
		}
	}
	if len(sel.Items) == 0 {
		t.Fatal("no static or dynamic items")
	}
}

func TestSelectContextThresholdLeavesOutWeakMatches(t *testing.T) {
	t.Parallel()
	e, _, _ := contextFixture(t)
	req := cairn.DefaultContextRequest("p")
	req.Prompt = "flaky"
	req.MinRelevance = 5 // nothing reaches it
	sel, err := e.SelectContext(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range sel.Items {
		if it.Tier == cairn.ContextRelevant {
			t.Errorf("relevant item %s (score %v) above an impossible threshold", it.Memory.ID, it.Score)
		}
	}
	found := false
	for _, l := range sel.LeftOut {
		if l.Reason == "below the relevance threshold" {
			found = true
		}
	}
	if !found {
		t.Errorf("no memory reported as below the threshold: %+v", sel.LeftOut)
	}
}
