package storetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/index"
)

// now is the engine's clock in RunEngine.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// RunEngine runs cairn's engine over stores made by open and checks the
// behaviour that must be identical on every backend: writes, dedup,
// search, index maintenance, import and validation.
func RunEngine(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *engine.Engine)
	}{
		{"AddCreatesWithDefaults", testAddCreates},
		{"ConditionalUpdateRefusesAChangedMemory", testIfContent},
		{"CreateMemoryRefusesATakenKey", testCreateOnly},
		{"SameSessionRepeatCountsOnce", testSameSessionRepeat},
		{"SameKeyUpdatesAndConfidenceNeverDrops", testKeyUpsert},
		{"SameContentReinforcesInsteadOfCopying", testReinforce},
		{"ReinforcementCapsConfidence", testReinforceCap},
		{"NearIdenticalTextReinforces", testNearDuplicate},
		{"FindByIDAcceptsUniquePrefix", testFindByPrefix},
		{"IDLookupsStayInTheirProject", testIDIsolation},
		{"NearTypeFindsTyposOfKnownTypes", testNearType},
		{"SearchNeverCrossesProjects", testSearchIsolation},
		{"SearchFindsIdentifierAndPathParts", testSearchCodeParts},
		{"SearchMatchesStems", testSearchStems},
		{"SearchRanksRareExactMatchFirst", testSearchRanksRare},
		{"IndexOfAnOlderAnalyzerIsRebuilt", testStaleIndexRebuilt},
		{"SearchFiltersFindLowRankedMatches", testSearchFilters},
		{"SearchSkipsExpired", testSearchExpired},
		{"ExpiryMaskStaysExact", testExpiryMask},
		{"SupersededIsSearchableUnlessExcluded", testSuperseded},
		{"SearchToleratesHostileText", testSearchHostile},
		{"SearchRejectsEmptyText", testSearchEmpty},
		{"EditedContentIsFoundByNewWordsOnly", testEditReindexes},
		{"ScopeChangeMovesMemoryBetweenPartitions", testScopeChange},
		{"DeletedMemoryIsNotFound", testDeleteUnfindable},
		{"CompactionKeepsSearchCorrect", testCompaction},
		{"ImportIsAtomic", testImportAtomic},
		{"ImportSkipInvalidImportsTheRest", testImportSkipInvalid},
		{"ReimportWithIDsChangesNothing", testReimportWithIDs},
		{"ReimportWithoutIDsChangesNothing", testReimportWithoutIDs},
		{"ImportDedupsLikeAdd", testImportDedups},
		{"ImportKeepsIDsProjectsAndCreatedAt", testImportKeeps},
		{"InvalidInputIsRejectedAndNothingStored", testValidation},
		{"StatsCountTypesAndIndex", testStats},
	}
	for _, tt := range append(tests, lifecycleEngineTests...) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openStore(t, open)
			tt.fn(t, engine.New(s, &engine.Options{Now: func() time.Time { return now }}))
		})
	}
}

// --- helpers -------------------------------------------------------------

func add(t *testing.T, e *engine.Engine, m *cairn.Memory) *cairn.WriteResult {
	t.Helper()
	res, err := e.AddMemory(t.Context(), m)
	if err != nil {
		t.Fatalf("AddMemory(%.40q): %v", m.Content, err)
	}
	return res
}

func addNew(t *testing.T, e *engine.Engine, project, content string) *cairn.Memory {
	t.Helper()
	res := add(t, e, &cairn.Memory{Project: project, Content: content})
	if res.Status != cairn.StatusCreated {
		t.Fatalf("AddMemory(%.40q) = %s, want created", content, res.Status)
	}
	return res.Memory
}

func search(t *testing.T, e *engine.Engine, q cairn.Query) []cairn.Hit {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = cairn.MaxLimit
	}
	hits, err := e.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return hits
}

func hitIDs(hits []cairn.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Memory.ID
	}
	return out
}

// searchIDs returns the ids found for text in project, in rank order.
func searchIDs(t *testing.T, e *engine.Engine, project, text string) []string {
	t.Helper()
	return hitIDs(search(t, e, cairn.Query{Project: project, Text: text}))
}

func wantFound(t *testing.T, e *engine.Engine, project, text string, id string) {
	t.Helper()
	if got := searchIDs(t, e, project, text); !slices.Contains(got, id) {
		t.Errorf("Search(%s, %q) = %v, want it to find %s", project, text, got, id)
	}
}

func wantNotFound(t *testing.T, e *engine.Engine, project, text string, id string) {
	t.Helper()
	if got := searchIDs(t, e, project, text); slices.Contains(got, id) {
		t.Errorf("Search(%s, %q) = %v, want it not to find %s", project, text, got, id)
	}
}

// wantFirst checks that a search for text ranks id first.
func wantFirst(t *testing.T, e *engine.Engine, project, text, id string) {
	t.Helper()
	if got := searchIDs(t, e, project, text); len(got) == 0 || got[0] != id {
		t.Errorf("Search(%s, %q) = %.5v, want %s first", project, text, got, id)
	}
}

// wantNone checks that a search for text finds nothing.
func wantNone(t *testing.T, e *engine.Engine, project, text string) {
	t.Helper()
	if got := searchIDs(t, e, project, text); len(got) != 0 {
		t.Errorf("Search(%s, %q) = %.5v, want nothing", project, text, got)
	}
}

func get(t *testing.T, e *engine.Engine, id string) *cairn.Memory {
	t.Helper()
	m, err := e.FindMemoryByID(t.Context(), id)
	if err != nil {
		t.Fatalf("FindMemoryByID(%s): %v", id, err)
	}
	return m
}

func list(t *testing.T, e *engine.Engine, project string) []*cairn.Memory {
	t.Helper()
	ms, total, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: project, Sort: cairn.SortCreatedAsc})
	if err != nil {
		t.Fatalf("FindMemories(%s): %v", project, err)
	}
	if total != len(ms) {
		t.Fatalf("FindMemories(%s): total %d for %d memories", project, total, len(ms))
	}
	return ms
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// --- writes --------------------------------------------------------------

func testAddCreates(t *testing.T, e *engine.Engine) {
	res := add(t, e, &cairn.Memory{Project: "p", Content: "fmt.Errorf wraps errors with %w. Use it."})
	if res.Status != cairn.StatusCreated {
		t.Fatalf("status %s, want created", res.Status)
	}
	m := get(t, e, res.Memory.ID)
	for _, d := range diffMemory(res.Memory, m) {
		t.Errorf("stored memory differs from the returned one: %s", d)
	}
	if !strings.HasPrefix(m.ID, "mem-") || len(m.ID) != 20 {
		t.Errorf("id %q", m.ID)
	}
	if m.Type != cairn.DefaultType || m.Scope != cairn.ScopeProject || m.Source != cairn.SourceExplicit {
		t.Errorf("defaults: type %q scope %q source %q", m.Type, m.Scope, m.Source)
	}
	if !approx(m.Confidence, 0.6) {
		t.Errorf("confidence %v, want 0.6 for an explicit note", m.Confidence)
	}
	if m.Title != "fmt.Errorf wraps errors with %w" {
		t.Errorf("title %q", m.Title)
	}
	if !m.CreatedAt.Equal(now) || !m.UpdatedAt.Equal(now) || !m.ExpiresAt.IsZero() {
		t.Errorf("times: created %v updated %v expires %v", m.CreatedAt, m.UpdatedAt, m.ExpiresAt)
	}
	// A type with a TTL expires.
	g := add(t, e, &cairn.Memory{Project: "p", Type: "gotcha", Content: "a gotcha"}).Memory
	if want := now.Add(90 * 24 * time.Hour); !get(t, e, g.ID).ExpiresAt.Equal(want) {
		t.Errorf("gotcha expires %v, want %v", get(t, e, g.ID).ExpiresAt, want)
	}
}

func testKeyUpsert(t *testing.T, e *engine.Engine) {
	first := add(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "database", Content: "We use mysql for storage", Confidence: 0.9, Tags: []string{"db"}})
	if first.Status != cairn.StatusCreated {
		t.Fatalf("first add: %s", first.Status)
	}
	second := add(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "database", Content: "We use postgres for storage", Confidence: 0.5})
	if second.Status != cairn.StatusUpdated {
		t.Errorf("second add with the same key: %s, want updated", second.Status)
	}
	if second.Memory.ID != first.Memory.ID {
		t.Errorf("second add made %s, want the same memory %s", second.Memory.ID, first.Memory.ID)
	}
	m := get(t, e, first.Memory.ID)
	if m.Content != "We use postgres for storage" {
		t.Errorf("content %q, want replaced", m.Content)
	}
	if !approx(m.Confidence, 0.9) {
		t.Errorf("confidence %v, want 0.9 kept", m.Confidence)
	}
	if !slices.Equal(m.Tags, []string{"db"}) {
		t.Errorf("tags %v, want kept when none given", m.Tags)
	}
	if got := list(t, e, "p"); len(got) != 1 {
		t.Errorf("%d memories, want 1", len(got))
	}
	wantFound(t, e, "p", "postgres", m.ID)
	wantNotFound(t, e, "p", "mysql", m.ID)

	// Higher confidence wins; the same content again changes nothing.
	third := add(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "database", Content: "We use postgres for storage", Confidence: 0.95})
	if !approx(third.Memory.Confidence, 0.95) || !approx(get(t, e, m.ID).Confidence, 0.95) {
		t.Errorf("confidence after a higher one: %v", get(t, e, m.ID).Confidence)
	}
	again := add(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "database", Content: "We use postgres for storage", Confidence: 0.95})
	if again.Status != cairn.StatusUnchanged {
		t.Errorf("same key and content again: %s, want unchanged", again.Status)
	}

	// The key is per project and per type.
	other := add(t, e, &cairn.Memory{Project: "q", Type: "decision", Key: "database", Content: "We use sqlite"})
	typ := add(t, e, &cairn.Memory{Project: "p", Type: "pattern", Key: "database", Content: "Wrap every query"})
	if other.Status != cairn.StatusCreated || typ.Status != cairn.StatusCreated {
		t.Errorf("same key in another project or type: %s, %s; want created", other.Status, typ.Status)
	}
}

