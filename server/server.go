// Package server is `cairn serve` as a library: a process that keeps the
// database open and answers the REST API (package httpapi) on a Unix
// socket next to the database, where the CLI of other processes finds it
// (their search, context and hooks are answered in a millisecond instead
// of opening the database themselves), and over HTTP when asked: REST,
// server-sent events, MCP over streamable HTTP (package mcpserver) and
// the web page (package webui). It runs the background jobs of the
// database (package jobs) while it serves.
//
// New checks a Config, Open takes the database's server lock and starts
// listening, Close stops: requests in flight finish, the uses they
// recorded are written, the jobs end, the socket and the lock go. A
// server also stops by itself (Done is closed) when it has answered no
// request for Config.Idle, when `cairn serve stop` asks it over the
// socket, and when its database file is removed or replaced.
package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/internal/testsignal"
	"github.com/cairn-dev/cairn/jobs"
	"github.com/cairn-dev/cairn/jsonlmirror"
)

// Config says what a Server serves and how. Zero values take defaults
// where a field says so.
type Config struct {
	// Engine answers every request; required, and not bound to a project
	// (the server answers them all). The caller opens its store before
	// New and closes it after Close.
	Engine *engine.Engine
	// Project is the server's own project: MCP without ?project=, the
	// web page's, and the one whose folder the server may run in.
	Project string
	// Database names the database in the server's status: the file, or
	// a postgres:// URL without its password.
	Database string
	// File is the SQLite database file; "" for PostgreSQL. A request that
	// comes after the file was removed or replaced is refused (503, the
	// client then opens the new file itself) and stops the server:
	// answering from the old file, or opening a new empty one, would be
	// wrong.
	File string
	// Path is where the socket and the lock live (SocketPath,
	// LockPath): the database file, or for PostgreSQL a path in the
	// user's data folder that stands for it. Required.
	Path string

	// Addr is where to answer over HTTP (host:port; port 0 picks one);
	// "" means the socket only.
	Addr string
	// AddrOptional makes a failure to listen on Addr a line in Log (the
	// default address is taken, by another server say) instead of an
	// error.
	AddrOptional bool
	// AddrTries is how many ports after Addr's are tried, one by one,
	// when Addr's is taken (by the server of another database, say); 0:
	// Addr's only. A port that may move starts from the one the
	// database's last server had (RecordedAddr) when it is one of those:
	// the http hooks in Claude Code's settings name it.
	AddrTries int
	// AllowRemote allows an Addr that is not a loopback address; every
	// HTTP request must then send a token. Without it such an Addr is
	// EINVALID.
	AllowRemote bool

	// Idle stops the server after that long without a request; 0 never.
	Idle time.Duration
	// IdleCheckEvery is how often the server asks whether it is idle;
	// zero: a quarter of Idle, between 10 ms and a minute.
	IdleCheckEvery time.Duration
	// Program, with an Idle time, is the file of the running program: a
	// server that something starts on demand (a hook) stops, at an idle
	// check, once that file was replaced or removed (another cairn
	// installed), so that the next hook starts the program now there
	// rather than talk to this one until it is idle.
	Program string
	// Limits bound what HTTP clients may hold.
	Limits Limits

	// Version is the version the MCP server reports.
	Version string
	// Folder is the folder of the server's own project's files (the one
	// it runs in), "" when it runs in none.
	Folder string
	// Root returns the folder of project's files when the server knows
	// it, else "": what its memories refer to is checked against it. nil:
	// Folder for Project; for another project, on a server no other
	// machine reaches, the folder of the command that stored its
	// settings (the machine's user's); none on one they reach (a folder
	// another machine named).
	Root func(project string) string
	// CheckSettings checks the settings a client stores for a project
	// (its cairn.toml, read by the client) as a configuration file's are
	// checked; nil refuses to store any.
	CheckSettings func(*cairn.Settings) error
	// SettingsStored is told of the settings a client stored for project
	// through the REST API. nil: the folder of the project's JSON Lines
	// files they name (export.jsonl_dir, relative to the folder they came
	// from) is registered for the mirror job (jobs.SetMirrorFolder), so
	// that it keeps them whichever process writes; a server other
	// machines reach registers no folder they name.
	SettingsStored func(ctx context.Context, project string, ps *cairn.ProjectSettings)

	// ProjectRoot returns the project folder of a folder (the git
	// top-level folder enclosing it, else the folder itself): an http
	// hook's project is its payload's cwd's. nil: the folder itself.
	ProjectRoot func(dir string) string
	// SyncFolder writes the settings of project, whose folder is dir (an
	// http hook's payload's cwd), to the database when its files changed
	// since they were last written, as a command hook run there does; an
	// http hook's block then follows them. nil: the project's stored
	// settings as they are.
	SyncFolder func(ctx context.Context, dir, project string)
	// HookDatabase returns the database a hook's session uses, as its
	// command hooks would settle it from their environment: cairnDB and
	// cairnDBFile are the session's CAIRN_DB and CAIRN_DB_FILE (either
	// may be empty), relative paths are of dir (the payload's cwd). An
	// http hook that says them (HookDatabaseHeader) and names another
	// database than the server's is refused (ECONFLICT): the servers of
	// two databases may take turns at one port, and a session's memories
	// and uses must not go to the other's. nil: no check.
	HookDatabase func(dir, cairnDB, cairnDBFile string) (string, error)
	// Home is the user's home folder, set aside in the error text an
	// http hook looks up.
	Home string

	// SetMemoryLimit, when set, is runtime/debug.SetMemoryLimit: the
	// server keeps the process's soft memory limit near what the engine
	// holds (memory.go), unless GOMEMLIMIT is set.
	SetMemoryLimit func(int64) int64
	// TrimMemory, when set, returns to the operating system the memory
	// the store's allocator keeps free for reuse (sqlite.TrimMemory): the
	// server calls it every second while it answers requests, and once
	// after. SQLite's memory lies outside the Go runtime's limit, and its
	// reads leave freed regions committed (docs/performance.md).
	TrimMemory func()
	// Now is the clock of the idle time and the uptime; nil: time.Now.
	Now func() time.Time
	// Log receives the server's messages, a line each, without their time
	// (TimedLog adds it); nil: none.
	Log io.Writer
	// LogPath is the file Log appends to, for the status; "" when it is
	// not a file (standard error).
	LogPath string

	// The background jobs' settings (package jobs); their Log defaults
	// to the server's.
	Uses       jobs.UseWriterConfig
	Maintain   jobs.MaintainerConfig
	Mirror     jobs.MirrorConfig
	VectorFill jobs.VectorFillerConfig

	TestSignals TestSignals

	// localPeer, when set, tells which peers are this machine's in place
	// of their being loopback addresses: a test's clients all connect
	// over loopback, and some must stand for other machines.
	localPeer func(netip.Addr) bool
	// testRemote makes a loopback Addr behave as one other machines
	// reach: every request needs a token.
	testRemote bool
}

