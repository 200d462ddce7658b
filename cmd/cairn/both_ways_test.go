package main

// The commands a server may answer, run both ways: through `cairn serve`
// (the client over its Unix socket) and on the database itself
// (CAIRN_NO_SERVER=1). Each case must print the same both ways, and the
// server must have answered the first run: so every flag of the case
// reached the server. Cases whose flag changes the output are also
// compared with the same command without it, so that equality cannot
// come from a flag both ways ignore.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/server"
)

// bothWays runs args through the server and on the database, fails the
// test unless the server answered the first run only, and returns both.
func (c *cli) bothWays(stdin string, args ...string) (served, local result) {
	c.t.Helper()
	served = c.run(stdin, args...)
	c.env["CAIRN_NO_SERVER"] = "1"
	local = c.run(stdin, args...)
	delete(c.env, "CAIRN_NO_SERVER")
	if !served.served {
		c.t.Errorf("the server did not answer: %v", served)
	}
	if local.served {
		c.t.Errorf("a server answered with CAIRN_NO_SERVER=1: %v", local)
	}
	return served, local
}

// seedBothWays starts a server over a database of a few memories of
// several types, tags, files and sessions.
func seedBothWays(t *testing.T) *cli {
	c, _ := startServe(t)
	c.ok("add", "--type", "decision", "--tags", "db,storage", "--files", "store/*.go", "Use SQLite in WAL mode; one writer, many readers.")
	c.ok("add", "--type", "pitfall", "--tags", "db", "The WAL file grows without checkpoints while a long reader holds it.")
	c.ok("add", "--type", "convention", "--tags", "style", "Errors carry a code for callers and context for operators.")
	c.ok("add", "--type", "fix", "--files", "auth/clock.go", "Give each flaky auth subtest its own fake clock.")
	c.ok("add", "--type", "pattern", "Background jobs have a runOnce and an injected clock.")
	c.ok("add", "--type", "fix", "--session", "s-other", "--task", "t-1", "Moved the flaky auth tests to a clock of their own.")
	return c
}

func TestEveryFlagReachesTheServer(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	os.MkdirAll(filepath.Join(c.wd, ".cairn"), 0o755)
	writeConfigFile(t, filepath.Join(c.wd, ".cairn", "cairn.toml"), "[modes.tiny]\nbudget = 60\n")
	cases := []struct {
		args []string
		// base, when set, is the same command without the flag: its
		// output must differ.
		base []string
	}{
		{args: []string{"context", "--dry-run", "--prompt", "flaky clock", "--max-chars", "300"}, base: []string{"context", "--dry-run", "--prompt", "flaky clock"}},
		{args: []string{"context", "--dry-run", "--prompt", "wal readers", "--budget", "40"}, base: []string{"context", "--dry-run", "--prompt", "wal readers"}},
		{args: []string{"context", "--dry-run", "--prompt", "flaky auth clock", "--limit", "1"}, base: []string{"context", "--dry-run", "--prompt", "flaky auth clock"}},
		{args: []string{"context", "--dry-run", "--prompt", "wal readers", "--format", "xml"}, base: []string{"context", "--dry-run", "--prompt", "wal readers"}},
		{args: []string{"context", "--dry-run", "--prompt", "wal readers", "--format", "json"}, base: []string{"context", "--dry-run", "--prompt", "wal readers"}},
		{args: []string{"context", "--dry-run", "--prompt", "wal readers", "--explain"}, base: []string{"context", "--dry-run", "--prompt", "wal readers"}},
		{args: []string{"context", "--dry-run", "--prompt", "wal readers", "--index"}, base: []string{"context", "--dry-run", "--prompt", "wal readers"}},
		{args: []string{"context", "--dry-run", "--prompt", "wal readers", "--mode", "tiny"}, base: []string{"context", "--dry-run", "--prompt", "wal readers"}},
		{args: []string{"context", "--dry-run", "--files", "auth/clock.go"}},
		{args: []string{"context", "--dry-run", "--prompt", "clock", "--hat", "critic", "--agent", "claude", "--task", "t-1", "--explain"}},
		{args: []string{"context", "--dry-run", "--prompt", "flaky clock", "--session", "s-mine"}},
		{args: []string{"context", "--dry-run"}},
		{args: []string{"search", "wal", "--limit", "1"}, base: []string{"search", "wal"}},
		{args: []string{"search", "wal", "--type", "pitfall"}, base: []string{"search", "wal"}},
		{args: []string{"search", "wal", "--tag", "storage"}, base: []string{"search", "wal"}},
		{args: []string{"search", "clock", "--exclude-session", "s-other"}, base: []string{"search", "clock"}},
		{args: []string{"search", "wal", "--json"}, base: []string{"search", "wal"}},
		{args: []string{"search", "wal", "--explain"}, base: []string{"search", "wal"}},
		{args: []string{"search", "clock", "--json", "--explain", "--no-global", "--after", "2000-01-01", "--before", "2999-01-01"}},
		{args: []string{"search", "wal", "--before", "2000-01-01"}},
		{args: []string{"--now", "2030-01-01T00:00:00Z", "search", "wal", "--explain"}, base: []string{"search", "wal", "--explain"}},
	}
	for _, tc := range cases {
		served, local := c.bothWays("", tc.args...)
		if served.code != local.code || served.stdout != local.stdout || served.stderr != local.stderr {
			t.Errorf("through the server and locally differ:\n%v\n---\n%v", served, local)
		}
		if tc.base != nil {
			if base := c.run("", tc.base...); base.stdout == served.stdout {
				t.Errorf("%q prints what %q prints: the flag had no effect, so the test proves nothing\n%v", tc.args, tc.base, served)
			}
		}
	}
	// Bad inputs answer the same both ways: a negative budget, an
	// unknown mode, an unknown format.
	for _, args := range [][]string{
		{"context", "--budget", "-1"}, {"context", "--mode", "nosuch"}, {"context", "--format", "yaml"},
	} {
		c.env["CAIRN_NO_SERVER"] = "1"
		local := c.run("", args...)
		delete(c.env, "CAIRN_NO_SERVER")
		served := c.run("", args...)
		if local.code != 2 || served.code != local.code || served.stderr != local.stderr {
			t.Errorf("a bad call: through the server %v\nlocally %v", served, local)
		}
	}
}

func TestBatchSearchIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	batch := `{"qid":"a","query":"wal readers","limit":3}
{"qid":"b","query":"flaky clock","now":"2030-01-01T00:00:00Z"}
not json
{"qid":"c","query":"","limit":2}
`
	served, local := c.bothWays(batch, "search", "--batch", "-")
	if served.code != local.code || served.stdout != local.stdout || !strings.Contains(local.stdout, `"qid":"b"`) {
		t.Errorf("batch through the server and locally differ:\n%v\n---\n%v", served, local)
	}
}

func TestHooksAreTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	payload := func(event, extra string) string {
		return `{"session_id":"s-hook","transcript_path":"` + filepath.Join(c.dir, "t.jsonl") + `","cwd":"` + c.wd +
			`","hook_event_name":"` + event + `"` + extra + `}`
	}
	for _, tc := range []struct{ event, payload string }{
		{"user-prompt-submit", payload("UserPromptSubmit", `,"prompt":"why is the wal file growing"`)},
		{"pre-tool-use", payload("PreToolUse", `,"tool_name":"Edit","tool_input":{"file_path":"`+filepath.Join(c.wd, "auth", "clock.go")+`"}`)},
		{"pre-tool-use", payload("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"go test ./auth -run Flaky"}`)},
		{"subagent-start", payload("SubagentStart", `,"agent_type":"wal reviewer"`)},
	} {
		served, local := c.bothWays(tc.payload, "hook", "claude", tc.event)
		if served.code != 0 || served.stdout != local.stdout || (tc.event == "user-prompt-submit" && served.stdout == "") {
			t.Errorf("%s through the server and locally differ (or are empty):\n%v\n---\n%v", tc.event, served, local)
		}
	}
}

// cairn loop through the server and on the database: a record through
// either is seen by the other, and every read prints the same both ways.
func TestLoopIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	report := "<failure-report>\nerror: TestWAL times out while a reader holds the file\napproach: more checkpoints\navoid: checkpointing in the reader\n</failure-report>\n" +
		"<learning category=\"pitfall\" files=\"store/wal.go\">A long reader blocks WAL checkpoints in store/wal.go.</learning>"
	if r := c.run(report, "loop", "record", "--task", "7", "--iteration", "1", "--outcome", "failed", "--model", "sonnet", "--result", "-"); r.code != 0 || !r.served {
		t.Fatalf("record through the server: %v", r)
	}
	c.env["CAIRN_NO_SERVER"] = "1"
	if r := c.run("", "loop", "record", "--task", "7", "--iteration", "2", "--outcome", "no-signal", "--model", "sonnet"); r.code != 0 || r.served {
		t.Fatalf("record on the database: %v", r)
	}
	delete(c.env, "CAIRN_NO_SERVER")
	for _, tc := range []struct{ args, base []string }{
		{args: []string{"loop", "context", "--task", "7", "--title", "wal readers", "--files", "store/wal.go"}},
		{args: []string{"loop", "context", "--task", "7", "--budget", "500"}, base: []string{"loop", "context", "--task", "7"}},
		{args: []string{"loop", "context", "--task", "7", "--tiers", "small,large"}, base: []string{"loop", "context", "--task", "7"}},
		{args: []string{"loop", "context", "--task", "7", "--iteration", "9", "--explain"}, base: []string{"loop", "context", "--task", "7"}},
		{args: []string{"loop", "context", "--task", "7", "--format", "json"}, base: []string{"loop", "context", "--task", "7"}},
		{args: []string{"loop", "model", "--task", "7", "--json"}},
		{args: []string{"loop", "model", "--task", "7", "--tiers", "a,b,c,d"}, base: []string{"loop", "model", "--task", "7"}},
		{args: []string{"loop", "status"}},
		{args: []string{"loop", "status", "--json"}},
		{args: []string{"--now", "2030-01-01T00:00:00Z", "loop", "context", "--task", "7", "--title", "wal"}},
	} {
		served, local := c.bothWays("", tc.args...)
		if served.code != 0 || served.code != local.code || served.stdout != local.stdout || served.stderr != local.stderr {
			t.Errorf("%q through the server and locally differ:\n%v\n---\n%v", tc.args, served, local)
		}
		if tc.base != nil {
			if base := c.run("", tc.base...); base.stdout == served.stdout {
				t.Errorf("%q prints what %q prints: the flag had no effect\n%v", tc.args, tc.base, served)
			}
		}
	}
	served, _ := c.bothWays("", "loop", "model", "--task", "7")
	if served.stdout != "opus\n" || !strings.Contains(served.stderr, "escalated: 2 failures in a row") {
		t.Errorf("the model after two failures (one recorded each way): %v", served)
	}
	if r := c.run("", "loop", "prune", "--json"); r.code != 0 || !r.served || !strings.Contains(r.stdout, `"aggregated": 0`) {
		t.Errorf("prune through the server: %v", r)
	}
}

