package main

// cairn serve and its clients. Bad inputs tried: a stale socket file left by
// a dead server, a second server for the same database, a request for
// another database, writes by other processes while the server caches.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startServe runs `cairn serve` in process until the test ends and waits
// for its socket.
func startServe(t *testing.T) (*cli, context.CancelFunc) {
	t.Helper()
	c := newServeCLI(t)
	ctx, cancel := context.WithCancel(t.Context())
	stop := serveInProcess(t, ctx, c, t.TempDir(), nil) // the server runs elsewhere than its clients
	t.Cleanup(func() {
		cancel()
		stop()
		if _, err := os.Stat(c.db + ".sock"); err == nil {
			t.Errorf("cairn serve left its socket behind")
		}
	})
	return c, cancel
}

// newServeCLI is a CLI whose database, holding one memory, lives in a
// short path: Unix socket paths are limited to about 100 bytes.
func newServeCLI(t *testing.T) *cli {
	t.Helper()
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := newCLI(t)
	c.db = filepath.Join(dir, "c.db")
	c.ok("add", "--type", "pitfall", "The flaky auth test shares one fake clock.")
	return c
}

// serveInProcess runs `cairn serve` for c's database in process, in the
// folder wd, with configure (when not nil) applied to its Main, until
// parent ends or stop is called, and waits for its socket. stop ends it,
// waits for it to exit and reports a failed exit.
func serveInProcess(t *testing.T, parent context.Context, c *cli, wd string, configure func(*Main)) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(parent)
	done := make(chan result, 1)
	m := &Main{Stdin: strings.NewReader(""), Getenv: func(k string) string { return c.env[k] },
		Getwd: func() (string, error) { return wd, nil }}
	if configure != nil {
		configure(m)
	}
	go func() {
		var out, errb strings.Builder
		m.Stdout, m.Stderr = &out, &errb
		code := m.Run(ctx, []string{"--db", c.db, "--project", c.project, "serve", "--addr", "off"})
		done <- result{code: code, stdout: out.String(), stderr: errb.String()}
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(c.db + ".sock"); err == nil && fi.Mode()&os.ModeSocket != 0 {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("cairn serve did not listen: %v", <-done)
		}
	}
	return func() {
		cancel()
		if r := <-done; r.code != 0 {
			t.Errorf("cairn serve exited %d: %s", r.code, r.stderr)
		}
	}
}

func TestServeAnswersSearchesOfOtherProcessesWithTheSameOutput(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	viaServer := c.ok("search", "flaky clock", "--json")
	c.env["CAIRN_NO_SERVER"] = "1"
	local := c.ok("search", "flaky clock", "--json")
	delete(c.env, "CAIRN_NO_SERVER")
	if viaServer.stdout != local.stdout || !strings.Contains(local.stdout, "fake clock") {
		t.Fatalf("server and local answers differ:\n%s\n---\n%s", viaServer.stdout, local.stdout)
	}
	if !viaServer.served || local.served {
		t.Fatalf("served: %v with a server, %v with CAIRN_NO_SERVER=1", viaServer.served, local.served)
	}
}

// A server whose database file was replaced (or removed) does not answer
// from the old file: the client runs the command on the new one, and the
// server stops.
func TestServeStopsWhenItsDatabaseIsReplaced(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	if r := c.ok("search", "flaky clock"); !r.served || !strings.Contains(r.stdout, "fake clock") {
		t.Fatalf("before: %v", r)
	}
	// Another database takes the path.
	other := newCLI(t)
	other.db = c.db + ".new"
	other.project = c.project
	other.ok("add", "--type", "pitfall", "The new database's flaky clock note.")
	if err := os.Rename(other.db, c.db); err != nil {
		t.Fatal(err)
	}
	r := c.ok("search", "flaky clock")
	if r.served || !strings.Contains(r.stdout, "new database") || strings.Contains(r.stdout, "shares one fake clock") {
		t.Fatalf("after the replacement: %v", r)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(c.db + ".sock"); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not stop")
		}
	}
}

func TestServeSeesWritesMadeAfterItCached(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	c.ok("search", "flaky clock") // the server caches these terms' postings
	c.ok("add", "--type", "fix", "Give each flaky subtest its own clock.")
	r := c.ok("search", "flaky clock", "--json")
	if !strings.Contains(r.stdout, "its own clock") {
		t.Fatalf("the server answered from a stale cache: %v", r)
	}
}

func TestServeRefusesASecondServerForTheSameDatabase(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	r := c.run("", "serve")
	if r.code != 1 || !strings.Contains(r.stderr, "already") {
		t.Fatalf("a second server for the same database: %v", r)
	}
}

