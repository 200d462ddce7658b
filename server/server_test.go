package server

// The server in process, over a real SQLite database, its socket and the
// client other cairn processes use. Bad inputs tried: a second server for
// the same database (started one after the other, and at the same
// moment), a database file replaced under a running server, a socket
// file left by a dead server, a path too long for a socket next to it, a
// socket that cannot be made, a socket folder that is not private, an
// HTTP address that is taken, not host:port or not loopback.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/sqlite"
)

// shortDir is a folder short enough for a Unix socket path, removed when
// the test ends.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// openEngine opens the database file db, closed when the test ends.
func openEngine(t *testing.T, db string) *engine.Engine {
	t.Helper()
	st, err := sqlite.Open(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return engine.New(st, nil)
}

func addMemory(t *testing.T, e *engine.Engine, m *cairn.Memory) *cairn.Memory {
	t.Helper()
	res, err := e.AddMemory(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	return res.Memory
}

// syncBuffer is a log written by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is a server of a fresh database holding one memory of
// project p.
type testServer struct {
	*Server
	db  string
	eng *engine.Engine
	log *syncBuffer
	mem *cairn.Memory
}

// newServer makes (but does not open) a server of a fresh database;
// configure, when set, changes its config.
func newServer(t *testing.T, configure func(*Config)) *testServer {
	t.Helper()
	db := filepath.Join(shortDir(t), "c.db")
	eng := openEngine(t, db)
	mem := addMemory(t, eng, &cairn.Memory{Project: "p", Type: "pitfall", Content: "The flaky auth test shares one fake clock."})
	log := &syncBuffer{}
	cfg := Config{Engine: eng, Project: "p", Database: db, File: db, Path: db, Log: log}
	if configure != nil {
		configure(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &testServer{Server: s, db: db, eng: eng, log: log, mem: mem}
}

// openServer is newServer, opened until the test ends.
func openServer(t *testing.T, configure func(*Config)) *testServer {
	t.Helper()
	s := newServer(t, configure)
	if err := s.Open(t.Context()); err != nil {
		s.Close()
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// project is the client of project p over the server's socket, as the
// CLI of another process makes it.
func (s *testServer) project(t *testing.T) *client.Project {
	t.Helper()
	c, err := client.New("unix:"+s.Socket(), &client.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c.Project("p")
}

func TestServerAnswersOnItsSocketAndLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	// A socket file left by a server that died: nobody listens on it.
	if err := os.WriteFile(s.Socket(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Socket())
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("socket %v %v, want a private socket", fi, err)
	}
	hits, err := s.project(t).Search(t.Context(), cairn.Query{Text: "flaky clock"})
	if err != nil || len(hits) != 1 || hits[0].Memory.ID != s.mem.ID {
		t.Fatalf("search over the socket: %v %v", hits, err)
	}
	st, err := StatusOf(t.Context(), s.db, s.db)
	if err != nil || st.PID != os.Getpid() || st.Socket != s.Socket() || st.Project != "p" || st.MCP != "" {
		t.Fatalf("status: %+v %v", st, err)
	}
	if held, pid := LockHolder(s.db); !held || pid != os.Getpid() {
		t.Errorf("lock: held %v by %d", held, pid)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Socket()); !os.IsNotExist(err) {
		t.Errorf("the socket is still there: %v", err)
	}
	if held, _ := LockHolder(s.db); held {
		t.Error("the lock is still held")
	}
	if _, err := StatusOf(t.Context(), s.db, s.db); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("status of a stopped server: %v", err)
	}
	if pid, err := Stop(t.Context(), s.db, s.db); pid != 0 || err != nil {
		t.Errorf("stopping no server: %d %v", pid, err)
	}
	select {
	case <-s.Done():
	default:
		t.Error("Done is not closed after Close")
	}
}

// Two servers for one database: the lock lets only one run, even when
// both open at the same moment, before either listens.
func TestOnlyOneServerRunsForADatabase(t *testing.T) {
	t.Parallel()
	s := openServer(t, nil)
	second, err := New(Config{Engine: s.eng, Project: "p", Path: s.db})
	if err != nil {
		t.Fatal(err)
	}
	err = second.Open(t.Context())
	second.Close()
	if cairn.ErrorCode(err) != cairn.ECONFLICT || !strings.Contains(err.Error(), "already answering") {
		t.Fatalf("a second server: %v", err)
	}
	// The first still answers.
	if _, err := s.project(t).Search(t.Context(), cairn.Query{Text: "flaky"}); err != nil {
		t.Fatal(err)
	}

	db := filepath.Join(shortDir(t), "c.db")
	eng := openEngine(t, db)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	servers := make([]*Server, 4)
	for i := range servers {
		servers[i], err = New(Config{Engine: eng, Project: "p", Path: db})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = servers[i].Open(t.Context())
		}()
	}
	wg.Wait()
	opened := 0
	for i, err := range errs {
		switch {
		case err == nil:
			opened++
		case cairn.ErrorCode(err) != cairn.ECONFLICT:
			t.Errorf("server %d: %v", i, err)
		}
		servers[i].Close()
	}
	if opened != 1 {
		t.Errorf("%d of 4 servers opened at the same moment, want 1: %v", opened, errs)
	}
}

// A server whose database file was replaced (or removed) does not answer
// from the old file: it says it is unavailable, so that the client opens
// the new file itself, and stops.
func TestServerStopsWhenItsDatabaseIsReplaced(t *testing.T) {
	t.Parallel()
	s := openServer(t, nil)
	p := s.project(t)
	if _, err := p.Search(t.Context(), cairn.Query{Text: "flaky"}); err != nil {
		t.Fatal(err)
	}
	other := s.db + ".new"
	addMemory(t, openEngine(t, other), &cairn.Memory{Project: "p", Content: "The new database's flaky clock note."})
	if err := os.Rename(other, s.db); err != nil {
		t.Fatal(err)
	}
	_, err := p.Search(t.Context(), cairn.Query{Text: "flaky"})
	if !client.IsUnavailable(err) || !strings.Contains(err.Error(), "removed or replaced") {
		t.Fatalf("a search after the replacement: %v", err)
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
	if !strings.Contains(s.log.String(), "was removed or replaced; stopping") {
		t.Errorf("log %q", s.log.String())
	}
}

// A server started on demand (with an idle time) stops at an idle check
// once its program's file was replaced, as installing another cairn
// does, though it had requests; one without an idle time runs on.
func TestServerStartedOnDemandStopsWhenItsProgramIsReplaced(t *testing.T) {
	t.Parallel()
	program := filepath.Join(t.TempDir(), "cairn")
	if err := os.WriteFile(program, []byte("the first build"), 0o755); err != nil {
		t.Fatal(err)
	}
	var signals TestSignals
	signals.Init()
	s := openServer(t, func(c *Config) {
		c.Idle, c.IdleCheckEvery, c.Program, c.TestSignals = time.Hour, 5*time.Millisecond, program, signals
	})
	always := openServer(t, func(c *Config) { c.Program = program })
	p := s.project(t)
	for range 3 {
		if _, err := p.Search(t.Context(), cairn.Query{Text: "flaky"}); err != nil {
			t.Fatal(err)
		}
		if signals.IdleChecked.Wait(t) {
			t.Fatal("the server stopped while its program was the same")
		}
	}
	next := program + ".new"
	if err := os.WriteFile(next, []byte("the second build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, program); err != nil {
		t.Fatal(err)
	}
	for checks := 0; !signals.IdleChecked.Wait(t); checks++ {
		if checks == 1000 { // 5 s of checks
			t.Fatal("the server runs on after its program was replaced")
		}
	}
	<-s.Done()
	if !strings.Contains(s.log.String(), program+" was replaced or removed; stopping") {
		t.Errorf("log %q", s.log.String())
	}
	if _, err := always.project(t).Search(t.Context(), cairn.Query{Text: "flaky"}); err != nil {
		t.Errorf("a server without an idle time stopped: %v", err)
	}
}

// A server with an idle time stops once it has answered no request for
// that long, by its clock; each request puts that off.
func TestServerStopsAfterItsIdleTimeWithoutARequest(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	var signals TestSignals
	signals.Init()
	s := openServer(t, func(c *Config) {
		c.Idle, c.IdleCheckEvery, c.Now, c.TestSignals = time.Hour, 5*time.Millisecond, clock, signals
	})
	p := s.project(t)
	for range 3 {
		advance(50 * time.Minute)
		if _, err := p.Search(t.Context(), cairn.Query{Text: "flaky"}); err != nil {
			t.Fatal(err)
		}
		// A check after the request: not idle.
		for signals.IdleChecked.Wait(t) {
			t.Fatal("the server stopped while it had requests")
		}
	}
	advance(59 * time.Minute)
	if signals.IdleChecked.Wait(t) {
		t.Fatal("the server stopped before its idle time")
	}
	advance(2 * time.Minute)
	for !signals.IdleChecked.Wait(t) {
	}
	<-s.Done()
	if !strings.Contains(s.log.String(), "no request for 1h0m0s; stopping") {
		t.Errorf("log %q", s.log.String())
	}
	if st := s.Status(); st.Uptime != "3h31m0s" {
		t.Errorf("uptime %q by the server's clock, want 3h31m0s", st.Uptime)
	}
}

// `cairn serve stop` asks over the socket: the server answers its status
// and stops.
func TestServerStopsWhenAsked(t *testing.T) {
	t.Parallel()
	s := openServer(t, nil)
	st, err := ask(t.Context(), s.Socket(), "POST", "/serve/stop")
	if err != nil || st.PID != os.Getpid() {
		t.Fatalf("stop: %+v %v", st, err)
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
}

// The uses of what contexts showed are written in batches after the
// answer, and Close writes what is pending.
func TestServerRecordsTheUseOfWhatContextsShowed(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(c *Config) { c.Uses.FlushWait = time.Hour })
	if err := s.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	a, err := s.project(t).Context(t.Context(), cairn.ContextCall{ContextRequest: cairn.ContextRequest{Project: "p", Prompt: "flaky clock"}, Record: true})
	if err != nil || !strings.Contains(a.Text, s.mem.ID) {
		t.Fatalf("context: %+v %v", a, err)
	}
	if m, _ := s.eng.FindMemoryByID(t.Context(), s.mem.ID); m.UseCount != 0 {
		t.Fatalf("use count %d before the batch was written", m.UseCount)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.eng.FindMemoryByID(t.Context(), s.mem.ID); m.UseCount != 1 {
		t.Errorf("use count %d after Close, want 1", m.UseCount)
	}
}

// The lifecycle runs for every project of the database that is due, not
// only for the server's own.
func TestServerCleansUpEveryProjectWhenDue(t *testing.T) {
	t.Parallel()
	db := filepath.Join(shortDir(t), "c.db")
	st, err := sqlite.Open(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	then := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	past := engine.New(st, &engine.Options{Now: func() time.Time { return then }})
	var old []*cairn.Memory
	for _, p := range []string{"home", "other", "third"} {
		old = append(old, addMemory(t, past, &cairn.Memory{Project: p, Type: "session", Content: "Session in " + p + ": tried the new parser"}))
	}
	eng := engine.New(st, nil)
	kept := addMemory(t, eng, &cairn.Memory{Project: "other", Type: "decision", Content: "Chose SQLite for local storage."})
	log := &syncBuffer{}
	cfg := Config{Engine: eng, Project: "home", Path: db, File: db, Log: log}
	cfg.Maintain.FirstAfter = time.Millisecond
	cfg.Maintain.TestSignals.Init()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reps := cfg.Maintain.TestSignals.Ran.Wait(t)
	if len(reps) != 3 {
		t.Fatalf("%d projects cleaned up, want 3", len(reps))
	}
	for _, m := range old {
		if _, err := eng.FindMemoryByID(t.Context(), m.ID); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Errorf("the expired session of %s is still there: %v", m.Project, err)
		}
	}
	if _, err := eng.FindMemoryByID(t.Context(), kept.ID); err != nil {
		t.Errorf("a live memory was removed: %v", err)
	}
	for _, p := range []string{"home", "other", "third"} {
		if !strings.Contains(log.String(), "daily cleanup of project "+p+": 1 expired") {
			t.Errorf("the log does not say %s was cleaned up: %q", p, log.String())
		}
	}
}

// The server keeps the soft memory limit near what its engine holds and
// puts the one it found back when it stops; a limit the user set
// (GOMEMLIMIT) stands.
func TestServerSetsAMemoryLimitAndPutsTheOldOneBack(t *testing.T) {
	t.Parallel()
	const prior = 1 << 40
	rec := &limitRecorder{limit: prior}
	s := newServer(t, func(c *Config) { c.SetMemoryLimit = rec.SetMemoryLimit })
	if err := s.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	set := rec.sets()
	if len(set) == 0 || set[0] < memoryRoom || set[0] >= prior {
		t.Errorf("a running server set the limits %v, want one of at least %d (what its engine keeps + %d)", set, memoryRoom, memoryRoom)
	}
	s.Close()
	if rec.current() != prior {
		t.Errorf("after the server stopped the limit is %d, want the one before, %d", rec.current(), int64(prior))
	}

	user := &limitRecorder{limit: prior}
	limitMemory(true, func() int64 { return 1 << 20 }, user.SetMemoryLimit)()
	if len(user.sets()) != 0 || user.current() != prior {
		t.Errorf("with a limit of the user's, the server set the limits %v", user.sets())
	}
}

// limitRecorder stands for debug.SetMemoryLimit: it records the limits
// set and answers a negative one with the current limit.
type limitRecorder struct {
	mu    sync.Mutex
	limit int64
	set   []int64
}

func (r *limitRecorder) SetMemoryLimit(n int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.limit
	if n >= 0 {
		r.limit = n
		r.set = append(r.set, n)
	}
	return old
}

func (r *limitRecorder) sets() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.set...)
}

func (r *limitRecorder) current() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.limit
}

func TestNewRefusesWhatCannotBeServed(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, filepath.Join(t.TempDir(), "c.db"))
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Project: "p", Path: "/tmp/c.db"}, "engine"},
		{Config{Engine: eng, Project: "p"}, "path"},
		{Config{Engine: eng, Project: "", Path: "/tmp/c.db"}, "project"},
		{Config{Engine: eng, Project: "p", Path: "/tmp/c.db", Addr: "localhost"}, "host:port"},
		{Config{Engine: eng, Project: "p", Path: "/tmp/c.db", Addr: "0.0.0.0:0"}, "not a loopback address"},
		{Config{Engine: eng, Project: "p", Path: "/tmp/c.db", Addr: "192.0.2.1:7421"}, "not a loopback address"},
		{Config{Engine: eng, Project: "p", Path: "/tmp/c.db", Idle: -time.Second}, "negative"},
	} {
		if _, err := New(tc.cfg); cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want EINVALID mentioning %q", tc.cfg, err, tc.want)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:7421", "[::1]:0"} {
		if remote, err := CheckAddr(addr, false); remote || err != nil {
			t.Errorf("CheckAddr(%s) = %v, %v", addr, remote, err)
		}
	}
	if remote, err := CheckAddr("0.0.0.0:7421", true); !remote || err != nil {
		t.Errorf("CheckAddr(0.0.0.0:7421, allowed) = %v, %v", remote, err)
	}
}