// The CLI's writes and reads of memories through the server and on the
// database: each read prints the same both ways; each write made one way
// is seen the other way; bad inputs (a type one letter from a known one,
// an unknown id, a prefix of no memory) fail the same both ways.
func TestWritesAndReadsAreTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	// Writes through the server.
	r := c.run("", "add", "--type", "decision", "--source", "extracted", "--tags", "db", "Checkpoint the WAL after each import.")
	if r.code != 0 || !r.served {
		t.Fatalf("add through the server: %v", r)
	}
	first := strings.TrimSpace(r.stdout)
	r = c.run("", "add", "--type", "decision", "--supersedes", first, "Checkpoint the WAL after each import and at shutdown.")
	if r.code != 0 || !r.served || !strings.Contains(r.stderr, first+" is now superseded by") {
		t.Fatalf("add --supersedes through the server: %v", r)
	}
	second := strings.TrimSpace(r.stdout)
	for _, args := range [][]string{
		{"pin", second}, {"verify", first}, {"promote", second, "--scope", "global"}, {"unpin", second},
	} {
		if r := c.run("", args...); r.code != 0 || !r.served {
			t.Fatalf("%q through the server: %v", args, r)
		}
	}
	for _, args := range [][]string{
		{"edit", first[:len(first)-1], "--tags", "", "--key", "wal-checkpoint", "--title", "Checkpoint after imports"},
		{"edit", second, "--files", "store/wal.go", "--confidence", "0.9", "--expires", "2031-01-01", "--hat", "critic"},
	} {
		if r := c.run("", args...); r.code != 0 || !r.served {
			t.Fatalf("%q through the server: %v", args, r)
		}
	}
	// Writes on the database.
	c.env["CAIRN_NO_SERVER"] = "1"
	third := strings.TrimSpace(c.ok("add", "--type", "pitfall", "A reader left open blocks checkpoints.").stdout)
	c.ok("supersede", first, third)
	c.ok("pin", third)
	delete(c.env, "CAIRN_NO_SERVER")
	// Reads print the same both ways, and show what both wrote.
	for _, tc := range []struct {
		args []string
		want string // in the output
	}{
		{[]string{"show", first}, "superseded by: " + third},
		{[]string{"show", second, "--json"}, `"scope": "global"`},
		{[]string{"show", second, "--json"}, `"expires_at": "2031-01-01T00:00:00Z"`},
		{[]string{"show", first, "--json"}, `"key": "wal-checkpoint"`},
		{[]string{"show", third}, "pinned:"},
		{[]string{"list"}, second},
		{[]string{"list", "--limit", "0", "--sort", "oldest", "--json"}, `"source": "extracted"`},
		{[]string{"list", "--type", "decision", "--tag", "db", "--min-confidence", "0.1"}, "Use SQLite"},
		{[]string{"list", "--limit", "2", "--offset", "1"}, ""},
		{[]string{"log"}, "superseded"},
		{[]string{"log", "--memory", first[:len(first)-1], "--json"}, `"detail": "verified_at"`},
		{[]string{"log", "--action", "pinned,unpinned", "--limit", "0"}, "unpinned"},
		{[]string{"stats"}, "decision"},
		{[]string{"--now", "2027-01-01T00:00:00Z", "export"}, `"exported_at": "2027-01-01T00:00:00Z"`},
		{[]string{"export", "--format", "jsonl", "--type", "decision"}, `"source":"extracted"`},
		{[]string{"stats", "--json"}, `"by_type"`},
		{[]string{"--now", "2027-01-01T00:00:00Z", "cleanup", "--json"}, `"applied": false`},
		{[]string{"--now", "2040-01-01T00:00:00Z", "cleanup"}, "delete"},
	} {
		served, local := c.bothWays("", tc.args...)
		if served.code != 0 || served.code != local.code || served.stdout != local.stdout || served.stderr != local.stderr {
			t.Errorf("%q through the server and locally differ:\n%v\n---\n%v", tc.args, served, local)
		}
		if !strings.Contains(served.stdout, tc.want) {
			t.Errorf("%q: want %q in the output: %v", tc.args, tc.want, served)
		}
	}
	// Bad inputs fail the same both ways.
	for _, args := range [][]string{
		{"add", "--type", "decison", "x"}, {"promote", first, "--type", "patern"},
		{"show", "mem-0000000000000000"}, {"pin", "nosuchprefix"}, {"rm", "mem-0000000000000000"},
		{"supersede", first, "mem-0000000000000000"}, {"add", "--source", "rumour", "y"},
		{"edit", first, "--type", "decison"}, {"edit", "mem-0000000000000000", "--title", "x"},
		{"edit", first, "--superseded-by", "mem-0000000000000000"}, {"edit", first, "--title", strings.Repeat("t", 600)},
	} {
		served, local := c.bothWays("", args...)
		if served.code == 0 || served.code != local.code || served.stderr != local.stderr || served.stdout != local.stdout {
			t.Errorf("%q: a bad call through the server %v\nlocally %v", args, served, local)
		}
	}
	// Deleting through the server; the database no longer has it.
	if r := c.run("", "rm", second, first); r.code != 0 || !r.served || r.stdout != "deleted "+second+"\ndeleted "+first+"\n" {
		t.Fatalf("rm through the server: %v", r)
	}
	c.env["CAIRN_NO_SERVER"] = "1"
	if r := c.run("", "show", second); r.code == 0 {
		t.Errorf("show of a memory deleted through the server: %v", r)
	}
	delete(c.env, "CAIRN_NO_SERVER")
	// A cleanup that applies, through the server.
	if r := c.run("", "--now", "2040-01-01T00:00:00Z", "cleanup", "--apply", "--json"); r.code != 0 || !r.served || !strings.Contains(r.stdout, `"applied": true`) {
		t.Errorf("cleanup --apply through the server: %v", r)
	}
}