func testReinforce(t *testing.T, e *engine.Engine) {
	first := addNew(t, e, "p", "Run  go test\n\t-race   before pushing")
	res := add(t, e, &cairn.Memory{Project: "p", Content: " Run go test -race before pushing\n", Tags: []string{"ci"}})
	if res.Status != cairn.StatusReinforced {
		t.Fatalf("same content: %s, want reinforced", res.Status)
	}
	if res.Memory.ID != first.ID {
		t.Errorf("reinforced %s, want %s", res.Memory.ID, first.ID)
	}
	m := get(t, e, first.ID)
	if m.UseCount != 1 || !approx(m.Confidence, 0.62) {
		t.Errorf("after one reinforcement: use_count %d confidence %v; want 1, 0.62", m.UseCount, m.Confidence)
	}
	if !slices.Contains(m.Tags, "ci") {
		t.Errorf("tags %v, want the new tag added", m.Tags)
	}
	add(t, e, &cairn.Memory{Project: "p", Content: "Run go test -race before pushing"})
	m = get(t, e, first.ID)
	if m.UseCount != 2 || !approx(m.Confidence, 0.64) {
		t.Errorf("after two reinforcements: use_count %d confidence %v; want 2, 0.64", m.UseCount, m.Confidence)
	}
	if got := list(t, e, "p"); len(got) != 1 {
		t.Errorf("%d memories, want 1", len(got))
	}
	if hits := searchIDs(t, e, "p", "race pushing"); !slices.Equal(hits, []string{first.ID}) {
		t.Errorf("search finds %v, want only %s", hits, first.ID)
	}
	// Long content (beyond any buffer) is compared up to white space too.
	long := strings.Repeat("word ", 3000) + strings.Repeat("x", 5000) + " end"
	lm := addNew(t, e, "p", long)
	spaced := "\n" + strings.ReplaceAll(long, " ", " \t\n ") + "  "
	if res := add(t, e, &cairn.Memory{Project: "p", Content: spaced}); res.Status != cairn.StatusReinforced || res.Memory.ID != lm.ID {
		t.Errorf("long content with other white space: %s %s, want %s reinforced", res.Status, res.Memory.ID, lm.ID)
	}
	if res := add(t, e, &cairn.Memory{Project: "p", Content: long + " more"}); res.Status != cairn.StatusCreated {
		t.Errorf("long content with one more word: %s, want created", res.Status)
	}
	// Another project keeps its own copy.
	if res := add(t, e, &cairn.Memory{Project: "q", Content: "Run go test -race before pushing"}); res.Status != cairn.StatusCreated {
		t.Errorf("same content in another project: %s, want created", res.Status)
	}
}

func testReinforceCap(t *testing.T, e *engine.Engine) {
	m := add(t, e, &cairn.Memory{Project: "p", Content: "Almost certain", Confidence: 0.94}).Memory
	for i, want := range []float64{0.95, 0.95, 0.95} {
		res := add(t, e, &cairn.Memory{Project: "p", Content: "Almost certain"})
		if res.Status != cairn.StatusReinforced || !approx(res.Memory.Confidence, want) {
			t.Errorf("reinforcement %d: %s, confidence %v; want %v", i+1, res.Status, res.Memory.Confidence, want)
		}
	}
	if got := get(t, e, m.ID); got.UseCount != 3 || !approx(got.Confidence, cairn.MaxConfidence) {
		t.Errorf("stored: use_count %d confidence %v", got.UseCount, got.Confidence)
	}
}

func testFindByPrefix(t *testing.T, e *engine.Engine) {
	a := add(t, e, &cairn.Memory{ID: "abcdef-one", Project: "p", Content: "one"}).Memory
	add(t, e, &cairn.Memory{ID: "abcdef-two", Project: "p", Content: "two"})
	if m, err := e.FindMemoryByID(t.Context(), "abcdef-o"); err != nil || m.ID != a.ID {
		t.Errorf("unique prefix: %v, %v", m, err)
	}
	_, err := e.FindMemoryByID(t.Context(), "abcdef")
	wantCode(t, err, cairn.EINVALID, "ambiguous prefix")
	_, err = e.FindMemoryByID(t.Context(), "abcde")
	wantCode(t, err, cairn.ENOTFOUND, "prefix shorter than 6")
	_, err = e.FindMemoryByID(t.Context(), "zzzzzzzz")
	wantCode(t, err, cairn.ENOTFOUND, "unknown id")
	if _, err := e.UpdateMemory(t.Context(), "abcdef-t", cairn.MemoryUpdate{Pinned: ptr(true)}); err != nil {
		t.Errorf("UpdateMemory by prefix: %v", err)
	}
	if !get(t, e, "abcdef-two").Pinned {
		t.Error("update by prefix did not pin")
	}
}

func ptr[T any](v T) *T { return &v }

// testNearType tries typos of known types (a letter dropped, added,
// replaced, two letters swapped), a name two edits away, a type in use in
// the project, and one in use in another project only.
func testNearType(t *testing.T, e *engine.Engine) {
	add(t, e, &cairn.Memory{Project: "p", Type: "runbook", Content: "restart the queue first"})
	add(t, e, &cairn.Memory{Project: "q", Type: "playbook", Content: "page the on-call"})
	for _, tt := range []struct{ typ, want string }{
		{"pitfal", "pitfall"},
		{"pitfalls", "pitfall"},
		{"pitfsll", "pitfall"},
		{"ptifall", "pitfall"},
		{"Decison", "decision"},
		{"pitfall", ""},
		{"ptifal", ""},
		{"runbok", "runbook"},
		{"runbook", ""},
		{"playbok", ""},
		{"incident", ""},
	} {
		got, err := e.NearType(t.Context(), "p", tt.typ)
		if err != nil || got != tt.want {
			t.Errorf("NearType(p, %q) = %q, %v; want %q", tt.typ, got, err, tt.want)
		}
	}
}

// testIDIsolation tries every method that takes an id, on an engine bound
// to project alpha, with ids and id prefixes of project beta's memories:
// they are not found (as an unknown id is), change nothing, and never make
// a prefix ambiguous; beta's global memory is readable but not changeable.
func testIDIsolation(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	a := add(t, e, &cairn.Memory{ID: "abcdef-alpha", Project: "alpha", Content: "alpha deploys on fridays"}).Memory
	b := add(t, e, &cairn.Memory{ID: "abcdef-beta", Project: "beta", Content: "beta deploys on mondays"}).Memory
	g := add(t, e, &cairn.Memory{ID: "fedcba-global", Project: "beta", Scope: cairn.ScopeGlobal, Content: "everyone reviews migrations"}).Memory
	beta := e.WithProject("beta")
	if _, err := beta.UpdateMemory(ctx, b.ID, cairn.MemoryUpdate{SupersededBy: ptr(g.ID)}); err != nil {
		t.Fatalf("beta supersedes its own memory by its global one: %v", err)
	}
	alpha := e.WithProject("alpha")

	_, err := alpha.FindMemoryByID(ctx, b.ID)
	wantCode(t, err, cairn.ENOTFOUND, "find beta's id")
	if err != nil && strings.Contains(err.Error(), "project beta") {
		t.Errorf("find beta's id: %v names the other project", err)
	}
	if m, err := alpha.FindMemoryByID(ctx, "abcdef"); err != nil || m.ID != a.ID {
		t.Errorf("a prefix shared only with beta's memory: %v, %v; want %s", m, err, a.ID)
	}
	if m, err := alpha.FindMemoryByID(ctx, "fedcba"); err != nil || m.ID != g.ID {
		t.Errorf("a prefix of beta's global memory: %v, %v; want %s", m, err, g.ID)
	}
	if chain, err := alpha.SupersedeChain(ctx, g.ID); err != nil || len(chain) != 1 {
		t.Errorf("chain of the global memory seen from alpha: %v, %v; want only itself", ids(chain), err)
	}
	_, err = alpha.SupersedeChain(ctx, b.ID)
	wantCode(t, err, cairn.ENOTFOUND, "chain of beta's id")

	_, err = alpha.UpdateMemory(ctx, b.ID, cairn.MemoryUpdate{Pinned: ptr(true)})
	wantCode(t, err, cairn.ENOTFOUND, "update beta's id")
	_, err = alpha.UpdateMemory(ctx, "abcdef-b", cairn.MemoryUpdate{Pinned: ptr(true)})
	wantCode(t, err, cairn.ENOTFOUND, "update by a prefix of beta's id")
	_, err = alpha.UpdateMemory(ctx, g.ID, cairn.MemoryUpdate{Pinned: ptr(true)})
	wantCode(t, err, cairn.EINVALID, "update beta's global memory")
	_, err = alpha.UpdateMemory(ctx, a.ID, cairn.MemoryUpdate{SupersededBy: ptr(b.ID)})
	wantCode(t, err, cairn.ENOTFOUND, "supersede by beta's id")
	wantCode(t, alpha.DeleteMemory(ctx, b.ID), cairn.ENOTFOUND, "delete beta's id")
	wantCode(t, alpha.DeleteMemory(ctx, g.ID), cairn.EINVALID, "delete beta's global memory")
	_, _, err = alpha.AddSuperseding(ctx, &cairn.Memory{Project: "alpha", Content: "alpha deploys on tuesdays"}, b.ID)
	wantCode(t, err, cairn.ENOTFOUND, "add superseding beta's id")

	if got := get(t, e, b.ID); got.Pinned || got.SupersededBy != g.ID {
		t.Errorf("beta's memory changed: pinned %v, superseded by %q", got.Pinned, got.SupersededBy)
	}
	if got := get(t, e, g.ID); got.Pinned {
		t.Error("beta's global memory was pinned from alpha")
	}
	if got := get(t, e, a.ID); got.SupersededBy != "" {
		t.Errorf("alpha's memory is superseded by %q", got.SupersededBy)
	}
	if ms, _, _ := e.FindMemories(ctx, cairn.MemoryFilter{Project: "alpha"}); len(ms) != 1 {
		t.Errorf("alpha holds %v; want only %s", ids(ms), a.ID)
	}
	if _, err := beta.UpdateMemory(ctx, g.ID, cairn.MemoryUpdate{Pinned: ptr(true)}); err != nil {
		t.Errorf("beta pins its own global memory: %v", err)
	}
}

