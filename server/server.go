package main

// `cairn serve`'s Unix socket: the server keeps the database open and
// answers the REST API (package httpapi) on a socket next to the database
// file, where the CLI of other processes finds it (service.go): their
// search, context and hooks are answered here in a millisecond instead of
// opening the database themselves. The socket also answers
// GET /serve/status and POST /serve/stop (`cairn serve status|stop`).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/engine"
)

// socketPath is where the server for a database listens; "" when the path
// would be too long for a Unix socket.
func socketPath(db string) string {
	p := db + ".sock"
	if len(p) > 100 {
		return ""
	}
	return p
}

// The requests about the server itself (serve status and serve stop).
const (
	opStatus = "status"
	opStop   = "stop"
)

// runServe is `cairn serve`: it opens the database itself (it is the
// server that the other commands' clients reach) and answers on the
// socket next to it, and over HTTP when asked.
func runServe(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "serve", "[flags]")
	cacheMB := fs.Int64("cache-mb", 64, "keep up to this many `MiB` of the search index in memory")
	httpOpts := registerHTTPFlags(fs)
	idle := fs.Duration("idle", 0, "exit after this `duration` (such as 30m) without a request (0: run until stopped)")
	asJSON := fs.Bool("json", false, "status, stop: print the server's status as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		switch pos[0] {
		case "status", "stop":
			if len(pos) > 1 {
				return usagef("serve %s: unexpected argument %q", pos[0], pos[1])
			}
			return serveControl(ctx, m, g, pos[0], *asJSON)
		}
		return usagef("serve: unknown argument %q (serve takes flags only, or status or stop)", pos[0])
	}
	if *idle < 0 {
		return usagef("serve: --idle cannot be negative")
	}
	s, err := m.open(ctx, g, false)
	if err != nil {
		return err
	}
	defer s.Close()
	opts := &engine.Options{Redact: redactSecrets, CacheBytes: *cacheMB << 20, Policies: s.eng.Policies()}
	if cfg, err := m.loadConfig(); err == nil {
		if err := vectorOptions(m, g, cfg.Config, opts); err != nil {
			return err
		}
	}
	s.eng = engine.New(s.store, opts)
	db, err := filepath.Abs(g.path())
	if err != nil {
		return err
	}
	sock := socketPath(db)
	if sock == "" {
		return fmt.Errorf("the database path %s is too long for a Unix socket; use a shorter --db", db)
	}
	if c, err := net.DialTimeout("unix", sock, 200*time.Millisecond); err == nil {
		c.Close()
		return errAlreadyServing(db)
	}
	// One server per database, even when two start at the same moment (two
	// hooks starting one each): the second cannot take the lock.
	unlock, err := lockServe(db)
	if err != nil {
		return err
	}
	defer unlock()
	// Load before listening: clients find the socket only once the server
	// answers at full speed.
	if n, err := s.eng.Warm(ctx, g.project); err == nil && n > 0 {
		fmt.Fprintf(m.Stderr, "cairn: loaded the postings of %d frequent terms of project %s\n", n, g.project)
	}
	if n, err := s.eng.WarmVectors(ctx, g.project); err == nil && n > 0 {
		fmt.Fprintf(m.Stderr, "cairn: loaded %d vectors of project %s\n", n, g.project)
		debug.FreeOSMemory() // the stored vectors, read once to fill the index
	}
	if m.SetMemoryLimit != nil {
		defer limitMemory(ctx, m.Getenv, s.eng.ResidentBytes, m.SetMemoryLimit)()
	}
	// A socket file left by a server that died (SIGKILL, a crash): nobody
	// answers on it, and the lock says no server is starting either.
	os.Remove(sock)
	// The socket is created private (0600): memories are the user's alone.
	old := syscall.Umask(0o077)
	ln, err := net.Listen("unix", sock)
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", sock, err)
	}
	defer os.Remove(sock)
	fmt.Fprintf(m.Stderr, "cairn: serving %s (search, context and hooks of other cairn processes are answered here; stop with Ctrl-C)\n", db)
	// Use records are written in batches by one goroutine (uses.go).
	s.uses = newUseQueue(s.eng, m.Stderr)
	m.configs = &configCache{}
	defer s.uses.Close()
	httpAddr, stopHTTP, err := startHTTP(ctx, m, g, s, httpOpts) // MCP at /mcp, sharing s
	if err != nil {
		ln.Close()
		return err
	}
	defer stopHTTP()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	maintainInBackground(ctx, m, s.eng, g.project, m.Stderr)
	mirrorInBackground(ctx, m, g, s.eng, m.Stderr)
	if s.eng.Vectors() {
		go s.eng.FillVectorsEvery(ctx, vectorFillEvery, func(rep engine.FillReport, err error) {
			logVectorFill(m.Stderr, rep, err)
		})
	}
	srv := &resident{main: m, sess: s, db: db, stop: stop, status: serveStatus{
		PID: os.Getpid(), Database: db, Socket: sock, Project: g.project, Started: time.Now()}}
	if httpAddr != "" {
		srv.status.MCP = "http://" + httpAddr + "/mcp"
	}
	if g.remote() {
		srv.remote, srv.url = true, g.db
		srv.status.Database = g.label()
	} else if fi, err := os.Stat(db); err == nil {
		srv.file = fi
	}
	if *idle > 0 {
		go srv.exitWhenIdle(ctx, *idle, stop, m.Stderr)
	}
	hs := &http.Server{Handler: srv.handler(newAPI(m, s, g.project, false)),
		ReadHeaderTimeout: defaultHTTPLimits.header, IdleTimeout: defaultHTTPLimits.idle}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	// Requests in flight finish; the use records they made are written
	// when s.uses closes.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if hs.Shutdown(sctx) != nil {
		hs.Close()
	}
	return nil
}

