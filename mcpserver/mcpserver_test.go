package mcpserver_test

// The MCP server through the SDK's own client over the in-memory
// transport: what an agent sees.
//
// Bad input tried here: unknown tool arguments, empty content, content
// over 64 KiB, FTS-hostile query strings ("\"unbalanced", "a OR", "*",
// "NEAR(", "col:x", SQL), ids that do not exist, ids and prefixes of
// another project's memories (get, update, forget, the memory resource),
// a bad resource URI, an invalid export type, an update without fields, a
// context with a bad format, a limit out of range, a recall prompt without
// a topic.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/wire"
)

// Both the engine of this process and a server's client serve an MCP
// server.
var (
	_ mcpserver.Service = local.Project{}
	_ mcpserver.Service = (*client.Project)(nil)
)

// fixture is one store with MCP clients connected to servers of its
// projects.
type fixture struct {
	t   *testing.T
	eng *engine.Engine

	mu   sync.Mutex
	uses [][]string // ids recorded by the service's recorder
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "cairn.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, &engine.Options{Redact: func(s string) string { out, _ := redact.String(s); return out }})
	return &fixture{t: t, eng: eng}
}

// connect returns a client session to a server of project.
func (f *fixture) connect(project string) *mcp.ClientSession {
	f.t.Helper()
	srv, err := mcpserver.New(mcpserver.Options{
		Service: local.New(f.eng, project, &local.Options{Record: func(ctx context.Context, ids []string, session string) error {
			f.mu.Lock()
			f.uses = append(f.uses, ids)
			f.mu.Unlock()
			return f.eng.RecordUse(ctx, ids, session)
		}}),
		Project: project,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := f.t.Context()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls a tool and returns its result; a protocol error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", tool, args, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok calls a tool that must succeed and decodes its structured result.
func ok[T any](t *testing.T, cs *mcp.ClientSession, tool string, args any) T {
	t.Helper()
	res := call(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s %v: tool error %s", tool, args, text(res))
	}
	var out T
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	return out
}

// toolErr calls a tool that must fail with a tool error and returns its
// text.
func toolErr(t *testing.T, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res := call(t, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s %v: want a tool error, got %s", tool, args, text(res))
	}
	return text(res)
}

func remember(t *testing.T, cs *mcp.ClientSession, args map[string]any) mcpserver.WriteOut {
	t.Helper()
	return ok[mcpserver.WriteOut](t, cs, "remember", args)
}

func TestToolsAreListedWithTruthfulAnnotationsAndSchemas(t *testing.T) {
	cs := newFixture(t).connect("proj")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		"remember":       {false, true, false}, // a key replaces; repeats reinforce
		"search":         {true, false, true},
		"get":            {true, false, true},
		"context":        {false, false, false}, // records use
		"update":         {false, true, true},
		"forget":         {false, true, true},
		"cleanup":        {false, true, false}, // a dry run unless apply; applying decays again next week
		"verify":         {false, false, true},
		"memory":         {false, true, false}, // writes files; a create twice is an error
		"loop_record":    {false, false, true}, // recording an iteration again replaces it
		"loop_context":   {true, false, true},
		"loop_model":     {true, false, true},
		"loop_status":    {true, false, true},
		"recall_file":    {true, false, true},
		"recall_error":   {true, false, true},
		"recall_command": {true, false, true},
		"hat_transition": {false, false, false},
	}
	got := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		got[tl.Name] = tl
	}
	for name, h := range want {
		tl := got[name]
		if tl == nil {
			t.Errorf("tool %s is not listed", name)
			continue
		}
		a := tl.Annotations
		if a == nil {
			t.Errorf("%s has no annotations", name)
			continue
		}
		destructive := a.DestructiveHint != nil && *a.DestructiveHint
		if a.ReadOnlyHint != h.readOnly || (!h.readOnly && destructive != h.destructive) || a.IdempotentHint != h.idempotent {
			t.Errorf("%s: readOnly %v destructive %v idempotent %v; want %+v", name, a.ReadOnlyHint, destructive, a.IdempotentHint, h)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint should be false", name)
		}
		schema, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(schema), `"properties"`) || tl.Description == "" {
			t.Errorf("%s: input schema %s, description %q", name, schema, tl.Description)
		}
		// One plain type per argument: clients that type text arguments
		// by the schema cannot use a list such as ["null", "array"].
		var in struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		json.Unmarshal(schema, &in)
		for arg, p := range in.Properties {
			if _, ok := p.Type.(string); !ok {
				t.Errorf("%s: argument %s has type %v, want one type", name, arg, p.Type)
			}
		}
	}
	schema, _ := json.Marshal(got["remember"].InputSchema)
	var s struct {
		Required   []string       `json:"required"`
		Properties map[string]any `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	if !slices.Equal(s.Required, []string{"content"}) {
		t.Errorf("remember requires %v, want only content", s.Required)
	}
	for _, p := range []string{"type", "title", "content", "tags", "files", "key", "confidence"} {
		if s.Properties[p] == nil {
			t.Errorf("remember's schema lacks %s: %s", p, schema)
		}
	}
}

func TestRememberSearchGetRoundTrip(t *testing.T) {
	cs := newFixture(t).connect("proj")
	w := remember(t, cs, map[string]any{
		"type": "pitfall", "content": "AuthService.Refresh returns nil, nil for unknown tokens; check for a nil session.",
		"tags": []string{"auth"}, "files": []string{"internal/auth/*.go"},
	})
	if w.Status != cairn.StatusCreated || !strings.HasPrefix(w.ID, "mem-") || w.Project != "proj" || w.Type != "pitfall" {
		t.Fatalf("remember answered %+v", w)
	}
	// The same content again reinforces the same memory.
	if again := remember(t, cs, map[string]any{"type": "pitfall", "content": "AuthService.Refresh returns nil, nil for unknown tokens;  check for a nil session."}); again.ID != w.ID || again.Status != cairn.StatusReinforced {
		t.Fatalf("second remember answered %+v, want reinforced %s", again, w.ID)
	}
	remember(t, cs, map[string]any{"content": "The release script tags from main only."})

	found := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "refresh nil session"})
	if len(found.Results) == 0 || found.Results[0].ID != w.ID {
		t.Fatalf("search results %+v, want %s first", found.Results, w.ID)
	}
	h := found.Results[0]
	if h.Type != "pitfall" || h.Score <= 0 || !strings.Contains(h.Snippet, "AuthService.Refresh") || h.Title == "" {
		t.Fatalf("hit %+v", h)
	}
	// A type filter that excludes it.
	if r := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "refresh nil session", "type": "decision"}); len(r.Results) != 0 {
		t.Fatalf("type filter ignored: %+v", r.Results)
	}
	// Tag filter that keeps it.
	if r := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "refresh", "tags": []string{"auth"}}); len(r.Results) != 1 {
		t.Fatalf("tag filter: %+v", r.Results)
	}

	got := ok[mcpserver.MemoriesOut](t, cs, "get", map[string]any{"ids": []string{w.ID, w.ID[:len(w.ID)-2]}})
	if len(got.Memories) != 2 || got.Memories[0].ID != w.ID || got.Memories[1].ID != w.ID {
		t.Fatalf("get: %+v", got.Memories)
	}
	m := got.Memories[0]
	if m.Content != "AuthService.Refresh returns nil, nil for unknown tokens; check for a nil session." ||
		!slices.Equal(m.FileRefs, []string{"internal/auth/*.go"}) || !slices.Contains(m.Tags, "auth") || m.UseCount != 1 {
		t.Fatalf("get returned %+v", m)
	}
}

func TestRememberRedactsSecrets(t *testing.T) {
	cs := newFixture(t).connect("proj")
	w := remember(t, cs, map[string]any{"content": "Deploy with token ghp_abcdefghijklmnopqrstuvwxyz0123456789 on CI."})
	m := ok[mcpserver.MemoriesOut](t, cs, "get", map[string]any{"ids": []string{w.ID}}).Memories[0]
	if strings.Contains(m.Content, "ghp_abcdef") || !strings.Contains(m.Content, "[REDACTED") {
		t.Fatalf("secret stored: %q", m.Content)
	}
}

// TestRememberDerivesACleanTitleFromTerminalOutput gives content whose
// first line is coloured test output ending in a carriage return.
func TestRememberDerivesACleanTitleFromTerminalOutput(t *testing.T) {
	cs := newFixture(t).connect("proj")
	w := remember(t, cs, map[string]any{"content": "\x1b[32mok\x1b[0m  pkg/auth 0.2s\r\nall green"})
	if w.Title != "ok  pkg/auth 0.2s" {
		t.Errorf("title %q", w.Title)
	}
}

// TestRememberRefusesATypoOfAKnownTypeUnlessNew gives "pitfal" for
// "pitfall", then confirms a near name as new.
func TestRememberRefusesATypoOfAKnownTypeUnlessNew(t *testing.T) {
	cs := newFixture(t).connect("proj")
	msg := toolErr(t, cs, "remember", map[string]any{"type": "pitfal", "content": "The cache must be warmed."})
	if !strings.Contains(msg, `did you mean "pitfall"?`) || !strings.Contains(msg, "new_type") {
		t.Errorf("typo: %q", msg)
	}
	if w := remember(t, cs, map[string]any{"type": "pitfal", "new_type": true, "content": "The cache must be warmed."}); w.Type != "pitfal" {
		t.Errorf("new_type: type %q", w.Type)
	}
}

func TestBadToolInputGivesToolErrorsThatSayWhatToFix(t *testing.T) {
	f := newFixture(t)
	cs := f.connect("proj")
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		// Unknown arguments are refused by the schema, not ignored.
		{"unknown argument", "remember", map[string]any{"content": "x y z", "colour": "blue"}, "colour"},
		{"missing content", "remember", map[string]any{"type": "note"}, "content"},
		{"empty content", "remember", map[string]any{"content": "   "}, "content is empty"},
		{"huge content", "remember", map[string]any{"content": strings.Repeat("a", 64*1024+1)}, "more than the limit"},
		{"bad type", "remember", map[string]any{"content": "x", "type": "Not A Type"}, "not valid"},
		{"bad confidence", "remember", map[string]any{"content": "x", "confidence": 7}, "confidence"},
		{"limit too large", "search", map[string]any{"query": "x", "limit": 1000}, "limit"},
		{"no ids", "get", map[string]any{"ids": []string{}}, "ids"},
		{"bad id", "get", map[string]any{"ids": []string{"mem-doesnotexist0000"}}, "not found"},
		{"empty id", "forget", map[string]any{"id": ""}, "id is empty"},
		{"forget bad id", "forget", map[string]any{"id": "mem-doesnotexist0000"}, "not found"},
		{"update bad id", "update", map[string]any{"id": "nope-nope", "title": "t"}, "not found"},
		{"bad format", "context", map[string]any{"prompt": "x", "format": "yaml"}, "format"},
		{"negative budget", "context", map[string]any{"prompt": "x", "budget": -1}, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := toolErr(t, cs, tc.tool, tc.args)
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q does not mention %q", msg, tc.want)
			}
		})
	}
	// The not-found message names the id and says where ids come from.
	msg := toolErr(t, cs, "get", map[string]any{"ids": []string{"mem-doesnotexist0000"}})
	if !strings.Contains(msg, "mem-doesnotexist0000") || !strings.Contains(msg, "search tool") {
		t.Fatalf("not-found error %q", msg)
	}
	// Nothing was stored by the failed writes.
	if ms, n, err := f.eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "proj"}); err != nil || n != 0 {
		t.Fatalf("failed writes stored %d memories (%v): %+v", n, err, ms)
	}
}

func TestHostileQueriesAreWordsNotSyntax(t *testing.T) {
	cs := newFixture(t).connect("proj")
	w := remember(t, cs, map[string]any{"content": "NEAR the unbalanced quote lives a OR gate"})
	for _, q := range []string{`"unbalanced`, "a OR", "*", "NEAR(", "content:quote", "'; DROP TABLE memories; --", ""} {
		res := call(t, cs, "search", map[string]any{"query": q})
		if res.IsError {
			// A query without words may be refused, but only as a tool error.
			if q != "" && q != "*" {
				t.Errorf("query %q: tool error %s", q, text(res))
			}
			continue
		}
		var out mcpserver.SearchOut
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		if q == `"unbalanced` && (len(out.Results) != 1 || out.Results[0].ID != w.ID) {
			t.Errorf("query %q found %+v", q, out.Results)
		}
	}
}

func TestContextReturnsTheRememberedMemoryAndRecordsItsUse(t *testing.T) {
	f := newFixture(t)
	cs := f.connect("proj")
	w := remember(t, cs, map[string]any{"type": "pitfall", "content": "The flaky auth test shares one fake clock between goroutines.", "files": []string{"internal/auth/session_test.go"}})
	mine := remember(t, cs, map[string]any{"type": "pitfall", "content": "The flaky auth test also needs a fresh clock in this session.", "session": "s-now"})

	res := call(t, cs, "context", map[string]any{"prompt": "fix the flaky auth test", "session": "s-now", "files": []string{"internal/auth/session_test.go"}})
	if res.IsError {
		t.Fatal(text(res))
	}
	block := text(res)
	if !strings.Contains(block, "<cairn-context") || !strings.Contains(block, w.ID) || !strings.Contains(block, "fake clock") {
		t.Fatalf("context block lacks the memory %s:\n%s", w.ID, block)
	}
	if strings.Contains(block, mine.ID) {
		t.Fatalf("context showed a memory of the current session:\n%s", block)
	}
	var out mcpserver.ContextOut
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	if !slices.Contains(out.IDs, w.ID) || out.Block != block {
		t.Fatalf("structured context %+v", out)
	}
	f.mu.Lock()
	uses := slices.Clone(f.uses)
	f.mu.Unlock()
	if len(uses) != 1 || !slices.Equal(uses[0], out.IDs) {
		t.Fatalf("recorded uses %v, want %v", uses, out.IDs)
	}
	m := ok[mcpserver.MemoriesOut](t, cs, "get", map[string]any{"ids": []string{w.ID}}).Memories[0]
	if m.UseCount != 1 {
		t.Fatalf("use count %d after one context, want 1", m.UseCount)
	}

	// XML, and an empty block that records nothing.
	if x := text(call(t, cs, "context", map[string]any{"prompt": "flaky auth clock", "format": "xml"})); !strings.Contains(x, "<memory id=\""+w.ID) {
		t.Fatalf("xml block:\n%s", x)
	}
	empty := newFixture(t)
	ecs := empty.connect("nothing")
	if x := text(call(t, ecs, "context", map[string]any{"prompt": "anything"})); x != "No memories to show for this prompt yet." {
		t.Fatalf("empty context said %q", x)
	}
	if len(empty.uses) != 0 {
		t.Fatalf("an empty block recorded uses %v", empty.uses)
	}
}

func TestUpdateChangesFieldsAndKeepsTheRest(t *testing.T) {
	cs := newFixture(t).connect("proj")
	w := remember(t, cs, map[string]any{"type": "decision", "content": "Use SQLite for local storage.", "tags": []string{"storage"}})
	n := remember(t, cs, map[string]any{"type": "decision", "content": "Use SQLite on laptops and Postgres for teams."})
	out := ok[mcpserver.MemoryOut](t, cs, "update", map[string]any{"id": w.ID, "title": "Storage choice", "pinned": true, "confidence": 0.9})
	m := out.Memory
	if m.ID != w.ID || m.Title != "Storage choice" || !m.Pinned || m.Confidence != 0.9 || m.Content != "Use SQLite for local storage." || !slices.Equal(m.Tags, []string{"storage"}) {
		t.Fatalf("updated memory %+v", m)
	}
	if msg := toolErr(t, cs, "update", map[string]any{"id": w.ID}); !strings.Contains(msg, "nothing to change") {
		t.Fatalf("empty update: %q", msg)
	}
	sup := ok[mcpserver.MemoryOut](t, cs, "update", map[string]any{"id": w.ID, "superseded_by": n.ID[:len(n.ID)-2]}).Memory
	if sup.SupersededBy != n.ID {
		t.Fatalf("superseded_by %q, want the full id %s", sup.SupersededBy, n.ID)
	}
	content := ok[mcpserver.MemoryOut](t, cs, "update", map[string]any{"id": n.ID, "content": "Postgres for teams, SQLite for one machine."}).Memory
	if r := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "machine"}); len(r.Results) == 0 || r.Results[0].ID != content.ID {
		t.Fatalf("search for the new words after an update: %+v", r.Results)
	}
	if r := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "laptops"}); len(r.Results) != 0 {
		t.Fatalf("search for the old words after an update: %+v", r.Results)
	}
}

