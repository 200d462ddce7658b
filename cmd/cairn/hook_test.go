package main

// Tests of `cairn hook claude EVENT`.
//
// Bad inputs tried here: malformed JSON, empty standard input, blank
// standard input, a JSON array, a field of the wrong type (session_id a
// number), two JSON objects in a row, an unknown event name, a missing
// "claude", a database path that is a folder (cannot be opened), a
// database file of garbage, a transcript path that does not exist, a Stop
// payload with stop_hook_active true, many large memories full of quotes
// and backslashes (the JSON-escaped context must stay within 10,000
// characters), the same Stop payload twice.
//
// The payloads in testdata/hooks are as Claude Code sends them; their
// transcript paths point into /home/dev/.claude/projects/-home-dev-authsvc,
// which the tests map to a copy of testdata/hooks/transcripts. Run
// go test ./cmd/cairn -run TestHookGolden -update to rewrite the goldens.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/internal/golden"
	"github.com/cairn-dev/cairn/server"
)

const (
	hookNow        = "2026-11-01T00:00:00Z"
	hookTranscript = "/home/dev/.claude/projects/-home-dev-authsvc"
	hookSession    = "7f3c2a10-5b7e-4c1d-9a8e-2f6b0c4d1e93"
)

// hookCLI is a test CLI with the authsvc memories imported and the
// transcripts copied to a private folder.
type hookCLI struct {
	*cli
	transcripts string
}

func newHookCLI(t *testing.T) *hookCLI {
	t.Helper()
	c := newCLI(t)
	c.project = "authsvc"
	c.env["CAIRN_NOW"] = hookNow
	c.ok("import", "testdata/hooks/memories.jsonl")
	dir := filepath.Join(c.dir, "transcripts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/hooks/transcripts/*.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &hookCLI{cli: c, transcripts: dir}
}

// payload reads a payload file with its transcript paths mapped.
func (c *hookCLI) payload(name string) string {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/hooks", name))
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), hookTranscript, c.transcripts)
}

// hook runs `cairn hook claude EVENT` with the payload on standard input
// and no --project: the project comes from the payload's cwd.
func (c *hookCLI) hook(stdin, event string, flags ...string) result {
	c.t.Helper()
	return c.raw(stdin, append([]string{"--db", c.db, "hook", "claude", event}, flags...)...)
}

// captured lists the memories the hooks stored (not the imported ones),
// as "type: title", sorted.
func (c *hookCLI) captured() []string {
	c.t.Helper()
	var out []string
	for _, m := range c.listJSON("--limit", "1000") {
		if !strings.HasPrefix(m["id"].(string), "mem-authsvc") {
			out = append(out, fmt.Sprintf("%s: %s", m["type"], m["title"]))
		}
	}
	sort.Strings(out)
	return out
}

func (c *hookCLI) logText() string {
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(c.db), "cairn.log"))
	return string(b)
}

// TestHookGolden runs every recorded payload through its event on a fresh
// database and compares standard output and the memories stored.
func TestHookGolden(t *testing.T) {
	t.Parallel()
	payloads, _ := filepath.Glob("testdata/hooks/*.json")
	if len(payloads) < 8 {
		t.Fatalf("only %d payloads in testdata/hooks", len(payloads))
	}
	for _, path := range payloads {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newHookCLI(t)
			in := c.payload(filepath.Base(path))
			p, err := hook.Parse([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			ev, ok := p.Event()
			if !ok {
				t.Fatalf("%s: unknown hook_event_name %q", path, p.HookEventName)
			}
			r := c.hook(in, ev.Kebab())
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("%v", r)
			}
			if log := c.logText(); log != "" {
				t.Errorf("log written on a good payload: %s", log)
			}
			if r.stdout != "" {
				var out hook.Output
				if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
					t.Fatalf("stdout is not the hook's JSON: %v\n%s", err, r.stdout)
				}
				if out.HookSpecificOutput.HookEventName != ev {
					t.Errorf("hookEventName %q, want %q", out.HookSpecificOutput.HookEventName, ev)
				}
			}
			got := "--- stdout ---\n" + r.stdout + "--- stored ---\n" + strings.Join(c.captured(), "\n") + "\n"
			golden.Check(t, filepath.Join("testdata/hooks", name+".golden"), got, "./cmd/cairn")
		})
	}
}