// exitWhenIdle stops the server (stop) once it has answered no request
// for idle; a request in progress is waited for by the accept loop.
func (r *resident) exitWhenIdle(ctx context.Context, idle time.Duration, stop func(), errw io.Writer) {
	r.sess.touch()
	tick := time.NewTicker(min(max(idle/4, 10*time.Millisecond), time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if time.Since(time.Unix(0, r.sess.lastRequest.Load())) >= idle {
				fmt.Fprintf(errw, "cairn: no request for %v; stopping\n", idle)
				stop()
				return
			}
		}
	}
}

// lockServe takes the lock of the server of db (a file next to it), or
// says that another server holds it. The lock goes with the process.
func lockServe(db string) (unlock func(), err error) {
	f, err := os.OpenFile(db+".serve.lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot lock the server of %s: %w", db, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errAlreadyServing(db)
		}
		return nil, fmt.Errorf("cannot lock the server of %s: %w", db, err)
	}
	// The holder's pid, for `cairn serve status` and `stop` when the
	// server does not answer on its socket.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// errAlreadyServing says that a server runs for db, and how to find it.
func errAlreadyServing(db string) error {
	return cairn.Errorf(cairn.ECONFLICT, "another cairn serve is already answering for %s; `cairn serve status` shows it and `cairn serve stop` stops it", db)
}

// serveLockHolder reports whether a server holds the lock of db (it runs,
// or is starting), and its pid when the lock file names one.
func serveLockHolder(db string) (held bool, pid int) {
	f, err := os.Open(db + ".serve.lock")
	if err != nil {
		return false, 0
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false, 0
	}
	b, _ := io.ReadAll(io.LimitReader(f, 32))
	pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	return true, pid
}

// resident answers forwarded commands with its open store.
type resident struct {
	main   *Main
	sess   *session
	db     string
	file   os.FileInfo // the database file the server opened
	remote bool        // a PostgreSQL database: no file to watch
	url    string      // its URL
	stop   func()      // stops the server
	status serveStatus
}

// sameFile reports whether the database path still names the file the
// server opened.
func (r *resident) sameFile() bool {
	if r.remote {
		return true
	}
	fi, err := os.Stat(r.db)
	return err == nil && (r.file == nil || os.SameFile(fi, r.file))
}

// handler answers the socket: the REST API, and the server's status
// and stop. A request that comes after the database file was replaced or
// removed is answered 503 (the client then opens the new file itself) and
// stops the server: answering from the old file, or opening a new empty
// one, would be wrong.
func (r *resident) handler(api http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/", bodyDeadline(api, defaultHTTPLimits.body))
	mux.HandleFunc("GET /serve/status", func(w http.ResponseWriter, _ *http.Request) {
		writeHTTPJSON(w, r.currentStatus())
	})
	mux.HandleFunc("POST /serve/stop", func(w http.ResponseWriter, _ *http.Request) {
		writeHTTPJSON(w, r.currentStatus())
		fmt.Fprintf(r.main.Stderr, "cairn: asked to stop by `cairn serve stop`; stopping\n")
		r.stop()
	})
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.sess.touch()
		if !r.sameFile() {
			fmt.Fprintf(r.main.Stderr, "cairn: %s was removed or replaced; stopping\n", r.db)
			r.stop()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": cairn.EUNAVAILABLE,
				"message": "the database file of this server was removed or replaced; the server is stopping"}})
			return
		}
		mux.ServeHTTP(w, req)
	})
}

func (r *resident) currentStatus() serveStatus {
	st := r.status
	st.Uptime = time.Since(st.Started).Round(time.Second).String()
	return st
}

func writeHTTPJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// defaultServeIdle is how long a server started by a hook waits for
// requests before it exits (CAIRN_SERVE_IDLE overrides it).
const defaultServeIdle = "30m"

// startServerProcess starts `cairn serve` for db in the background, in a
// session of its own (it outlives the hook that started it and ignores the
// terminal), answering over the Unix socket only and exiting after
// CAIRN_SERVE_IDLE (default 30 minutes) without a request. Its messages go
// to cairn.log next to the database. A second server for the same database
// exits at once.
func startServerProcess(db, project string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	idle := os.Getenv("CAIRN_SERVE_IDLE")
	if idle == "" {
		idle = defaultServeIdle
	}
	if _, err := time.ParseDuration(idle); err != nil {
		return fmt.Errorf("CAIRN_SERVE_IDLE=%q is not a duration such as 30m", idle)
	}
	logf, err := os.OpenFile(filepath.Join(filepath.Dir(db), logFileName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "--db", db, "--project", project, "serve", "--addr", "off", "--idle", idle)
	cmd.Dir = filepath.Dir(db)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// ensureServer starts a server for the session's database when none
// answers, for the commands to come; CAIRN_NO_SERVER=1 turns it off.
func (m *Main) ensureServer(g *globals) error {
	if m.StartServer == nil || m.configs != nil || m.Getenv("CAIRN_NO_SERVER") != "" {
		return nil
	}
	db, err := filepath.Abs(g.path())
	if err != nil {
		return nil
	}
	sock := socketPath(db)
	if sock == "" {
		return nil
	}
	if _, err := os.Stat(db); err != nil && !g.remote() {
		return nil // nothing remembered yet
	}
	if client.Answers(sock, serverTimeout) {
		return nil // running
	}
	if held, _ := serveLockHolder(db); held {
		return nil // starting (or hung: its lock goes when it does)
	}
	// No server, or only the socket file of one that died: the new one
	// removes that once it holds the lock.
	return m.StartServer(db, g.project)
}