// An address that is taken: an error when it was asked for, a line in
// the log when it is only the default; either way nothing is left behind.
func TestServerWithATakenAddress(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := newServer(t, func(c *Config) { c.Addr = ln.Addr().String() })
	err = s.Open(t.Context())
	s.Close()
	if cairn.ErrorCode(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "cannot listen on "+ln.Addr().String()) {
		t.Fatalf("an address asked for and taken: %v", err)
	}
	if _, err := os.Stat(s.Socket()); !os.IsNotExist(err) {
		t.Errorf("the socket was left behind: %v", err)
	}
	if held, _ := LockHolder(s.db); held {
		t.Error("the lock was left behind")
	}
	opt := openServer(t, func(c *Config) { c.Addr, c.AddrOptional = ln.Addr().String(), true })
	if opt.Addr() != "" || !strings.Contains(opt.log.String(), "not serving HTTP") {
		t.Errorf("the default address taken: Addr %q, log %q", opt.Addr(), opt.log.String())
	}
}

// A database whose path is too long for a socket next to it is served on
// a socket under a short hashed name in the user's private folder, which
// every process finds from the path alone.
func TestServerOfALongPathListensOnAHashedSocket(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), strings.Repeat("a-long-folder-name-", 6))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "c.db")
	eng := openEngine(t, db)
	mem := addMemory(t, eng, &cairn.Memory{Project: "p", Content: "The flaky auth test shares one fake clock."})
	s, err := New(Config{Engine: eng, Project: "p", Path: db, File: db})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(t.Context()); err != nil {
		s.Close()
		t.Fatal(err)
	}
	defer s.Close()
	sock := SocketPath(db)
	if s.Socket() != sock || filepath.Dir(sock) != SocketFolder() || len(sock) > maxSocketPath {
		t.Fatalf("socket %q (SocketPath %q), want a short one in %s", s.Socket(), sock, SocketFolder())
	}
	if fi, err := os.Stat(SocketFolder()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the socket folder: %v %v, want mode 0700", fi, err)
	}
	if !OwnSocket(sock) || !Answers(db, 5*time.Second) {
		t.Fatal("the socket does not answer")
	}
	c, err := client.New("unix:"+sock, &client.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := c.Project("p").Search(t.Context(), cairn.Query{Text: "flaky clock"})
	if err != nil || len(hits) != 1 || hits[0].Memory.ID != mem.ID {
		t.Fatalf("search over the hashed socket: %v %v", hits, err)
	}
	if st, err := StatusOf(t.Context(), db, db); err != nil || st.Socket != sock {
		t.Errorf("status: %+v %v", st, err)
	}
	if st, err := ask(t.Context(), sock, "POST", "/serve/stop"); err != nil || st.PID != os.Getpid() {
		t.Errorf("stop: %+v %v", st, err)
	}
	<-s.Done()
	s.Close()
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket is still there: %v", err)
	}
}