func TestVerifySetsTheVerifiedTime(t *testing.T) {
	f := newFixture(t)
	cs := f.connect("proj")
	w := remember(t, cs, map[string]any{"content": "Handlers live in internal/api.", "files": []string{"internal/api/*.go"}})
	m := ok[mcpserver.MemoryOut](t, cs, "verify", map[string]any{"id": w.ID}).Memory
	if m.ID != w.ID || time.Time(m.VerifiedAt).IsZero() {
		t.Fatalf("verify answered %+v, want the memory with verified_at", m)
	}
	other := f.connect("other")
	if msg := toolErr(t, other, "verify", map[string]any{"id": w.ID}); !strings.Contains(msg, "not found") {
		t.Errorf("verify from another project: %q, want not found", msg)
	}
}

func TestForgetRemovesTheMemory(t *testing.T) {
	cs := newFixture(t).connect("proj")
	w := remember(t, cs, map[string]any{"content": "Forget me: the heron flies at dawn."})
	if out := ok[mcpserver.ForgetOut](t, cs, "forget", map[string]any{"id": w.ID}); out.ID != w.ID || !out.Deleted {
		t.Fatalf("forget answered %+v", out)
	}
	if msg := toolErr(t, cs, "get", map[string]any{"ids": []string{w.ID}}); !strings.Contains(msg, "not found") {
		t.Fatalf("get after forget: %q", msg)
	}
	if r := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "heron dawn"}); len(r.Results) != 0 {
		t.Fatalf("search after forget: %+v", r.Results)
	}
	if msg := toolErr(t, cs, "forget", map[string]any{"id": w.ID}); !strings.Contains(msg, "not found") {
		t.Fatalf("second forget: %q", msg)
	}
}