func TestHookCamelCaseEventNamesWork(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	kebab := c.hook(c.payload("session-start-startup.json"), "session-start")
	c2 := newHookCLI(t)
	camel := c2.hook(c2.payload("session-start-startup.json"), "SessionStart")
	if kebab.stdout == "" || kebab.stdout != camel.stdout {
		t.Fatalf("SessionStart and session-start differ:\n%v\n%v", kebab, camel)
	}
}

func TestHookSessionStartGivesLastingTiersAndRecordsUse(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	r := c.hook(c.payload("session-start-startup.json"), "session-start")
	var out hook.Output
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%v", err, r)
	}
	ctx := out.HookSpecificOutput.AdditionalContext
	for _, want := range []string{"mem-authsvc000000001", "mem-authsvc000000002", "mem-authsvc000000004", "mem-authsvc000000006"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("session start lacks %s:\n%s", want, ctx)
		}
	}
	// The relevant tier waits for a prompt; other projects never show.
	for _, not := range []string{"mem-authsvc000000003", "mem-othersvc00000001"} {
		if strings.Contains(ctx, not) {
			t.Errorf("session start has %s:\n%s", not, ctx)
		}
	}
	if n := c.show("mem-authsvc000000001")["use_count"]; n != float64(1) {
		t.Errorf("use count after session start = %v, want 1", n)
	}
}

func TestHookPromptGivesOnlyRelevantMemoriesAndNothingForAnIrrelevantOne(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	r := c.hook(c.payload("user-prompt-submit.json"), "user-prompt-submit")
	if !strings.Contains(r.stdout, "mem-authsvc000000003") || strings.Contains(r.stdout, "mem-authsvc000000001") {
		t.Errorf("prompt context should hold the Refresh pitfall and no static tier: %v", r)
	}
	r = c.hook(c.payload("user-prompt-submit-irrelevant.json"), "user-prompt-submit")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("an irrelevant prompt must print nothing: %v", r)
	}
	if log := c.logText(); log != "" {
		t.Errorf("nothing relevant is not an error, yet the log has: %s", log)
	}
}

func TestHookBadInputsExitZeroPrintNothingAndLogOneLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, stdin, want string
		args              []string
	}{
		{"malformed JSON", `{"session_id": "s", "prompt": "x"`, "not valid JSON", nil},
		{"empty stdin", "", "no hook payload", nil},
		{"blank stdin", " \n\t\n", "no hook payload", nil},
		{"array", `[{"prompt": "x"}]`, "not a JSON object", nil},
		{"wrong field type", `{"session_id": 5, "prompt": "refresh token"}`, "not valid JSON", nil},
		{"two objects", `{"prompt": "a"} {"prompt": "b"}`, "more than one JSON value", nil},
		{"unknown event", `{"prompt": "x"}`, `unknown hook event "permission-request"`, []string{"hook", "claude", "permission-request"}},
		{"no kind", `{"prompt": "x"}`, "usage: cairn hook claude|codex EVENT", []string{"hook", "user-prompt-submit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newHookCLI(t)
			args := tc.args
			if args == nil {
				args = []string{"hook", "claude", "user-prompt-submit"}
			}
			r := c.raw(tc.stdin, append([]string{"--db", c.db}, args...)...)
			if r.code != 0 || r.stdout != "" {
				t.Fatalf("want exit 0 and no output, got %v", r)
			}
			lines := splitLines(c.logText())
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) || !strings.Contains(lines[0], " hook claude ") {
				t.Fatalf("want one log line with %q, got %q", tc.want, lines)
			}
		})
	}
}