// TestSignals tell a test what the server did.
type TestSignals struct {
	// IdleChecked gets, after each idle check, whether it stopped the
	// server.
	IdleChecked testsignal.Signal[bool]
}

// Init turns every signal on.
func (ts *TestSignals) Init() { ts.IdleChecked.Init() }

// Status is what a server says about itself (GET /serve/status).
type Status struct {
	PID      int       `json:"pid"`
	Database string    `json:"database"`
	Socket   string    `json:"socket"`
	URL      string    `json:"url,omitempty"` // the HTTP side's address (http://HOST:PORT/, the web page); "" when HTTP is off
	MCP      string    `json:"mcp,omitempty"` // the MCP over HTTP address; "" when HTTP is off
	Project  string    `json:"project"`       // the project of /mcp without ?project=
	Log      string    `json:"log,omitempty"` // the file of its messages; "" when they go to standard error
	Started  time.Time `json:"started"`
	Uptime   string    `json:"uptime"`
}

// Server is one `cairn serve`. Its methods are safe for concurrent use.
type Server struct {
	cfg    Config
	eng    *engine.Engine
	logger *slog.Logger
	sock   string

	file        os.FileInfo  // the database file opened
	program     os.FileInfo  // Config.Program as it started
	lastRequest atomic.Int64 // Unix nanoseconds of the clock cfg.Now
	requests    atomic.Int64 // the requests answered (touch)
	uses        *jobs.UseWriter

	unlock     func()
	socketSrv  *http.Server
	httpSrv    *http.Server
	gate       *connGate // of httpSrv's connections
	mcp        *mcpHTTP  // httpSrv's /mcp
	httpAddr   string
	httpDone   chan struct{}
	stopMemory func()
	cancelJobs context.CancelFunc
	jobs       sync.WaitGroup
	status     Status

	hooks hookWorkers // answer the http hooks

	stopOnce sync.Once
	remote   bool          // other machines reach its Addr: it needs a token to answer
	done     chan struct{} // closed when the server stops by itself or Close is called
	mu       sync.Mutex
	serveErr error // why the socket stopped serving, when it failed
	opened   bool
	closed   bool
}

