package server

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/wire"
)

// postHook posts a hook payload to the server's http hook of event.
func postHook(t *testing.T, addr, event, payload string, header map[string]string) (int, string, time.Duration) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", "http://"+addr+"/hooks/claude/"+event, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), time.Since(start)
}

// An http hook whose block is not ready within the hook's timeout is
// answered empty (the server gives up a little before the timeout, and the
// log says so); a block that is ready is answered.
func TestHTTPHookAnswersEmptyRatherThanLate(t *testing.T) {
	t.Parallel()
	slow := make(chan struct{})
	t.Cleanup(func() { close(slow) })
	s := openServer(t, func(c *Config) {
		c.Addr = "127.0.0.1:0"
		c.SyncFolder = func(_ context.Context, dir, _ string) {
			if filepath.Base(dir) == "slow" {
				<-slow // a configuration file on a hung network folder
			}
		}
	})
	prompt := func(folder string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s-" + folder, "cwd": filepath.Join(t.TempDir(), folder),
			"hook_event_name": "UserPromptSubmit", "prompt": "why is the auth test flaky with the fake clock?"})
		return string(b)
	}
	status, body, took := postHook(t, s.Addr(), "UserPromptSubmit", prompt("slow"), map[string]string{"X-Cairn-Project": "p", "X-Cairn-Timeout": "0.5"})
	// The folder never answers until the test ends: without the timeout the
	// call would hang. The server aims at 0.45 s; the bound leaves room
	// for a loaded machine, where scheduling alone can take the rest.
	if status != http.StatusOK || body != "" || took >= 5*time.Second {
		t.Errorf("slow block: %d %q after %v, want 200 and nothing, answered after the 0.5 s timeout's budget, not when the folder answers", status, body, took)
	}
	if log := s.log.String(); !strings.Contains(log, "http hook claude user-prompt-submit session s-slow: gave up after") {
		t.Errorf("the log does not say the hook gave up:\n%s", log)
	}
	status, body, _ = postHook(t, s.Addr(), "UserPromptSubmit", prompt("p"), map[string]string{"X-Cairn-Timeout": "10"})
	if status != http.StatusOK || !strings.Contains(body, "fake clock") || !strings.HasSuffix(body, "}\n") {
		t.Errorf("ready block: %d %q", status, body)
	}
}

// An http hook of a session whose hooks use another database (its
// CAIRN_DB, else CAIRN_DB_FILE, else the default, as the hook says them)
// is refused and logged, not answered from this server's database; its
// own database's, and one from an install that does not say (no header),
// are answered.
func TestHTTPHookOfAnotherDatabaseIsRefused(t *testing.T) {
	t.Parallel()
	other := filepath.Join(t.TempDir(), "other.db")
	var s *testServer
	s = openServer(t, func(c *Config) {
		c.Addr = "127.0.0.1:0"
		c.HookDatabase = func(dir, db, file string) (string, error) {
			switch {
			case db != "":
				return db, nil
			case file == "broken":
				return "", cairn.Errorf(cairn.EINVALID, "CAIRN_DB_FILE: cannot read the database file")
			case file != "":
				return other, nil
			}
			return c.Path, nil // the default: this server's
		}
	})
	cwd := filepath.Join(t.TempDir(), "p")
	for i, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"no header (an older install)", nil, http.StatusOK},
		{"the default database", map[string]string{HookDatabaseHeader: "CAIRN_DB="}, http.StatusOK},
		{"this database by CAIRN_DB", map[string]string{HookDatabaseHeader: "CAIRN_DB=" + s.db}, http.StatusOK},
		{"another database by CAIRN_DB", map[string]string{HookDatabaseHeader: "CAIRN_DB=" + other}, http.StatusConflict},
		{"another database by CAIRN_DB_FILE", map[string]string{HookDatabaseHeader: "CAIRN_DB=", HookDatabaseFileHeader: "db.txt"}, http.StatusConflict},
		{"an unreadable CAIRN_DB_FILE", map[string]string{HookDatabaseHeader: "CAIRN_DB=", HookDatabaseFileHeader: "broken"}, http.StatusBadRequest},
		{"a header without its prefix", map[string]string{HookDatabaseHeader: s.db}, http.StatusBadRequest},
	} {
		// A session of its own each: a session is shown a memory once.
		prompt, _ := json.Marshal(map[string]any{"session_id": "s" + strconv.Itoa(i), "cwd": cwd,
			"hook_event_name": "UserPromptSubmit", "prompt": "why is the auth test flaky with the fake clock?"})
		status, body, _ := postHook(t, s.Addr(), "UserPromptSubmit", string(prompt), tc.header)
		if status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, status, body, tc.status)
		}
		if tc.status == http.StatusOK && !strings.Contains(body, "fake clock") {
			t.Errorf("%s: the block is missing: %s", tc.name, body)
		}
		if tc.status == http.StatusConflict && !strings.Contains(body, "CAIRN_SERVE_ADDR") {
			t.Errorf("%s: the answer does not say what to do: %s", tc.name, body)
		}
	}
	if log := s.log.String(); strings.Count(log, ": this server answers the database "+s.db+", and the hook's session uses "+other) != 2 {
		t.Errorf("want the two refusals logged:\n%s", log)
	}
}