func TestHookDatabaseThatCannotBeOpenedIsLoggedNotFatal(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"folder", "garbage"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			c := newHookCLI(t)
			c.db = filepath.Join(c.dir, "broken.db")
			if kind == "folder" {
				os.Mkdir(c.db, 0o755)
			} else {
				os.WriteFile(c.db, []byte(strings.Repeat("this is not a database\n", 400)), 0o644)
			}
			for _, ev := range []string{"session-start", "user-prompt-submit", "stop"} {
				name := map[string]string{"session-start": "session-start-startup.json", "user-prompt-submit": "user-prompt-submit.json", "stop": "stop.json"}[ev]
				r := c.hook(c.payload(name), ev)
				if r.code != 0 || r.stdout != "" {
					t.Fatalf("%s: want exit 0 and no output, got %v", ev, r)
				}
			}
			lines := splitLines(c.logText())
			if len(lines) != 3 {
				t.Fatalf("want 3 log lines, got %q", lines)
			}
			if !strings.Contains(lines[0], "hook claude session-start session "+hookSession+": ") {
				t.Errorf("log line lacks the event and session: %q", lines[0])
			}
		})
	}
}

func TestHookContextStaysWithinClaudeCodesCapWhenEscaped(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	// Quotes and backslashes double when escaped: a block of 10,000
	// characters of them would be far longer as JSON. The pinned half
	// fills session start, the other half the prompt's relevant tier.
	var lines []string
	for i := range 60 {
		var own []string // words of its own, so that no two memories fold into one
		for j := range 12 {
			own = append(own, fmt.Sprintf(`"w%dx%d"`, i, j))
		}
		chunk := ` refresh "token" C:\path\to\auth`
		if i >= 30 {
			// A word half the memories hold: the prompt's words that
			// every memory holds would say nothing about which.
			chunk = ` refresh "token" rotation C:\path\to\auth`
		}
		body := strings.Join(own, " ") + strings.Repeat(chunk, 60)
		lines = append(lines, fmt.Sprintf(`{"id": "mem-big%013d", "project": "authsvc", "type": "decision", "title": "Decision %d about \"refresh\" \\ tokens", "content": %q, "confidence": 0.9, "pinned": %t, "source": "explicit", "created_at": "2026-10-01T10:00:00Z"}`, i, i, body, i < 30))
	}
	f := c.writeFile("big.jsonl", strings.Join(lines, "\n")+"\n")
	c.ok("import", f)
	// A budget far above the cap, so that the character cap is what binds.
	c.env["XDG_CONFIG_HOME"] = filepath.Join(c.dir, "config")
	writeConfigFile(t, filepath.Join(c.dir, "config", "cairn", "cairn.toml"), "[context]\nbudget = 100000\nstart_budget = 100000\n[context.relevant]\nlimit = 40\nmax_limit = 40\n")
	for _, tc := range []struct{ file, event string }{{"session-start-startup.json", "session-start"}, {"user-prompt-submit.json", "user-prompt-submit"}} {
		in := strings.Replace(c.payload(tc.file), "The refresh endpoint panics on an unknown token, can you fix AuthService.Refresh?", "refresh token rotation path to auth", 1)
		r := c.hook(in, tc.event)
		const key = `"additionalContext":"`
		i := strings.Index(r.stdout, key)
		if r.code != 0 || i < 0 || !strings.HasSuffix(r.stdout, "\"}}\n") {
			t.Fatalf("%s: no context: %v\nlog: %s", tc.event, r, c.logText())
		}
		escaped := r.stdout[i+len(key) : len(r.stdout)-len("\"}}\n")]
		if n := utf8.RuneCountInString(escaped); n > hook.MaxContext {
			t.Errorf("%s: escaped additionalContext has %d characters, more than %d", tc.event, n, hook.MaxContext)
		}
		if n := utf8.RuneCountInString(escaped); n < hook.MaxContext/2 {
			t.Errorf("%s: escaped additionalContext has only %d characters: the cap cut far too much", tc.event, n)
		}
		if !strings.Contains(escaped, `\"token\"`) {
			t.Errorf("%s: the big memories are not in the context: %s", tc.event, r.stdout)
		}
	}
}

