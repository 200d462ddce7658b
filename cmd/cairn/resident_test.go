package main

// cairn serve and its clients. Bad inputs tried: a stale socket file left by
// a dead server, a second server for the same database, a request for
// another database, writes by other processes while the server caches.

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/server"
)

// startServe runs `cairn serve` in process until the test ends and waits
// for its socket.
func startServe(t *testing.T) (*cli, context.CancelFunc) {
	t.Helper()
	c := newServeCLI(t)
	return c, startServeIn(t, c, t.TempDir()) // the server runs elsewhere than its clients
}

// startServeIn runs `cairn serve` for c's database in the folder wd until
// the test ends, and waits for its socket.
func startServeIn(t *testing.T, c *cli, wd string) context.CancelFunc {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stop := serveInProcess(t, ctx, c, wd, nil)
	t.Cleanup(func() {
		cancel()
		stop()
		if _, err := os.Stat(server.SocketPath(c.db)); err == nil {
			t.Errorf("cairn serve left its socket behind")
		}
	})
	return cancel
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
	return runServeUntil(t, parent, c, wd, "off", configure, func() bool {
		// The socket's file exists from its bind, before the server
		// listens: a connection made then is refused.
		sock := server.SocketPath(c.db)
		fi, err := os.Stat(sock)
		return err == nil && fi.Mode()&os.ModeSocket != 0 && client.Answers(sock, time.Second)
	})
}

// runServeUntil runs `cairn serve --addr addr` for c's database in process,
// in the folder wd, with configure (when not nil) applied to its Main,
// until parent ends or stop is called, and waits up to 10 s for ready to
// hold. stop ends it, waits for it to exit and reports a failed exit.
func runServeUntil(t *testing.T, parent context.Context, c *cli, wd, addr string, configure func(*Main), ready func() bool) (stop func()) {
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
		code := m.Run(ctx, []string{"--db", c.db, "--project", c.project, "serve", "--addr", addr})
		done <- result{code: code, stdout: out.String(), stderr: errb.String()}
	}()
	for deadline := time.Now().Add(10 * time.Second); !ready(); time.Sleep(10 * time.Millisecond) {
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
		if _, err := os.Stat(server.SocketPath(c.db)); err != nil {
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
	if err := os.WriteFile(server.SocketPath(c.db), nil, 0o600); err != nil {
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
	// The server records use after answering, and applies it to the
	// memory's use count within its use writer's FoldWait: wait for it.
	deadline := time.Now().Add(20 * time.Second)
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

// A command run in the project's folder writes the project's settings to
// the database when its files change; the server, started in another
// folder, builds with them.
func TestServeUsesTheSettingsOfTheClientsFolder(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	c.wd = filepath.Join(c.dir, c.project) // the project's own folder
	os.MkdirAll(filepath.Join(c.wd, ".git"), 0o755)
	os.MkdirAll(filepath.Join(c.wd, ".cairn"), 0o755)
	if err := os.WriteFile(filepath.Join(c.wd, ".cairn", "cairn.toml"), []byte("[context]\nbudget = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.ok("context", "--prompt", "flaky clock", "--dry-run", "--explain")
	if !strings.Contains(r.stdout, "budget: 7 tokens") {
		t.Fatalf("the server did not build with the project's settings: %v", r)
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

// serve --idle reaches the server: one that gets no request stops by
// itself and leaves nothing behind. (How requests put it off, by the
// server's clock, is package server's test.)
func TestServeIdleExitsWithoutRequests(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c := newCLI(t)
	c.db = filepath.Join(dir, "c.db")
	c.ok("add", "--type", "pitfall", "The flaky auth test shares one fake clock.")
	var out, errb strings.Builder
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return dir, nil }}
	code := m.Run(t.Context(), []string{"--db", c.db, "--project", c.project, "serve", "--addr", "off", "--idle", "50ms"})
	if code != 0 || !strings.Contains(errb.String(), "no request for 50ms; stopping") {
		t.Fatalf("idle exit: %d %s", code, errb.String())
	}
	if _, err := os.Stat(server.SocketPath(c.db)); err == nil {
		t.Error("the idle server left its socket behind")
	}
	if r := c.run("", "serve", "--idle", "-1s"); r.code != exitUsage || !strings.Contains(r.stderr, "--idle cannot be negative") {
		t.Errorf("a negative --idle: %v", r)
	}
}

// openSession opens c's database in process, as a long-running command
// does, until the test ends.
func (c *cli) openSession() (*Main, *session) {
	c.t.Helper()
	m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.dir, nil }}
	s, err := m.open(c.t.Context(), &globals{db: c.db, project: c.project}, false)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { s.Close() })
	return m, s
}