// --- search --------------------------------------------------------------

func testSearchIsolation(t *testing.T, e *engine.Engine) {
	a := addNew(t, e, "alpha", "the flux capacitor needs calibration")
	b := addNew(t, e, "beta", "the flux capacitor is decorative")
	g := add(t, e, &cairn.Memory{Project: "alpha", Scope: cairn.ScopeGlobal, Content: "always run the flux linter"}).Memory
	// The same document numbers exist in both project partitions; isolation
	// must hold whatever the index says.
	if a.DocNum != b.DocNum {
		t.Fatalf("doc numbers %d and %d: the collision this test is about did not happen", a.DocNum, b.DocNum)
	}
	for _, tt := range []struct {
		project string
		want    []string
	}{
		{"alpha", []string{a.ID, g.ID}},
		{"beta", []string{b.ID, g.ID}},
		{"gamma", []string{g.ID}},
	} {
		got := searchIDs(t, e, tt.project, "flux")
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tt.want))
		if !slices.Equal(got, want) {
			t.Errorf("Search(%s, flux) = %v, want %v", tt.project, got, want)
		}
	}
	if got := search(t, e, cairn.Query{Project: "beta", Text: "flux", NoGlobal: true}); !slices.Equal(hitIDs(got), []string{b.ID}) {
		t.Errorf("NoGlobal: %v, want only %s", hitIDs(got), b.ID)
	}
	if got := searchIDs(t, e, "beta", "calibration"); len(got) != 0 {
		t.Errorf("project beta finds alpha's memory: %v", got)
	}
	// Listing is isolated too.
	if ms := list(t, e, "beta"); len(ms) != 1 || ms[0].ID != b.ID {
		t.Errorf("FindMemories(beta) = %v", ids(ms))
	}
	ms, _, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "beta", IncludeGlobal: true})
	if err != nil || len(ms) != 2 {
		t.Errorf("FindMemories(beta, global) = %v, %v", ids(ms), err)
	}
}

func testSearchCodeParts(t *testing.T, e *engine.Engine) {
	getter := addNew(t, e, "p", "call getUserName before rendering")
	snake := addNew(t, e, "p", "the snake_case_thing is configured here")
	path := addNew(t, e, "p", "flaky test in internal/auth/session_test.go")
	http := addNew(t, e, "p", "HTTPServer needs a timeout")
	addNew(t, e, "p", "unrelated memory about the weather")
	for _, tt := range []struct{ query, id string }{
		{"user name", getter.ID},
		{"getUserName", getter.ID},
		{"get_user_name", getter.ID},
		{"snake", snake.ID},
		{"case thing", snake.ID},
		{"snake_case_thing", snake.ID},
		{"session_test.go", path.ID},
		{"auth", path.ID},
		{"internal/auth/session_test.go", path.ID},
		{"http server", http.ID},
	} {
		got := searchIDs(t, e, "p", tt.query)
		if len(got) == 0 || got[0] != tt.id {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, got, tt.id)
		}
	}
}

func testSearchStems(t *testing.T, e *engine.Engine) {
	m := addNew(t, e, "p", "the integration test failed on CI")
	addNew(t, e, "p", "documentation lives in the wiki")
	for _, q := range []string{"failing tests", "fails", "testing", "integrations"} {
		if got := searchIDs(t, e, "p", q); !slices.Equal(got, []string{m.ID}) {
			t.Errorf("Search(%q) = %v, want [%s]", q, got, m.ID)
		}
	}
}

func testSearchRanksRare(t *testing.T, e *engine.Engine) {
	for i := 0; i < 30; i++ {
		addNew(t, e, "p", fmt.Sprintf("the migration of table%d runs at night", i))
	}
	rare := addNew(t, e, "p", "the postgres migration needs a lock")
	// A more salient memory with only the common term must not win.
	add(t, e, &cairn.Memory{Project: "p", Content: "migration migration migration checklist", Confidence: 1, Pinned: true})
	got := searchIDs(t, e, "p", "postgres migration")
	if len(got) == 0 || got[0] != rare.ID {
		t.Errorf("Search(postgres migration) = %v, want %s first", got, rare.ID)
	}
	if hits := search(t, e, cairn.Query{Project: "p", Text: "migration", Limit: 5, Explain: true}); len(hits) != 5 {
		t.Errorf("Limit 5 returned %d hits", len(hits))
	} else {
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("hits not in score order: %v then %v", hits[i-1].Score, hits[i].Score)
			}
		}
		if hits[0].Relevance <= 0 || hits[0].Relevance > 1 || hits[0].Explain == nil || hits[0].Explain.Lexical <= 0 || hits[0].Salience <= 0 {
			t.Errorf("hit components: %+v", hits[0])
		}
	}
	if hits := search(t, e, cairn.Query{Project: "p", Text: "migration", Limit: 0}); len(hits) != 32 {
		t.Errorf("search helper Limit: %d", len(hits))
	}
	hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: "migration"})
	if err != nil || len(hits) != cairn.DefaultLimit {
		t.Errorf("default limit: %d hits, %v; want %d", len(hits), err, cairn.DefaultLimit)
	}
	for _, h := range hits {
		if h.Explain != nil {
			t.Fatalf("a search that did not ask for it explains its hit %s", h.Memory.ID)
		}
	}
}