func TestHookStopCapturesTheSignalOnceAndPrintsNothing(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	in := c.payload("stop.json")
	r := c.hook(in, "stop")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	first := c.captured()
	var pitfall map[string]any
	for _, m := range c.listJSON("--type", "pitfall") {
		if strings.Contains(m["content"].(string), "Session expiry is inclusive") {
			pitfall = m
		}
	}
	if pitfall == nil {
		t.Fatalf("the MEMORY: signal was not captured: %q", first)
	}
	// Again, and with stop_hook_active (Claude continuing because of a
	// Stop hook): nothing new, nothing reinforced, nothing printed.
	r = c.hook(strings.Replace(in, `"stop_hook_active":false`, `"stop_hook_active":true`, 1), "stop")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	if again := c.captured(); strings.Join(again, "\n") != strings.Join(first, "\n") {
		t.Errorf("second run changed the memories:\n%q\n%q", first, again)
	}
	after := c.show(pitfall["id"].(string))
	if after["use_count"] != pitfall["use_count"] || after["confidence"] != pitfall["confidence"] {
		t.Errorf("second run reinforced the pitfall: %v -> %v", pitfall, after)
	}
	if log := c.logText(); log != "" {
		t.Errorf("log: %s", log)
	}
}

func TestHookStopTakesTheLastMessageTheTranscriptDoesNotHoldYet(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	msg := "Done.\n\nMEMORY:gotcha:The login rate limiter counts failed attempts per IP, not per account."
	b, _ := json.Marshal(msg)
	in := strings.Replace(c.payload("stop.json"), `"last_assistant_message":`, `"last_assistant_message":`+string(b)+`,"x":`, 1)
	for range 2 {
		if r := c.hook(in, "stop"); r.code != 0 || r.stdout != "" {
			t.Fatalf("%v", r)
		}
	}
	got := c.listJSON("--type", "gotcha")
	if len(got) != 1 || !strings.Contains(got[0]["content"].(string), "per IP") {
		t.Fatalf("want the gotcha once, got %v", got)
	}
	if got[0]["use_count"] != float64(0) {
		t.Errorf("the second run reinforced the gotcha: %v", got[0])
	}
	if got[0]["created_by_session_id"] != hookSession {
		t.Errorf("gotcha session = %v", got[0]["created_by_session_id"])
	}
}

func TestHookPostToolUseCapturesOnlyWhenEnabled(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	in := c.payload("post-tool-use.json")
	if r := c.hook(in, "post-tool-use"); r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	if got := c.captured(); len(got) != 0 {
		t.Fatalf("post-tool-use captured while off: %q", got)
	}
	if r := c.hook(in, "post-tool-use", "--capture-tools"); r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	got := strings.Join(c.captured(), "\n")
	if !strings.Contains(got, "fix: ") {
		t.Errorf("a passing test after a failure should store the fix: %q", got)
	}
	// A failing run stores nothing yet.
	c2 := newHookCLI(t)
	failing := strings.Replace(c2.payload("post-tool-use.json"), `"stdout":"ok  `, `"stdout":"--- FAIL: TestSessionExpiry\nFAIL `, 1)
	c2.hook(failing, "post-tool-use", "--capture-tools")
	if got := c2.captured(); len(got) != 0 {
		t.Errorf("a failing command captured %q", got)
	}
}

func TestHookMissingDatabaseOrTranscriptIsQuiet(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	c.db = filepath.Join(c.dir, "fresh", "none.db")
	r := c.hook(c.payload("session-start-startup.json"), "session-start")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	if _, err := os.Stat(c.db); err == nil {
		t.Errorf("session start created the database")
	}
	c2 := newHookCLI(t)
	in := strings.ReplaceAll(c2.payload("pre-compact.json"), c2.transcripts, filepath.Join(c2.dir, "nowhere"))
	if r := c2.hook(in, "pre-compact"); r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	if log := c2.logText(); log != "" {
		t.Errorf("a transcript not written yet is not an error: %s", log)
	}
}

