package main

// A resident store: `cairn serve` keeps the database open, and other cairn
// processes on the machine hand it their read commands (search, context)
// over a Unix socket next to the database file instead of opening the
// database themselves. The forwarded command runs through the same code
// as a local one, so its output is the same; any failure to reach the
// server means the command runs locally, as if no server were there.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/hook"
)

// exitError carries the exit status of a forwarded command.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// forwarded are the commands a resident server answers: reads that must
// be fast, and Claude Code's hooks, whose prompt hook must be as fast.
var forwarded = map[string]bool{"search": true, "context": true, "hook": true}

// forwardsStdin are the forwarded commands that read standard input: the
// client sends it along, up to maxForwardedStdin bytes (more runs locally).
var forwardsStdin = map[string]bool{"hook": true}

// maxForwardedStdin bounds the standard input a client forwards.
const maxForwardedStdin = 1 << 20

// socketPath is where the server for a database listens; "" when the path
// would be too long for a Unix socket.
func socketPath(db string) string {
	p := db + ".sock"
	if len(p) > 100 {
		return ""
	}
	return p
}

// forwardTimeout bounds a forwarded command: a server that does not answer
// in time (hung, or stopped in a debugger) must not stall an agent's
// prompt; the command then runs locally.
const forwardTimeout = 3 * time.Second

// notMine is the answer of a server asked about another database (or a
// command it does not run): the client then runs the command itself.
const notMine = -1

type rpcRequest struct {
	Args []string `json:"args"`
	// The client's working directory and the environment variables that
	// locate its configuration: a forwarded command reads the client's
	// project and user configuration, not the server's.
	Wd  string            `json:"wd"`
	Env map[string]string `json:"env"`
	// Stdin is the client's standard input, for the commands that read it
	// (forwardsStdin).
	Stdin []byte `json:"stdin,omitempty"`
	// Op, when set, asks the server itself instead of running a command:
	// opStatus for what it is, opStop to shut down.
	Op string `json:"op,omitempty"`
}

// The requests about the server itself (rpcRequest.Op).
const (
	opStatus = "status"
	opStop   = "stop"
)

// forwardedEnv are the variables a forwarded command may read.
var forwardedEnv = []string{"XDG_CONFIG_HOME", "HOME", "CAIRN_PROJECT"}

type rpcResponse struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// Status answers opStatus and opStop.
	Status *serveStatus `json:"status,omitempty"`
}

// forward runs the command on a resident server when one serves this
// database, and reports whether it did.
func (m *Main) forward(ctx context.Context, args []string) (int, bool) {
	if m.resident != nil || m.Getenv("CAIRN_NO_SERVER") != "" {
		return 0, false
	}
	g, ok := forwardedGlobals(m, args)
	if !ok {
		return 0, false
	}
	for _, a := range args {
		if a == "-" || a == "-h" || a == "--help" || a == "-help" || strings.HasPrefix(a, "--batch") || strings.HasPrefix(a, "-batch") {
			return 0, false // standard input, or help: run locally
		}
	}
	if g.resolve(m) != nil {
		return 0, false
	}
	db, err := filepath.Abs(g.db)
	if err != nil {
		return 0, false
	}
	sock := socketPath(db)
	if sock == "" {
		return 0, false
	}
	if _, err := os.Stat(sock); err != nil {
		return 0, false
	}
	if commandName(args) == "hook" {
		if ev, _ := hook.ParseEvent(hookEventArg(args)); !hook.Injects(ev) {
			// Capture events run here: their work may outlast the forward
			// timeout, and run again locally it would reinforce what it
			// stores twice. Only the events that inject must be fast.
			return 0, false
		}
	}
	var stdin []byte
	if forwardsStdin[commandName(args)] {
		b, err := io.ReadAll(io.LimitReader(m.Stdin, maxForwardedStdin+1))
		// Run locally, if it comes to that, on the same input.
		m.Stdin = io.MultiReader(bytes.NewReader(b), m.Stdin)
		if err != nil || len(b) > maxForwardedStdin {
			return 0, false
		}
		stdin = b
	}
	conn, err := dialUnix(sock, forwardTimeout)
	if err != nil {
		return 0, false
	}
	defer conn.Close()
	pre := []string{"--db", db, "--project", g.project, "--now", g.now}
	if forwardsStdin[commandName(args)] {
		// A hook's project is that of the folder its payload names: the
		// server finds it while reading the payload, as a local run would
		// (an explicit --project is in args, CAIRN_PROJECT in Env).
		pre = []string{"--db", db, "--now", g.now}
	}
	req := rpcRequest{Args: append(pre, args...), Env: map[string]string{}, Stdin: stdin}
	if wd, err := m.Getwd(); err == nil {
		req.Wd = wd
	}
	for _, k := range forwardedEnv {
		if v := m.Getenv(k); v != "" {
			req.Env[k] = v
		}
	}
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return 0, false
	}
	var resp rpcResponse
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&resp); err != nil || resp.Code < 0 {
		return 0, false
	}
	io.WriteString(m.Stdout, resp.Stdout)
	io.WriteString(m.Stderr, resp.Stderr)
	return resp.Code, true
}

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
	db, err := filepath.Abs(g.db)
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
	fmt.Fprintf(m.Stderr, "cairn: serving %s (search and context of other cairn processes are answered here; stop with Ctrl-C)\n", db)
	// Use records are written in batches by one goroutine (uses.go).
	s.uses = newUseQueue(s.eng, m.Stderr)
	s.configs = &configCache{}
	defer s.uses.Close()
	httpAddr, stopHTTP, err := startHTTP(ctx, m, g, s, httpOpts) // MCP at /mcp, sharing s
	if err != nil {
		return err
	}
	defer stopHTTP()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
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
	if fi, err := os.Stat(db); err == nil {
		srv.file = fi
	}
	if *idle > 0 {
		go srv.exitWhenIdle(ctx, *idle, stop, m.Stderr)
	}
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var wg sync.WaitGroup
	for {
		conn, err := ln.Accept()
		if err != nil {
			wg.Wait()
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		s.touch()
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv.handle(ctx, conn)
		}()
	}
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
	stop   func()      // stops the server
	status serveStatus
}