// cairn capture through the server stores what it stores on the
// database: the same output of the same session captured again on the
// database finds every memory already there (unchanged), and reports the
// same problems both ways.
func TestCaptureIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	out := "Done.\nMEMORY:pitfall:Checkpoints stall while a reader holds the WAL.\n" +
		"<learning category=\"pattern\" files=\"store/wal.go\">Readers release the WAL within a second.</learning>\n" +
		"MEMORY:nonsense\n"
	served := c.run(out, "capture", "--agent", "codex", "--session", "s-cap", "--task", "t-9", "--json")
	if served.code != 0 || !served.served || !strings.Contains(served.stdout, `"status": "created"`) {
		t.Fatalf("capture through the server: %v", served)
	}
	c.env["CAIRN_NO_SERVER"] = "1"
	local := c.run(out, "capture", "--agent", "codex", "--session", "s-cap", "--task", "t-9", "--json")
	delete(c.env, "CAIRN_NO_SERVER")
	if local.code != 0 || local.served || strings.Contains(local.stdout, `"status": "created"`) || strings.Count(local.stdout, `"status": "unchanged"`) != 2 {
		t.Errorf("the same capture on the database stored anew what the server stored: %v", local)
	}
	if served.stderr != local.stderr {
		t.Errorf("the problems differ:\n%v\n---\n%v", served, local)
	}
	s, l := c.bothWays("", "list", "--session", "s-cap", "--json")
	if s.stdout != l.stdout || !strings.Contains(s.stdout, `"created_by_agent": "codex"`) {
		t.Errorf("captured memories listed both ways:\n%v\n---\n%v", s, l)
	}
}

