package main

// Tests of add, show, edit and rm through Main.Run.
//
// Bad inputs tried here: content over 64 KiB, content that is not valid
// UTF-8, NUL bytes (as an argument and on standard input), empty and blank
// content, a confidence outside 0..1, type names with capitals and spaces,
// an unknown scope, the same content again with different white space, the
// same key again with a lower confidence, edits of and deletes of missing
// ids.

import (
	"slices"
	"strings"
	"testing"
)

func TestAddPrintsOnlyTheNewID(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("", "add", "The build needs Go 1.26 or newer")
	if r.code != 0 {
		t.Fatalf("want exit 0: %v", r)
	}
	if !strings.HasSuffix(r.stdout, "\n") || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("want exactly one line on stdout, got %q", r.stdout)
	}
	if id := strings.TrimSuffix(r.stdout, "\n"); !idRE.MatchString(id) {
		t.Errorf("stdout %q does not match %s", id, idRE)
	}
	if r.stderr != "" {
		t.Errorf("a plain add should be silent on stderr, got %q", r.stderr)
	}
	// Two adds give two different ids.
	if a, b := c.add("first distinct memory"), c.add("second distinct memory"); a == b {
		t.Errorf("two different memories got the same id %s", a)
	}
}

func TestAddStoresEveryFlagUnderSeed000FieldNames(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	const now = "2025-03-04T05:06:07Z"
	id := c.add("--now", now, "--type", "decision", "--title", "Use WAL mode",
		"--tags", "db,sqlite", "--files", "sqlite/*.go,cmd/cairn/main.go",
		"--key", "wal-mode", "--confidence", "0.8", "--scope", "project",
		"--session", "sess-42", "--task", "task-7", "--hat", "critic", "--agent", "claude",
		"SQLite runs in WAL mode so that readers never block the writer.")
	m := c.show(id)
	want := map[string]any{
		"id":                    id,
		"project":               "proj",
		"type":                  "decision",
		"title":                 "Use WAL mode",
		"content":               "SQLite runs in WAL mode so that readers never block the writer.",
		"key":                   "wal-mode",
		"scope":                 "project",
		"confidence":            0.8,
		"source":                "explicit",
		"created_by_hat":        "critic",
		"created_by_agent":      "claude",
		"created_by_task_id":    "task-7",
		"created_by_session_id": "sess-42",
		"created_at":            now,
		"use_count":             0.0,
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("show --json %s = %#v, want %#v", k, m[k], v)
		}
	}
	if got := strList(m["tags"]); !slices.Equal(got, []string{"db", "sqlite"}) {
		t.Errorf("tags = %q, want [db sqlite]", got)
	}
	if got := strList(m["file_refs"]); !slices.Equal(got, []string{"sqlite/*.go", "cmd/cairn/main.go"}) {
		t.Errorf("file_refs = %q", got)
	}

	// The plain (non-JSON) show names the same things.
	r := c.ok("show", id)
	for _, s := range []string{id, "decision", "Use WAL mode", "wal-mode", "db, sqlite", "critic", "claude", "readers never block"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("show does not print %q:\n%s", s, r.stdout)
		}
	}
}

func TestAddDefaultsTypeTitleAndConfidence(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("Run go vet before committing. It catches printf mistakes.")
	m := c.show(id)
	if m["type"] != "note" {
		t.Errorf("default type = %v, want note", m["type"])
	}
	if m["title"] != "Run go vet before committing" {
		t.Errorf("derived title = %q, want the first sentence", m["title"])
	}
	if conf, _ := m["confidence"].(float64); conf <= 0 || conf > 1 {
		t.Errorf("default confidence %v is not in (0, 1]", m["confidence"])
	}
	for _, k := range []string{"tags", "file_refs"} {
		if xs, ok := m[k].([]any); !ok || len(xs) != 0 {
			t.Errorf("%s = %#v, want an empty JSON array", k, m[k])
		}
	}
}

func TestAddDashReadsContentFromStdin(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	content := "line one of the memory\nline two: with \"quotes\" and a tab\t."
	r := c.run(content, "add", "--type", "pattern", "-")
	if r.code != 0 {
		t.Fatalf("add - failed: %v", r)
	}
	m := c.show(strings.TrimSpace(r.stdout))
	if m["content"] != content {
		t.Errorf("content = %q, want %q", m["content"], content)
	}
	if m["type"] != "pattern" {
		t.Errorf("type = %v", m["type"])
	}
}