// The shared folder of hashed sockets must be the user's alone: one that
// others may enter, or a link, is refused.
func TestSocketFolderMustBePrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	private := filepath.Join(dir, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{open, link} {
		if err := checkPrivateFolder(d); cairn.ErrorCode(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "not a folder private to you") {
			t.Errorf("%s: %v, want a refusal", d, err)
		}
	}
	if err := checkPrivateFolder(private); err != nil {
		t.Errorf("a private folder: %v", err)
	}
	if err := checkPrivateFolder(filepath.Join(dir, "new")); err != nil {
		t.Errorf("a folder to create: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "new")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the folder created: %v %v", fi, err)
	}
	if OwnSocket(filepath.Join(dir, "open")) {
		t.Error("a folder taken for a socket")
	}
}

// A socket that cannot be made does not keep HTTP from being served; a
// server with nothing else to answer on fails to open.
func TestServerAnswersHTTPWhenItsSocketCannotBeMade(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:0", ""} {
		s := newServer(t, func(c *Config) { c.Addr = addr })
		// A folder where the socket goes: it cannot be replaced.
		if err := os.MkdirAll(filepath.Join(s.Socket(), "x"), 0o700); err != nil {
			t.Fatal(err)
		}
		err := s.Open(t.Context())
		if addr == "" {
			if cairn.ErrorCode(err) != cairn.EUNAVAILABLE {
				t.Errorf("without HTTP: %v, want EUNAVAILABLE", err)
			}
			s.Close()
			continue
		}
		if err != nil {
			t.Fatalf("with HTTP: %v", err)
		}
		resp, err := http.Get("http://" + s.Addr() + "/api/projects/p/stats")
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("HTTP without a socket: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
		if st := s.Status(); st.Socket != "" || !strings.Contains(s.log.String(), "answering over HTTP only") {
			t.Errorf("status %+v, log %q", st, s.log.String())
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if _, err := os.Stat(filepath.Join(s.Socket(), "x")); err != nil {
			t.Errorf("Close removed what was at the socket's path: %v", err)
		}
	}
}

// Ensure starts a server only when none answers and none is starting,
// and waits for the one it started to answer; a failure to start is its
// error.
func TestEnsureStartsAServerOnlyWhenNoneRunsOrStarts(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	starts := 0
	start := func() error {
		starts++
		go func() {
			time.Sleep(50 * time.Millisecond) // a process takes a while to answer
			if err := s.Open(context.Background()); err != nil {
				t.Errorf("Open: %v", err)
			}
		}()
		return nil
	}
	if err := Ensure(s.db, time.Second, 5*time.Second, start); err != nil || starts != 1 {
		t.Fatalf("no server: Ensure = %v after %d starts, want 1", err, starts)
	}
	t.Cleanup(func() { s.Close() })
	if !Answers(s.db, time.Second) {
		t.Fatal("Ensure returned before the server it started answered")
	}
	if err := Ensure(s.db, time.Second, time.Second, start); err != nil || starts != 1 {
		t.Errorf("a server answers: Ensure = %v after %d starts, want none more", err, starts)
	}

	other := filepath.Join(shortDir(t), "o.db")
	unlock, err := lock(other, other) // a server starting, not answering yet
	if err != nil {
		t.Fatal(err)
	}
	if err := Ensure(other, 100*time.Millisecond, 0, start); err != nil || starts != 1 {
		t.Errorf("a server starting: Ensure = %v after %d starts, want none more", err, starts)
	}
	unlock()
	failed := errors.New("cannot start")
	if err := Ensure(other, 100*time.Millisecond, 0, func() error { return failed }); err != failed {
		t.Errorf("a start that fails: Ensure = %v, want its error", err)
	}
}

// Without Config.Root, the server's own project's folder is Folder, and
// another project's the folder its settings were stored from, unless
// the server answers other machines (a folder one of them named).
func TestAProjectsFolderIsTheServersOwnOrWhereItsSettingsCameFrom(t *testing.T) {
	t.Parallel()
	for _, remote := range []bool{false, true} {
		s := newServer(t, func(c *Config) { c.Folder, c.testRemote = "/home/u/p", remote })
		if err := s.eng.SetProjectSettings(t.Context(), "q", &cairn.ProjectSettings{Settings: cairn.DefaultSettings(), Folder: "/home/u/q"}); err != nil {
			t.Fatal(err)
		}
		want := "/home/u/q"
		if remote {
			want = ""
		}
		if p, q, r := s.cfg.Root("p"), s.cfg.Root("q"), s.cfg.Root("r"); p != "/home/u/p" || q != want || r != "" {
			t.Errorf("remote %v: folders p %q, q %q, r %q; want /home/u/p, %q and none", remote, p, q, r, want)
		}
	}
}

// A server other machines reach does not start while no token exists:
// no request to it could be answered. Once one does, it starts.
func TestARemoteServerNeedsATokenToStart(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(c *Config) { c.Addr, c.AllowRemote = "0.0.0.0:0", true })
	if err := s.Open(t.Context()); !errors.Is(err, ErrNoToken) {
		t.Errorf("Open without a token: %v, want ErrNoToken", err)
	}
	s.Close()
	s = newServer(t, func(c *Config) { c.Addr, c.AllowRemote = "0.0.0.0:0", true })
	if _, _, err := s.eng.CreateToken(t.Context(), "p", "ci", false); err != nil {
		t.Fatal(err)
	}
	if err := s.Open(t.Context()); err != nil {
		t.Errorf("Open with a token: %v", err)
	}
	s.Close()
}