// An index whose postings were made by older text analysis (here: "met"
// indexed as itself, before word forms) is rebuilt before it is searched
// or written, keeping every memory's document number, so that an upgraded
// cairn finds what its own rules find.
func testStaleIndexRebuilt(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	met := addNew(t, e, "p", "we met the payments team")
	other := addNew(t, e, "p", "the payments team owns the retry banner")
	global := add(t, e, &cairn.Memory{Project: "p", Scope: cairn.ScopeGlobal, Content: "children of the release train"}).Memory
	// Make the partitions look as an older cairn left them.
	err := e.Store().Update(ctx, func(tx cairn.Tx) error {
		for _, part := range []string{"p", ""} {
			tps, err := tx.ScanPostings(ctx, part, "", 1000)
			if err != nil {
				return err
			}
			var out []cairn.TermPostings
			for _, tp := range tps {
				switch tp.Term {
				case "meet":
					out = append(out, cairn.TermPostings{Term: "meet"}, cairn.TermPostings{Term: "met", DF: tp.DF, Data: tp.Data})
				case "child":
					out = append(out, cairn.TermPostings{Term: "child"}, cairn.TermPostings{Term: "children", DF: tp.DF, Data: tp.Data})
				}
			}
			if err := tx.ReplacePostings(ctx, part, out); err != nil {
				return err
			}
			ps, err := tx.Partition(ctx, part)
			if err != nil {
				return err
			}
			ps.Analyzer = 1
			if err := tx.PutPartition(ctx, ps); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, e, "p", "meeting"); !slices.Equal(got, []string{met.ID}) {
		t.Errorf("search meeting = %v, want [%s] from the rebuilt index", got, met.ID)
	}
	if got := searchIDs(t, e, "p", "child"); !slices.Equal(got, []string{global.ID}) {
		t.Errorf("search child = %v, want the global memory [%s]", got, global.ID)
	}
	if got := searchIDs(t, e, "p", "payments team"); len(got) != 2 || !slices.Contains(got, other.ID) {
		t.Errorf("search payments team = %v, want both memories", got)
	}
	err = e.Store().View(ctx, func(tx cairn.Tx) error {
		for _, part := range []string{"p", ""} {
			ps, err := tx.Partition(ctx, part)
			if err != nil {
				return err
			}
			if ps.Analyzer != engine.IndexVersion || ps.DeadDocs != 0 {
				t.Errorf("partition %q after the rebuild: %+v", part, ps)
			}
		}
		got, err := tx.FindMemoryByID(ctx, met.ID)
		if err != nil {
			return err
		}
		if got.DocNum != met.DocNum {
			t.Errorf("the rebuild moved %s from document %d to %d", met.ID, met.DocNum, got.DocNum)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A write to a stale partition rebuilds it too.
	err = e.Store().Update(ctx, func(tx cairn.Tx) error {
		ps, err := tx.Partition(ctx, "p")
		if err != nil {
			return err
		}
		ps.Analyzer = 1
		return tx.PutPartition(ctx, ps)
	})
	if err != nil {
		t.Fatal(err)
	}
	addNew(t, e, "p", "an unrelated note about coffee")
	if got := searchIDs(t, e, "p", "meet"); !slices.Equal(got, []string{met.ID}) {
		t.Errorf("after a write, search meet = %v, want [%s]", got, met.ID)
	}
}

func testSearchFilters(t *testing.T, e *engine.Engine) {
	// 120 strong matches created two days ago in session s-strong, and
	// weak matches that rank below all of them.
	for i := 0; i < 120; i++ {
		add(t, e, &cairn.Memory{Project: "p", Content: fmt.Sprintf("widget widget widget strong%d", i),
			Tags: []string{"team:a"}, SessionID: "s-strong", CreatedAt: now.Add(-48*time.Hour + time.Duration(i)*time.Millisecond)})
	}
	weak := add(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Tags: []string{"team:a", "needle"}, SessionID: "s-weak",
		CreatedAt: now.Add(-time.Hour),
		Content:   "a widget appears once in this considerably longer text about trains boats planes rivers mountains forests deserts oceans"}).Memory
	old := add(t, e, &cairn.Memory{Project: "p", Type: "decision", Tags: []string{"team:b"}, SessionID: "s-strong",
		CreatedAt: now.Add(-30 * 24 * time.Hour),
		Content:   "an ancient widget decision with many other filler words about history archives dust paper ink"}).Memory

	all := searchIDs(t, e, "p", "widget")
	if len(all) != 122 {
		t.Fatalf("unfiltered search found %d, want 122", len(all))
	}
	if i := slices.Index(all, weak.ID); i < 100 {
		t.Fatalf("the weak match ranks %d; the fixture needs it far down", i)
	}
	tests := []struct {
		name string
		q    cairn.Query
		want []string
	}{
		{"type", cairn.Query{Types: []string{"pitfall"}}, []string{weak.ID}},
		{"type in upper case", cairn.Query{Types: []string{"Decision"}}, []string{old.ID}},
		{"types any of", cairn.Query{Types: []string{"pitfall", "decision"}}, []string{weak.ID, old.ID}},
		{"tag", cairn.Query{Tags: []string{"needle"}}, []string{weak.ID}},
		{"tags all of", cairn.Query{Tags: []string{"team:a", "needle"}}, []string{weak.ID}},
		{"tag of one", cairn.Query{Tags: []string{"team:b"}}, []string{old.ID}},
		{"after", cairn.Query{After: now.Add(-2 * time.Hour)}, []string{weak.ID}},
		{"after is inclusive", cairn.Query{After: now.Add(-time.Hour)}, []string{weak.ID}},
		{"before", cairn.Query{Before: now.Add(-7 * 24 * time.Hour)}, []string{old.ID}},
		{"before is exclusive", cairn.Query{Before: now.Add(-30 * 24 * time.Hour)}, nil},
		{"exclude session", cairn.Query{ExcludeSession: "s-strong"}, []string{weak.ID}},
		{"no match", cairn.Query{Types: []string{"pitfall"}, Tags: []string{"team:b"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := tt.q
			q.Project, q.Text, q.Limit = "p", "widget", 5
			got := hitIDs(search(t, e, q))
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("Search(%+v) = %v, want %v", tt.q, got, want)
			}
		})
	}
}

func testSearchExpired(t *testing.T, e *engine.Engine) {
	past := add(t, e, &cairn.Memory{Project: "p", Content: "expired zebra fact", ExpiresAt: now.Add(-time.Minute)}).Memory
	exact := add(t, e, &cairn.Memory{Project: "p", Content: "zebra fact expiring right now", ExpiresAt: now}).Memory
	ttl := add(t, e, &cairn.Memory{Project: "p", Type: "gotcha", Content: "old zebra gotcha", CreatedAt: now.Add(-100 * 24 * time.Hour)}).Memory
	future := add(t, e, &cairn.Memory{Project: "p", Content: "future zebra fact", ExpiresAt: now.Add(time.Minute)}).Memory
	forever := addNew(t, e, "p", "timeless zebra fact")
	got := searchIDs(t, e, "p", "zebra")
	slices.Sort(got)
	want := slices.Sorted(slices.Values([]string{future.ID, forever.ID}))
	if !slices.Equal(got, want) {
		t.Errorf("Search(zebra) = %v, want only the live %v (expired: %s %s %s)", got, want, past.ID, exact.ID, ttl.ID)
	}
	// Expired memories stay stored.
	get(t, e, past.ID)
	// Expired content does not reinforce: a new memory is made.
	if res := add(t, e, &cairn.Memory{Project: "p", Content: "expired zebra fact"}); res.Status != cairn.StatusCreated || res.Memory.ID == past.ID {
		t.Errorf("re-adding expired content: %s %s, want a new memory", res.Status, res.Memory.ID)
	}
}

// testExpiryMask checks the documents a long-lived engine skips as
// expired (its expiry masks) against what the store holds: an expired
// memory is never found, one whose expiry another engine extends in
// place is found at once, a search at an earlier clock finds what was
// live then, and the answers are those of an engine that skips nothing.
func testExpiryMask(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	clock := func() time.Time { return now }
	cached := engine.New(e.Store(), &engine.Options{CacheBytes: 1 << 20, Now: clock})
	day := 24 * time.Hour
	// The expired ones score best (the word thrice), so that they fill
	// the best candidates of a search for it.
	var expired []*cairn.Memory
	for i := range 30 {
		expired = append(expired, add(t, e, &cairn.Memory{Project: "p", Content: fmt.Sprintf("quokka quokka quokka burrow %d", i),
			ExpiresAt: now.Add(-time.Duration(2+i%5) * day)}).Memory)
	}
	today := add(t, e, &cairn.Memory{Project: "p", Content: "quokka quokka quokka expired this morning", ExpiresAt: now.Add(-time.Hour)}).Memory
	extended := add(t, e, &cairn.Memory{Project: "p", Content: "quokka quokka quokka extended later", ExpiresAt: now.Add(-3 * day)}).Memory
	lapsed := add(t, e, &cairn.Memory{Project: "p", Content: "quokka quokka quokka live last week", ExpiresAt: now.Add(-2 * day)}).Memory
	var live []string
	for i := range 12 {
		live = append(live, add(t, e, &cairn.Memory{Project: "p", Content: fmt.Sprintf("a quokka sighting number %d", i),
			ExpiresAt: now.Add(time.Duration(1+i) * day)}).Memory.ID)
	}
	live = append(live, addNew(t, e, "p", "the quokka that never expires").ID)
	slices.Sort(live)
	ids := func(hits []cairn.Hit) []string { return slices.Sorted(slices.Values(hitIDs(hits))) }
	check := func(when string, q cairn.Query, want []string) {
		t.Helper()
		want = slices.Sorted(slices.Values(want))
		got, err := cached.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), want) {
			t.Errorf("%s: Search(%q at %s) = %v, want the live %v", when, q.Text, q.Now, ids(got), want)
		}
		if plain := ids(search(t, e, q)); !slices.Equal(plain, ids(got)) {
			t.Errorf("%s: an engine that keeps nothing finds %v, the long-lived one %v", when, plain, ids(got))
		}
	}
	q := cairn.Query{Project: "p", Text: "quokka", Limit: cairn.MaxLimit, Now: now}
	check("first search", q, live)
	check("asked again", q, live)
	small := q
	small.Limit = 3
	if got := hitIDs(search(t, cached, small)); len(got) != 3 {
		t.Errorf("Search(quokka, limit 3) = %v, want 3 live memories", got)
	}

	// The store reads the expired documents by partition and document.
	var docs []int64
	if err := e.Store().View(ctx, func(tx cairn.Tx) error {
		var err error
		docs, err = tx.ExpiredDocs(ctx, "p", 0, expiryDayStart(now))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, m := range append(slices.Clone(expired), extended, lapsed) {
		want = append(want, get(t, e, m.ID).DocNum)
	}
	slices.Sort(docs)
	slices.Sort(want)
	if !slices.Equal(docs, want) {
		t.Errorf("ExpiredDocs(p, 0, %s) = %v, want the documents expired before the day %v (not %d, expired that day)",
			expiryDayStart(now), docs, want, today.DocNum)
	}
	from := want[len(want)-1]
	if err := e.Store().View(ctx, func(tx cairn.Tx) error {
		var err error
		docs, err = tx.ExpiredDocs(ctx, "p", from, expiryDayStart(now))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(docs, []int64{from}) {
		t.Errorf("ExpiredDocs(p, %d, …) = %v, want [%d]", from, docs, from)
	}

	// Another engine (another process) extends an expiry in place, lets
	// another lapse, and writes an expired memory and a live one.
	if _, err := e.UpdateMemory(ctx, extended.ID, cairn.MemoryUpdate{ExpiresAt: ptr(now.Add(2 * day))}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.UpdateMemory(ctx, live[0], cairn.MemoryUpdate{ExpiresAt: ptr(now.Add(-4 * day))}); err != nil {
		t.Fatal(err)
	}
	add(t, e, &cairn.Memory{Project: "p", Content: "quokka quokka quokka written expired", ExpiresAt: now.Add(-5 * day)})
	fresh := addNew(t, e, "p", "a new quokka memory")
	after := append(slices.Clone(live[1:]), extended.ID, fresh.ID)
	check("after another engine's writes", q, after)
	if _, err := e.UpdateMemory(ctx, extended.ID, cairn.MemoryUpdate{ExpiresAt: ptr(time.Time{})}); err != nil {
		t.Fatal(err)
	}
	check("its expiry removed", q, after)

	// At an earlier clock, what had not expired yet is found; the
	// searches kept from today do not answer for it.
	past := q
	past.Now = now.Add(-2*day - time.Hour)
	var then []string
	for _, m := range expired {
		if past.Now.Before(m.ExpiresAt) {
			then = append(then, m.ID)
		}
	}
	then = append(then, today.ID, lapsed.ID, extended.ID, fresh.ID) // live[0] lapsed 4 days before
	then = append(then, live[1:]...)
	check("at an earlier clock", past, then)
	check("today again", q, after)

	// A search kept from today read no expired row, and does not answer
	// at a clock at which a memory it skipped was live.
	gone := add(t, e, &cairn.Memory{Project: "p2", Content: "platypus egg", ExpiresAt: now.Add(-2 * day)}).Memory
	stays := addNew(t, e, "p2", "platypus pouch")
	q2 := cairn.Query{Project: "p2", Text: "platypus", Limit: cairn.MaxLimit, Now: now}
	check("a search that read no expired row", q2, []string{stays.ID})
	q2.Now = now.Add(-3 * day)
	check("the same search before the expiry", q2, []string{gone.ID, stays.ID})
}

// expiryDayStart is the start of t's UTC day.
func expiryDayStart(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

func testSuperseded(t *testing.T, e *engine.Engine) {
	old := addNew(t, e, "p", "deploy with the legacy walrus script")
	nw := addNew(t, e, "p", "deploy with the walrus pipeline")
	if _, err := e.UpdateMemory(t.Context(), old.ID, cairn.MemoryUpdate{SupersededBy: ptr(nw.ID)}); err != nil {
		t.Fatal(err)
	}
	got := searchIDs(t, e, "p", "walrus")
	if !slices.Contains(got, old.ID) || !slices.Contains(got, nw.ID) {
		t.Errorf("Search(walrus) = %v, want both the superseded and the new memory", got)
	}
	if got := hitIDs(search(t, e, cairn.Query{Project: "p", Text: "walrus", ExcludeSuperseded: true})); !slices.Equal(got, []string{nw.ID}) {
		t.Errorf("Search(walrus, ExcludeSuperseded) = %v, want [%s]", got, nw.ID)
	}
	// A superseded memory is not reinforced by its content again.
	if res := add(t, e, &cairn.Memory{Project: "p", Content: "deploy with the legacy walrus script"}); res.Status != cairn.StatusCreated || res.Memory.ID == old.ID {
		t.Errorf("re-adding superseded content: %s %s, want a new memory", res.Status, res.Memory.ID)
	}
}

func testSearchHostile(t *testing.T, e *engine.Engine) {
	m := addNew(t, e, "p", "alpha OR beta: the NEAR column x")
	addNew(t, e, "q", "secret of another project: alpha beta col x")
	queries := []string{
		`"a" AND b NEAR( c* col:x ' OR 1=1 --`,
		`"`, `'`, `"unterminated`, `''`, `\`, `*`, `^`, `(`, `)`, `:`, `-`, `--`, `+`, `NOT`, `AND OR NOT`,
		`col:x`, `alpha*`, `{alpha}`, `[beta]`, `alpha"beta`, `'; DROP TABLE memories; --`,
		`%`, `_`, `%alpha%`, "alpha\x00beta", "\xff\xfe\xfd", "ünïcödé 日本語のテスト 🚀 \u200b\u202e",
		strings.Repeat("alpha ", 2048),
		strings.Repeat("x", 10*1024),
		strings.Repeat(`"( `, 3500),
		strings.Repeat("日本", 2000),
	}
	for _, q := range queries {
		hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: q})
		if err != nil {
			t.Errorf("Search(%.40q): %v", q, err)
			continue
		}
		for _, h := range hits {
			if h.Memory.Project != "p" {
				t.Errorf("Search(%.40q) returned project %s", q, h.Memory.Project)
			}
		}
	}
	// The store is intact.
	if got := searchIDs(t, e, "p", "alpha beta"); !slices.Equal(got, []string{m.ID}) {
		t.Errorf("after hostile queries: %v", got)
	}
	if got := searchIDs(t, e, "p", `alpha" OR "1"="1`); !slices.Equal(got, []string{m.ID}) {
		t.Errorf("quoted injection: %v, want [%s]", got, m.ID)
	}
}

func testSearchEmpty(t *testing.T, e *engine.Engine) {
	addNew(t, e, "p", "something")
	for _, text := range []string{"", "   ", "\n\t"} {
		_, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: text})
		wantCode(t, err, cairn.EINVALID, fmt.Sprintf("Search(%q)", text))
		if err != nil && cairn.ErrorMessage(err) == "" {
			t.Errorf("Search(%q): empty message", text)
		}
	}
	_, err := e.Search(t.Context(), cairn.Query{Project: "", Text: "something"})
	wantCode(t, err, cairn.EINVALID, "Search without a project")
	_, err = e.Search(t.Context(), cairn.Query{Project: "p", Text: "something", Limit: cairn.MaxLimit + 1})
	wantCode(t, err, cairn.EINVALID, "Search over MaxLimit")
	// Text without terms finds nothing, without error.
	if hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: "the and of !!!"}); err != nil || len(hits) != 0 {
		t.Errorf("stopwords only: %d hits, %v", len(hits), err)
	}
	// An empty store finds nothing, without error.
	if hits, err := e.Search(t.Context(), cairn.Query{Project: "empty", Text: "something"}); err != nil || len(hits) != 0 {
		t.Errorf("empty project: %d hits, %v", len(hits), err)
	}
}

func testEditReindexes(t *testing.T, e *engine.Engine) {
	m := addNew(t, e, "p", "The deploy uses kubernetes manifests")
	other := addNew(t, e, "p", "The deploy of the docs is manual")
	n, err := e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Content: ptr("The deploy uses nomad jobs")})
	if err != nil {
		t.Fatal(err)
	}
	if n.Title != "The deploy uses nomad jobs" {
		t.Errorf("title %q, want derived from the new content", n.Title)
	}
	if !n.UpdatedAt.Equal(now) {
		t.Errorf("updated_at %v", n.UpdatedAt)
	}
	wantNotFound(t, e, "p", "kubernetes", m.ID)
	wantNotFound(t, e, "p", "manifests", m.ID)
	wantFound(t, e, "p", "nomad", m.ID)
	got := searchIDs(t, e, "p", "deploy")
	slices.Sort(got)
	if want := slices.Sorted(slices.Values([]string{m.ID, other.ID})); !slices.Equal(got, want) {
		t.Errorf("Search(deploy) = %v, want each memory once: %v", got, want)
	}
	// Tags and an explicit title are searchable too, and replaced likewise.
	if _, err := e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Title: ptr("Orchestrator choice"), Tags: &[]string{"infra"}}); err != nil {
		t.Fatal(err)
	}
	wantFound(t, e, "p", "orchestrator", m.ID)
	wantFound(t, e, "p", "infra", m.ID)
	if _, err := e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Tags: &[]string{}}); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, e, "p", "infra", m.ID)
	// An update that changes nothing keeps updated_at.
	before := get(t, e, m.ID)
	if _, err := e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Content: ptr(before.Content)}); err != nil {
		t.Fatal(err)
	}
	for _, d := range diffMemory(before, get(t, e, m.ID)) {
		t.Errorf("no-op update changed %s", d)
	}
	// A key taken by another memory conflicts.
	add(t, e, &cairn.Memory{Project: "p", Key: "k", Content: "holder of k"})
	_, err = e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Key: ptr("k")})
	wantCode(t, err, cairn.ECONFLICT, "update to a taken key")
	_, err = e.UpdateMemory(t.Context(), "mem-missing-000000", cairn.MemoryUpdate{Pinned: ptr(true)})
	wantCode(t, err, cairn.ENOTFOUND, "update of a missing memory")
}