func TestAddSameContentTwiceReinforcesInsteadOfCopying(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	first := c.run("", "add", "--tags", "a", "Always run   go vet\n before committing")
	second := c.run("", "add", "--tags", "b", "  Always run go vet before\tcommitting  ")
	if first.code != 0 || second.code != 0 {
		t.Fatalf("adds failed:\n%v\n%v", first, second)
	}
	if first.stdout != second.stdout {
		t.Errorf("the same content got two ids: %q and %q", first.stdout, second.stdout)
	}
	if !strings.Contains(second.stderr, "reinforced") {
		t.Errorf("stderr of the second add should say it reinforced: %q", second.stderr)
	}
	m := c.show(strings.TrimSpace(first.stdout))
	if m["use_count"] != 1.0 {
		t.Errorf("use_count = %v, want 1", m["use_count"])
	}
	if got := strList(m["tags"]); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("tags = %q, want the union [a b]", got)
	}
	if n := c.total(); n != 1 {
		t.Errorf("stats total = %d, want 1", n)
	}
}

func TestAddSameKeyUpdatesInPlaceAndNeverLowersConfidence(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--type", "convention", "--key", "error-wrapping", "--confidence", "0.9", "Wrap errors with %w")
	r := c.run("", "add", "--type", "convention", "--key", "error-wrapping", "--confidence", "0.3", "Wrap errors with fmt.Errorf and %w")
	if r.code != 0 {
		t.Fatalf("second add failed: %v", r)
	}
	if got := strings.TrimSpace(r.stdout); got != id {
		t.Errorf("same key printed id %s, want the first id %s", got, id)
	}
	if !strings.Contains(r.stderr, "updated") {
		t.Errorf("stderr should say it updated: %q", r.stderr)
	}
	m := c.show(id)
	if m["content"] != "Wrap errors with fmt.Errorf and %w" {
		t.Errorf("content = %q, want the new content", m["content"])
	}
	if m["confidence"] != 0.9 {
		t.Errorf("confidence = %v, want 0.9 (never lowered)", m["confidence"])
	}
	c.add("--type", "convention", "--key", "error-wrapping", "--confidence", "0.95", "Wrap errors with fmt.Errorf and %w, always")
	if m := c.show(id); m["confidence"] != 0.95 {
		t.Errorf("confidence = %v, want 0.95 (raised)", m["confidence"])
	}
	if n := c.total(); n != 1 {
		t.Errorf("stats total = %d, want 1", n)
	}
	// The same key under another type is another memory.
	if other := c.add("--type", "decision", "--key", "error-wrapping", "Decided to wrap errors"); other == id {
		t.Errorf("a key is per type, but another type reused %s", id)
	}
}

func TestAddRejectsBadContentWithOneLineAndStoresNothing(t *testing.T) {
	t.Parallel()
	tooBig := strings.Repeat("a", 64*1024) + "b"
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string // in the message
	}{
		{"over 64 KiB", "", []string{tooBig}, "limit"},
		{"over 64 KiB on stdin", tooBig, []string{"-"}, "limit"},
		{"invalid UTF-8", "", []string{"caf\xe9 au lait \xff\xfe"}, "UTF-8"},
		{"invalid UTF-8 on stdin", "bad \xc3\x28 bytes", []string{"-"}, "UTF-8"},
		{"NUL byte", "", []string{"before\x00after"}, "NUL"},
		{"NUL byte on stdin", "binary\x00data", []string{"-"}, "NUL"},
		{"blank content", "", []string{"   \n\t "}, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			r := c.run(tt.stdin, append([]string{"add"}, tt.args...)...)
			if r.code != 1 {
				t.Fatalf("want exit 1, got %v", r)
			}
			if r.stdout != "" {
				t.Errorf("a failed add printed %q on stdout", r.stdout)
			}
			oneErrorLine(t, r)
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q does not mention %q", r.stderr, tt.want)
			}
			if n := c.total(); n != 0 {
				t.Errorf("stats total = %d after a failed add, want 0", n)
			}
		})
	}
}

func TestAddAcceptsContentOfExactly64KiB(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	content := strings.Repeat("x", 64*1024-len(" ünïcödé")) + " ünïcödé"
	if len(content) != 64*1024 {
		t.Fatalf("bad fixture: %d bytes", len(content))
	}
	r := c.run(content, "add", "-")
	if r.code != 0 {
		t.Fatalf("64 KiB exactly should be accepted: %v", r)
	}
	if m := c.show(strings.TrimSpace(r.stdout)); m["content"] != content {
		t.Errorf("the stored content differs from the 64 KiB given (len %d)", len(m["content"].(string)))
	}
}