// New returns a server for cfg, not yet listening. EINVALID for a config
// that cannot be served: no engine or path, an HTTP address that is not
// host:port, or one that is not loopback without AllowRemote.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, cairn.Errorf(cairn.EINVALID, "a server needs an engine")
	}
	if cfg.Path == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "a server needs the path of its database")
	}
	if !cairn.ValidProject(cfg.Project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", cfg.Project)
	}
	sock := SocketPath(cfg.Path)
	remote := cfg.testRemote
	if cfg.Addr != "" {
		r, err := CheckAddr(cfg.Addr, cfg.AllowRemote)
		if err != nil {
			return nil, err
		}
		remote = remote || r
	}
	if cfg.Idle < 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "the idle time %v is negative", cfg.Idle)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Root == nil {
		cfg.Root = projectFolders(cfg.Engine, cfg.Project, cfg.Folder, remote)
	}
	if cfg.SettingsStored == nil {
		cfg.SettingsStored = mirrorFolders(cfg.Engine, remote, cfg.Log)
	}
	cfg.Limits = cfg.Limits.withDefaults()
	cfg.IdleCheckEvery = cmp.Or(cfg.IdleCheckEvery, min(max(cfg.Idle/4, 10*time.Millisecond), time.Minute))
	for _, w := range []*io.Writer{&cfg.Uses.Log, &cfg.Maintain.Log, &cfg.Mirror.Log, &cfg.VectorFill.Log} {
		if *w == nil {
			*w = cfg.Log
		}
	}
	return &Server{
		remote: remote && !cfg.testRemote,
		cfg:    cfg,
		eng:    cfg.Engine,
		logger: slog.New(slog.NewTextHandler(cfg.Log, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: withoutTime})),
		sock:   sock,
		done:   make(chan struct{}),
		hooks:  hookWorkers{jobs: make(chan func())},
	}, nil
}

// projectFolders is Config.Root's default: home's folder is the
// server's own; another project's is the one its settings came from,
// unless the server answers other machines.
func projectFolders(eng *engine.Engine, home, folder string, remote bool) func(string) string {
	return func(project string) string {
		switch {
		case project == home && folder != "":
			return folder
		case remote:
			return "" // a folder another machine named
		}
		ps, err := eng.ProjectSettings(context.Background(), project)
		if err != nil {
			return ""
		}
		return ps.Folder
	}
}

// mirrorFolders is Config.SettingsStored's default: it registers the
// folder of the JSON Lines files the stored settings name, and says on
// log when it cannot.
func mirrorFolders(eng *engine.Engine, remote bool, log io.Writer) func(context.Context, string, *cairn.ProjectSettings) {
	return func(ctx context.Context, project string, ps *cairn.ProjectSettings) {
		if remote {
			return
		}
		// No folder set clears the registration, wherever the project is.
		dir, register := jsonlmirror.Folder(ps.Settings.Export.JSONLDir, ps.Folder, "")
		if !register && dir != "" {
			return // relative to a folder not known
		}
		if err := jobs.SetMirrorFolder(ctx, eng, project, dir); err != nil {
			fmt.Fprintf(log, "cairn: cannot register the JSON Lines folder of project %s: %s\n", project, strings.Join(strings.Fields(cairn.ErrorMessage(err)), " "))
		}
	}
}