// sameFile reports whether the database path still names the file the
// server opened.
func (r *resident) sameFile() bool {
	fi, err := os.Stat(r.db)
	return err == nil && (r.file == nil || os.SameFile(fi, r.file))
}

func (r *resident) handle(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	var req rpcRequest
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&req); err != nil {
		return
	}
	switch req.Op {
	case "":
	case opStatus, opStop:
		st := r.status
		st.Uptime = time.Since(st.Started).Round(time.Second).String()
		json.NewEncoder(conn).Encode(rpcResponse{Status: &st})
		if req.Op == opStop {
			fmt.Fprintf(r.main.Stderr, "cairn: asked to stop by `cairn serve stop`; stopping\n")
			r.stop()
		}
		return
	default:
		json.NewEncoder(conn).Encode(rpcResponse{Code: notMine})
		return
	}
	var out, errOut strings.Builder
	m := &Main{
		Stdin: bytes.NewReader(req.Stdin), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return req.Env[k] },
		Getwd: func() (string, error) {
			if req.Wd == "" {
				return "", fmt.Errorf("the client sent no working directory")
			}
			return req.Wd, nil
		},
		resident: r.sess,
	}
	code := notMine
	if !r.sameFile() {
		// The database was deleted or replaced under the server: answering
		// from the old file, or opening a new empty one, would be wrong.
		// The client runs the command itself, and the server stops.
		fmt.Fprintf(r.main.Stderr, "cairn: %s was removed or replaced; stopping\n", r.db)
		r.stop()
	} else if g, ok := forwardedGlobals(m, req.Args); ok {
		if db, err := filepath.Abs(g.db); err == nil && db == r.db {
			code = m.Run(ctx, req.Args)
		}
	}
	json.NewEncoder(conn).Encode(rpcResponse{Code: code, Stdout: out.String(), Stderr: errOut.String()})
}

// commandName is the first argument that is not a global flag or its value.
func commandName(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return a
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		switch name {
		case "db", "project", "now":
			i++ // the flag's value
		default:
			return ""
		}
	}
	return ""
}

// hookEventArg is the EVENT of `cairn hook AGENT EVENT` in args, wherever
// the flags stand; "" when there is none.
func hookEventArg(args []string) string {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			switch strings.TrimLeft(a, "-") {
			case "db", "project", "now", "hat":
				i++ // the flag's value
			}
			continue
		}
		pos = append(pos, a)
	}
	if len(pos) < 3 || pos[0] != "hook" {
		return ""
	}
	return pos[2]
}

// forwardedGlobals parses a forwardable command's arguments just enough to
// resolve the global flags, wherever they stand; ok is false for commands
// that are not forwarded or that do not parse.
func forwardedGlobals(m *Main, args []string) (*globals, bool) {
	if !forwarded[commandName(args)] {
		return nil, false
	}
	g := &globals{}
	fs := newFlags(m, g, "cairn", "")
	for _, f := range []string{"prompt", "hat", "agent", "files", "task", "session", "budget", "format", "mode", "limit", "type", "tag", "after", "before", "exclude-session"} {
		fs.String(f, "", "")
	}
	for _, f := range []string{"json", "no-global", "explain", "index", "dry-run", "capture-tools"} {
		fs.Bool(f, false, "")
	}
	if _, err := parseFlags(fs, args); err != nil {
		return nil, false
	}
	if g.resolve(m) != nil {
		return nil, false
	}
	return g, true
}

// dialUnix connects to a Unix socket with plain blocking system calls. The
// net package would start its poller and threads first, which costs a
// short-lived process more than the whole exchange.
func dialUnix(path string, timeout time.Duration) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	tv := syscall.NsecToTimeval(timeout.Nanoseconds())
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
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
	if m.StartServer == nil || m.resident != nil || m.Getenv("CAIRN_NO_SERVER") != "" {
		return nil
	}
	db, err := filepath.Abs(g.db)
	if err != nil {
		return nil
	}
	sock := socketPath(db)
	if sock == "" {
		return nil
	}
	if _, err := os.Stat(db); err != nil {
		return nil // nothing remembered yet
	}
	if c, err := dialUnix(sock, forwardTimeout); err == nil {
		c.Close()
		return nil // running
	}
	if held, _ := serveLockHolder(db); held {
		return nil // starting (or hung: its lock goes when it does)
	}
	// No server, or only the socket file of one that died: the new one
	// removes that once it holds the lock.
	return m.StartServer(db, g.project)
}