func TestAnotherProjectsMemoriesAreNotFound(t *testing.T) {
	f := newFixture(t)
	a, b := f.connect("alpha"), f.connect("beta")
	secret := remember(t, a, map[string]any{"type": "decision", "content": "Alpha's heron protocol stays internal."})
	shared := ok[mcpserver.WriteOut](t, a, "remember", map[string]any{"type": "preference", "content": "Prefer table-driven heron tests."})
	// Make the preference global through the engine (the tools write project scope).
	scope := cairn.ScopeGlobal
	if _, err := f.eng.UpdateMemory(t.Context(), shared.ID, cairn.MemoryUpdate{Scope: &scope}); err != nil {
		t.Fatal(err)
	}

	for _, id := range []string{secret.ID, secret.ID[:len(secret.ID)-2]} {
		if msg := toolErr(t, b, "get", map[string]any{"ids": []string{id}}); !strings.Contains(msg, "not found") || strings.Contains(msg, "alpha") {
			t.Errorf("beta get %s: %q", id, msg)
		}
		if msg := toolErr(t, b, "update", map[string]any{"id": id, "title": "stolen"}); !strings.Contains(msg, "not found") {
			t.Errorf("beta update %s: %q", id, msg)
		}
		if msg := toolErr(t, b, "forget", map[string]any{"id": id}); !strings.Contains(msg, "not found") {
			t.Errorf("beta forget %s: %q", id, msg)
		}
	}
	if _, err := b.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "cairn://memory/" + secret.ID}); err == nil {
		t.Errorf("beta read alpha's memory resource")
	}
	r := ok[mcpserver.SearchOut](t, b, "search", map[string]any{"query": "heron"})
	for _, h := range r.Results {
		if h.ID == secret.ID {
			t.Errorf("beta's search found alpha's memory")
		}
	}
	if len(r.Results) != 1 || r.Results[0].ID != shared.ID {
		t.Errorf("beta's search %+v; want only the global memory", r.Results)
	}
	// A global memory is readable everywhere, and changed only where it was learned.
	ok[mcpserver.MemoriesOut](t, b, "get", map[string]any{"ids": []string{shared.ID}})
	if msg := toolErr(t, b, "forget", map[string]any{"id": shared.ID}); !strings.Contains(msg, "alpha") {
		t.Errorf("beta forget of alpha's global memory: %q", msg)
	}
	if msg := toolErr(t, b, "update", map[string]any{"id": shared.ID, "title": "beta's title"}); !strings.Contains(msg, "alpha") {
		t.Errorf("beta update of alpha's global memory: %q", msg)
	}
	// beta has no decisions (so no decision export); alpha's memory survived all of it.
	if res, err := b.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "cairn://export/decision"}); err == nil {
		t.Errorf("beta's decision export: %+v", res.Contents[0])
	}
	if res, err := a.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "cairn://export/decision"}); err != nil || !strings.Contains(res.Contents[0].Text, secret.ID) {
		t.Errorf("alpha's decision export: %v", err)
	}
	if m := ok[mcpserver.MemoriesOut](t, a, "get", map[string]any{"ids": []string{secret.ID}}).Memories[0]; m.Title == "stolen" {
		t.Errorf("beta changed alpha's memory")
	}
}

