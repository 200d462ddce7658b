package main

// `cairn serve status` and `stop`, and a server killed outright. Bad
// situations tried: a server SIGKILLed, leaving its socket file behind
// (the next hook must start a new server all the same) and the uses it
// wrote but had not applied (the next server applies them); status and stop
// when no server runs; an unknown serve argument.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/server"
)

func TestBinaryHookStartsAServerAgainAfterOneWasKilledAndServeStopStopsIt(t *testing.T) {
	needBinary(t)
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	db := filepath.Join(dir, "cairn.db")
	cairn := func(stdin string, args ...string) result {
		return runBin(ctx, dir, stdin, append([]string{"--db", db, "--project", "authsvc"}, args...)...)
	}
	if r := cairn("", "add", "--type", "pitfall", "Postgres tests need CAIRN_TEST_POSTGRES_URL and skip without it."); r.code != 0 {
		t.Fatalf("%v", r)
	}
	// Each prompt is of a new session: a memory is shown once per session.
	sessions := 0
	prompt := func() {
		t.Helper()
		sessions++
		payload := fmt.Sprintf(`{"session_id":"s%d","transcript_path":%q,"cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"why do the Postgres tests skip"}`,
			sessions, filepath.Join(dir, "t.jsonl"), dir)
		if r := cairn(payload, "hook", "claude", "user-prompt-submit"); r.code != 0 || !strings.Contains(r.stdout, "CAIRN_TEST_POSTGRES_URL") {
			t.Fatalf("user-prompt-submit: %v", r)
		}
	}
	// status waits for a server to answer and returns what it says.
	status := func(notPID int) server.Status {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			r := cairn("", "serve", "status", "--json")
			var st server.Status
			if r.code == 0 && json.Unmarshal([]byte(r.stdout), &st) == nil && st.PID != notPID {
				return st
			}
			if time.Now().After(deadline) {
				log, _ := os.ReadFile(filepath.Join(dir, "cairn.log"))
				t.Fatalf("no server answers: %v\ncairn.log:\n%s", r, log)
			}
		}
	}
	if r := cairn("", "serve", "status"); r.code != 1 || !strings.Contains(r.stderr, "no cairn serve is running") {
		t.Fatalf("status without a server: %v", r)
	}
	prompt() // starts a server in the background
	first := status(0)
	if first.Database != db || first.Socket != server.SocketPath(db) || first.Uptime == "" || first.Started.IsZero() || first.Log != filepath.Join(dir, "cairn.log") {
		t.Fatalf("status: %+v", first)
	}
	if r := cairn("", "serve", "status"); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("pid       %d", first.PID)) || !strings.Contains(r.stdout, "uptime") ||
		first.URL == "" || !strings.Contains(r.stdout, "url       "+first.URL) {
		t.Fatalf("status: %v", r)
	}
	// The server a hook started answers the http hooks too.
	req, _ := http.NewRequestWithContext(ctx, "POST", first.URL+"hooks/claude/UserPromptSubmit", strings.NewReader(
		fmt.Sprintf(`{"session_id":"s-http","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"why do the Postgres tests skip"}`, dir)))
	req.Header.Set("X-Cairn-Project", "authsvc") // as CAIRN_PROJECT is to the command hook
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "CAIRN_TEST_POSTGRES_URL") {
		t.Fatalf("http hook of the hook's server: %d %s", resp.StatusCode, body)
	}
	// A second server by hand says how to find the first one.
	if r := cairn("", "serve", "--addr", "off"); r.code != 1 || !strings.Contains(r.stderr, "cairn serve status") {
		t.Fatalf("a second server: %v", r)
	}

	// uses is what the log and the memory say of its uses: the sessions
	// with a "used" entry, and its use count.
	var memories []struct{ ID string }
	if r := cairn("", "list", "--json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &memories) != nil || len(memories) != 1 {
		t.Fatalf("list: %v", r)
	}
	uses := func() (map[string]bool, int) {
		t.Helper()
		var entries []struct {
			Session string `json:"session_id"`
		}
		r := cairn("", "log", "--json", "--limit", "0", "--action", "used", "--memory", memories[0].ID)
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &entries) != nil {
			t.Fatalf("log: %v", r)
		}
		sessions := map[string]bool{}
		for _, e := range entries {
			sessions[e.Session] = true
		}
		var m struct {
			UseCount int `json:"use_count"`
		}
		if r := cairn("", "show", "--json", memories[0].ID); r.code != 0 || json.Unmarshal([]byte(r.stdout), &m) != nil {
			t.Fatalf("show: %v", r)
		}
		return sessions, m.UseCount
	}
	// The server writes the two prompts' uses (the log's entries, and
	// the uses to its use queue) within a second, and applies the queue
	// to the use count seconds later.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if logged, _ := uses(); len(logged) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not write the uses of its two prompts")
		}
	}

	// Killed outright, it leaves its socket file; the next prompt is
	// answered locally and starts a new server.
	if logged, count := uses(); count == len(logged) {
		t.Log("the server applied its queued uses before it was killed: the next server has none to apply")
	}
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !server.ProcessGone(first.PID); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed server is still there")
		}
	}
	if _, err := os.Stat(server.SocketPath(db)); err != nil {
		t.Fatalf("the killed server's socket file is gone (%v): this test needs it", err)
	}
	prompt()
	second := status(first.PID)
	if second.URL != first.URL {
		// Right only when another process (a parallel test's server)
		// took the port in between.
		if ln, err := net.Listen("tcp", strings.TrimSuffix(strings.TrimPrefix(first.URL, "http://"), "/")); err == nil {
			ln.Close()
			t.Errorf("the new server answers HTTP at %s, the killed one did at %s, which is free: the hooks' URL broke", second.URL, first.URL)
		}
	}

	// stop returns once the server is gone.
	r := cairn("", "serve", "stop")
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("stopped cairn serve (pid %d)", second.PID)) {
		t.Fatalf("stop: %v", r)
	}
	if !server.ProcessGone(second.PID) {
		t.Errorf("pid %d still runs after stop returned", second.PID)
	}
	if _, err := os.Stat(server.SocketPath(db)); err == nil {
		t.Error("the stopped server left its socket")
	}
	if r := cairn("", "serve", "stop"); r.code != 0 || !strings.Contains(r.stderr, "no cairn serve is running") {
		t.Errorf("stop without a server: %v", r)
	}
	// Every use the log holds is counted once, those the killed server
	// wrote to its queue included: the next server applied them.
	if logged, count := uses(); len(logged) != 3 || count != len(logged) {
		t.Errorf("after the kill and the stop: used in sessions %v, use count %d; want 3 sessions, each counted once", logged, count)
	}
}

