package main

// Tests of ingest through Main.Run.
//
// Bad inputs tried here: a malformed line and a line of an unknown type
// in the transcript (counted, exit 0), a secret in the assistant's text
// (redacted), a transcript rewritten shorter than what was read.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func ingestFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../transcript/testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "{{FAKE_GITHUB_TOKEN}}", fakeGitHubToken)
}

// fakeGitHubToken is shape-correct and fake.
var fakeGitHubToken = "gh" + "p_" + strings.Repeat("Zq9Xw8Vu7T", 4)[:36]

type ingestCounts struct {
	Lines, Entries, Skipped, Malformed          int
	New, Updated, Reinforced, Unchanged, Failed int
}

func (c *cli) ingest(path string) ingestCounts {
	c.t.Helper()
	r := c.ok("ingest", "claude", "--json", path)
	var n ingestCounts
	if err := json.Unmarshal([]byte(r.stdout), &n); err != nil {
		c.t.Fatalf("ingest --json: %v\n%v", err, r)
	}
	return n
}

func TestIngestClaudeTranscript(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	f := c.writeFile("session.jsonl", ingestFixture(t))

	r := c.ok("ingest", "claude", f)
	if !strings.Contains(r.stdout, "ingested 13 lines (1 skipped, 1 malformed): 5 new, 0 updated, 0 reinforced, 0 unchanged") {
		t.Errorf("summary: %v", r)
	}
	mems := c.listJSON()
	byType := map[string]map[string]any{}
	for _, m := range mems {
		byType[m["type"].(string)] = m
		b, _ := json.Marshal(m)
		if strings.Contains(string(b), fakeGitHubToken) {
			t.Errorf("secret stored in %s", b)
		}
	}
	if len(mems) != 5 {
		t.Fatalf("want fix, session, pitfall, pattern, workflow; got %d: %v", len(mems), mems)
	}
	fix := byType["fix"]
	if fix["title"] != "session_test.go:42: session expired at 10:00:00, want still valid at 09:59:59 — `go test ./internal/auth/...`" ||
		fix["source"] != "automatic" || fix["confidence"] != 0.7 ||
		!strings.Contains(fix["content"].(string), "**Error:** `go test ./internal/auth/...` failed (TestSessionExpiry) with:") ||
		!strings.Contains(fix["content"].(string), "**Fix:** edited internal/auth/session.go") {
		t.Errorf("fix = %v", fix)
	}
	sess := byType["session"]
	if sess == nil || !strings.HasPrefix(sess["title"].(string), "Session: The auth tests fail") ||
		sess["created_by_session_id"] != "7f3c2a10-5b7e-4c1d-9a8e-2f6b0c4d1e93" || sess["created_by_agent"] != "claude" {
		t.Errorf("session = %v", sess)
	}
	if p := byType["pitfall"]; p == nil || !strings.HasPrefix(p["content"].(string), "Session expiry is inclusive") {
		t.Errorf("pitfall = %v", p)
	}
	if w := byType["workflow"]; w == nil || strings.Contains(w["content"].(string), "Zq9X") {
		t.Errorf("workflow = %v", w)
	}

	// A second run over the same transcript reads nothing and adds nothing.
	start := time.Now()
	n := c.ingest(f)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("second run took %v", d)
	}
	if n != (ingestCounts{}) {
		t.Errorf("second run: %+v", n)
	}
	if got := len(c.listJSON()); got != 5 {
		t.Errorf("after the second run: %d memories", got)
	}

	// New lines are read alone; the session summary is updated in place.
	more := `{"type":"assistant","sessionId":"7f3c2a10-5b7e-4c1d-9a8e-2f6b0c4d1e93","cwd":"/home/dev/authsvc","uuid":"u-x1","timestamp":"2025-07-01T11:00:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_09","name":"Write","input":{"file_path":"/home/dev/authsvc/internal/auth/doc.go","content":"package auth"}},{"type":"text","text":"MEMORY:decision:Expiry stays inclusive for all token kinds."}]}}` + "\n"
	fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(more)
	fh.Close()
	n = c.ingest(f)
	if n.Lines != 1 || n.New != 1 || n.Updated != 1 {
		t.Errorf("third run: %+v", n)
	}
	mems = c.listJSON()
	if len(mems) != 6 {
		t.Fatalf("after the third run: %d memories", len(mems))
	}
	for _, m := range mems {
		if m["type"] == "session" {
			ct := m["content"].(string)
			if !strings.Contains(ct, "- internal/auth/session.go") || !strings.Contains(ct, "- internal/auth/doc.go") ||
				!strings.Contains(ct, "**Asked:** The auth tests fail") {
				t.Errorf("session after the third run: %s", ct)
			}
		}
	}

	// A rewritten, shorter transcript is read again from the start.
	c.writeFile("session.jsonl", more)
	n = c.ingest(f)
	if n.Lines != 1 || n.New != 0 {
		t.Errorf("after a rewrite: %+v", n)
	}
}

