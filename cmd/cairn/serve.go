package main

// `cairn serve`: its flags, the engine over the database, and the server
// (package server) that keeps it open and answers other cairn processes
// on a Unix socket next to the database file (service.go finds it), and
// MCP, the REST API, events and the web page over HTTP. `cairn serve
// status` and `cairn serve stop` find the server of a database and stop
// it. A hook starts a server in the background (startServerProcess) when
// none answers, so that the next prompt is answered fast.

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/pgurl"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/server"
	"github.com/cairn-dev/cairn/sqlite"
)

// defaultHTTPAddr is where `cairn serve` answers HTTP unless told
// otherwise (--addr, CAIRN_SERVE_ADDR, or the port its database's last
// server had).
const defaultHTTPAddr = "127.0.0.1:7421"

// serveAddrTries is how many ports after the default one serve tries
// when that one is taken.
const serveAddrTries = 100

// runServe is `cairn serve`: it opens the database itself (it is the
// server that the other commands' clients reach) and serves until
// interrupted, stopped or idle.
func runServe(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "serve", "[flags] | status [--json] | stop [--json]")
	cacheMB := fs.Int64("cache-mb", 64, "keep up to this many `MiB` of the search index in memory")
	addr := fs.String("addr", defaultHTTPAddr, "answer MCP over streamable HTTP at http://`host:port`/mcp (\"off\": no HTTP)")
	allowRemote := fs.Bool("allow-remote", false, "allow --addr to be a non-loopback address; every request must then send a token (cairn token create)")
	idle := fs.Duration("idle", 0, "exit after this `duration` (such as 30m) without a request (0: run until stopped)")
	asJSON := fs.Bool("json", false, "status, stop: print the server's status as JSON")
	logFile := fs.String("log", "", "append the server's messages to this `file` instead of standard error (serve status names it)")
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
	addrGiven := flagGiven(fs, "addr")
	if env := strings.TrimSpace(m.Getenv("CAIRN_SERVE_ADDR")); env != "" && !addrGiven {
		*addr = env
	}
	if *addr == "off" {
		*addr = ""
	}
	remote := false
	if *addr != "" {
		if remote, err = server.CheckAddr(*addr, *allowRemote); err != nil {
			if remote {
				return usagef("serve: --addr %s is not a loopback address; anyone who can reach it could read and change the memories. Use 127.0.0.1, or add --allow-remote (requests then need a token: cairn token create)", *addr)
			}
			return usagef("serve: --addr %q is not host:port (e.g. 127.0.0.1:7421)", *addr)
		}
	}
	// The server answers every project: its engine is bound to none, and
	// applies each project's stored settings; a project without any gets
	// the user's file's (cairn.toml of serve's own folder is its
	// project's, written to the database below). The embeddings endpoint
	// is the server's, read where it starts.
	userOnly := *m
	userOnly.Getwd = func() (string, error) { return "", errors.New("not a project's folder") }
	own, err := userOnly.loadConfig()
	if err != nil {
		return err
	}
	s, err := m.openWith(ctx, g, false, func(e *engineSetup) {
		e.settings, e.endpoint, e.cacheBytes = own.Config, e.settings, *cacheMB<<20
	})
	if err != nil {
		return err
	}
	defer s.Close()
	eng := s.all
	// Every line the server writes says when (a background server's go
	// to cairn.log).
	var logw io.Writer = m.Stderr
	logPath := ""
	if *logFile != "" {
		if logPath, err = filepath.Abs(*logFile); err != nil {
			return err
		}
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("serve: cannot open the log file: %w", err)
		}
		defer f.Close()
		logw = f
	}
	logw = server.TimedLog(logw, nil)
	m.syncSettings(ctx, g, eng)
	db, err := filepath.Abs(g.path())
	if err != nil {
		return err
	}
	tries := 0
	if !addrGiven {
		tries = serveAddrTries // the port may move (server.Config.AddrTries)
	}
	// The serve of a project's folder registers where its JSON Lines
	// files go (local.RegisterMirror), so that its mirror job keeps them.
	if err := local.RegisterMirror(ctx, eng, g.project, mirrorOf(m, g)); err != nil {
		fmt.Fprintf(m.Stderr, "cairn: cannot register the JSON Lines folder of project %s: %s\n", g.project, oneLine(cairn.ErrorMessage(err)))
	}
	// Configuration files are read once and again when they change.
	m.configs = &config.Cache{}
	// The folder serve runs in holds its own project's files, whatever
	// its name: the web page marks the memories whose files changed
	// there.
	home, root := g.project, m.projectFolder(g)
	if wd, err := m.Getwd(); root == "" && err == nil && wd != "" {
		root = m.rootOf(wd)
	}
	cfg := server.Config{
		Engine: eng, Project: home, Folder: root, Database: g.label(), Path: db,
		Addr: *addr, AddrOptional: !addrGiven, AddrTries: tries, AllowRemote: *allowRemote, Idle: *idle,
		Version:       buildVersion(),
		CheckSettings: config.Validate,
		// An http hook's project is that of its payload's folder, and
		// the settings there are written to the database as a command
		// hook run there writes them.
		ProjectRoot: projectRoot,
		HookDatabase: func(dir, cairnDB, cairnDBFile string) (string, error) {
			return hookDatabase(m, dir, cairnDB, cairnDBFile)
		},
		SyncFolder: func(ctx context.Context, dir, project string) {
			fm, fg := *m, *g
			fm.Getwd = func() (string, error) { return dir, nil }
			fm.configs = nil // the files as they are now
			fg.project = project
			fm.syncSettings(ctx, &fg, eng)
		},
		Home:           m.Getenv("HOME"),
		LogPath:        logPath,
		SetMemoryLimit: m.SetMemoryLimit,
		TrimMemory:     func() { sqlite.TrimMemory() },
		Log:            logw,
	}
	if !g.remote() {
		cfg.File = db
	}
	if *idle > 0 {
		// A server that stops when idle is one that hooks start on
		// demand: it also stops once another cairn is installed in its
		// place, which the next hook then starts.
		if exe, err := os.Executable(); err == nil {
			cfg.Program = exe
		}
	}
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	if err := srv.Open(ctx); err != nil {
		srv.Close()
		if errors.Is(err, server.ErrNoToken) {
			return usagef("serve: --addr %s is reachable from other machines, and every request to it needs a token, but none exists; create one first with `cairn token create --project NAME`", *addr)
		}
		return err
	}
	serveProfiles(m.Getenv("CAIRN_PPROF_ADDR"), logw)
	fmt.Fprintf(logw, "cairn: serving %s (search, context and hooks of other cairn processes are answered here; stop with Ctrl-C)\n", db)
	if a := srv.Addr(); a != "" {
		fmt.Fprintf(logw, "cairn: MCP over streamable HTTP at http://%s/mcp for project %s (another project: ?project=NAME)\n", a, home)
		fmt.Fprintf(logw, "cairn: REST API at http://%s/api/projects/%s/ (described at /api/openapi.json)\n", a, url.PathEscape(home))
		if remote {
			fmt.Fprintf(logw, "cairn: every request needs Authorization: Bearer TOKEN (cairn token list)\n")
		}
		fmt.Fprintf(logw, "cairn: web page at http://%s/\n", a)
		fmt.Fprintf(logw, "cairn: events as server-sent events at http://%s%s\n", a, strings.TrimPrefix(server.EventsPattern, "GET "))
	}
	select {
	case <-ctx.Done():
	case <-srv.Done():
	}
	return srv.Close()
}