func TestHookBoundedGivesUpAtTheDeadline(t *testing.T) {
	t.Parallel()
	start := time.Now()
	err := bounded(t.Context(), 50*time.Millisecond, func(ctx context.Context) error {
		time.Sleep(2 * time.Second) // ignores ctx, like a stuck system call
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "gave up after 50ms") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("bounded waited %v", d)
	}
	if err := bounded(t.Context(), time.Second, func(context.Context) error { panic("boom") }); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a panic should come back as an error, got %v", err)
	}
}

func TestHookForwardedThroughServeGivesTheLocalOutput(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t) // one pitfall about the flaky auth test's fake clock, project proj
	cwd := filepath.Join(t.TempDir(), c.project)
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"session_id": "s-fwd", "transcript_path": "/nonexistent.jsonl", "cwd": cwd,
		"permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": "why is the auth test flaky with the fake clock?"})
	run := func() result {
		return c.raw(string(b), "--db", c.db, "hook", "claude", "user-prompt-submit")
	}
	viaServer := run()
	c.env["CAIRN_NO_SERVER"] = "1"
	local := run()
	delete(c.env, "CAIRN_NO_SERVER")
	if viaServer.code != 0 || viaServer.stdout == "" || viaServer.stdout != local.stdout {
		t.Fatalf("server and local answers differ:\n%v\n---\n%v", viaServer, local)
	}
	if !viaServer.served || local.served {
		t.Fatalf("served: %v with a server, %v with CAIRN_NO_SERVER=1", viaServer.served, local.served)
	}
}

// TestHookExplicitProjectWinsOverThePayloadsFolder gives a payload whose
// cwd is a folder named like another project, with the project set by
// --project (before and after the command) and by CAIRN_PROJECT, answered
// by a server and locally: the explicit project is the one shown and the
// one a capture writes to.
func TestHookExplicitProjectWinsOverThePayloadsFolder(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t) // one pitfall about the flaky auth test's fake clock, project proj
	cwd := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	stop, _ := json.Marshal(map[string]any{"session_id": "s-x", "transcript_path": "/nonexistent.jsonl", "cwd": cwd,
		"hook_event_name": "Stop", "last_assistant_message": "MEMORY:convention:Hooks honour the explicit project."})
	for _, how := range []struct {
		name string
		env  string
		args []string
	}{
		{"--project before", "", []string{"--db", c.db, "--project", c.project, "hook", "claude"}},
		{"--project after", "", []string{"--db", c.db, "hook", "claude", "--project", c.project}},
		{"CAIRN_PROJECT", c.project, []string{"--db", c.db, "hook", "claude"}},
	} {
		for _, local := range []bool{false, true} {
			c.env["CAIRN_PROJECT"] = how.env
			if local {
				c.env["CAIRN_NO_SERVER"] = "1"
			}
			// A session of its own: a memory is shown once per session.
			prompt, _ := json.Marshal(map[string]any{"session_id": fmt.Sprintf("s-%s-%v", how.name, local), "transcript_path": "/nonexistent.jsonl", "cwd": cwd,
				"hook_event_name": "UserPromptSubmit", "prompt": "why is the auth test flaky with the fake clock?"})
			r := c.raw(string(prompt), append(how.args, "user-prompt-submit")...)
			if r.code != 0 || !strings.Contains(r.stdout, "fake clock") || !strings.Contains(r.stdout, `project=\"proj\"`) || r.served == local {
				t.Errorf("%s (local %v): want proj's pitfall, got %v", how.name, local, r)
			}
			if r := c.raw(string(stop), append(how.args, "stop")...); r.code != 0 || r.stdout != "" {
				t.Errorf("%s (local %v) stop: %v", how.name, local, r)
			}
			delete(c.env, "CAIRN_NO_SERVER")
		}
	}
	delete(c.env, "CAIRN_PROJECT")
	if got := c.searchIDs("explicit project"); len(got) != 1 {
		t.Errorf("proj holds %d captured conventions, want 1", len(got))
	}
	c.project = "elsewhere"
	if got := c.total(); got != 0 {
		t.Errorf("the payload's folder's project holds %d memories", got)
	}
}