// TestAPrefixIsResolvedAmongTheProjectsMemoriesOnly tries an id prefix
// that a memory of another project shares: it must neither be ambiguous
// nor tell that the other memory exists.
func TestAPrefixIsResolvedAmongTheProjectsMemoriesOnly(t *testing.T) {
	f := newFixture(t)
	for _, m := range []*cairn.Memory{
		{ID: "heron1-alpha", Project: "alpha", Content: "Alpha's heron protocol stays internal."},
		{ID: "heron1-beta", Project: "beta", Content: "Beta's heron protocol is public."},
	} {
		if _, err := f.eng.AddMemory(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	got := ok[mcpserver.MemoriesOut](t, f.connect("beta"), "get", map[string]any{"ids": []string{"heron1"}})
	if len(got.Memories) != 1 || got.Memories[0].ID != "heron1-beta" {
		t.Errorf("beta get heron1: %+v; want heron1-beta", got.Memories)
	}
	if msg := toolErr(t, f.connect("gamma"), "get", map[string]any{"ids": []string{"heron1"}}); !strings.Contains(msg, "not found") {
		t.Errorf("gamma get heron1: %q", msg)
	}
}

func TestResourcesReadAMemoryAndATypesExport(t *testing.T) {
	cs := newFixture(t).connect("proj")
	d1 := remember(t, cs, map[string]any{"type": "decision", "content": "First decision: SQLite."})
	d2 := remember(t, cs, map[string]any{"type": "decision", "content": "Second decision: pure Go."})
	remember(t, cs, map[string]any{"type": "pitfall", "content": "Not a decision."})

	tmpl, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, rt := range tmpl.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	slices.Sort(uris)
	if !slices.Equal(uris, []string{"cairn://export/{type}", "cairn://memory/{id}"}) {
		t.Fatalf("resource templates %v", uris)
	}

	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "cairn://memory/" + d1.ID})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contents[0]
	var m map[string]any
	if err := json.Unmarshal([]byte(c.Text), &m); err != nil || m["id"] != d1.ID || m["content"] != "First decision: SQLite." || c.MIMEType != "application/json" {
		t.Fatalf("memory resource %+v (%v)", c, err)
	}

	res, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "cairn://export/decision"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(res.Contents[0].Text, "\n"), "\n")
	if len(lines) != 2 || res.Contents[0].MIMEType != "application/jsonl" {
		t.Fatalf("export has %d lines (%s):\n%s", len(lines), res.Contents[0].MIMEType, res.Contents[0].Text)
	}
	for i, want := range []string{d1.ID, d2.ID} {
		var row map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &row); err != nil || row["id"] != want || row["type"] != "decision" {
			t.Fatalf("export line %d: %s (%v)", i+1, lines[i], err)
		}
	}

	// Bad URIs are protocol errors of resources/read, never a crash.
	for _, uri := range []string{"cairn://memory/mem-doesnotexist0000", "cairn://nothing/x", "cairn://memory/", "cairn://export/Bad%20Type", "cairn://export/architecture", "http://example.com/"} {
		if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("reading %s succeeded", uri)
		}
	}
}