func TestAddWithoutContentIsAUsageError(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("", "add", "--type", "note")
	if r.code != 2 {
		t.Errorf("want exit 2, got %v", r)
	}
	oneErrorLine(t, r)
}

func TestEditReplacesContentAndTagsSoSearchFindsOnlyTheNewWords(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--tags", "old", "The frobnicator uses zebra striping for its caches")
	c.add("An unrelated memory about logging")
	r := c.ok("edit", id, "--content", "The frobnicator uses quokka batching for its caches", "--tags", "alpha,beta")
	if got := strings.TrimSpace(r.stdout); got != id {
		t.Errorf("edit printed %q, want the id %s", got, id)
	}
	if ids := c.searchIDs("quokka"); !slices.Equal(ids, []string{id}) {
		t.Errorf("search quokka = %v, want [%s]", ids, id)
	}
	if ids := c.searchIDs("zebra"); len(ids) != 0 {
		t.Errorf("search zebra still finds %v after the edit", ids)
	}
	m := c.show(id)
	if got := strList(m["tags"]); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Errorf("tags = %q, want [alpha beta]", got)
	}
	if ids := c.searchIDs("frobnicator", "--tag", "alpha"); !slices.Equal(ids, []string{id}) {
		t.Errorf("search --tag alpha = %v", ids)
	}
	if ids := c.searchIDs("frobnicator", "--tag", "old"); len(ids) != 0 {
		t.Errorf("search --tag old still finds %v", ids)
	}
	// The derived title follows the new content.
	if !strings.Contains(m["title"].(string), "quokka") {
		t.Errorf("title %q was not derived again from the new content", m["title"])
	}
	if n := c.total(); n != 2 {
		t.Errorf("stats total = %d, want 2", n)
	}
}

func TestEditOfAMissingIDFailsNamingIt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.add("something to make the database exist")
	r := c.run("", "edit", "mem-0000000000000000", "--title", "x")
	if r.code != 1 {
		t.Fatalf("want exit 1, got %v", r)
	}
	oneErrorLine(t, r)
	if !strings.Contains(r.stderr, "mem-0000000000000000") {
		t.Errorf("stderr does not name the id: %q", r.stderr)
	}
	if r := c.run("", "edit", "mem-0000000000000000"); r.code != 2 {
		t.Errorf("edit without a change should be a usage error: %v", r)
	}
}

func TestRmDeletesSoShowFailsNamingTheID(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("Delete me: the walrus protocol")
	keep := c.add("Keep me: the narwhal protocol")
	c.ok("rm", id)
	r := c.run("", "show", id)
	if r.code != 1 {
		t.Fatalf("show of a deleted id: want exit 1, got %v", r)
	}
	if r.stdout != "" {
		t.Errorf("show of a deleted id printed %q", r.stdout)
	}
	oneErrorLine(t, r)
	if !strings.Contains(r.stderr, id) {
		t.Errorf("stderr %q does not name %s", r.stderr, id)
	}
	if ids := c.searchIDs("walrus"); len(ids) != 0 {
		t.Errorf("search still finds the deleted memory: %v", ids)
	}
	if ids := c.searchIDs("protocol"); !slices.Equal(ids, []string{keep}) {
		t.Errorf("search protocol = %v, want [%s]", ids, keep)
	}
	if r := c.run("", "rm", id); r.code != 1 || !strings.Contains(r.stderr, id) {
		t.Errorf("rm of a deleted id: want exit 1 naming it, got %v", r)
	}
	if n := c.total(); n != 1 {
		t.Errorf("stats total = %d, want 1", n)
	}
}

// TestTitlesDerivedFromTerminalOutputAreClean stores test output whose
// first line holds ANSI colours and a carriage return, without a title,
// through add and capture: both store it under a clean title. A title
// given with a control character is still refused.
func TestTitlesDerivedFromTerminalOutputAreClean(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--type", "fix", "\x1b[31m--- FAIL\x1b[0m: TestAuth (0.01s)\r\nthe fake clock was shared")
	if m := c.show(id); m["title"] != "--- FAIL: TestAuth (0.01s)" {
		t.Errorf("add: title %q", m["title"])
	}
	r := c.run("MEMORY:pitfall:\x1b[1;33mWARN\x1b[0m go vet is slow\r on CI\n", "capture", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "WARN go vet is slow") {
		t.Errorf("capture: %v", r)
	}
	if r := c.run("", "add", "--title", "bad\x1b[31m title", "content with a bad title"); r.code != 1 || !strings.Contains(r.stderr, "control character") {
		t.Errorf("an explicit title with an escape: want exit 1, got %v", r)
	}
}