// Codex sends Claude Code's payloads, but its transcript is a rollout file
// of another format: `cairn hook codex stop` takes only the last message,
// and what it stores names codex as its agent.
func TestHookCodexCapturesTheLastMessageOnly(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	msg := "MEMORY:convention:Migrations are numbered and never edited after release."
	b, _ := json.Marshal(msg)
	in := strings.Replace(c.payload("stop.json"), `"last_assistant_message":`, `"last_assistant_message":`+string(b)+`,"x":`, 1)
	r := c.raw(in, "--db", c.db, "hook", "codex", "stop")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	got := c.captured()
	if len(got) != 1 || !strings.HasPrefix(got[0], "convention: ") {
		t.Fatalf("want only the last message's convention (no transcript summary or fix), got %q", got)
	}
	for _, m := range c.listJSON("--type", "convention") {
		if !strings.HasPrefix(m["id"].(string), "mem-authsvc") && m["created_by_agent"] != "codex" {
			t.Errorf("created_by_agent = %v, want codex", m["created_by_agent"])
		}
	}
}

// Claude Code may write the last message to the transcript only after the
// Stop hook ran: the hook stores its signals from last_assistant_message,
// and the next capture, which then reads the message in the transcript,
// must not reinforce them a second time.
func TestHookLastMessageWrittenLateIsNotCountedTwice(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	path := filepath.Join(c.transcripts, hookSession+".jsonl")
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(full), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "MEMORY:pitfall:Session expiry is inclusive") {
		t.Fatalf("the fixture's last line is not the message: %s", last)
	}
	// At Stop, the transcript lacks the last message.
	if err := os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := c.hook(c.payload("stop.json"), "stop"); r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	pitfall := func() map[string]any {
		for _, m := range c.listJSON("--type", "pitfall") {
			if strings.Contains(m["content"].(string), "Session expiry is inclusive") {
				return m
			}
		}
		return nil
	}
	if m := pitfall(); m == nil {
		t.Fatalf("the Stop hook did not store the last message's pitfall: %q", c.captured())
	}
	// Then Claude Code writes it, and the session ends.
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := c.hook(c.payload("session-end.json"), "session-end"); r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	if m := pitfall(); m["use_count"] != float64(0) {
		t.Errorf("the pitfall was counted twice: %v", m)
	}
	if log := c.ok("log", "--action", "reinforced").stdout; strings.Contains(log, "reinforced") {
		t.Errorf("a memory was reinforced:\n%s", log)
	}
}

// One signal of the last message cannot be stored (redacted, it is over
// the size limit): the others are stored once, and a second Stop with the same
// message does not count them again.
func TestHookLastMessageWithAFailingSignalCountsTheOthersOnce(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	// Redaction makes the learning longer than the store takes: each AWS
	// key id of 20 characters becomes a 25-character marker.
	var keys []string
	for i := range 40 {
		keys = append(keys, fmt.Sprintf("AKIA%016d", i))
	}
	learning := strings.Join(keys, " ") + " " + strings.Repeat("word ", 13000)
	learning = learning[:65530]
	msg := "MEMORY:gotcha:The rate limiter counts per IP.\n\nMEMORY:learning:" + learning
	b, _ := json.Marshal(msg)
	in := strings.Replace(c.payload("stop.json"), `"last_assistant_message":`, `"last_assistant_message":`+string(b)+`,"x":`, 1)
	for range 2 {
		if r := c.hook(in, "stop"); r.code != 0 || r.stdout != "" {
			t.Fatalf("%v", r)
		}
	}
	got := c.listJSON("--type", "gotcha")
	if len(got) != 1 || got[0]["use_count"] != float64(0) {
		t.Fatalf("want the gotcha once and never reinforced, got %v", got)
	}
	if log := c.logText(); strings.Count(log, "\n") != 2 || !strings.Contains(log, "last assistant message") {
		t.Errorf("want the failing signal logged by each run:\n%s", log)
	}
}

