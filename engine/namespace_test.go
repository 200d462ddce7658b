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