func TestSearchFallsBackWhenTheSocketIsStale(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := newCLI(t)
	c.db = filepath.Join(dir, "c.db")
	c.ok("add", "The flaky auth test shares one fake clock.")
	// A plain file where the socket would be: nothing listens.
	if err := os.WriteFile(c.db+".sock", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.ok("search", "flaky")
	if !strings.Contains(r.stdout, "fake clock") {
		t.Fatalf("search with a stale socket: %v", r)
	}
}

func TestServeRecordsTheUseOfWhatContextShowed(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	ids := c.searchIDs("flaky clock")
	if len(ids) != 1 {
		t.Fatalf("search found %v", ids)
	}
	// A preview (no session) records nothing.
	if r := c.ok("context", "--prompt", "flaky clock"); !strings.Contains(r.stdout, ids[0]) {
		t.Fatalf("context via the server lacks %s: %v", ids[0], r)
	}
	r := c.ok("context", "--prompt", "flaky clock", "--session", "s-1")
	if !strings.Contains(r.stdout, ids[0]) {
		t.Fatalf("context via the server lacks %s: %v", ids[0], r)
	}
	// The server records use after answering: wait for it.
	deadline := time.Now().Add(5 * time.Second)
	for c.show(ids[0])["use_count"].(float64) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("use was never recorded: %v", c.show(ids[0]))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeContextSeesNewStaticMemories(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	c.ok("context", "--prompt", "flaky clock", "--dry-run") // the server caches the static tier
	id := c.add("--type", "decision", "Clocks are injected, never read from time.Now.")
	r := c.ok("context", "--prompt", "flaky clock", "--dry-run")
	if !strings.Contains(r.stdout, id) {
		t.Fatalf("the server's context lacks a decision added after it cached: %v", r)
	}
}

func TestServeUsesTheClientsConfiguration(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	// The client's project configuration asks for json.
	os.MkdirAll(filepath.Join(c.wd, ".git"), 0o755)
	os.MkdirAll(filepath.Join(c.wd, ".cairn"), 0o755)
	if err := os.WriteFile(filepath.Join(c.wd, ".cairn", "cairn.toml"), []byte("[context]\nbudget = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.ok("context", "--prompt", "flaky clock", "--dry-run", "--explain")
	if !strings.Contains(r.stdout, "budget: 7 tokens") {
		t.Fatalf("the server did not read the client's configuration: %v", r)
	}
	// The server keeps what it read, but a changed file is read again, and
	// so is the user's file that appears later.
	if err := os.WriteFile(filepath.Join(c.wd, ".cairn", "cairn.toml"), []byte("[context]\nbudget = 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := c.ok("context", "--prompt", "flaky clock", "--dry-run", "--explain"); !strings.Contains(r.stdout, "budget: 9 tokens") {
		t.Fatalf("the server did not see the changed project file: %v", r)
	}
	os.Remove(filepath.Join(c.wd, ".cairn", "cairn.toml"))
	xdg := filepath.Join(c.dir, "xdg")
	c.env["XDG_CONFIG_HOME"] = xdg
	writeConfigFile(t, filepath.Join(xdg, "cairn", "cairn.toml"), "[context]\nbudget = 11\n")
	if r := c.ok("context", "--prompt", "flaky clock", "--dry-run", "--explain"); !strings.Contains(r.stdout, "budget: 11 tokens") {
		t.Fatalf("the server did not read the user's file: %v", r)
	}
}

// cairn context reads the user's file where `cairn config` says it is
// ($XDG_CONFIG_HOME/cairn/cairn.toml), not a folder below it.
func TestContextReadsTheUsersConfigurationFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("add", "--type", "pitfall", "The flaky auth test shares one fake clock.")
	xdg := filepath.Join(c.dir, "xdg")
	c.env["XDG_CONFIG_HOME"] = xdg
	writeConfigFile(t, filepath.Join(xdg, "cairn", "cairn.toml"), "[context]\nbudget = 13\n")
	if r := c.ok("context", "--prompt", "flaky clock", "--dry-run", "--explain"); !strings.Contains(r.stdout, "budget: 13 tokens") {
		t.Fatalf("context did not read the user's file: %v", r)
	}
}

// Only the hook events that inject context go to a server; capture events
// run in the hook's own process.
func TestServeIdleExitsAfterTheLastRequest(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c := newCLI(t)
	c.db = filepath.Join(dir, "c.db")
	c.ok("add", "--type", "pitfall", "The flaky auth test shares one fake clock.")
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		var out, errb strings.Builder
		m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return dir, nil }}
		code := m.Run(t.Context(), []string{"--db", c.db, "--project", c.project, "serve", "--addr", "off", "--idle", "700ms"})
		done <- result{code: code, stdout: out.String(), stderr: errb.String()}
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(c.db + ".sock"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("cairn serve did not listen")
		}
	}
	// Requests every 300 ms for 1.5 s keep it up past its idle time.
	for range 5 {
		time.Sleep(300 * time.Millisecond)
		if r := c.ok("search", "flaky clock"); !strings.Contains(r.stdout, "fake clock") {
			t.Fatalf("search: %v", r)
		}
	}
	select {
	case r := <-done:
		t.Fatalf("the server stopped while it had requests, after %v: %v", time.Since(start), r)
	default:
	}
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.stderr, "no request for 700ms") {
			t.Errorf("idle exit: %v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the idle server did not stop")
	}
	if _, err := os.Stat(c.db + ".sock"); err == nil {
		t.Error("the idle server left its socket behind")
	}
}

// Two servers for one database: the lock lets only one run, even when
// both start before either listens.
func TestServeLockAllowsOneServerPerDatabase(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "c.db")
	unlock, err := lockServe(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockServe(db); err == nil || !strings.Contains(err.Error(), "already answering") {
		t.Errorf("second lock: %v", err)
	}
	unlock()
	again, err := lockServe(db)
	if err != nil {
		t.Errorf("the lock was not released: %v", err)
	} else {
		again()
	}
}