func testScopeChange(t *testing.T, e *engine.Engine) {
	m := addNew(t, e, "alpha", "prefer tabs over spaces everywhere")
	if got := searchIDs(t, e, "beta", "tabs"); len(got) != 0 {
		t.Fatalf("beta finds alpha's project memory: %v", got)
	}
	if _, err := e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Scope: ptr(cairn.ScopeGlobal)}); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, e, "beta", "tabs"); !slices.Equal(got, []string{m.ID}) {
		t.Errorf("beta after scope global: %v, want [%s]", got, m.ID)
	}
	if got := searchIDs(t, e, "alpha", "tabs"); !slices.Equal(got, []string{m.ID}) {
		t.Errorf("alpha after scope global: %v, want [%s] once", got, m.ID)
	}
	if _, err := e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Scope: ptr(cairn.ScopeProject)}); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, e, "beta", "tabs"); len(got) != 0 {
		t.Errorf("beta after scope project again: %v", got)
	}
	if got := searchIDs(t, e, "alpha", "tabs"); !slices.Equal(got, []string{m.ID}) {
		t.Errorf("alpha after scope project again: %v", got)
	}
}

func testDeleteUnfindable(t *testing.T, e *engine.Engine) {
	m := addNew(t, e, "p", "temporary quokka note")
	keep := addNew(t, e, "p", "permanent quokka note")
	if err := e.DeleteMemory(t.Context(), m.ID); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, e, "p", "quokka"); !slices.Equal(got, []string{keep.ID}) {
		t.Errorf("Search after delete = %v, want [%s]", got, keep.ID)
	}
	wantNotFound(t, e, "p", "temporary", m.ID)
	_, err := e.FindMemoryByID(t.Context(), m.ID)
	wantCode(t, err, cairn.ENOTFOUND, "FindMemoryByID after delete")
	wantCode(t, e.DeleteMemory(t.Context(), m.ID), cairn.ENOTFOUND, "second delete")
	st, err := e.Stats(t.Context(), "p")
	if err != nil || st.Total != 1 || st.IndexDocs != 1 || st.DeadDocs != 1 {
		t.Errorf("Stats after delete = %+v, %v", st, err)
	}
	// The same content can be added again as a new memory.
	if res := add(t, e, &cairn.Memory{Project: "p", Content: "temporary quokka note"}); res.Status != cairn.StatusCreated {
		t.Errorf("re-adding deleted content: %s", res.Status)
	}
}

