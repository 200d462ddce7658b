package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTranscripts puts the transcript fixtures where Claude Code and
// Codex keep them under c's HOME: one Claude Code session and one Codex
// rollout in c's working directory, and one Codex rollout of another
// project.
func writeTranscripts(t *testing.T, c *cli) (other string) {
	t.Helper()
	claude, err := os.ReadFile("../../transcript/testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	codexName := "rollout-2026-05-01T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
	codex, err := os.ReadFile("../../transcript/testdata/codex-" + codexName)
	if err != nil {
		t.Fatal(err)
	}
	other = filepath.Join(t.TempDir(), "shop")
	put := func(path string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := c.env["HOME"]
	put(filepath.Join(home, ".claude", "projects", "-x", "7f3c2a10.jsonl"), []byte(strings.ReplaceAll(string(claude), "/home/dev/authsvc", c.wd)))
	put(filepath.Join(home, ".codex", "sessions", "2026", "05", "01", codexName), []byte(strings.ReplaceAll(string(codex), "/home/dev/shop", c.wd)))
	put(filepath.Join(home, ".codex", "sessions", "2026", "05", "02", strings.Replace(codexName, "0199a1b2", "0299a1b2", 1)),
		[]byte(strings.ReplaceAll(string(codex), "/home/dev/shop", other)))
	return other
}

func TestIngestAllReadsTheProjectsTranscriptsOnceAndSaysWhatItLearned(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	writeTranscripts(t, c)

	r := c.ok("ingest", "claude", "--all")
	if !strings.Contains(r.stdout, "read 1 of 1 claude transcripts of project proj") || !strings.Contains(r.stdout, "session") {
		t.Errorf("summary: %s", r.stdout)
	}
	if strings.Contains(r.stderr, "transcripts") || strings.Contains(r.stderr, "\r") {
		t.Errorf("a progress bar drawn on a non-terminal: %q", r.stderr)
	}
	r = c.ok("ingest", "codex", "--all", "--json")
	var out struct {
		Found, Read, Unchanged int
		Totals                 struct {
			New   int
			Types map[string]int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	// Only the rollout of this project: the other one's cwd is elsewhere.
	if out.Found != 1 || out.Read != 1 || out.Totals.Types["fix"] != 1 || out.Totals.Types["session"] != 1 || out.Totals.Types["decision"] != 1 {
		t.Errorf("codex --all: %+v", out)
	}
	if got := c.listIDs("--type", "fix", "--agent", "codex"); len(got) != 1 {
		t.Errorf("the Codex fix, written by agent codex: %v", got)
	}
	before := c.total()
	r = c.ok("ingest", "codex", "--all", "--json")
	out.Totals.Types = nil
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Unchanged != 1 || out.Read != 0 || out.Totals.New != 0 {
		t.Errorf("a second run read again: %+v %v", out, err)
	}
	if c.total() != before {
		t.Errorf("a second run added memories")
	}

	// Every project: the other rollout goes to its own project.
	c.ok("ingest", "codex", "--all", "--all-projects")
	c2 := *c
	c2.project = "shop"
	if n := c2.total(); n != 3 {
		t.Errorf("project shop holds %d memories, want 3 (fix, decision, session)", n)
	}
}

func TestIngestRefusesBadUse(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// Bad inputs tried: no kind, an unknown kind, --all with a file,
	// --all-projects without --all, neither a file nor --all.
	for _, args := range [][]string{
		{"ingest"}, {"ingest", "cursor", "x.jsonl"}, {"ingest", "claude", "--all", "x.jsonl"},
		{"ingest", "codex", "--all-projects"}, {"ingest", "codex"},
	} {
		if r := c.run("", args...); r.code != exitUsage {
			t.Errorf("%v: want exit 2, got %v", args, r)
		}
	}
	// No transcripts at all is no error.
	if r := c.ok("ingest", "claude", "--all"); !strings.Contains(r.stdout, "no claude transcripts") {
		t.Errorf("%v", r)
	}
}

func TestInstallOffersToReadTheEarlierSessions(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	writeTranscripts(t, c)
	r := c.ok("install", "codex", "--command", "cairn", "--no-agents-md")
	if !strings.Contains(r.stdout, "1 earlier Codex session of this project is on disk: `cairn ingest codex --all`") {
		t.Errorf("install does not offer the ingest:\n%s", r.stdout)
	}
}