// LockPath is the lock file of the server of the database at path.
func LockPath(path string) string { return path + ".serve.lock" }

// ErrNoToken is Open's error for a server other machines reach (an
// AllowRemote Addr that is not loopback) when no token exists: every
// request to it would be refused. EINVALID.
var ErrNoToken = cairn.Errorf(cairn.EINVALID, "the server is reachable from other machines and every request to it needs a token, but none exists; create one first with `cairn token create --project NAME`")

// errAlreadyServing says that another server answers for the database:
// ECONFLICT, with how to find it.
func errAlreadyServing(db string) error {
	return cairn.Errorf(cairn.ECONFLICT, "another cairn serve is already answering for %s; `cairn serve status` shows it and `cairn serve stop` stops it", db)
}

// Open takes the database's server lock, loads what searches read most,
// and starts answering on the socket (and over HTTP when Config.Addr is
// set) and running the jobs; it returns once clients can find the socket,
// or the reason they cannot: ECONFLICT when another server runs for the
// database, EUNAVAILABLE when an address cannot be listened on, ErrNoToken
// when other machines would reach it and no token exists. Open is
// called once; Close undoes what it did, whether it succeeded or not.
func (s *Server) Open(ctx context.Context) error {
	s.mu.Lock()
	if s.opened {
		s.mu.Unlock()
		return cairn.Errorf(cairn.EINVALID, "the server is already open")
	}
	s.opened = true
	s.mu.Unlock()
	if s.remote {
		// Every request will need a token: none would be answered.
		toks, err := s.eng.FindTokens(ctx)
		if err != nil {
			return err
		}
		if len(toks) == 0 {
			return ErrNoToken
		}
	}
	if c, err := net.DialTimeout("unix", s.sock, 200*time.Millisecond); err == nil {
		c.Close()
		return errAlreadyServing(s.label())
	}
	// One server per database, even when two start at the same moment
	// (two hooks starting one each): the second cannot take the lock.
	unlock, err := lock(s.cfg.Path, s.label())
	if err != nil {
		return err
	}
	s.unlock = unlock
	if s.cfg.File != "" {
		if fi, err := os.Stat(s.cfg.File); err == nil {
			s.file = fi
		}
	}
	if s.cfg.Program != "" && s.cfg.Idle > 0 {
		if fi, err := os.Stat(s.cfg.Program); err == nil {
			s.program = fi
		}
	}
	// Load before listening: clients find the socket only once the server
	// answers at full speed.
	loaded := false
	if n, err := s.eng.Warm(ctx, s.cfg.Project); err == nil && n > 0 {
		fmt.Fprintf(s.cfg.Log, "cairn: loaded the postings of %d frequent terms of project %s\n", n, s.cfg.Project)
		loaded = true
	}
	if n, err := s.eng.WarmVectors(ctx, s.cfg.Project); err == nil && n > 0 {
		fmt.Fprintf(s.cfg.Log, "cairn: loaded %d vectors of project %s\n", n, s.cfg.Project)
		loaded = true
	}
	if loaded {
		// What was read to fill the caches and is not kept (the postings
		// of the terms too rare to keep, each scanned page's copy, the
		// stored vectors) goes back to the operating system before the
		// first request: at 1,000,000 memories, 14 MiB of the idle
		// server's resident size (docs/performance.md).
		debug.FreeOSMemory()
	}
	var stops []func() // in the order they are stopped
	if s.cfg.TrimMemory != nil {
		stops = append(stops, trimWhileBusy(s.requests.Load, s.cfg.TrimMemory))
	}
	if s.cfg.SetMemoryLimit != nil {
		stopLimit := limitMemory(os.Getenv("GOMEMLIMIT") != "", s.eng.ResidentBytes, s.cfg.SetMemoryLimit)
		stops = append(stops, freeEachIdle(s.requests.Load), stopLimit)
	}
	if len(stops) > 0 {
		s.stopMemory = func() {
			for _, stop := range stops {
				stop()
			}
		}
	}
	// Use records are written in batches by one goroutine.
	s.uses = jobs.NewUseWriter(s.eng, &s.cfg.Uses)
	s.touch()
	if err := s.startHTTP(ctx); err != nil {
		return err
	}
	ln, err := s.listenSocket()
	if err != nil {
		if s.httpAddr == "" {
			return err
		}
		// HTTP answers anyway; the other processes open the database
		// themselves.
		fmt.Fprintf(s.cfg.Log, "cairn: answering over HTTP only: %s\n", cairn.ErrorMessage(err))
	}
	s.status = Status{PID: os.Getpid(), Database: s.label(), Project: s.cfg.Project, Log: s.cfg.LogPath, Started: s.cfg.Now()}
	if s.httpAddr != "" {
		s.status.URL = "http://" + s.httpAddr + "/"
		s.status.MCP = "http://" + s.httpAddr + "/mcp"
	}
	if ln != nil {
		s.status.Socket = s.sock
		s.socketSrv = &http.Server{Handler: s.socketHandler(), ReadHeaderTimeout: s.cfg.Limits.Header, IdleTimeout: s.cfg.Limits.Idle, MaxHeaderBytes: maxHeaderBytes}
		go func() {
			if err := s.socketSrv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				s.mu.Lock()
				s.serveErr = err
				s.mu.Unlock()
				s.stop()
			}
		}()
	}
	s.startJobs()
	return nil
}