// local runs args on the database itself, with no server.
func (c *cli) local(stdin string, args ...string) result {
	c.t.Helper()
	c.env["CAIRN_NO_SERVER"] = "1"
	defer delete(c.env, "CAIRN_NO_SERVER")
	r := c.run(stdin, args...)
	if r.served {
		c.t.Errorf("a server answered with CAIRN_NO_SERVER=1: %v", r)
	}
	return r
}

// viaServer runs args and fails the test unless the server answered.
func (c *cli) viaServer(stdin string, args ...string) result {
	c.t.Helper()
	r := c.run(stdin, args...)
	if !r.served {
		c.t.Errorf("the server did not answer: %v", r)
	}
	return r
}

// cairn import through the server stores what it stores on the
// database: the same file imported again on the database finds every
// record unchanged, a record of another project lands in that project
// both ways, and the lines skipped (a record with a bad confidence, a
// line that is not JSON) are reported the same. A bad file without
// --skip-invalid fails the same both ways and stores nothing.
func TestImportIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	file := c.writeFile("in.jsonl", `{"id":"imp-1","type":"decision","content":"Imports are one transaction.","created_at":"2021-02-03T04:05:06Z"}
{"type":"note","confidence":"high","content":"a bad confidence"}
{"id":"imp-2","project":"elsewhere","type":"pattern","content":"A record keeps its project."}
not json
`)
	served := c.viaServer("", "import", "--skip-invalid", file)
	if served.code != 0 || !strings.HasPrefix(served.stdout, "read 4 records: 2 created, 0 updated, 0 reinforced, 0 unchanged, 2 skipped") {
		t.Fatalf("import through the server: %v", served)
	}
	local := c.local("", "import", "--skip-invalid", file)
	if local.code != 0 || !strings.HasPrefix(local.stdout, "read 4 records: 0 created, 0 updated, 0 reinforced, 2 unchanged, 2 skipped") {
		t.Errorf("the same import on the database: %v", local)
	}
	if served.stderr != local.stderr || !strings.Contains(served.stderr, "skipped line 2") || !strings.Contains(served.stderr, "skipped line 4") {
		t.Errorf("the skipped lines differ:\n%v\n---\n%v", served, local)
	}
	s, l := c.bothWays("", "--project", "elsewhere", "show", "imp-2", "--json")
	if s.code != 0 || s.stdout != l.stdout || !strings.Contains(s.stdout, `"project": "elsewhere"`) {
		t.Errorf("the record of another project:\n%v\n---\n%v", s, l)
	}
	s, l = c.bothWays("", "show", "imp-1", "--json")
	if s.stdout != l.stdout || !strings.Contains(s.stdout, `"created_at": "2021-02-03T04:05:06Z"`) {
		t.Errorf("the imported record's created_at:\n%v\n---\n%v", s, l)
	}
	// Without --skip-invalid one bad record aborts it all, both ways; from
	// standard input too.
	bad := `{"id":"imp-3","content":"would be stored"}` + "\n" + `{"content":"x","confidence":"high"}` + "\n"
	s, l = c.bothWays(bad, "import", "-")
	if s.code != 1 || s.code != l.code || s.stderr != l.stderr || !strings.Contains(s.stderr, "line 2") {
		t.Errorf("a bad import:\n%v\n---\n%v", s, l)
	}
	if r := c.local("", "show", "imp-3"); r.code == 0 {
		t.Errorf("a record of an aborted import was stored: %v", r)
	}
	// And the export reads the same both ways, the import's records in it.
	s, l = c.bothWays("", "export", "--format", "jsonl")
	if s.stdout != l.stdout || !strings.Contains(s.stdout, `"id":"imp-1"`) {
		t.Errorf("export after the import:\n%v\n---\n%v", s, l)
	}
}

