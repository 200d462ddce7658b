package recall_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/recall"
)

// lookupNow is the clock of the lookups' tests.
var lookupNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func lookupEngine(t *testing.T) *engine.Engine {
	t.Helper()
	return newEngine(t, func() time.Time { return lookupNow })
}

func add(t *testing.T, e *engine.Engine, m *cairn.Memory) string {
	t.Helper()
	if m.Project == "" {
		m.Project = "p"
	}
	w, err := e.AddMemory(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	return w.Memory.ID
}

func TestFileLookupShowsWhatNamesTheFileAndTheSessionsThatChangedIt(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	dec := add(t, e, &cairn.Memory{Type: "decision", Content: "Tokens are checked in constant time", FileRefs: []string{"internal/auth/token.go"}})
	pit := add(t, e, &cairn.Memory{Type: "pitfall", Content: "token.go must not log the raw token; it ends up in CI logs"})
	glob := add(t, e, &cairn.Memory{Type: "convention", Content: "Every auth file has a table test", FileRefs: []string{"internal/auth/**"}})
	sess := add(t, e, &cairn.Memory{Type: "session", Key: "session:s1", Title: "Session: rotate tokens", Content: "**Asked:** rotate tokens",
		FileRefs: []string{"internal/auth/token.go", "README.md"}})
	other := add(t, e, &cairn.Memory{Type: "decision", Content: "Sessions expire after a day", FileRefs: []string{"internal/auth/session.go"}})
	add(t, e, &cairn.Memory{Project: "q", Type: "decision", Content: "Other project's token.go", FileRefs: []string{"internal/auth/token.go"}})

	res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Kind: cairn.LookupFile, Subject: "./internal/auth/token.go", Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range res.Items {
		got[it.Memory.ID] = it.Section
	}
	for id, sec := range map[string]string{dec: "known", pit: "known", glob: "known", sess: "sessions"} {
		if got[id] != sec {
			t.Errorf("memory %s: section %q, want %q (items %v)", id, got[id], sec, got)
		}
	}
	if _, ok := got[other]; ok {
		t.Errorf("a memory about another file was shown: %v", got)
	}
	if len(res.Items) != 4 {
		t.Errorf("want 4 items (the other project's memory never), got %d: %v", len(res.Items), got)
	}
	if res.Items[len(res.Items)-1].Memory.ID != sess {
		t.Errorf("sessions come after what is known: %v", res.Items)
	}
	for _, want := range []string{"## Known about `internal/auth/token.go`", "## Sessions that changed `internal/auth/token.go`", "(id " + dec} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, res.Text)
		}
	}
}

func TestErrorLookupFindsTheFixOfTheSameFailureAndNotWeakMatches(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	fix := add(t, e, &cairn.Memory{Type: "fix", Title: "Fix for `go test ./...` failure",
		Content:  "**Problem:** panic: runtime error: invalid memory address or nil pointer dereference in parseConfig\n\n**Fix:** edited config/load.go",
		FileRefs: []string{"config/load.go"}})
	pit := add(t, e, &cairn.Memory{Type: "pitfall", Content: "parseConfig dereferences a nil pointer when cairn.toml is empty"})
	add(t, e, &cairn.Memory{Type: "fix", Title: "Fix for `npm test` failure", Content: "**Problem:** TypeError: cannot read properties of undefined\n\n**Fix:** edited web/app.ts"})

	res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Kind: cairn.LookupError,
		Subject: "panic: runtime error: invalid memory address or nil pointer dereference [parseConfig]", Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 || res.Items[0].Memory.ID != fix {
		t.Fatalf("the fix of the same failure comes first: %+v", res.Items)
	}
	ids := res.IDs()
	if len(ids) != 2 || ids[1] != pit {
		t.Errorf("want the fix then the pitfall, got %v\n%s", ids, res.Text)
	}
	if !strings.Contains(res.Text, "## What fixed this error before") {
		t.Errorf("no fixes section:\n%s", res.Text)
	}

	none, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Kind: cairn.LookupError, Subject: "segmentation fault in libfoo", Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Items) != 0 || none.Text != "" {
		t.Errorf("an unrelated error found %v", none.IDs())
	}
}

func TestCommandLookupListsTheLinesThatWorkedMostOftenFirst(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	f1 := add(t, e, &cairn.Memory{Type: "fix", Title: "Fix for `go test -race ./engine/` failure", Content: "**Problem:** DATA RACE\n\n**Fix:** edited engine/cache.go"})
	s1 := add(t, e, &cairn.Memory{Type: "session", Key: "session:a", Title: "Session: a", Content: "**Asked:** a\n\n**Failed, then passed:**\n- `go test -race ./engine/`\n- `npm test`"})
	conv := add(t, e, &cairn.Memory{Type: "convention", Content: "Run `CGO_ENABLED=0 go test ./...` before a commit; `go vet ./...` too"})
	add(t, e, &cairn.Memory{Type: "pitfall", Content: "`go test ./...` without -count=1 reuses cached results"})

	res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Kind: cairn.LookupCommand, Subject: "go test", Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commands) != 2 {
		t.Fatalf("want 2 command lines (the pitfall's is not one that worked), got %+v", res.Commands)
	}
	if c := res.Commands[0]; c.Line != "go test -race ./engine/" || c.Count != 2 || !contains(c.IDs, f1) || !contains(c.IDs, s1) {
		t.Errorf("first command: %+v", c)
	}
	if c := res.Commands[1]; c.Line != "CGO_ENABLED=0 go test ./..." || c.IDs[0] != conv {
		t.Errorf("second command: %+v", c)
	}
	if !strings.Contains(res.Text, "- [command] **go test -race ./engine/**: worked 2 times") {
		t.Errorf("answer:\n%s", res.Text)
	}
}

func TestLookupKeepsToTheBudgetAndCountsWhatItLeftOut(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	for i := range 30 {
		add(t, e, &cairn.Memory{Type: "decision", Title: "decision " + string(rune('a'+i%26)) + string(rune('a'+i/26)),
			Content: strings.Repeat("about main.go and more words ", 10) + string(rune('a'+i)), FileRefs: []string{"main.go"}})
	}
	res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Kind: cairn.LookupFile, Subject: "main.go", Budget: 200, Limit: 30, Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Text); n > 200*4 {
		t.Errorf("answer of %d bytes is over a 200-token budget", n)
	}
	_, stored, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items)+res.Omitted != stored || res.Omitted == 0 {
		t.Errorf("%d shown + %d omitted, want %d with some omitted", len(res.Items), res.Omitted, stored)
	}
	if !strings.Contains(res.Text, "more not shown") {
		t.Errorf("the answer does not say what it left out:\n%s", res.Text)
	}
}

func TestLookupRefusesBadRequests(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	// Bad inputs tried: an empty subject, an unknown kind, a limit out of
	// range, a budget too small.
	for _, req := range []cairn.LookupRequest{
		{Project: "p", Kind: cairn.LookupFile, Subject: "  "},
		{Project: "p", Kind: "colour", Subject: "x"},
		{Project: "p", Kind: cairn.LookupError, Subject: "x", Limit: 1000},
		{Project: "p", Kind: cairn.LookupCommand, Subject: "x", Budget: 10},
	} {
		if _, err := recall.Lookup(t.Context(), e, req); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("%+v: got %v, want EINVALID", req, err)
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