// listenSocket listens on the server's Unix socket, created private
// (0600): memories are the user's alone.
func (s *Server) listenSocket() (net.Listener, error) {
	if err := prepareSocketFolder(s.sock); err != nil {
		return nil, err
	}
	// A socket file left by a server that died (SIGKILL, a crash): nobody
	// answers on it, and the lock says no server is starting either.
	os.Remove(s.sock)
	old := syscall.Umask(0o077)
	ln, err := net.Listen("unix", s.sock)
	syscall.Umask(old)
	if err != nil {
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot listen on %s", s.sock)
	}
	return ln, nil
}

// startJobs runs the background jobs until Close.
func (s *Server) startJobs() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancelJobs = cancel
	run := func(f func(context.Context)) {
		s.jobs.Add(1)
		go func() {
			defer s.jobs.Done()
			f(ctx)
		}()
	}
	run(jobs.NewMaintainer(s.eng, &s.cfg.Maintain).Run)
	run(jobs.NewMirror(s.eng, &s.cfg.Mirror).Run)
	if s.eng.Vectors() {
		run(jobs.NewVectorFiller(s.eng, &s.cfg.VectorFill).Run)
	}
	if s.cfg.Idle > 0 {
		run(s.exitWhenIdle)
	}
}

// Done is closed when the server stops by itself (idle, asked to stop,
// its database file replaced, its socket failing) or Close is called.
func (s *Server) Done() <-chan struct{} { return s.done }

// Addr is the address the server answers HTTP on ("" when it does not).
func (s *Server) Addr() string { return s.httpAddr }

// Socket is the Unix socket the server answers on (SocketPath of its
// path; the server answers HTTP only when it could not listen there).
func (s *Server) Socket() string { return s.sock }

// Status is what the server says about itself.
func (s *Server) Status() Status {
	st := s.status
	st.Uptime = s.cfg.Now().Sub(st.Started).Round(time.Second).String()
	return st
}

// RecordUse records a context's use of memories as the server's requests
// do: in a batch written soon after (package jobs) once the server is
// open, at once before.
func (s *Server) RecordUse(ctx context.Context, ids []string, session string) error {
	if s.uses == nil {
		return s.eng.RecordUse(ctx, ids, session)
	}
	return s.uses.Record(ctx, ids, session)
}

// stop makes Done fire.
func (s *Server) stop() { s.stopOnce.Do(func() { close(s.done) }) }