// The hooks that inject context start `cairn serve` when none answers, so
// that the next prompt is answered fast, and so do those that end a turn
// of a session that goes on (the server the session started may have
// stopped meanwhile, and an http hook reaches only a running one); not
// SessionEnd, nor when CAIRN_NO_SERVER is set, nor when nothing is
// remembered yet.
func TestHookStartsAServerWhenNoneAnswers(t *testing.T) {
	t.Parallel()
	type call struct{ db, project string }
	newC := func() (*hookCLI, *[]call) {
		c := newHookCLI(t)
		var calls []call
		c.startServer = func(db, project string) error {
			calls = append(calls, call{db, project})
			return nil
		}
		return c, &calls
	}
	c, calls := newC()
	for _, tc := range []struct{ file, event string }{{"session-start-startup.json", "session-start"}, {"user-prompt-submit-irrelevant.json", "user-prompt-submit"}} {
		*calls = nil
		if r := c.hook(c.payload(tc.file), tc.event); r.code != 0 {
			t.Fatalf("%v", r)
		}
		if len(*calls) != 1 || (*calls)[0].db != c.db || (*calls)[0].project != "authsvc" {
			t.Errorf("%s: want one start for %s/authsvc, got %v", tc.event, c.db, *calls)
		}
	}
	for _, tc := range []struct{ file, event string }{{"stop.json", "stop"}, {"subagent-stop.json", "subagent-stop"}, {"pre-compact.json", "pre-compact"}} {
		*calls = nil
		if r := c.hook(c.payload(tc.file), tc.event); r.code != 0 {
			t.Fatalf("%v", r)
		}
		if len(*calls) != 1 || (*calls)[0].db != c.db {
			t.Errorf("%s: want one start for %s, got %v", tc.event, c.db, *calls)
		}
	}
	*calls = nil
	c.hook(c.payload("session-end.json"), "session-end")
	if len(*calls) != 0 {
		t.Errorf("session-end started a server: %v", *calls)
	}
	c.env["CAIRN_NO_SERVER"] = "1"
	c.hook(c.payload("session-start-startup.json"), "session-start")
	if len(*calls) != 0 {
		t.Errorf("CAIRN_NO_SERVER=1 started a server: %v", *calls)
	}
	fresh, freshCalls := newC()
	fresh.db = filepath.Join(fresh.dir, "none", "cairn.db")
	fresh.hook(fresh.payload("session-start-startup.json"), "session-start")
	if len(*freshCalls) != 0 {
		t.Errorf("a server was started for a database that does not exist: %v", *freshCalls)
	}
}

