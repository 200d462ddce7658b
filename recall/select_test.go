package recall_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/recall"
)

// contextFixture stores a small project's memories under a fixed clock.
func contextFixture(t *testing.T) (*engine.Engine, map[string]string, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	e := newEngine(t, func() time.Time { return now })
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

// selection is what the pipeline chose for req with c (the default
// configuration when nil).
func selection(t *testing.T, e *engine.Engine, c *cairn.Settings, req cairn.ContextRequest) *recall.Selection {
	t.Helper()
	if c == nil {
		c = cairn.DefaultSettings()
	}
	if req.Project == "" {
		req.Project = "p"
	}
	b, err := recall.Build(t.Context(), e, c, req)
	if err != nil {
		t.Fatal(err)
	}
	return b.Selection
}

// noLastingTiers is the default configuration without the static and
// dynamic tiers.
func noLastingTiers() *cairn.Settings {
	c := cairn.DefaultSettings()
	c.Context.Static.Enabled, c.Context.Dynamic.Enabled = false, false
	return c
}

// day0 is the clock of the tests of one engine.
var day0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func put(t *testing.T, e *engine.Engine, m *cairn.Memory) *cairn.Memory {
	t.Helper()
	if m.Project == "" {
		m.Project = "p"
	}
	res, err := e.AddMemory(t.Context(), m)
	if err != nil {
		t.Fatalf("add %q: %v", m.Content, err)
	}
	return res.Memory
}

func TestTheContextBlockFillsTheTiersAndLeavesOutWhatItMust(t *testing.T) {
	t.Parallel()
	e, ids, _ := contextFixture(t)
	c := cairn.DefaultSettings()
	c.Context.Dynamic.Count = 2
	sel := selection(t, e, c, cairn.ContextRequest{Prompt: "fix the flaky auth test", Files: []string{"internal/auth/session_test.go"},
		Hat: "critic", Session: "s-now"})
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
	var flaky, other recall.Item
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

func TestTheContextBlockWithoutPromptHasNoRelevantTier(t *testing.T) {
	t.Parallel()
	e, ids, _ := contextFixture(t)
	sel := selection(t, e, nil, cairn.ContextRequest{})
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

func TestTheThresholdLeavesOutWeakMatches(t *testing.T) {
	t.Parallel()
	e, _, _ := contextFixture(t)
	c := cairn.DefaultSettings()
	c.Scoring.Threshold = 5 // nothing reaches it
	sel := selection(t, e, c, cairn.ContextRequest{Prompt: "flaky"})
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

func relevantIDs(sel *recall.Selection) []string {
	var ids []string
	for _, it := range sel.Items {
		if it.Tier == cairn.ContextRelevant {
			ids = append(ids, it.Memory.ID)
		}
	}
	return ids
}

// A prompt that matches nothing well gets no relevant memory, rather than
// the best of weak matches; one that names what a memory holds gets it.
func TestContextFloorKeepsWeakMatchesOut(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 30 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d on the billing export job and its retries", i)})
	}
	flaky := put(t, e, &cairn.Memory{Type: "pitfall", Content: "session_test.go is flaky when subtests share the fake clock"})
	c := noLastingTiers()
	sel := selection(t, e, c, cairn.ContextRequest{Prompt: "why is session_test.go flaky"})
	if ids := relevantIDs(sel); len(ids) == 0 || ids[0] != flaky.ID {
		t.Fatalf("a prompt about the flaky test got %v, want %s first", ids, flaky.ID)
	}
	if m := sel.Items[0].Match; m < c.Context.Relevant.Floor {
		t.Errorf("the best item's match %v is below the floor %v", m, c.Context.Relevant.Floor)
	}
	// One shared word ("export") among words the project has never seen.
	sel = selection(t, e, c, cairn.ContextRequest{Prompt: "translate the onboarding wizard and export the strings to the localisation vendor"})
	if ids := relevantIDs(sel); len(ids) != 0 {
		t.Errorf("a prompt that matches nothing well got %v", ids)
	}
	found := false
	for _, lo := range sel.LeftOut {
		found = found || strings.HasPrefix(lo.Reason, "below the relevance floor")
	}
	if !found {
		t.Errorf("left out %+v: want the weak matches named as below the floor", sel.LeftOut)
	}
	// Floor 0 turns it off: the best weak match comes back.
	c.Context.Relevant.Floor = 0
	sel = selection(t, e, c, cairn.ContextRequest{Prompt: "translate the onboarding wizard and export the strings to the localisation vendor"})
	if ids := relevantIDs(sel); len(ids) == 0 {
		t.Error("with the floor off, the weak matches are injected as before")
	}
}

// A memory already put into a session is not put into it again while it
// is unchanged; the next best takes its place. Its use and confidence
// rise once per session.
func TestContextShowsAMemoryOncePerSession(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	clock := day0
	e := newEngine(t, func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	})
	a := put(t, e, &cairn.Memory{Type: "pitfall", Content: "the payments webhook retries forever on a 500", Confidence: 0.6})
	b := put(t, e, &cairn.Memory{Type: "fix", Content: "the payments webhook now stops retrying after five attempts"})
	c := noLastingTiers()
	req := cairn.ContextRequest{Prompt: "payments webhook retries", Session: "s-1"}
	first := selection(t, e, c, req)
	if ids := relevantIDs(first); len(ids) != 2 {
		t.Fatalf("first context: %v, want both", ids)
	}
	if err := e.RecordUse(t.Context(), []string{a.ID}, "s-1"); err != nil {
		t.Fatal(err)
	}
	second := selection(t, e, c, req)
	if ids := relevantIDs(second); !slices.Equal(ids, []string{b.ID}) {
		t.Errorf("second context in the session: %v, want only %s (the other was shown)", ids, b.ID)
	}
	other := req
	other.Session = "s-2"
	if sel := selection(t, e, c, other); len(relevantIDs(sel)) != 2 {
		t.Errorf("another session: %v; want both", relevantIDs(sel))
	}
	// Changed since it was shown: shown again.
	if _, err := e.UpdateMemory(t.Context(), a.ID, cairn.MemoryUpdate{Content: ptr("the payments webhook retries forever on any 5xx")}); err != nil {
		t.Fatal(err)
	}
	if sel := selection(t, e, c, req); !slices.Contains(relevantIDs(sel), a.ID) {
		t.Errorf("after a change: %v; want %s again", relevantIDs(sel), a.ID)
	}
	// Repeated uses in one session count once; another session counts.
	for range 5 {
		if err := e.RecordUse(t.Context(), []string{b.ID}, "s-1"); err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.FindMemoryByID(t.Context(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.UseCount != 1 || got.Confidence > b.Confidence+cairn.UsageBoost+1e-9 {
		t.Errorf("after five uses in one session: use count %d, confidence %v (from %v); want one use", got.UseCount, got.Confidence, b.Confidence)
	}
	if err := e.RecordUse(t.Context(), []string{b.ID}, "s-2"); err != nil {
		t.Fatal(err)
	}
	if got, _ = e.FindMemoryByID(t.Context(), b.ID); got.UseCount != 2 {
		t.Errorf("a use in another session: use count %d, want 2", got.UseCount)
	}
	acts, _, err := e.FindActivity(t.Context(), cairn.ActivityFilter{Project: "p", MemoryID: b.ID, Actions: []string{cairn.ActionUsed}})
	if err != nil || len(acts) != 6 {
		t.Errorf("activity: %d used entries, %v; want every showing logged (6)", len(acts), err)
	}
}

// A memory about a file being worked on is a candidate without a word of
// the prompt, and so is one of the current hat (seed 000's candidates),
// after the file's.
func TestContextFindsMemoriesAboutTheFilesWithoutTheirWords(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 10 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d about the release train", i)})
	}
	about := put(t, e, &cairn.Memory{Type: "pitfall", Content: "subtests there share one fake clock; give each its own", FileRefs: []string{"internal/auth/*_test.go"}})
	hatOnly := put(t, e, &cairn.Memory{Type: "pattern", Content: "review checklists live in the wiki", Hat: "critic"})
	c := noLastingTiers()
	req := cairn.ContextRequest{Prompt: "make the login page load faster", Hat: "critic"}
	sel := selection(t, e, c, req)
	if ids := relevantIDs(sel); !slices.Equal(ids, []string{hatOnly.ID}) {
		t.Fatalf("without files: %v, want the hat's %s only", ids, hatOnly.ID)
	}
	req.Files = []string{"internal/auth/session_test.go"}
	sel = selection(t, e, c, req)
	ids := relevantIDs(sel)
	if !slices.Equal(ids, []string{about.ID, hatOnly.ID}) {
		t.Errorf("with the file: %v, want [%s %s] (the file's, then the hat's)", ids, about.ID, hatOnly.ID)
	}
}

// A prompt about a name the project has never seen gets nothing, though
// its other words match: the name counts double in the match strength.
func TestContextPromptAboutAnUnknownNameGetsNothing(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d: Dagmar fired the kiln in her glassblowing workshop", i)})
	}
	put(t, e, &cairn.Memory{Type: "context", Content: "Dagmar researched ceramics suppliers for weeks"})
	c := noLastingTiers()
	if sel := selection(t, e, c, cairn.ContextRequest{Prompt: "What did Dagmar research?"}); len(relevantIDs(sel)) == 0 {
		t.Fatal("a prompt about a known name got nothing")
	}
	if ids := relevantIDs(selection(t, e, c, cairn.ContextRequest{Prompt: "What did Leopold research?"})); len(ids) != 0 {
		t.Errorf("a prompt about a name the project has never seen got %v", ids)
	}
	// Lower case, the same word is not a name: it counts once.
	if sel := selection(t, e, c, cairn.ContextRequest{Prompt: "what did we research about ceramics"}); len(relevantIDs(sel)) == 0 {
		t.Errorf("a plain prompt: %v", relevantIDs(sel))
	}
}

// A prompt about another project of the database gets nothing, though a
// memory of this one shares some of its words, and --explain says why;
// put to the project it is about, it gets its memory.
func TestContextPromptOfAnotherProjectGetsNothing(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for _, c := range []string{
		"the rounding tests fail for currencies without a minor unit",
		"the webhook handler retries three times before it gives up",
		"tax rates are read from the rates table at startup",
		"refunds are issued as credit notes, never as negative invoices",
	} {
		put(t, e, &cairn.Memory{Project: "billing", Type: "context", Content: c})
	}
	for i := range 20 {
		put(t, e, &cairn.Memory{Project: "billing", Type: "context", Content: fmt.Sprintf("ledger entry %d is posted by the closing job", i)})
		put(t, e, &cairn.Memory{Project: "maps", Type: "context", Content: fmt.Sprintf("legend item %d is drawn by the style sheet", i)})
	}
	poles := put(t, e, &cairn.Memory{Project: "maps", Type: "context", Content: "tile projections use web mercator; the projection tests fail near the poles"})
	put(t, e, &cairn.Memory{Project: "maps", Type: "context", Content: "the tile cache is keyed by zoom level and projection"})
	c := noLastingTiers()
	req := cairn.ContextRequest{Project: "billing", Prompt: "why do the projection tests fail near the poles?"}
	sel := selection(t, e, c, req)
	if ids := relevantIDs(sel); len(ids) != 0 {
		t.Errorf("billing's block for a prompt about maps: %v, want nothing", ids)
	}
	said := false
	for _, l := range sel.LeftOut {
		said = said || strings.Contains(l.Reason, "another project's") && strings.Contains(l.Reason, "strength ×")
	}
	if !said {
		t.Errorf("left out %+v: want the reason to say the prompt reads as another project's, and by how much its strength is lowered", sel.LeftOut)
	}
	req.Project = "maps"
	if ids := relevantIDs(selection(t, e, c, req)); !slices.Contains(ids, poles.ID) {
		t.Errorf("maps' block: %v, want %s", ids, poles.ID)
	}
}

// A prompt whose project is in doubt (its words about as typical of
// another project of the database) needs a stronger match than its words
// alone give: a match that would clear the floor is left out, and
// --explain says by how much its strength was lowered. The same
// project's prompt about what only it holds gets its memory.
func TestContextDoubtfulPromptNeedsAStrongerMatch(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 20 {
		put(t, e, &cairn.Memory{Project: "api", Type: "context", Content: fmt.Sprintf("route %d is served by the gateway", i)})
		put(t, e, &cairn.Memory{Project: "web", Type: "context", Content: fmt.Sprintf("page %d is rendered by the template", i)})
	}
	for _, c := range []string{"the login form keeps its session in a cookie", "a session cookie lasts a day", "the login page shows the session timeout"} {
		put(t, e, &cairn.Memory{Project: "web", Type: "context", Content: c})
	}
	login := put(t, e, &cairn.Memory{Project: "api", Type: "context", Content: "the login endpoint issues a session token"})
	signed := put(t, e, &cairn.Memory{Project: "api", Type: "context", Content: "session tokens are signed with the rotating key"})
	put(t, e, &cairn.Memory{Project: "api", Type: "context", Content: "the token refresh endpoint rejects expired signatures"})
	const doubtful = "when does the login session expire for tenants"
	hits, err := e.Search(context.Background(), cairn.Query{Project: "api", Text: doubtful, Prompt: true, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Memory.ID != login.ID {
			continue
		}
		x := h.Explain.Typicality
		if raw := h.Strength / cairn.PromptBelongs(x); x <= 0 || x > 1 || raw < 0.3 {
			t.Fatalf("%q: typicality %.2f, strength %.2f on its words: want a doubtful prompt (typicality in (0, 1]) whose words alone clear the floor", doubtful, x, raw)
		}
	}
	c := noLastingTiers()
	sel := selection(t, e, c, cairn.ContextRequest{Project: "api", Prompt: doubtful})
	if ids := relevantIDs(sel); len(ids) != 0 {
		t.Errorf("a prompt of doubtful project: %v, want nothing", ids)
	}
	said := false
	for _, l := range sel.LeftOut {
		said = said || strings.Contains(l.Reason, "may be another project's") && strings.Contains(l.Reason, "strength ×")
	}
	if !said {
		t.Errorf("left out %+v: want the reason to say the prompt may be another project's, and by how much", sel.LeftOut)
	}
	if ids := relevantIDs(selection(t, e, c, cairn.ContextRequest{Project: "api", Prompt: "which endpoint signs the session token with the rotating key"})); !slices.Contains(ids, signed.ID) {
		t.Errorf("a prompt plainly the project's: %v, want %s", ids, signed.ID)
	}
}

func TestAModeTagMatchesAContextInThatMode(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	eco := put(t, e, &cairn.Memory{Project: "p", Type: "pattern", Content: "Parser changes: run only the parser tests", Tags: []string{"mode:eco"}})
	score := func(mode string) float64 {
		s := selection(t, e, nil, cairn.ContextRequest{Prompt: "refactor the parser", Mode: mode})
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