// A server whose port is taken listens on the next free one, records it
// beside the database and says it in its status; the record outlives the
// server.
func TestServerTakesTheNextFreePortAndRecordsIt(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, p, _ := net.SplitHostPort(taken.Addr().String())
	port, _ := strconv.Atoi(p)
	s := newServer(t, func(c *Config) { c.Addr, c.AddrTries = taken.Addr().String(), 20 })
	if err := s.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, got, _ := net.SplitHostPort(s.Addr())
	n, _ := strconv.Atoi(got)
	if n <= port || n > port+20 {
		t.Fatalf("listening on %s, want one of the 20 ports after %d", s.Addr(), port)
	}
	if st := s.Status(); st.URL != "http://"+s.Addr()+"/" {
		t.Errorf("status URL %q", st.URL)
	}
	if u := URL(t.Context(), s.db); u != "http://"+s.Addr()+"/" {
		t.Errorf("URL of the running server: %q", u)
	}
	if !strings.Contains(s.log.String(), "is taken; answering HTTP at "+s.Addr()) {
		t.Errorf("the log does not say the port moved:\n%s", s.log.String())
	}
	addr := s.Addr()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := RecordedAddr(s.db); got != addr {
		t.Errorf("recorded %q after the server stopped, want %s", got, addr)
	}
	if u := URL(t.Context(), s.db); u != "http://"+addr+"/" {
		t.Errorf("URL of a stopped server: %q", u)
	}
	// A record that is not a loopback address is not believed.
	for _, bad := range []string{"203.0.113.9:7421", "127.0.0.1", "127.0.0.1:0", "garbage"} {
		if err := os.WriteFile(AddrPath(s.db), []byte(bad+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := RecordedAddr(s.db); got != "" {
			t.Errorf("record %q read as %q", bad, got)
		}
	}
	// Without tries, a taken port is an error.
	s2 := newServer(t, func(c *Config) { c.Addr = taken.Addr().String() })
	defer s2.Close()
	if err := s2.Open(t.Context()); err == nil {
		t.Errorf("a taken port without tries opened")
	}
}

// A session's second block, asked through the socket a moment after its
// first (before the batched uses would be written), leaves out what the
// first showed, as a process that writes its uses at once does; another
// session is shown it.
func TestServerBlocksOfASessionDoNotRepeatWhatItWasJustShown(t *testing.T) {
	t.Parallel()
	s := openServer(t, func(c *Config) { c.Uses.FlushWait, c.Uses.MaxAge = time.Hour, 2*time.Hour })
	p := s.project(t)
	ask := func(session string) string {
		a, err := p.Context(t.Context(), cairn.ContextCall{ContextRequest: cairn.ContextRequest{Project: "p", Profile: cairn.ProfilePrompt,
			Prompt: "why is the auth test flaky with the fake clock?", Session: session}, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		return a.Text
	}
	if first := ask("s1"); !strings.Contains(first, "fake clock") {
		t.Fatalf("first block: %q", first)
	}
	if again := ask("s1"); strings.Contains(again, "fake clock") {
		t.Errorf("the session was shown the memory twice:\n%s", again)
	}
	if other := ask("s2"); !strings.Contains(other, "fake clock") {
		t.Errorf("another session's block: %q", other)
	}
	// A lookup before a command: the same.
	look := func(session string) string {
		a, err := p.Lookup(t.Context(), cairn.LookupRequest{Project: "p", Profile: cairn.ProfileCommand, Command: "go test ./auth -run TestFlaky",
			Session: session, ShownTimes: 1, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		return a.Text
	}
	addMemory(t, s.eng, &cairn.Memory{Project: "p", Type: "fix", Title: "go test ./auth fails on a stale test cache",
		Content: "`go test ./auth` failed on a stale cache until it ran as `go test -count=1 ./auth`."})
	first := look("s3")
	if !strings.Contains(first, "count=1") {
		t.Fatalf("first lookup: %q", first)
	}
	if again := look("s3"); strings.Contains(again, "count=1") {
		t.Errorf("the lookup repeated itself in one session:\n%s", again)
	}
}

// The hook route answers on the server's Unix socket too, as the command
// hooks of the machine use it: the same block as over HTTP, at the clock
// a Cairn-Now header gives (a malformed one is refused, 400).
func TestHookRouteOnTheSocket(t *testing.T) {
	t.Parallel()
	s := openServer(t, func(c *Config) {
		c.Addr = "127.0.0.1:0"
		c.HookDatabase = func(dir, db, file string) (string, error) { return cmp.Or(db, c.Path), nil }
	})
	prompt := func(session string) []byte {
		b, _ := json.Marshal(map[string]any{"session_id": session, "cwd": filepath.Join(t.TempDir(), "p"),
			"hook_event_name": "UserPromptSubmit", "prompt": "why is the auth test flaky with the fake clock?"})
		return b
	}
	post := func(session string, header [][2]string) (int, string) {
		t.Helper()
		status, body, err := client.PostHook(s.Socket(), "/hooks/claude/UserPromptSubmit", header, prompt(session), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return status, string(body)
	}
	status, sock := post("s-sock", nil)
	_, overHTTP, _ := postHook(t, s.Addr(), "UserPromptSubmit", string(prompt("s-http")), nil)
	if status != http.StatusOK || !strings.Contains(sock, "fake clock") || !strings.Contains(sock, "just now") ||
		strings.ReplaceAll(sock, "s-sock", "") != strings.ReplaceAll(overHTTP, "s-http", "") {
		t.Errorf("on the socket: %d %q; over HTTP: %q", status, sock, overHTTP)
	}
	later := wire.FormatTime(time.Now().AddDate(0, 0, 45))
	if status, body := post("s-later", [][2]string{{wire.NowHeader, later}}); status != http.StatusOK || strings.Contains(body, "just now") {
		t.Errorf("at %s: %d %q, want the block of that day", later, status, body)
	}
	if status, body := post("s-bad", [][2]string{{wire.NowHeader, "yesterday"}}); status != http.StatusBadRequest || !strings.Contains(body, wire.NowHeader) {
		t.Errorf("a malformed clock: %d %q, want 400", status, body)
	}
	// The log names a call refused on the socket as the command hook's
	// own lines do, not as an http hook's.
	if status, _ := post("s-odb", [][2]string{{HookDatabaseHeader, "CAIRN_DB=/elsewhere/cairn.db"}}); status != http.StatusConflict {
		t.Errorf("another database on the socket: %d, want 409", status)
	}
	if log := s.log.String(); !strings.Contains(log, "hook claude user-prompt-submit session s-odb: this server answers") || strings.Contains(log, "http hook claude user-prompt-submit session s-odb") {
		t.Errorf("the socket's refusal is not logged as a command hook's:\n%s", log)
	}
	// Codex's command hooks have their route on the socket, not over HTTP
	// (Codex has no http hooks); no other agent's.
	for _, tc := range []struct {
		path   string
		status int
	}{{"/hooks/codex/UserPromptSubmit", http.StatusOK}, {"/hooks/cursor/UserPromptSubmit", http.StatusNotFound}} {
		status, body, err := client.PostHook(s.Socket(), tc.path, nil, prompt("s"+tc.path), 10*time.Second)
		if err != nil || status != tc.status || (tc.status == http.StatusOK && !strings.Contains(string(body), "fake clock")) {
			t.Errorf("%s on the socket: %d %q %v, want %d", tc.path, status, body, err, tc.status)
		}
	}
	resp, err := http.Post("http://"+s.Addr()+"/hooks/codex/UserPromptSubmit", "application/json", strings.NewReader(string(prompt("s-codex-http"))))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("Codex's route over HTTP: %s, want 404", resp.Status)
	}
}