func testCompaction(t *testing.T, e *engine.Engine) {
	const n, edited, deleted = 400, 150, 150 // 300 dead docs: more than 256 and a quarter
	var ms []*cairn.Memory
	for i := 0; i < n; i++ {
		ms = append(ms, addNew(t, e, "cmp", fmt.Sprintf("compaction shared words tok%d", i)))
	}
	for i := 0; i < edited; i++ {
		if _, err := e.UpdateMemory(t.Context(), ms[i].ID, cairn.MemoryUpdate{Content: ptr(fmt.Sprintf("compaction shared words newtok%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	for i := edited; i < edited+deleted; i++ {
		if err := e.DeleteMemory(t.Context(), ms[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	st, err := e.Stats(t.Context(), "cmp")
	if err != nil {
		t.Fatal(err)
	}
	live := n - deleted
	if st.Total != live || st.IndexDocs != int64(live) {
		t.Errorf("Stats = %+v, want %d memories and documents", st, live)
	}
	// Compaction ran once the dead reached 256 and reset the count; only
	// those dead since remain.
	if st.DeadDocs >= 256 {
		t.Errorf("%d dead documents after %d edits and deletes: compaction did not reset the count", st.DeadDocs, edited+deleted)
	}

	// Every memory is found by its own words only.
	if got := search(t, e, cairn.Query{Project: "cmp", Text: "shared words"}); len(got) != live {
		t.Errorf("Search(shared words) = %d hits, want %d", len(got), live)
	}
	for i, m := range ms {
		oldWord, newWord := fmt.Sprintf("tok%d", i), fmt.Sprintf("newtok%d", i)
		switch {
		case i < edited:
			wantNone(t, e, "cmp", oldWord)
			wantFirst(t, e, "cmp", newWord, m.ID)
		case i < edited+deleted:
			wantNone(t, e, "cmp", oldWord)
			wantNone(t, e, "cmp", newWord)
		default:
			wantFirst(t, e, "cmp", oldWord, m.ID)
		}
	}

	// The stored postings hold only live documents and those dead since
	// the last compaction.
	err = e.Store().View(t.Context(), func(tx cairn.Tx) error {
		ctx := t.Context()
		ps, err := tx.Partition(ctx, "cmp")
		if err != nil {
			return err
		}
		dead, err := index.DecodeDead(ps.Dead)
		if err != nil {
			return err
		}
		if int64(dead.Len()) != ps.DeadDocs {
			t.Errorf("dead set holds %d documents, stats say %d", dead.Len(), ps.DeadDocs)
		}
		return checkPostings(ctx, t, tx, "cmp", dead)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkPostings checks that every posting of partition names a live
// memory or a document in dead.
func checkPostings(ctx context.Context, t *testing.T, tx cairn.Tx, partition string, dead index.DeadSet) error {
	docs := map[int64]bool{}
	after := ""
	for {
		tps, err := tx.ScanPostings(ctx, partition, after, 500)
		if err != nil {
			return err
		}
		if len(tps) == 0 {
			break
		}
		for _, tp := range tps {
			var df int64
			if err := index.Decode(tp.Data, func(doc int64, tf int, dl byte) {
				docs[doc] = true
				df++
			}); err != nil {
				return fmt.Errorf("term %q: %w", tp.Term, err)
			}
			if df != tp.DF {
				t.Errorf("term %q: DF %d, %d postings", tp.Term, tp.DF, df)
			}
		}
		after = tps[len(tps)-1].Term
	}
	var list []int64
	for d := range docs {
		list = append(list, d)
	}
	ms, err := tx.FindMemoriesByDoc(ctx, partition, list)
	if err != nil {
		return err
	}
	liveDocs := map[int64]bool{}
	for _, m := range ms {
		liveDocs[m.DocNum] = true
	}
	stale := 0
	for d := range docs {
		if !liveDocs[d] && !dead.Has(d) {
			stale++
		}
	}
	if stale > 0 {
		t.Errorf("%d documents in the postings are neither live nor in the dead set: compaction left them", stale)
	}
	return nil
}

// --- import --------------------------------------------------------------

func records(ms ...*cairn.Memory) func(func(cairn.ImportRecord) bool) {
	return func(yield func(cairn.ImportRecord) bool) {
		for i, m := range ms {
			rec := cairn.ImportRecord{Line: i + 1, Memory: m}
			if m == nil {
				rec.Memory, rec.Err = nil, fmt.Errorf("field confidence: expected a number, found a JSON string")
			}
			if !yield(rec) {
				return
			}
		}
	}
}

func importRecords(t *testing.T, e *engine.Engine, opts cairn.ImportOptions, ms ...*cairn.Memory) *cairn.ImportReport {
	t.Helper()
	rep, err := e.Import(t.Context(), records(ms...), opts)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return rep
}

func testImportAtomic(t *testing.T, e *engine.Engine) {
	addNew(t, e, "p", "an older note about the weather")
	before := list(t, e, "p")
	stBefore, _ := e.Stats(t.Context(), "p")
	for _, bad := range []*cairn.Memory{
		{Content: "   "},
		{Content: "x", Confidence: 1.5},
		{Content: "x", Type: "Bad Type"},
		nil, // a record the reader could not parse
	} {
		_, err := e.Import(t.Context(), records(
			&cairn.Memory{Content: "imported one"},
			&cairn.Memory{Content: "imported two", Key: "k"},
			bad,
			&cairn.Memory{Content: "imported four"},
		), cairn.ImportOptions{Project: "p"})
		wantCode(t, err, cairn.EINVALID, "import with a bad line")
		if msg := cairn.ErrorMessage(err); !strings.Contains(msg, "line 3") {
			t.Errorf("import error %q does not name line 3", msg)
		}
	}
	after := list(t, e, "p")
	if !slices.Equal(ids(before), ids(after)) {
		t.Errorf("a failed import stored memories: %v -> %v", ids(before), ids(after))
	}
	for _, q := range []string{"imported", "four"} {
		if got := searchIDs(t, e, "p", q); len(got) != 0 {
			t.Errorf("Search(%s) after a failed import = %v", q, got)
		}
	}
	if st, _ := e.Stats(t.Context(), "p"); st.IndexDocs != stBefore.IndexDocs || st.DeadDocs != stBefore.DeadDocs {
		t.Errorf("index stats changed by a failed import: %+v -> %+v", stBefore, st)
	}
}

func testImportSkipInvalid(t *testing.T, e *engine.Engine) {
	rep := importRecords(t, e, cairn.ImportOptions{Project: "p", SkipInvalid: true},
		&cairn.Memory{Content: "kept one"},
		&cairn.Memory{Content: "bad", Tags: []string{"bad tag"}},
		&cairn.Memory{Content: "kept three"},
		nil,
		&cairn.Memory{Content: "kept five"},
	)
	if rep.Read != 5 || rep.Created != 3 || len(rep.Skipped) != 2 {
		t.Errorf("report %+v, want 5 read, 3 created, 2 skipped", rep)
	}
	if len(rep.Skipped) == 2 {
		if rep.Skipped[0].Line != 2 || rep.Skipped[1].Line != 4 {
			t.Errorf("skipped lines %d, %d; want 2, 4", rep.Skipped[0].Line, rep.Skipped[1].Line)
		}
		if !strings.Contains(rep.Skipped[0].Message, "tag") || !strings.Contains(rep.Skipped[1].Message, "confidence") {
			t.Errorf("skip messages %q, %q", rep.Skipped[0].Message, rep.Skipped[1].Message)
		}
	}
	if got := len(search(t, e, cairn.Query{Project: "p", Text: "kept"})); got != 3 {
		t.Errorf("Search(kept) = %d hits, want 3", got)
	}
}

// exported are records as an export would give them: ids, projects and
// times set.
func exported() []*cairn.Memory {
	return []*cairn.Memory{
		{ID: "mem-exp-1", Project: "p", Type: "decision", Key: "db", Content: "use postgres", Confidence: 0.8,
			Tags: []string{"db"}, CreatedAt: now.Add(-72 * time.Hour), UpdatedAt: now.Add(-48 * time.Hour), UseCount: 3},
		{ID: "mem-exp-2", Project: "p", Content: "tabs not spaces", Scope: cairn.ScopeGlobal,
			CreatedAt: now.Add(-24 * time.Hour), UpdatedAt: now.Add(-24 * time.Hour)},
		{ID: "mem-exp-3", Project: "p", Type: "gotcha", Content: "the cache lies", Source: cairn.SourceAutomatic,
			CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour), FileRefs: []string{"cache.go"}},
	}
}

func snapshot(t *testing.T, e *engine.Engine, project string) map[string]*cairn.Memory {
	t.Helper()
	ms, _, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: project, IncludeGlobal: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*cairn.Memory{}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out
}

func checkUnchanged(t *testing.T, before, after map[string]*cairn.Memory) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("%d memories became %d", len(before), len(after))
	}
	for id, b := range before {
		a, ok := after[id]
		if !ok {
			t.Errorf("memory %s disappeared", id)
			continue
		}
		for _, d := range diffMemory(b, a) {
			t.Errorf("memory %s changed: %s", id, d)
		}
	}
}

func testReimportWithIDs(t *testing.T, e *engine.Engine) {
	rep := importRecords(t, e, cairn.ImportOptions{Project: "p"}, exported()...)
	if rep.Created != 3 || rep.Read != 3 {
		t.Fatalf("first import: %+v", rep)
	}
	before := snapshot(t, e, "p")
	rep = importRecords(t, e, cairn.ImportOptions{Project: "p"}, exported()...)
	if rep.Unchanged != 3 || rep.Created+rep.Updated+rep.Reinforced != 0 || len(rep.Skipped) != 0 {
		t.Errorf("second import: %+v, want all 3 unchanged", rep)
	}
	checkUnchanged(t, before, snapshot(t, e, "p"))
	if got := search(t, e, cairn.Query{Project: "p", Text: "postgres tabs cache"}); len(got) != 3 {
		t.Errorf("search after re-import: %d hits, want 3", len(got))
	}

	// A newer record replaces the stored memory; an older one does not.
	newer := exported()[1]
	newer.Content, newer.UpdatedAt = "tabs and never spaces", now.Add(-time.Minute)
	older := exported()[0]
	older.Content, older.UpdatedAt = "use mysql", now.Add(-100*time.Hour)
	rep = importRecords(t, e, cairn.ImportOptions{Project: "p"}, newer, older)
	if rep.Updated != 1 || rep.Unchanged != 1 {
		t.Errorf("import of a newer and an older record: %+v", rep)
	}
	if m := get(t, e, "mem-exp-2"); m.Content != "tabs and never spaces" {
		t.Errorf("newer record not applied: %q", m.Content)
	}
	if m := get(t, e, "mem-exp-1"); m.Content != "use postgres" {
		t.Errorf("older record applied: %q", m.Content)
	}
	wantFound(t, e, "p", "never", "mem-exp-2")
	wantNotFound(t, e, "p", "mysql", "mem-exp-1")
}

func testReimportWithoutIDs(t *testing.T, e *engine.Engine) {
	recs := func() []*cairn.Memory {
		return []*cairn.Memory{
			{Content: "first plain record"},
			{Content: "second plain record", Type: "pitfall", Tags: []string{"x"}},
			{Content: "keyed record", Type: "decision", Key: "k"},
		}
	}
	rep := importRecords(t, e, cairn.ImportOptions{Project: "p"}, recs()...)
	if rep.Created != 3 {
		t.Fatalf("first import: %+v", rep)
	}
	before := snapshot(t, e, "p")
	rep = importRecords(t, e, cairn.ImportOptions{Project: "p"}, recs()...)
	if rep.Unchanged != 3 {
		t.Errorf("second import of the same file: %+v, want all 3 unchanged", rep)
	}
	checkUnchanged(t, before, snapshot(t, e, "p"))
}

// testImportDedups: a record folds into a memory written earlier in the
// same import, as AddMemory would fold it.
func testImportDedups(t *testing.T, e *engine.Engine) {
	add(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "db", Content: "we use mysql"})
	add(t, e, &cairn.Memory{ID: "mem-stored", Project: "p", Content: "stored text", CreatedAt: now.Add(-time.Hour)})
	rep := importRecords(t, e, cairn.ImportOptions{Project: "p"},
		&cairn.Memory{Type: "decision", Key: "db", Content: "we use postgres"},    // updates the keyed memory
		&cairn.Memory{Content: "we  use postgres"},                                // same content as it now has
		&cairn.Memory{ID: "mem-stored", Content: "replaced text", UpdatedAt: now}, // a newer version
		&cairn.Memory{Content: "replaced   text"},                                 // same content as it now has
		&cairn.Memory{Content: "brand new"},
		&cairn.Memory{Content: "brand\nnew"},
	)
	if rep.Created != 1 || rep.Updated != 2 {
		t.Errorf("import report %+v, want 1 created, 2 updated and the repeats folded", rep)
	}
	ms := list(t, e, "p")
	if len(ms) != 3 {
		var contents []string
		for _, m := range ms {
			contents = append(contents, m.Content)
		}
		t.Errorf("%d memories %q, want 3: repeated content was stored twice", len(ms), contents)
	}
	// A repeat within the file reinforces the memory the file created.
	for _, m := range ms {
		if m.Content == "brand new" && m.UseCount != 1 {
			t.Errorf("repeated record: use_count %d, want 1", m.UseCount)
		}
	}
}

func testImportKeeps(t *testing.T, e *engine.Engine) {
	created := now.Add(-400 * 24 * time.Hour)
	rep := importRecords(t, e, cairn.ImportOptions{Project: "default"},
		&cairn.Memory{ID: "imp-1", Project: "elsewhere", Content: "from another project", CreatedAt: created},
		&cairn.Memory{ID: "imp-2", Content: "no project given", Confidence: 0.33, UseCount: 4, Pinned: true},
		&cairn.Memory{Content: "no id given"},
	)
	if rep.Created != 3 {
		t.Fatalf("import: %+v", rep)
	}
	m1 := get(t, e, "imp-1")
	if m1.Project != "elsewhere" || !m1.CreatedAt.Equal(created) || !m1.UpdatedAt.Equal(created) {
		t.Errorf("imp-1: project %q created %v updated %v", m1.Project, m1.CreatedAt, m1.UpdatedAt)
	}
	if m1.Source != cairn.SourceImported || !approx(m1.Confidence, 0.7) {
		t.Errorf("imp-1: source %q confidence %v; want imported, 0.7", m1.Source, m1.Confidence)
	}
	m2 := get(t, e, "imp-2")
	if m2.Project != "default" || !approx(m2.Confidence, 0.33) || m2.UseCount != 4 || !m2.Pinned || !m2.CreatedAt.Equal(now) {
		t.Errorf("imp-2: %+v", m2)
	}
	wantFound(t, e, "elsewhere", "another", "imp-1")
	wantNotFound(t, e, "default", "another", "imp-1")
	// An id of another project conflicts, and is reported as invalid.
	_, err := e.Import(t.Context(), records(&cairn.Memory{ID: "imp-1", Project: "default", Content: "steal the id", UpdatedAt: now}), cairn.ImportOptions{})
	wantCode(t, err, cairn.EINVALID, "import of an id used by another project")
	if m := get(t, e, "imp-1"); m.Project != "elsewhere" || m.Content != "from another project" {
		t.Errorf("imp-1 changed by a conflicting import: %+v", m)
	}
}

// --- validation and stats -------------------------------------------------

func testValidation(t *testing.T, e *engine.Engine) {
	ok := func() *cairn.Memory { return &cairn.Memory{Project: "p", Content: "valid content"} }
	tests := []struct {
		name string
		edit func(m *cairn.Memory)
	}{
		{"invalid UTF-8 content", func(m *cairn.Memory) { m.Content = "bad \xff\xfe bytes" }},
		{"NUL byte", func(m *cairn.Memory) { m.Content = "nul\x00byte" }},
		{"content too large", func(m *cairn.Memory) { m.Content = strings.Repeat("word ", cairn.MaxContentBytes/5+1) }},
		{"empty content", func(m *cairn.Memory) { m.Content = " \n\t " }},
		{"bad type name", func(m *cairn.Memory) { m.Type = "Bad Type" }},
		{"bad tag", func(m *cairn.Memory) { m.Tags = []string{"ok", "bad tag"} }},
		{"too many tags", func(m *cairn.Memory) {
			for i := 0; i <= cairn.MaxTags; i++ {
				m.Tags = append(m.Tags, fmt.Sprintf("t%d", i))
			}
		}},
		{"confidence above 1", func(m *cairn.Memory) { m.Confidence = 1.5 }},
		{"negative confidence", func(m *cairn.Memory) { m.Confidence = -0.1 }},
		{"NaN confidence", func(m *cairn.Memory) { m.Confidence = math.NaN() }},
		{"no project", func(m *cairn.Memory) { m.Project = "" }},
		{"control character in project", func(m *cairn.Memory) { m.Project = "p\n" }},
		{"bad scope", func(m *cairn.Memory) { m.Scope = "team" }},
		{"bad source", func(m *cairn.Memory) { m.Source = "robot" }},
		{"title with newline", func(m *cairn.Memory) { m.Title = "two\nlines" }},
		{"invalid UTF-8 title", func(m *cairn.Memory) { m.Title = "bad \xff" }},
		{"key with control character", func(m *cairn.Memory) { m.Key = "k\x01" }},
		{"id with space", func(m *cairn.Memory) { m.ID = "mem one" }},
		{"negative use count", func(m *cairn.Memory) { m.UseCount = -1 }},
	}
	for _, tt := range tests {
		m := ok()
		tt.edit(m)
		res, err := e.AddMemory(t.Context(), m)
		if err == nil {
			t.Errorf("%s: stored as %s", tt.name, res.Memory.ID)
			continue
		}
		wantCode(t, err, cairn.EINVALID, tt.name)
		if msg := cairn.ErrorMessage(err); len(msg) < 10 {
			t.Errorf("%s: message %q does not say what is wrong", tt.name, msg)
		}
	}
	if ms, total, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p"}); err != nil || total != 0 {
		t.Errorf("invalid memories were stored: %v, %v", ids(ms), err)
	}
	if _, _, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p\n"}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("listing project %q: %v, want EINVALID", "p\n", err)
	}
	if st, err := e.Stats(t.Context(), "p"); err != nil || st.IndexDocs != 0 || st.GlobalTotal != 0 {
		t.Errorf("invalid memories were indexed: %+v, %v", st, err)
	}

	// The limit itself is allowed.
	big := ok()
	big.Content = strings.Repeat("word ", cairn.MaxContentBytes/5)
	if _, err := e.AddMemory(t.Context(), big); err != nil {
		t.Errorf("content of %d bytes: %v", len(big.Content), err)
	}

	// Updates are validated the same way and change nothing when invalid.
	m := addNew(t, e, "p", "valid content for update")
	before := get(t, e, m.ID)
	for name, upd := range map[string]cairn.MemoryUpdate{
		"confidence":   {Confidence: ptr(1.5)},
		"type":         {Type: ptr("Bad Type")},
		"tag":          {Tags: &[]string{"bad tag"}},
		"content":      {Content: ptr("nul\x00")},
		"empty":        {Content: ptr("  ")},
		"scope":        {Scope: ptr(cairn.Scope("team"))},
		"supersede":    {SupersededBy: ptr(m.ID)},
		"supersede404": {SupersededBy: ptr("mem-nobody")},
	} {
		_, err := e.UpdateMemory(t.Context(), m.ID, upd)
		if err == nil {
			t.Errorf("update %s: accepted", name)
		} else if code := cairn.ErrorCode(err); code != cairn.EINVALID && !(name == "supersede404" && code == cairn.ENOTFOUND) {
			t.Errorf("update %s: code %q (%v)", name, code, err)
		}
	}
	for _, d := range diffMemory(before, get(t, e, m.ID)) {
		t.Errorf("invalid updates changed %s", d)
	}
	wantFound(t, e, "p", "update", m.ID)
}

func testStats(t *testing.T, e *engine.Engine) {
	addNew(t, e, "p", "one note")
	add(t, e, &cairn.Memory{Project: "p", Type: "decision", Content: "one decision"})
	add(t, e, &cairn.Memory{Project: "p", Type: "decision", Content: "another decision"})
	add(t, e, &cairn.Memory{Project: "q", Scope: cairn.ScopeGlobal, Content: "global preference"})
	addNew(t, e, "q", "q's note")
	st, err := e.Stats(t.Context(), "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Project != "p" || st.Total != 3 || st.ByType["note"] != 1 || st.ByType["decision"] != 2 || len(st.ByType) != 2 {
		t.Errorf("Stats(p) = %+v", st)
	}
	if st.IndexDocs != 3 || st.DeadDocs != 0 || st.GlobalTotal != 1 {
		t.Errorf("Stats(p) index = %+v", st)
	}
	st, err = e.Stats(t.Context(), "nobody")
	if err != nil || st.Total != 0 || st.IndexDocs != 0 || st.GlobalTotal != 1 {
		t.Errorf("Stats(nobody) = %+v, %v", st, err)
	}
	_, err = e.Stats(t.Context(), "")
	wantCode(t, err, cairn.EINVALID, "Stats without a project")
}

// testNearDuplicate: a memory without a key whose text is near-identical
// (engine.NearDuplicateThreshold) to a live one of the same project and
// type reinforces it; a different text, type or project adds a new one.
func testNearDuplicate(t *testing.T, e *engine.Engine) {
	first := addNew(t, e, "p", "Tests use table-driven subtests with t.Run.")
	other := addNew(t, e, "p", "Use t.TempDir() for test databases.")
	res := add(t, e, &cairn.Memory{Project: "p", Content: "tests use table driven subtests with t.Run"})
	if res.Status != cairn.StatusReinforced || res.Memory.ID != first.ID {
		t.Fatalf("near-identical text: %s %s, want %s reinforced", res.Status, res.Memory.ID, first.ID)
	}
	if m := get(t, e, first.ID); m.UseCount != 1 || !approx(m.Confidence, 0.62) {
		t.Errorf("after reinforcement: use_count %d confidence %v; want 1, 0.62", m.UseCount, m.Confidence)
	}
	if res := add(t, e, &cairn.Memory{Project: "p", Content: "Use t.TempDir() for temporary files."}); res.Status != cairn.StatusCreated || res.Memory.ID == other.ID {
		t.Errorf("different text: %s, want created", res.Status)
	}
	if res := add(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: "Tests use table driven subtests with t.Run"}); res.Status != cairn.StatusCreated {
		t.Errorf("other type: %s, want created", res.Status)
	}
	if res := add(t, e, &cairn.Memory{Project: "q", Content: "Tests use table driven subtests with t.Run"}); res.Status != cairn.StatusCreated {
		t.Errorf("other project: %s, want created", res.Status)
	}
}

func testIfContent(t *testing.T, e *engine.Engine) {
	m := addNew(t, e, "p", "Release notes are written by hand")
	stale := m.Content
	n, err := e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Content: ptr("Release notes are generated from commits"), IfContent: &stale})
	if err != nil || n.Content != "Release notes are generated from commits" {
		t.Fatalf("update with the content read: %v, %v", n, err)
	}
	// A second writer that read the old content is refused, and changes
	// nothing.
	_, err = e.UpdateMemory(t.Context(), m.ID, cairn.MemoryUpdate{Content: ptr("Release notes are skipped"), Title: ptr("x"), IfContent: &stale})
	if cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Fatalf("update with stale content: %v, want ECONFLICT", err)
	}
	got, err := e.FindMemoryByID(t.Context(), m.ID)
	if err != nil || got.Content != "Release notes are generated from commits" || got.Title == "x" {
		t.Errorf("after the refused update: %+v, %v", got, err)
	}
}