// cairn ingest through the server and on the database share the cursor
// of the transcript: what one read, the other does not read again; each
// way reads only the lines added since.
func TestIngestIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	lines := strings.SplitAfter(ingestFixture(t), "\n")
	half := len(lines) / 2
	path := c.writeFile("session.jsonl", strings.Join(lines[:half], ""))
	first := c.viaServer("", "ingest", "claude", "--json", path)
	if first.code != 0 || !strings.Contains(first.stdout, `"new"`) {
		t.Fatalf("ingest through the server: %v", first)
	}
	again := c.local("", "ingest", "claude", path)
	if again.code != 0 || !strings.Contains(again.stdout, "ingested 0 lines") {
		t.Errorf("the database read again what the server read: %v", again)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	rest := c.local("", "ingest", "claude", "--json", path)
	var a, b ingestCounts
	if err := json.Unmarshal([]byte(first.stdout), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(rest.stdout), &b); err != nil {
		t.Fatalf("%v: %v", err, rest)
	}
	if a.Lines+b.Lines != 13 || b.Lines == 0 {
		t.Errorf("lines read through the server %d and on the database %d, want 13 in all", a.Lines, b.Lines)
	}
	if r := c.viaServer("", "ingest", "claude", path); r.code != 0 || !strings.Contains(r.stdout, "ingested 0 lines") {
		t.Errorf("the server read again what the database read: %v", r)
	}
	s, l := c.bothWays("", "list", "--type", "session,fix", "--json")
	if s.stdout != l.stdout || !strings.Contains(s.stdout, `"type": "session"`) {
		t.Errorf("what the ingests stored, listed both ways:\n%v\n---\n%v", s, l)
	}
	// Bad inputs fail the same both ways: a file that is not there (the
	// server is asked for no cursor of it), an unknown kind (a usage
	// error, found before any service is asked).
	for _, args := range [][]string{{"ingest", "claude", path + ".missing"}, {"ingest", "cursor", path}} {
		s, l := c.run("", args...), c.local("", args...)
		if s.code == 0 || s.code != l.code || s.stderr != l.stderr {
			t.Errorf("%q: with a server %v\nlocally %v", args, s, l)
		}
	}
}

// The hook's capture at Stop stores through the server what it stores on
// the database, and the two share the transcript's cursor.
func TestHookCaptureIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	lines := strings.SplitAfter(ingestFixture(t), "\n")
	path := c.writeFile("hook-session.jsonl", strings.Join(lines[:len(lines)/2], ""))
	payload := `{"session_id":"s-stop","transcript_path":"` + path + `","cwd":"` + c.wd + `","hook_event_name":"Stop",` +
		`"last_assistant_message":"Done. MEMORY:pitfall:The stop hook may run before the transcript holds the message."}`
	if r := c.viaServer(payload, "hook", "claude", "stop"); r.code != 0 || r.stdout != "" {
		t.Fatalf("stop through the server: %v", r)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := c.local(payload, "hook", "claude", "stop"); r.code != 0 || r.stdout != "" {
		t.Fatalf("stop on the database: %v", r)
	}
	s, l := c.bothWays("", "list", "--type", "pitfall", "--json")
	if s.stdout != l.stdout || strings.Count(s.stdout, `"content": "The stop hook may run before`) != 1 {
		t.Errorf("the last message's signal, stored once:\n%v\n---\n%v", s, l)
	}
	// Read to its end by the two: nothing is left for either.
	if r := c.local("", "ingest", "claude", path); !strings.Contains(r.stdout, "ingested 0 lines") {
		t.Errorf("the hooks left lines unread: %v", r)
	}
	// The log next to the database holds no error.
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(c.db), logFileName)); err == nil && len(b) > 0 {
		t.Errorf("the hook logged errors:\n%s", b)
	}
}

