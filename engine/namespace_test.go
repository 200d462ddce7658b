package engine_test

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

func TestNamespacedTagsSetScopeAgentSessionAndExpiry(t *testing.T) {
	t.Parallel()
	e, _ := nearDupEngine(t)
	g := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "preference", Content: "Prefers TypeScript over JavaScript", Tags: []string{"scope:global"}}).Memory
	if g.Scope != cairn.ScopeGlobal {
		t.Errorf("scope:global left the scope %s", g.Scope)
	}
	// Another project sees it.
	ms, _, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "q", IncludeGlobal: true})
	if err != nil || len(ms) != 1 || ms[0].ID != g.ID {
		t.Errorf("another project: %v %v", ms, err)
	}
	s := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "note", Content: "Trying the staging token for this run only",
		Tags: []string{"scope:session", "agent:mars", "session:abc123"}}).Memory
	if s.Agent != "mars" || s.SessionID != "abc123" || !s.ExpiresAt.Equal(s.CreatedAt.Add(24*time.Hour)) {
		t.Errorf("scope:session, agent:, session: gave %+v", s)
	}
	// Fields given win over tags.
	k := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "note", Content: "Given fields win", Agent: "venus", Tags: []string{"agent:mars"}}).Memory
	if k.Agent != "venus" {
		t.Errorf("the tag overrode the agent given: %s", k.Agent)
	}
	// Through an update too.
	u, err := e.UpdateMemory(t.Context(), k.ID, cairn.MemoryUpdate{Tags: &[]string{"scope:global"}})
	if err != nil || u.Scope != cairn.ScopeGlobal {
		t.Errorf("update with scope:global: %+v %v", u, err)
	}
}

func TestAModeTagMatchesAContextInThatMode(t *testing.T) {
	t.Parallel()
	e, _ := nearDupEngine(t)
	eco := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pattern", Content: "Parser changes: run only the parser tests", Tags: []string{"mode:eco"}}).Memory
	score := func(mode string) float64 {
		req := cairn.DefaultContextRequest("p")
		req.Prompt, req.Mode = "refactor the parser", mode
		s, err := e.SelectContext(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range s.Items {
			if it.Memory.ID == eco.ID {
				return it.Score
			}
		}
		t.Fatalf("mode %q: the memory was not chosen: %+v", mode, s.Items)
		return 0
	}
	if in, out := score("eco"), score("autopilot"); in <= out {
		t.Errorf("score in eco mode %.3f, in another %.3f: the mode tag does not count", in, out)
	}
}