func testCreateOnly(t *testing.T, e *engine.Engine) {
	m := &cairn.Memory{Project: "p", Type: "context", Key: "memfile:/a", Content: "first"}
	if res, err := e.CreateMemory(t.Context(), m); err != nil || res.Status != cairn.StatusCreated {
		t.Fatalf("CreateMemory: %+v, %v", res, err)
	}
	// The same key again is a conflict and changes nothing; the same
	// content under another key is a memory of its own.
	if _, err := e.CreateMemory(t.Context(), &cairn.Memory{Project: "p", Type: "context", Key: "memfile:/a", Content: "second"}); cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Fatalf("CreateMemory of a taken key: %v, want ECONFLICT", err)
	}
	got, _, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p"})
	if err != nil || len(got) != 1 || got[0].Content != "first" {
		t.Fatalf("after the conflict: %v, %v", got, err)
	}
	if res, err := e.CreateMemory(t.Context(), &cairn.Memory{Project: "p", Type: "context", Key: "memfile:/b", Content: "first"}); err != nil || res.Status != cairn.StatusCreated {
		t.Errorf("same content, other key: %+v, %v", res, err)
	}
	if _, err := e.CreateMemory(t.Context(), &cairn.Memory{Project: "p", Type: "context", Content: "no key"}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("CreateMemory without a key: %v, want EINVALID", err)
	}
}