// cairn task through the server stores what it stores on the database:
// the same events again on the database find every memory (same ids),
// and the summary's problems are reported the same.
func TestTaskIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	for _, args := range [][]string{
		{"task", "created", "--task", "T-7", "--session", "s-task", "Make the importer resumable after a crash."},
		{"task", "completed", "--task", "T-7", "--files", "importer/resume.go", "--agent", "claude",
			"Resumed from the last committed batch. Always commit the cursor with the batch.\nMEMORY:pitfall:The cursor and the batch must commit together.\nMEMORY:nonsense"},
		{"task", "failed", "--task", "T-8", "The importer lost the cursor on SIGKILL."},
		{"task", "failed", "--agent", "claude", "--title", "Resume importer", "Lost the cursor: it was not committed with the batch."},
	} {
		served := c.viaServer("", args...)
		local := c.local("", args...)
		if served.code != 0 || local.code != 0 || served.stderr != local.stderr {
			t.Errorf("%q: through the server %v\nlocally %v", args, served, local)
			continue
		}
		// Same ids, in the same order; the database found them stored.
		if ids(served.stdout) != ids(local.stdout) || strings.Contains(local.stdout, " created ") {
			t.Errorf("%q stored anew on the database what the server stored:\n%v\n---\n%v", args, served, local)
		}
	}
	s, l := c.bothWays("", "list", "--type", "task_input,task_result,issue,error_solution,pattern", "--json")
	if s.stdout != l.stdout || !strings.Contains(s.stdout, `"key": "task:T-7:result"`) || !strings.Contains(s.stdout, `"key": "claude: Resume importer"`) {
		t.Errorf("the tasks' memories listed both ways:\n%v\n---\n%v", s, l)
	}
	// Bad calls fail the same with a server as without (usage errors,
	// found before any service is asked): no task id, an unknown event,
	// an empty text.
	for _, args := range [][]string{{"task", "created", "x"}, {"task", "exploded", "--task", "T", "x"}, {"task", "failed", "--task", "T", " "}} {
		s, l := c.run("", args...), c.local("", args...)
		if s.code != 2 || s.code != l.code || s.stderr != l.stderr {
			t.Errorf("%q: with a server %v\nlocally %v", args, s, l)
		}
	}
}

// ids are the first words of the lines of out.
func ids(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		id, _, _ := strings.Cut(line, " ")
		b.WriteString(id + " ")
	}
	return b.String()
}

// cairn converse extracts through the server what it extracts on the
// database: the conversation log is the command's, next to the database,
// and the same signal extracted again finds its memory stored.
func TestConverseIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	// Below the batch size no service is needed: the message is appended.
	c.env["CAIRN_NO_SERVER"] = "1"
	r := c.run("", "converse", "add", "--role", "user", "--every", "2", "--chat", "c-1", "Why does the WAL grow?")
	delete(c.env, "CAIRN_NO_SERVER")
	if r.code != 0 || !strings.Contains(r.stdout, "1 pending (extracting at 2)") {
		t.Fatalf("first message: %v", r)
	}
	served := c.viaServer("", "converse", "add", "--role", "assistant", "--sender", "claude", "--every", "2", "--chat", "c-1",
		"A long reader holds it.\nMEMORY:pitfall:A long-lived reader keeps the WAL from being checkpointed.")
	if served.code != 0 || !strings.Contains(served.stdout, "1 memory (1 new, 0 reinforced, 0 updated, 0 unchanged); 0 pending") {
		t.Fatalf("extraction through the server: %v", served)
	}
	local := c.local("", "converse", "add", "--role", "assistant", "--sender", "claude", "--every", "1", "--chat", "c-1",
		"Again: MEMORY:pitfall:A long-lived reader keeps the WAL from being checkpointed.")
	if local.code != 0 || strings.Contains(local.stdout, "1 new") || !strings.Contains(local.stdout, "1 memory (") {
		t.Errorf("the same signal extracted on the database: %v", local)
	}
	s, l := c.bothWays("", "list", "--session", "c-1", "--json")
	if s.stdout != l.stdout || strings.Count(s.stdout, `"created_by_agent": "claude"`) != 1 {
		t.Errorf("the conversation's memory listed both ways:\n%v\n---\n%v", s, l)
	}
}

// cairn recall without a lookup records its use through the server as it
// does on the database: each call shows the use count before its own use.
func TestRecallByValueIsTheSameBothWays(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	served := c.viaServer("", "recall", "--type", "fix", "--json")
	local := c.local("", "recall", "--type", "fix", "--json")
	var s, l []struct {
		ID       string `json:"id"`
		UseCount int    `json:"use_count"`
	}
	if err := json.Unmarshal([]byte(served.stdout), &s); err != nil || len(s) != 2 {
		t.Fatalf("recall through the server: %v %v", err, served)
	}
	if err := json.Unmarshal([]byte(local.stdout), &l); err != nil || len(l) != len(s) {
		t.Fatalf("recall on the database: %v %v", err, local)
	}
	for i := range s {
		if s[i].ID != l[i].ID || l[i].UseCount != s[i].UseCount+1 {
			t.Errorf("recall %d: through the server %+v, then on the database %+v: want the same memory, its use recorded once", i, s[i], l[i])
		}
	}
}