// hookDatabase is the database that a hook run in dir, with CAIRN_DB and
// CAIRN_DB_FILE so set (empty: unset) and m's other variables, would use:
// an http hook's, which the server checks is its own. A relative path is
// of dir, where the session runs its command hooks.
func hookDatabase(m *Main, dir, cairnDB, cairnDBFile string) (string, error) {
	ofDir := func(p string) string {
		if p != "" && dir != "" && !filepath.IsAbs(p) && !pgurl.IsURL(p) {
			return filepath.Join(dir, p)
		}
		return p
	}
	hm := *m
	hm.Getenv = func(k string) string {
		switch k {
		case "CAIRN_DB":
			return ofDir(cairnDB)
		case "CAIRN_DB_FILE":
			return ofDir(cairnDBFile)
		}
		return m.Getenv(k)
	}
	var g globals
	if err := g.resolveDB(&hm); err != nil {
		return "", err
	}
	return ofDir(g.path()), nil
}

// flagGiven reports whether the flag name was given.
func flagGiven(fs *flagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// serveControl runs `cairn serve status` or `cairn serve stop` for the
// database of g. status fails (exit 1) when no server answers; stop
// succeeds when none runs, and otherwise returns once the server has
// exited.
func serveControl(ctx context.Context, m *Main, g *globals, op string, asJSON bool) error {
	if err := g.resolve(m); err != nil {
		return err
	}
	db, err := filepath.Abs(g.path())
	if err != nil {
		return err
	}
	if op == "status" {
		st, err := server.StatusOf(ctx, db, db)
		if err != nil {
			return err
		}
		if asJSON {
			return writeJSON(m.Stdout, st)
		}
		mcp, url, logf := cmp.Or(st.MCP, "off"), cmp.Or(st.URL, "off"), cmp.Or(st.Log, "standard error")
		fmt.Fprintf(m.Stdout, "pid       %d\ndatabase  %s\nsocket    %s\nurl       %s\nmcp       %s\nproject   %s\nlog       %s\nuptime    %s (since %s)\n",
			st.PID, st.Database, st.Socket, url, mcp, st.Project, logf, st.Uptime, st.Started.UTC().Format(time.RFC3339))
		return nil
	}
	pid, err := server.Stop(ctx, db, db)
	if err != nil {
		return err
	}
	if pid == 0 {
		fmt.Fprintf(m.Stderr, "cairn: no cairn serve is running for %s\n", db)
		return nil
	}
	if asJSON {
		return writeJSON(m.Stdout, map[string]any{"stopped": true, "pid": pid, "database": db})
	}
	fmt.Fprintf(m.Stdout, "stopped cairn serve (pid %d) of %s\n", pid, db)
	return nil
}

// defaultServeIdle is how long a server started by a hook waits for
// requests before it exits (CAIRN_SERVE_IDLE overrides it): a working
// day, so that a session left open over a meeting or lunch still finds
// it (Claude Code's http hooks reach only a running server; a turn's
// Stop hook starts it again, too late for that turn).
const defaultServeIdle = "8h"

// startServerProcess starts `cairn serve` for db in the background, in a
// session of its own (it outlives the hook that started it and ignores the
// terminal), answering over the Unix socket and over HTTP (the default
// port, CAIRN_SERVE_ADDR, or the next free one) and exiting after
// CAIRN_SERVE_IDLE (default 8 hours) without a request, or once another
// cairn is installed in its place. Its messages go to cairn.log next to
// the database. A second server for the same database exits at once.
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
	logPath := filepath.Join(filepath.Dir(db), logFileName)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "--db", db, "--project", project, "serve", "--idle", idle, "--log", logPath)
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
// wait > 0 waits up to that long for the server it started to answer
// (the session-start hook: the http hooks that follow reach the server
// directly, and a prompt sent at once must not find nobody there).
func (m *Main) ensureServer(g *globals, wait time.Duration) error {
	if m.StartServer == nil || m.configs != nil || m.Getenv("CAIRN_NO_SERVER") != "" {
		return nil
	}
	db, err := filepath.Abs(g.path())
	if err != nil {
		return nil
	}
	if _, err := os.Stat(db); err != nil && !g.remote() {
		return nil // nothing remembered yet
	}
	return server.Ensure(db, serverTimeout, wait, func() error { return m.StartServer(db, g.project) })
}