// Close stops the server: the requests in flight finish (up to 10 s on
// the socket, 3 s over HTTP, where event streams end with their last
// seq), the uses they recorded are written, the jobs end, and the socket
// and the lock go. It returns why the socket stopped serving, if it
// failed.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stop()
	if s.socketSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if s.socketSrv.Shutdown(ctx) != nil {
			s.socketSrv.Close()
		}
		cancel()
	}
	s.stopHTTP()
	if s.cancelJobs != nil {
		s.cancelJobs()
		s.jobs.Wait()
	}
	if s.uses != nil {
		s.uses.Close()
	}
	if s.socketSrv != nil {
		os.Remove(s.sock)
	}
	if s.stopMemory != nil {
		s.stopMemory()
	}
	if s.unlock != nil {
		s.unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serveErr
}

// withoutTime leaves the time out of the logger's lines: Log's writer
// says when (TimedLog).
func withoutTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

func (s *Server) label() string { return cmp.Or(s.cfg.Database, s.cfg.Path) }

// touch records a request: it keeps a server with an idle time alive.
func (s *Server) touch() {
	s.lastRequest.Store(s.cfg.Now().UnixNano())
	s.requests.Add(1)
}

// exitWhenIdle stops the server once it has answered no request for
// Config.Idle, or once its program was replaced (Config.Program); a
// request in progress is waited for by Close.
func (s *Server) exitWhenIdle(ctx context.Context) {
	tick := time.NewTicker(s.cfg.IdleCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		stopped := true
		switch {
		case s.cfg.Now().Sub(time.Unix(0, s.lastRequest.Load())) >= s.cfg.Idle:
			fmt.Fprintf(s.cfg.Log, "cairn: no request for %v; stopping\n", s.cfg.Idle)
		case !s.sameProgram():
			fmt.Fprintf(s.cfg.Log, "cairn: %s was replaced or removed; stopping (the next hook starts the cairn now there)\n", s.cfg.Program)
		default:
			stopped = false
		}
		if stopped {
			s.stop()
		}
		s.cfg.TestSignals.IdleChecked.Signal(stopped)
		if stopped {
			return
		}
	}
}

// sameProgram reports whether Config.Program is still the file the
// server started from: the same file, size and time of change.
func (s *Server) sameProgram() bool {
	if s.program == nil {
		return true
	}
	fi, err := os.Stat(s.cfg.Program)
	return err == nil && os.SameFile(fi, s.program) && fi.Size() == s.program.Size() && fi.ModTime().Equal(s.program.ModTime())
}

// sameFile reports whether the database path still names the file the
// server opened.
func (s *Server) sameFile() bool {
	if s.cfg.File == "" {
		return true
	}
	fi, err := os.Stat(s.cfg.File)
	return err == nil && (s.file == nil || os.SameFile(fi, s.file))
}

// socketHandler answers the socket: the REST API, the hooks
// (HookSocketPattern), and the server's status and stop.
func (s *Server) socketHandler() http.Handler {
	mux := http.NewServeMux()
	api := s.newAPI(false, true, nil)
	mux.Handle("/api/", bodyDeadline(api, s.cfg.Limits.Body))
	// The command hooks of this machine hand the events that add context
	// here as Claude Code's http hooks do, and print the answer as it is.
	mux.Handle(HookSocketPattern, bodyDeadline(s.hookHandler(api, true), s.cfg.Limits.Body))
	mux.HandleFunc("GET /serve/status", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Status())
	})
	mux.HandleFunc("POST /serve/stop", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Status())
		fmt.Fprintf(s.cfg.Log, "cairn: asked to stop by `cairn serve stop`; stopping\n")
		s.stop()
	})
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.touch()
		if !s.sameFile() {
			fmt.Fprintf(s.cfg.Log, "cairn: %s was removed or replaced; stopping\n", s.cfg.File)
			s.stop()
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": map[string]string{"code": cairn.EUNAVAILABLE,
				"message": "the database file of this server was removed or replaced; the server is stopping"}})
			return
		}
		mux.ServeHTTP(w, req)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