// A setting takes effect whatever process answers: with the project's
// .cairn/cairn.toml giving learnings two days to live, a learning added
// by `cairn add` through a server started in another folder, by `cairn
// add` on the database itself, and by the MCP remember tool (of `cairn
// mcp` answered by that server, and of one on the database) expires two
// days after it was made, on both backends. Before settings were stored
// per project, the server and MCP gave the built-in 90 days.
func TestATypesTimeToLiveHoldsWhateverProcessAnswers(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			dir, err := os.MkdirTemp("", "ct") // short: a socket's path has at most 100 bytes
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			c := newCLI(t)
			c.env["XDG_DATA_HOME"] = filepath.Join(dir, "d")
			c.db = filepath.Join(dir, "c.db")
			if backend == "postgres" {
				c.db = pgTestURL(t)
			}
			// The project's own folder, with its settings file.
			c.wd = filepath.Join(dir, c.project)
			os.MkdirAll(filepath.Join(c.wd, ".git"), 0o755)
			writeConfigFile(t, filepath.Join(c.wd, ".cairn", "cairn.toml"), "[lifecycle.learning]\nttl_days = 2\n")
			c.ok("add", "--type", "note", "The database exists before the server starts.")
			socket := server.SocketPath(localPath(t, c))
			serveAt(t, c, socket, t.TempDir()) // the server runs in another folder

			twoDays := func(how, id string) {
				t.Helper()
				m := c.show(id)
				created, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(m["created_at"]))
				expires, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["expires_at"]))
				if err != nil || !expires.Equal(created.Add(48*time.Hour)) {
					t.Errorf("%s: a learning created %v expires %v, want two days later", how, m["created_at"], m["expires_at"])
				}
			}
			r := c.ok("add", "--type", "learning", "Learnings of this project last two days, through the server.")
			if !r.served {
				t.Fatalf("the server did not answer the add: %v", r)
			}
			twoDays("cairn add through the server", strings.TrimSpace(r.stdout))
			twoDays("MCP remember through the server", c.remember(t, "The MCP remember tool keeps the project's time to live."))

			c.env["CAIRN_NO_SERVER"] = "1"
			twoDays("cairn add on the database", c.add("--type", "learning", "Learnings last two days without a server too."))
			twoDays("MCP remember on the database", c.remember(t, "MCP on the database keeps it as well."))
			delete(c.env, "CAIRN_NO_SERVER")

			// A changed file is written again by the next command in the
			// folder, and the server applies it.
			writeConfigFile(t, filepath.Join(c.wd, ".cairn", "cairn.toml"), "[lifecycle.learning]\nttl_days = 5\n")
			id := c.add("--type", "learning", "Five days now.")
			m := c.show(id)
			created, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(m["created_at"]))
			if expires, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(m["expires_at"])); !expires.Equal(created.Add(5 * 24 * time.Hour)) {
				t.Errorf("after the file changed: expires %v, want five days after %v", m["expires_at"], m["created_at"])
			}
		})
	}
}

// localPath is the local path that stands for c's database (its socket
// is beside it).
func localPath(t *testing.T, c *cli) string {
	t.Helper()
	m := &Main{Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.wd, nil }}
	g := &globals{db: c.db, project: c.project}
	if err := g.resolve(m); err != nil {
		t.Fatal(err)
	}
	return g.path()
}

// serveAt runs `cairn serve` for c's database in the folder wd until the
// test ends, and waits until it answers on its socket.
func serveAt(t *testing.T, c *cli, socket, wd string) {
	t.Helper()
	t.Cleanup(runServeUntil(t, t.Context(), c, wd, "off", nil, func() bool {
		// The socket's file exists from its bind, before the server
		// listens: a command run then would not be served.
		fi, err := os.Stat(socket)
		return err == nil && fi.Mode()&os.ModeSocket != 0 && client.Answers(socket, time.Second)
	}))
}

// remember stores content as a learning with the MCP remember tool of
// `cairn mcp` run in c's working directory, and returns its id.
func (c *cli) remember(t *testing.T, content string) string {
	t.Helper()
	m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.wd, nil }}
	g := &globals{db: c.db, project: c.project}
	stdio, _, done, err := m.mcpStdio(t.Context(), g, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := stdio.Server().Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs := mcpClient(t, ct)
	defer cs.Close()
	var w struct{ ID, Status string }
	structured(t, callTool(t, cs, "remember", map[string]any{"type": "learning", "content": content}), &w)
	if w.Status != "created" {
		t.Fatalf("remember: %+v", w)
	}
	return w.ID
}