// The real binary: a session-start hook that finds no server starts one
// in the background, the next hooks start no other, and it stops on its
// own once idle (CAIRN_SERVE_IDLE, 3 s in the binary tests); the stop
// hook of the session's next turn starts it again. That a hook
// is answered by a running server is TestHookForwardedThroughServe….
func TestBinaryHookStartsAServerThatStopsWhenIdle(t *testing.T) {
	needBinary(t)
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	db := filepath.Join(dir, "cairn.db")
	if r := runBin(ctx, dir, "", "--db", db, "--project", "authsvc", "add", "--type", "decision", "--pin", "We use pgx for Postgres access."); r.code != 0 {
		t.Fatalf("%v", r)
	}
	if r := runBin(ctx, dir, "", "--db", db, "--project", "authsvc", "add", "--type", "pitfall", "Postgres tests need CAIRN_TEST_POSTGRES_URL and skip without it."); r.code != 0 {
		t.Fatalf("%v", r)
	}
	payload := func(event, extra string) string {
		return fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"cwd":%q,"hook_event_name":%q%s}`, filepath.Join(dir, "t.jsonl"), dir, event, extra)
	}
	r := runBin(ctx, dir, payload("SessionStart", `,"source":"startup"`), "--db", db, "--project", "authsvc", "hook", "claude", "session-start")
	if r.code != 0 || !strings.Contains(r.stdout, "pgx") {
		t.Fatalf("session-start: %v", r)
	}
	sock := server.SocketPath(db)
	waitFor := func(what string, cond func() bool) { t.Helper(); waitUntil(t, dir, what, cond) }
	exists := func() bool { _, err := os.Stat(sock); return err == nil }
	waitFor("no server started", exists)
	// The next hooks find it: no second server is started. Each is of a
	// session of its own: a session is not shown a memory twice.
	for i := range 2 {
		p := strings.Replace(payload("UserPromptSubmit", `,"prompt":"why do the Postgres tests skip"`), `"s1"`, fmt.Sprintf(`"p%d"`, i), 1)
		r = runBin(ctx, dir, p, "--db", db, "--project", "authsvc", "hook", "claude", "user-prompt-submit")
		if r.code != 0 || !strings.Contains(r.stdout, "CAIRN_TEST_POSTGRES_URL") {
			t.Fatalf("user-prompt-submit: %v", r)
		}
	}
	waitFor("the server did not stop when idle", func() bool { return !exists() })
	log, _ := os.ReadFile(filepath.Join(dir, "cairn.log"))
	if !strings.Contains(string(log), "no request for 3s") || strings.Count(string(log), "cairn: serving") != 1 {
		t.Errorf("want one server that stopped when idle; cairn.log:\n%s", log)
	}
	// The session goes on: the end of its next turn starts the server
	// again, for the http hooks of the turns to come.
	r = runBin(ctx, dir, payload("Stop", `,"permission_mode":"default","stop_hook_active":false,"last_assistant_message":"Done."`),
		"--db", db, "--project", "authsvc", "hook", "claude", "stop")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("stop: %v", r)
	}
	waitFor("the stop hook started no server", exists)
	waitFor("the second server did not stop when idle", func() bool { return !exists() })
	log, _ = os.ReadFile(filepath.Join(dir, "cairn.log"))
	if strings.Count(string(log), "cairn: serving") != 2 {
		t.Errorf("want a second server started by the stop hook; cairn.log:\n%s", log)
	}
	// Each of the server's lines says when it was written.
	stamped := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ `)
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if strings.Contains(line, "cairn: ") && !stamped.MatchString(line) {
			t.Errorf("a line of cairn.log without its time: %q", line)
		}
	}
}

// The hook's log line is redacted: tried with a secret as the session id
// (logged with a database that cannot be opened) and inside the error
// message (an unknown event name).
func TestHookLogLinesAreRedacted(t *testing.T) {
	t.Parallel()
	token := "gh" + "p_" + strings.Repeat("aB3dE6gH9k", 4)[:36]
	c := newHookCLI(t)
	c.db = filepath.Join(c.dir, "broken.db")
	os.Mkdir(c.db, 0o755)
	if r := c.hook(`{"session_id": "`+token+`", "prompt": "x"}`, "user-prompt-submit"); r.code != 0 {
		t.Fatalf("hook: %v", r)
	}
	if r := c.raw(`{"prompt": "x"}`, "--db", c.db, "hook", "claude", "event-"+token); r.code != 0 {
		t.Fatalf("hook: %v", r)
	}
	log := c.logText()
	if len(splitLines(log)) != 2 || strings.Contains(log, token[:12]) || !strings.Contains(log, "[REDACTED:github-token]") {
		t.Errorf("want 2 redacted log lines, got:\n%s", log)
	}
}