func TestIngestCriticFindings(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	b, err := os.ReadFile("../../transcript/testdata/critic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f := c.writeFile("critic.jsonl", string(b))
	r := c.ok("ingest", "claude", "--hat", "critic", f)
	if !strings.Contains(r.stdout, "5 new") {
		t.Fatalf("want 4 findings and the session summary: %v", r)
	}
	pitfalls := 0
	for _, m := range c.listJSON() {
		if m["type"] != "pitfall" {
			continue
		}
		pitfalls++
		tags, _ := json.Marshal(m["tags"])
		if m["confidence"] != 0.6 || m["source"] != "automatic" || m["created_by_hat"] != "critic" || string(tags) != `["critic-finding","review"]` && string(tags) != `["review","critic-finding"]` {
			t.Errorf("finding = %v", m)
		}
	}
	if pitfalls != 4 {
		t.Errorf("want 4 pitfalls, got %d", pitfalls)
	}
}

// A test that fails in the lines one run reads and passes in the lines of
// the next (two Stop hooks, one per turn) is still a fix, wherever the
// transcript is cut: between the command and its result, after the
// failure, after the edit.
func TestIngestFixAcrossTwoRuns(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/hooks/transcripts/7f3c2a10-5b7e-4c1d-9a8e-2f6b0c4d1e93.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(b), "\n"), "\n")
	for _, cut := range []int{2, 3, 4} {
		c := newCLI(t)
		c.project = "authsvc"
		path := c.writeFile("t.jsonl", strings.Join(lines[:cut], ""))
		c.ingest(path)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c.ingest(path)
		var fixes []map[string]any
		if err := json.Unmarshal([]byte(c.ok("list", "--type", "fix", "--json").stdout), &fixes); err != nil {
			t.Fatal(err)
		}
		if len(fixes) != 1 || !strings.Contains(fixes[0]["content"].(string), "TestSessionExpiry") ||
			!strings.Contains(strings.Join(anyStrings(fixes[0]["file_refs"]), ","), "internal/auth/session.go") {
			t.Errorf("cut after line %d: fixes %v", cut, fixes)
		}
	}
}

func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestIngestSummarisesASessionOfManyFiles reads a session that edits 100
// files with 600-byte paths (more file references and more text than a
// memory holds): the summary is stored, bounded, and a second run
// succeeds too.
func TestIngestSummarisesASessionOfManyFiles(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var b strings.Builder
	line := func(typ string, content any) {
		msg, _ := json.Marshal(map[string]any{"type": typ, "sessionId": "s-many", "cwd": "/w",
			"timestamp": "2025-07-01T10:00:00.000Z", "message": map[string]any{"role": typ, "content": content}})
		b.Write(msg)
		b.WriteByte('\n')
	}
	line("user", "Rename the package everywhere.")
	for i := range 100 {
		path := fmt.Sprintf("/w/%s/file%03d.go", strings.Repeat("d", 600), i)
		line("assistant", []map[string]any{{"type": "tool_use", "id": fmt.Sprintf("t%d", i), "name": "Edit",
			"input": map[string]any{"file_path": path, "old_string": "a", "new_string": "b"}}})
	}
	f := c.writeFile("many.jsonl", b.String())
	for run := range 2 {
		r := c.run("", "ingest", "claude", f)
		if r.code != 0 {
			t.Fatalf("run %d: %v", run+1, r)
		}
	}
	mems := c.listJSON("--type", "session")
	if len(mems) != 1 {
		t.Fatalf("want one session summary, got %d", len(mems))
	}
	content := mems[0]["content"].(string)
	if len(content) > 64<<10 || !strings.Contains(content, "more files)") || len(strList(mems[0]["file_refs"])) != 64 {
		t.Errorf("summary of %d bytes, %d file refs; want it bounded, the rest counted:\n%.300s", len(content), len(strList(mems[0]["file_refs"])), content)
	}
}