func TestRecallPromptAsksToSearchTheTopic(t *testing.T) {
	cs := newFixture(t).connect("proj")
	res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "recall", Arguments: map[string]string{"topic": "token refresh"}})
	if err != nil {
		t.Fatal(err)
	}
	msg := res.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(msg, "token refresh") || !strings.Contains(msg, "`search`") || !strings.Contains(msg, "proj") {
		t.Fatalf("recall prompt: %q", msg)
	}
	if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "recall", Arguments: map[string]string{"topic": " "}}); err == nil {
		t.Fatal("recall without a topic succeeded")
	}
}

func TestNewRefusesABadProject(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"", "a\x00b", strings.Repeat("p", 200)} {
		if _, err := mcpserver.New(mcpserver.Options{Service: local.New(f.eng, p, nil), Project: p}); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("project %q: %v", p, err)
		}
	}
	if _, err := mcpserver.New(mcpserver.Options{Project: "p"}); err == nil {
		t.Error("a server without a service was made")
	}
}

func TestMemoryToolFilesAreMemoriesOfTheProject(t *testing.T) {
	f := newFixture(t)
	cs, other := f.connect("proj"), f.connect("other")
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var mt *mcp.Tool
	for _, tl := range tools.Tools {
		if tl.Name == "memory" {
			mt = tl
		}
	}
	if mt == nil {
		t.Fatal("the memory tool is not listed")
	}
	if a := mt.Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.IdempotentHint {
		t.Errorf("memory tool annotations %+v", a)
	}
	schema, _ := json.Marshal(mt.InputSchema)
	for _, p := range []string{"command", "path", "view_range", "file_text", "old_str", "new_str", "insert_line", "insert_text", "old_path", "new_path"} {
		if !strings.Contains(string(schema), `"`+p+`"`) {
			t.Errorf("memory tool schema lacks %s: %s", p, schema)
		}
	}

	res := call(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/auth.md", "file_text": "Refresh returns nil, nil for unknown heron tokens.\n"})
	if res.IsError || !strings.Contains(text(res), "/memories/auth.md") {
		t.Fatalf("create: %s", text(res))
	}
	if v := text(call(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/auth.md"})); !strings.Contains(v, "heron tokens") {
		t.Fatalf("view: %s", v)
	}
	if r := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "heron tokens"}); len(r.Results) != 1 {
		t.Fatalf("the file is not searchable as a memory: %+v", r.Results)
	}
	// Mistakes are tool errors with the reference's message.
	if msg := toolErr(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/missing.md"}); !strings.Contains(msg, "does not exist") {
		t.Fatalf("view of a missing file: %q", msg)
	}
	toolErr(t, cs, "memory", map[string]any{"command": "view", "path": "/etc/passwd"})
	toolErr(t, cs, "memory", map[string]any{"command": "explode", "path": "/memories"})
	toolErr(t, cs, "memory", map[string]any{"command": "view", "path": "/memories", "extra": 1})
	// Another project sees no such file.
	if msg := toolErr(t, other, "memory", map[string]any{"command": "view", "path": "/memories/auth.md"}); !strings.Contains(msg, "does not exist") {
		t.Fatalf("another project viewed the file: %q", msg)
	}
}