// The session that wrote a memory saying it again (the transcript and the
// hook's last message, a capture run twice) is one observation: no use or
// confidence is added; another session saying it reinforces.
func testSameSessionRepeat(t *testing.T, e *engine.Engine) {
	add := func(session string, tags ...string) *cairn.WriteResult {
		t.Helper()
		res, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "pitfall", Content: "The cache key ignores the tenant.", SessionID: session, Tags: tags})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := add("s-1")
	if res := add("s-1"); res.Status != cairn.StatusUnchanged || res.Memory.UseCount != 0 || res.Memory.Confidence != first.Memory.Confidence {
		t.Errorf("same session again: %s, use %d, confidence %v", res.Status, res.Memory.UseCount, res.Memory.Confidence)
	}
	if res := add("s-1", "cache"); res.Status != cairn.StatusUpdated || res.Memory.UseCount != 0 || !slices.Contains(res.Memory.Tags, "cache") {
		t.Errorf("same session with a new tag: %s, use %d, tags %v", res.Status, res.Memory.UseCount, res.Memory.Tags)
	}
	if res := add("s-2"); res.Status != cairn.StatusReinforced || res.Memory.UseCount != 1 || res.Memory.Confidence <= first.Memory.Confidence {
		t.Errorf("another session: %s, use %d, confidence %v", res.Status, res.Memory.UseCount, res.Memory.Confidence)
	}
	if res := add(""); res.Status != cairn.StatusReinforced || res.Memory.UseCount != 2 {
		t.Errorf("no session: %s, use %d", res.Status, res.Memory.UseCount)
	}
}
