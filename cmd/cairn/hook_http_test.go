package main

// Claude Code's http hooks answered by `cairn serve` (POST
// /hooks/claude/{event}) against the command hook: the same payloads, in
// the same order, on two copies of one database, give the same bytes.
//
// Bad inputs tried here: an unknown event, an event answered only by a
// command hook (Stop), a body that is not JSON, an empty body, a payload
// without cwd, an X-Cairn-Project that is not a project name, an
// X-Cairn-Timeout that is not a number, a Host header naming another
// machine, a cross-site request from a web page, a GET.

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/server"
)

// serveHTTPIn runs `cairn serve` for c's database in process with HTTP
// on a free loopback port until the test ends, and returns its address.
func serveHTTPIn(t *testing.T, c *cli, wd string) string {
	t.Helper()
	var addr string
	t.Cleanup(runServeUntil(t, t.Context(), c, wd, "127.0.0.1:0", nil, func() bool {
		st, err := server.StatusOf(t.Context(), c.db, c.db)
		if err != nil || st.URL == "" {
			return false
		}
		addr = strings.TrimSuffix(strings.TrimPrefix(st.URL, "http://"), "/")
		return true
	}))
	return addr
}

// postHook posts a payload to the http hook of event and returns the
// status and body.
func postHook(t *testing.T, hc *http.Client, addr, event, payload string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", "http://"+addr+"/hooks/claude/"+event, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// copyDB copies a SQLite database (with its write-ahead log) to to.
func copyDB(t *testing.T, from, to string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(from + suffix)
		if err != nil {
			if suffix != "" && os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		if err := os.WriteFile(to+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHTTPHookAnswersWhatTheCommandHookPrints runs every payload of the
// hook suite whose event is answered over HTTP, twice each (the second
// time the session saw the block already), then the failure and command
// payloads after an earlier session's fix, through `cairn hook claude
// EVENT` on one copy of a database and through the http hook of a `cairn
// serve` on the other, and compares the bytes.
func TestHTTPHookAnswersWhatTheCommandHookPrints(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	old := storeTranscript(t, c.transcripts, "s-earlier", time.Date(2026, 10, 20, 9, 0, 0, 0, time.UTC))
	c.ok("ingest", "claude", old)
	served := c.cli
	dir, err := os.MkdirTemp("", "ch") // a short path: Unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	copied := *c.cli
	copied.db = filepath.Join(dir, "c.db")
	copyDB(t, c.db, copied.db)
	served = &copied
	served.env = map[string]string{}
	for k, v := range c.cli.env {
		served.env[k] = v
	}
	c.env["CAIRN_NO_SERVER"] = "1" // the command hook opens its copy itself
	addr := serveHTTPIn(t, served, t.TempDir())
	hc := &http.Client{Timeout: 20 * time.Second}

	type call struct{ name, event, payload string }
	var calls []call
	files, _ := filepath.Glob("testdata/hooks/*.json")
	sort.Strings(files)
	for _, f := range files {
		in := c.payload(filepath.Base(f))
		p, err := hook.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		ev, _ := p.Event()
		for _, e := range server.HookEvents {
			if e == ev {
				calls = append(calls, call{filepath.Base(f), string(ev), in}, call{filepath.Base(f) + " again", string(ev), in})
			}
		}
	}
	again := "Exit code 1\n--- FAIL: TestWidgets (0.02s)\n    store_test.go:48: pq: relation \"widgets\" does not exist\nFAIL\nFAIL\texample.com/authsvc/internal/store\t0.04s"
	pre, _ := json.Marshal(map[string]any{"session_id": "s-next", "cwd": "/home/dev/authsvc", "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./internal/store/..."}})
	for i := range 3 {
		calls = append(calls, call{"failure " + strings.Repeat("again ", i), "PostToolUseFailure", failurePayload("s-now", "/nowhere.jsonl", again, false)})
	}
	calls = append(calls,
		call{"interrupted failure", "PostToolUseFailure", failurePayload("s-other", "/nowhere.jsonl", again, true)},
		call{"bash after the fix", "PreToolUse", string(pre)},
		call{"bash after the fix again", "PreToolUse", string(pre)})
	answered := 0
	for _, cl := range calls {
		ev, _ := hook.ParseEvent(cl.event)
		cmd := c.hook(cl.payload, ev.Kebab())
		if cmd.code != 0 || cmd.stderr != "" {
			t.Fatalf("%s: %v", cl.name, cmd)
		}
		status, body := postHook(t, hc, addr, cl.event, cl.payload, map[string]string{"X-Cairn-Timeout": "10"})
		if status != http.StatusOK || body != cmd.stdout {
			t.Errorf("%s: the http hook answered %d\n%s\nthe command hook printed\n%s", cl.name, status, body, cmd.stdout)
		}
		if body != "" {
			answered++
		}
	}
	if answered < 5 {
		t.Errorf("only %d of %d calls added context: the comparison proves little", answered, len(calls))
	}
	if log := c.logText(); log != "" {
		t.Errorf("the command hook logged: %s", log)
	}
}

// TestHTTPHookRefusesWhatItDoesNotAnswer: an unknown event or one left to
// the command hooks is 404, a bad payload or header 400, another host or
// a cross-site page 403, each with the API's JSON error; nothing is
// stored.
func TestHTTPHookRefusesWhatItDoesNotAnswer(t *testing.T) {
	t.Parallel()
	c := newServeCLI(t)
	addr := serveHTTPIn(t, c, t.TempDir())
	hc := &http.Client{Timeout: 20 * time.Second}
	cwd := filepath.Join(t.TempDir(), c.project)
	good, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": "why is the auth test flaky with the fake clock?"})
	for _, tc := range []struct {
		name, event, body string
		header            map[string]string
		status            int
		code              string
	}{
		{"unknown event", "Nonsense", string(good), nil, 404, cairn.ENOTFOUND},
		{"a command hook's event", "Stop", string(good), nil, 404, cairn.ENOTFOUND},
		{"not JSON", "UserPromptSubmit", "{not json", nil, 400, cairn.EINVALID},
		{"empty body", "UserPromptSubmit", "", nil, 400, cairn.EINVALID},
		{"no cwd", "UserPromptSubmit", `{"session_id":"s","prompt":"flaky clock"}`, nil, 400, cairn.EINVALID},
		{"bad project", "UserPromptSubmit", string(good), map[string]string{"X-Cairn-Project": strings.Repeat("p", 1000)}, 400, cairn.EINVALID},
		{"bad timeout", "UserPromptSubmit", string(good), map[string]string{"X-Cairn-Timeout": "soon"}, 400, cairn.EINVALID},
		{"another host", "UserPromptSubmit", string(good), map[string]string{"Host": "evil.example:7421"}, 403, cairn.EFORBIDDEN},
		{"cross-site page", "UserPromptSubmit", string(good), map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, 403, cairn.EFORBIDDEN},
	} {
		status, body := postHook(t, hc, addr, tc.event, tc.body, tc.header)
		var e struct {
			Error struct{ Code, Message string }
		}
		if status != tc.status || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != tc.code || e.Error.Message == "" {
			t.Errorf("%s: %d %s, want %d with a %s JSON error", tc.name, status, body, tc.status, tc.code)
		}
	}
	resp, err := hc.Get("http://" + addr + "/hooks/claude/UserPromptSubmit")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 4 {
		t.Errorf("GET: %d, want a 4xx", resp.StatusCode)
	}
	// The good payload, after all that, is answered.
	if status, body := postHook(t, hc, addr, "UserPromptSubmit", string(good), nil); status != 200 || !strings.Contains(body, "fake clock") {
		t.Errorf("good payload: %d %s", status, body)
	}
	// The project named by the header wins over the cwd's.
	other, _ := json.Marshal(map[string]any{"session_id": "s2", "cwd": filepath.Join(t.TempDir(), "elsewhere"), "prompt": "why is the auth test flaky with the fake clock?"})
	if status, body := postHook(t, hc, addr, "UserPromptSubmit", string(other), nil); status != 200 || body != "" {
		t.Errorf("another project's folder: %d %s", status, body)
	}
	if status, body := postHook(t, hc, addr, "UserPromptSubmit", string(other), map[string]string{"X-Cairn-Project": c.project}); status != 200 || !strings.Contains(body, "fake clock") {
		t.Errorf("X-Cairn-Project: %d %s", status, body)
	}
}

// An http hook answered by a server started in another folder owns its
// payload's folder as a command hook run there does: the project's
// cairn.toml is written to the database, and a learning then added
// through that server lives as long as the file says. Bad input tried: a
// payload whose folder is another project's, with no file of its own,
// which writes nothing.
func TestHTTPHookWritesItsFoldersSettings(t *testing.T) {
	t.Parallel()
	c := newServeCLI(t)
	project := filepath.Join(c.dir, c.project)
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	writeConfigFile(t, filepath.Join(project, ".cairn", "cairn.toml"), "[lifecycle.learning]\nttl_days = 2\n")
	addr := serveHTTPIn(t, c, t.TempDir())
	hc := &http.Client{Timeout: 20 * time.Second}
	payload := func(cwd string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s-http", "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": "why is the auth test flaky?"})
		return string(b)
	}
	other := filepath.Join(c.dir, "other")
	os.MkdirAll(filepath.Join(other, ".git"), 0o755)
	if st, _ := postHook(t, hc, addr, "UserPromptSubmit", payload(other), map[string]string{"X-Cairn-Project": c.project}); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if r := c.run("", "config", "--json"); strings.Contains(r.stdout, `"stored":{`) {
		t.Fatalf("a hook in another project's folder stored settings: %s", r.stdout)
	}
	if st, _ := postHook(t, hc, addr, "UserPromptSubmit", payload(project), nil); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	var out struct {
		Database struct {
			Stored *cairn.ProjectSettings `json:"stored"`
		} `json:"database"`
	}
	if err := json.Unmarshal([]byte(c.ok("config", "--json").stdout), &out); err != nil || out.Database.Stored == nil ||
		out.Database.Stored.Settings.Lifecycle["learning"].TTLDays != 2 || out.Database.Stored.Folder != project {
		t.Fatalf("stored after the http hook: %+v, %v", out.Database.Stored, err)
	}
}