// The loop tools record an iteration, show its report to the next one,
// escalate the model and list the task, all within the server's project.
func TestLoopToolsRecordAndRecallIterations(t *testing.T) {
	f := newFixture(t)
	cs := f.connect("proj")
	rec := ok[wire.RecordedJSON](t, cs, "loop_record", map[string]any{"task": "7", "iteration": 1, "outcome": "failed", "model": "sonnet",
		"result": "<failure-report>\nerror: TestSync times out\navoid: more retries\n</failure-report>\n<learning>never closed"})
	if rec.Iteration.FailureID == "" || rec.MinimalReport || len(rec.Problems) != 1 {
		t.Fatalf("loop_record answered %+v", rec)
	}
	ok[wire.RecordedJSON](t, cs, "loop_record", map[string]any{"task": "7", "iteration": 2, "outcome": "no-signal", "model": "sonnet"})
	c := ok[mcpserver.ContextOut](t, cs, "loop_context", map[string]any{"task": "7"})
	if !strings.Contains(c.Block, "Previous Attempts") || !strings.Contains(c.Block, "TestSync times out") || !slices.Contains(c.IDs, rec.Iteration.FailureID) {
		t.Errorf("loop_context answered %+v", c)
	}
	m := ok[wire.ChoiceJSON](t, cs, "loop_model", map[string]any{"task": "7"})
	if m.Model != "opus" || m.ConsecutiveFailures != 2 {
		t.Errorf("loop_model answered %+v", m)
	}
	st := ok[wire.StatusJSON](t, cs, "loop_status", map[string]any{})
	if len(st.Tasks) != 1 || st.Tasks[0].Attempts != 2 {
		t.Errorf("loop_status answered %+v", st)
	}
	// Another project sees nothing of it; bad input is a tool error.
	if st := ok[wire.StatusJSON](t, f.connect("other"), "loop_status", map[string]any{}); len(st.Tasks) != 0 {
		t.Errorf("another project's status: %+v", st)
	}
	for _, args := range []map[string]any{{"task": "7", "iteration": 0, "outcome": "failed"}, {"task": "7", "iteration": 3, "outcome": "maybe"}, {"iteration": 3, "outcome": "done"}} {
		if msg := toolErr(t, cs, "loop_record", args); msg == "" {
			t.Errorf("loop_record %v: no error", args)
		}
	}
}