func TestServeRejectsAnUnknownArgument(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if r := c.run("", "serve", "restart"); r.code != 2 || !strings.Contains(r.stderr, `unknown argument "restart"`) {
		t.Fatalf("%v", r)
	}
	// Its help names what it takes besides flags.
	if r := c.run("", "serve", "--help"); r.code != 0 || !strings.Contains(r.stdout, "Usage: cairn serve [flags] | status [--json] | stop [--json]") {
		t.Errorf("serve --help: %v", r)
	}
}

// A server a hook started stops once another cairn is installed in the
// place of the one it runs (here: the same build, renamed over it, as
// `go install` does), well before its idle time, and says why: the next
// hook starts the cairn now there.
func TestBinaryServerAHookStartedStopsWhenCairnIsReplaced(t *testing.T) {
	needBinary(t)
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "cairn")
	install := func() {
		t.Helper()
		data, err := os.ReadFile(cairnBin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin+".new", data, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(bin+".new", bin); err != nil {
			t.Fatal(err)
		}
	}
	install()
	db := filepath.Join(dir, "cairn.db")
	run := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--db", db, "--project", "authsvc"}, args...)...)
		// An idle time far beyond the test's: what stops the server is
		// the new program (checked every quarter of it, 5 s).
		cmd.Dir, cmd.Env, cmd.Stdin = dir, append(binEnv(dir), "CAIRN_SERVE_IDLE=20s"), strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run("", "add", "--type", "pitfall", "Postgres tests need CAIRN_TEST_POSTGRES_URL and skip without it.")
	run(fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`, filepath.Join(dir, "t.jsonl"), dir),
		"hook", "claude", "session-start")
	sock := server.SocketPath(db)
	waitFor := func(what string, cond func() bool) { t.Helper(); waitUntil(t, dir, what, cond) }
	waitFor("no server started", func() bool { return server.Answers(db, time.Second) })
	install()
	waitFor("the server runs on after its program was replaced", func() bool { _, err := os.Stat(sock); return err != nil })
	if log, _ := os.ReadFile(filepath.Join(dir, "cairn.log")); !strings.Contains(string(log), bin+" was replaced or removed; stopping") {
		t.Errorf("cairn.log does not say why the server stopped:\n%s", log)
	}
}

// The database an http hook's session uses is settled as its command
// hooks settle theirs: CAIRN_DB, else the file CAIRN_DB_FILE names, else
// the default; relative paths are of the session's folder; a PostgreSQL
// URL stands for the same local path as for the server of that URL.
func TestHookDatabaseIsTheCommandHooksDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	m := &Main{Getenv: func(k string) string {
		if k == "XDG_DATA_HOME" {
			return data
		}
		return ""
	}}
	if err := os.WriteFile(filepath.Join(dir, "db.txt"), []byte("# the team's\nteam.db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pg := "postgres://cairn@db.example:5432/cairn"
	var server globals
	server.db = pg
	if err := server.resolveDB(m); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ db, file, want string }{
		{"", "", filepath.Join(data, "cairn", "cairn.db")},
		{"/srv/cairn/a.db", "", "/srv/cairn/a.db"},
		{"memory/a.db", "", filepath.Join(dir, "memory", "a.db")},
		{"/srv/cairn/a.db", "db.txt", "/srv/cairn/a.db"},
		{"", "db.txt", filepath.Join(dir, "team.db")},
		{pg, "", server.path()},
	} {
		got, err := hookDatabase(m, dir, tc.db, tc.file)
		if err != nil || got != tc.want {
			t.Errorf("CAIRN_DB=%q CAIRN_DB_FILE=%q: %q, %v; want %q", tc.db, tc.file, got, err, tc.want)
		}
	}
	if _, err := hookDatabase(m, dir, "", "missing.txt"); err == nil || !strings.Contains(err.Error(), "CAIRN_DB_FILE") {
		t.Errorf("a CAIRN_DB_FILE that does not exist: %v", err)
	}
}

// The real binary: the server of one database refuses the http hook of a
// session whose hooks use another (its CAIRN_DB, as Claude Code passes it
// in the header `install --http` writes), and answers its own's.
func TestBinaryServerRefusesTheHTTPHookOfAnotherDatabase(t *testing.T) {
	needBinary(t)
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	db, other := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	if r := runBin(ctx, dir, "", "--db", db, "--project", "authsvc", "add", "--type", "pitfall", "Postgres tests need CAIRN_TEST_POSTGRES_URL and skip without it."); r.code != 0 {
		t.Fatalf("%v", r)
	}
	addr := freeLoopbackAddr(t)
	serveBin(t, dir, binEnv(dir), db, "--project", "authsvc", "serve", "--addr", addr)
	post := func(session, cairnDB string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/hooks/claude/UserPromptSubmit", strings.NewReader(
			fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"why do the Postgres tests skip"}`, session, dir)))
		req.Header.Set("X-Cairn-Project", "authsvc")
		req.Header.Set(server.HookDatabaseHeader, "CAIRN_DB="+cairnDB)
		req.Header.Set(server.HookDatabaseFileHeader, "")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := post("s-b", other); status != http.StatusConflict || !strings.Contains(body, "CAIRN_SERVE_ADDR") {
		t.Errorf("a session of %s: %d %s, want 409", other, status, body)
	}
	if status, body := post("s-a", "a.db"); status != http.StatusOK || !strings.Contains(body, "CAIRN_TEST_POSTGRES_URL") {
		t.Errorf("a session of %s (relative to its folder): %d %s", db, status, body)
	}
}

// waitUntil waits up to 15 s for cond, and fails the test with what and
// the log of the server of the database in dir when it does not come.
func waitUntil(t *testing.T, dir, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "cairn.log"))
			t.Fatalf("%s; cairn.log:\n%s", what, log)
		}
	}
}

// serveBin runs the binary's `cairn --db DB ARGS…` (a serve) in dir with
// env until the test ends, once it answers on the database's socket.
func serveBin(t *testing.T, dir string, env []string, db string, args ...string) {
	t.Helper()
	cmd := exec.Command(cairnBin, append([]string{"--db", db}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop := exec.Command(cairnBin, "--db", db, "serve", "stop")
		stop.Dir, stop.Env = dir, env
		stop.Run()
		cmd.Wait()
	})
	waitUntil(t, dir, "the server of "+db+" does not answer", func() bool { return server.Answers(db, time.Second) })
}