// observed is the engine bound to a project, counting the writes made
// through it: the service a server given Options.Service calls.
type observed struct {
	local.Project
	mu   sync.Mutex
	adds int
}

func (o *observed) AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	o.mu.Lock()
	o.adds++
	o.mu.Unlock()
	return o.Project.AddMemory(ctx, m)
}

// A server given a service calls that service, bound as given: a memory
// remembered through it is written by it, found by a search, and another
// project's memory is not found.
func TestServerCallsTheServiceItIsGiven(t *testing.T) {
	f := newFixture(t)
	other, err := f.eng.AddMemory(t.Context(), &cairn.Memory{Project: "b", Content: "Project b keeps its own secrets."})
	if err != nil {
		t.Fatal(err)
	}
	svc := &observed{Project: local.New(f.eng, "a", nil)}
	srv, err := mcpserver.New(mcpserver.Options{Service: svc, Project: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	w := remember(t, cs, map[string]any{"content": "Project a rotates its keys monthly.", "type": "decision"})
	if svc.adds != 1 || w.Project != "a" {
		t.Fatalf("remember: %+v, %d writes through the service", w, svc.adds)
	}
	if res := call(t, cs, "search", map[string]any{"query": "rotates keys"}); res.IsError || !strings.Contains(text(res), w.ID) {
		t.Errorf("search for what was remembered: %s", text(res))
	}
	if msg := toolErr(t, cs, "get", map[string]any{"ids": []string{other.Memory.ID}}); !strings.Contains(msg, "not found") {
		t.Errorf("another project's memory: %s", msg)
	}
}

func TestSearchFiltersByDateAndRefusesAHugeQuery(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	for i, at := range []string{"2026-01-10T00:00:00Z", "2026-03-10T00:00:00Z", "2026-05-10T00:00:00Z"} {
		created, _ := time.Parse(time.RFC3339, at)
		if _, err := f.eng.Import(ctx, func(yield func(cairn.ImportRecord) bool) {
			yield(cairn.ImportRecord{Line: 1, Memory: &cairn.Memory{ID: fmt.Sprintf("mem-dated%07d", i), Project: "proj", Type: "decision",
				Content: fmt.Sprintf("Release checklist step %d: bump the schema version.", i), CreatedAt: created}})
		}, cairn.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cs := f.connect("proj")
	r := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "release checklist schema", "after": "2026-02-01", "before": "2026-04-01T00:00:00Z"})
	if len(r.Results) != 1 || r.Results[0].ID != "mem-dated0000001" {
		t.Errorf("after/before: %+v", r.Results)
	}
	if res := call(t, cs, "search", map[string]any{"query": "release", "after": "last tuesday"}); !res.IsError || !strings.Contains(text(res), "after") {
		t.Errorf("a bad date: %s", text(res))
	}
	if res := call(t, cs, "search", map[string]any{"query": strings.Repeat("word ", 2000)}); !res.IsError || !strings.Contains(text(res), "at most") {
		t.Errorf("a 10 KB query: %s", text(res))
	}
}

func TestCleanupToolIsADryRunUnlessAsked(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	old := time.Now().Add(-400 * 24 * time.Hour)
	if _, err := f.eng.Import(ctx, func(yield func(cairn.ImportRecord) bool) {
		yield(cairn.ImportRecord{Line: 1, Memory: &cairn.Memory{ID: "mem-expired000001", Project: "proj", Type: "session",
			Content: "A session summary long past its time to live.", CreatedAt: old, ExpiresAt: old.Add(24 * time.Hour)}})
	}, cairn.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := f.connect("proj")
	dry := ok[mcpserver.CleanupOut](t, cs, "cleanup", map[string]any{})
	if dry.Applied || dry.Expired != 1 || len(dry.Items) != 1 || dry.Items[0].ID != "mem-expired000001" {
		t.Fatalf("dry run: %+v", dry)
	}
	if _, err := f.eng.FindMemoryByID(ctx, "mem-expired000001"); err != nil {
		t.Fatalf("a dry run removed the memory: %v", err)
	}
	done := ok[mcpserver.CleanupOut](t, cs, "cleanup", map[string]any{"apply": true})
	if !done.Applied || done.Expired != 1 {
		t.Fatalf("apply: %+v", done)
	}
	if _, err := f.eng.FindMemoryByID(ctx, "mem-expired000001"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatalf("apply kept the memory: %v", err)
	}
}
