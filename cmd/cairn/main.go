// Command cairn is a cross-session memory for AI coding agents.
//
// Run `cairn help` for the commands. This file holds the wiring: global
// flags, opening the store, and mapping errors to exit statuses; each
// subcommand lives in its own file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/wire"
)

func main() {
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Getwd: os.Getwd, roots: &rootMemo{},
		signals: true, StartServer: startServerProcess, SetMemoryLimit: debug.SetMemoryLimit, OpenURL: openInBrowser}
	os.Exit(m.Run(context.Background(), os.Args[1:]))
}

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// Main runs one cairn command. Tests drive it directly with their own
// streams and environment.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Getwd          func() (string, error)

	// StartServer, when set, starts `cairn serve` for a database in the
	// background (the hooks do, so that the next prompt is answered fast).
	// Tests leave it nil.
	StartServer func(db, project string) error

	// OpenURL, when set, opens a web page in the user's browser (cairn
	// ui); nil prints the address instead. Tests leave it nil.
	OpenURL func(url string) error

	// SetMemoryLimit, when set, is runtime/debug.SetMemoryLimit: `cairn
	// serve` keeps the process's soft memory limit near what it holds
	// (serve_memory.go). Tests leave it nil, or record the calls.
	SetMemoryLimit func(int64) int64

	// signals makes Ctrl-C and SIGTERM cancel the command's context once
	// the command opens the database itself (catchSignals): a signal
	// handler costs a process about half a millisecond of start-up, which
	// a command answered by a server does without (a write on the server
	// is its own).
	signals bool
	sig     *signalCatch // set by Run when signals is; shared by copies of Main

	// served reports, after Run, that a server answered the command
	// (service.go).
	served bool

	// configs, in `cairn serve`, keeps the configuration files read.
	configs *config.Cache

	// toldNoDatabase: the command said that its database does not exist
	// (noDatabase).
	toldNoDatabase bool

	// configFallback, set by a hook, makes a configuration that cannot be
	// read (invalid, too large, too slow) give the defaults instead of an
	// error; it is told why.
	configFallback func(error)

	// roots, when set, remembers the project folders rootOf looked up.
	roots *rootMemo
}

// rootMemo remembers the last project folder looked up (rootOf), for
// rootMemoFor: a command asks for its working directory's project folder
// up to three times (its name, its configuration, what its memories refer
// to), each a walk up to the root of the file system; a long-lived process
// (serve, mcp) still sees a folder become a git repository. Copies of a
// Main share it; it is safe for concurrent use.
type rootMemo struct {
	mu        sync.Mutex
	dir, root string
	at        time.Time
}

// rootMemoFor is how long rootOf trusts what it looked up.
const rootMemoFor = time.Second

// rootOf is projectRoot(dir), remembered (m.roots).
func (m *Main) rootOf(dir string) string {
	r := m.roots
	if r == nil || dir == "" {
		return projectRoot(dir)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); r.dir != dir || now.Sub(r.at) >= rootMemoFor {
		r.dir, r.root, r.at = dir, projectRoot(dir), now
	}
	return r.root
}

// exitError is an exit status a command chose (a hook's, a capture's).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a mistake in how cairn was called (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// command is one subcommand.
type command struct {
	name    string
	args    string // synopsis after the name
	summary string
	run     func(ctx context.Context, m *Main, g *globals, args []string) error
}

// mcpTools names the tools the MCP server offers, for help (a test
// compares them with what the server lists).
const mcpTools = "remember, search, get, context, update, verify, forget, memory, recall_file, recall_error, recall_command, " +
	"cleanup, hat_transition, loop_record, loop_context, loop_model, loop_status"

func commands() []command {
	return []command{
		{"add", "[flags] CONTENT|-", "remember something; prints the new id", runAdd},
		{"capture", "[flags] [FILE|-]", "store the memories an agent's output signals (MEMORY:, <learning>, <failure-report>, …)", runCapture},
		{"ingest", "claude|codex PATH | --all", "read a Claude Code transcript or a Codex rollout (or every one of the project with --all): fixes, a session summary, signals; review findings with --hat critic", runIngest},
		{"converse", "add --role R TEXT|-", "append a chat message to the conversation log; every 5 messages extract memories (also by a model when CAIRN_MODEL is set)", runConverse},
		{"task", "created|completed|failed --task ID ...", "store a task event as memory (task_input, task_result, issue)", runTask},
		{"loop", "record|context|model|status|prune ...", "iteration memory for agent loops: record an iteration, the next one's context, the model to run it", runLoop},
		{"show", "[--json] ID", "show one memory in full", runShow},
		{"list", "[flags]", "list memories, newest first", runList},
		{"search", "[flags] QUERY | --batch FILE|-", "find the memories that match QUERY", runSearch},
		{"recall", "--file PATH | --error TEXT | --command TOOL | [--type T] [--agent A]", "look up what is known about a file, what fixed an error, how a command was run when it worked; without those, the memories ranked by confidence × use (use recorded)", runRecall},
		{"context", "[flags]", "print the memory block to put into an agent's prompt", runContext},
		{"edit", "ID [flags]", "change fields of a memory", runEdit},
		{"rm", "ID...", "delete memories", runRm},
		{"delete", "ID...", "delete memories (seed 000's name for rm)", runRm},
		{"pin", "[--json] ID", "always inject a memory into context; cleanup never touches it", runPin},
		{"verify", "[--json] ID", "confirm a memory still holds: contexts stop marking it possibly stale", runVerify},
		{"unpin", "[--json] ID", "stop always injecting a memory", runUnpin},
		{"promote", "ID --type TYPE | --scope global", "promote a memory to a lasting type, or to every project", runPromote},
		{"supersede", "[--json] OLD NEW", "mark OLD as replaced by NEW: still searchable, no longer injected", runSupersede},
		{"conflicts", "[--json]", "list the memories that contradict each other, for you to resolve with supersede", runConflicts},
		{"cleanup", "[--dry-run|--apply] [--json]", "decay unused memories, remove expired and low-value ones (a dry run without --apply)", runCleanup},
		{"log", "[flags]", "show what happened to memories: created, used, decayed, deleted …", runLog},
		{"watch", "[--after SEQ] [--json]", "print the project's events as they are written, by any process: created, updated, used …", runWatch},
		{"import", "[--skip-invalid] [FILE|-]", "read memories from JSON Lines or an export document", runImport},
		{"export", "[flags]", "write memories as an export document, JSON Lines, or one file per type", runExport},
		{"stats", "[--json]", "count the project's memories by type", runStats},
		{"migrate", "--from sqlite:PATH --to postgres://…", "copy a whole database to another backend (SQLite to PostgreSQL, or back); safe to run again", runMigrate},
		{"embed", "[--all] [--quiet]", "fill in the vectors of memories that have none, from the configured embeddings endpoint", runEmbed},
		{"types", "[--json]", "list the memory types and their policies", runTypes},
		{"config", "[--json]", "print the effective configuration and where each value came from", runConfig},
		{"hook", "claude|codex EVENT", "answer a Claude Code (or Codex) hook: context at session start and with each prompt, capture at stop, compaction and session end", runHook},
		{"serve", "[flags]", "keep the database open and answer other cairn processes' reads quickly; MCP and the REST API over HTTP", runServe},
		{"service", "install|uninstall [--dry-run]", "keep cairn serve running for the database: a systemd user unit (Linux) or a launchd agent (macOS)", runService},
		{"ui", "[--print]", "open the web page of the local server in the browser, starting the server when none runs", runUI},
		{"token", "create [--read-only] [--name N] | list | revoke ID", "manage the HTTP API's access tokens (needed by a server on a non-loopback address)", runToken},
		{"mcp", "[flags]", "MCP server over standard input and output, for agents (tools: " + mcpTools + ")", runMCP},
		{"install", "claude|codex [flags]", "set cairn up for Claude Code or Codex: hooks, MCP server, AGENTS.md section", runInstall},
		{"uninstall", "claude|codex [flags]", "remove exactly what install added", runUninstall},
		{"version", "", "print cairn's version", runVersion},
	}
}

// Run runs the command in args and returns the exit status.
func (m *Main) Run(ctx context.Context, args []string) int {
	err := m.run(ctx, args)
	if err == nil {
		return exitOK
	}
	var xe exitError
	if errors.As(err, &xe) {
		return int(xe)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(m.Stderr, "cairn: %s\n", ue.msg)
		return exitUsage
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if errors.Is(err, context.Canceled) && cairn.ErrorCode(err) == cairn.EINTERNAL {
		// Ctrl-C or SIGTERM: every write is a transaction, rolled back.
		fmt.Fprintln(m.Stderr, "cairn: interrupted; nothing of what the command was writing was kept")
		return exitFailure
	}
	fmt.Fprintf(m.Stderr, "cairn: %s\n", oneLine(cairn.ErrorMessage(err)))
	return exitFailure
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (m *Main) run(ctx context.Context, args []string) error {
	if m.signals {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		m.sig = &signalCatch{cancel: cancel}
	}
	g := &globals{}
	fs := flag.NewFlagSet("cairn", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	version := fs.Bool("version", false, "print cairn's version")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			m.usage(m.Stdout)
			return nil
		}
		return usagef("%v%s (see `cairn help`)", err, flagSuggestion(fs, err))
	}
	rest := fs.Args()
	if *version {
		return runVersion(ctx, m, g, rest)
	}
	if len(rest) == 0 {
		m.usage(m.Stderr)
		return usagef("no command given")
	}
	name, rest := rest[0], rest[1:]
	if name == "help" || name == "-h" {
		if len(rest) > 0 {
			return m.helpFor(rest[0])
		}
		m.usage(m.Stdout)
		return nil
	}
	var names []string
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, m, g, rest)
		}
		names = append(names, c.name)
	}
	return usagef("unknown command %q%s (see `cairn help`)", name, didYouMean(name, names))
}

// signalCatch turns Ctrl-C and SIGTERM into the cancellation of a
// command's context, once asked to.
type signalCatch struct {
	once   sync.Once
	cancel context.CancelFunc
}

// catchSignals makes Ctrl-C and SIGTERM cancel the command's context from
// now on, when Main.signals asks for it.
func (m *Main) catchSignals() {
	if m.sig == nil {
		return
	}
	m.sig.once.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-ch
			m.sig.cancel() // later signals are caught too: the command ends as it chooses
		}()
	})
}

func (m *Main) usage(w io.Writer) {
	fmt.Fprint(w, `cairn — a cross-session memory for AI coding agents

Usage: cairn [global flags] COMMAND [flags] [arguments]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Global flags (also accepted after the command):
  --db PATH|URL     the database: a SQLite file, or postgres://user@host/db for one
                    shared by a team (env CAIRN_DB; default $XDG_DATA_HOME/cairn/cairn.db)
  --db-file FILE    read --db from the first line of FILE, e.g. a postgres:// URL with
                    its password, kept out of the command line (env CAIRN_DB_FILE)
  --project NAME    the project (env CAIRN_PROJECT; default the git top-level folder's name)
  --now RFC3339     the clock for recency and expiry (env CAIRN_NOW; default now)
  --server URL      the cairn serve that answers search, context and the hooks
                    (env CAIRN_SERVER; default the one serving the database, if any)
  --version         print cairn's version (as the version command)

Run 'cairn help COMMAND' for a command's flags.
Exit status: 0 success, 1 failure, 2 usage error.
`)
}

func (m *Main) helpFor(name string) error {
	var names []string
	for _, c := range commands() {
		if c.name == name {
			return c.run(context.Background(), m, &globals{}, []string{"-h"})
		}
		names = append(names, c.name)
	}
	return usagef("unknown command %q%s (see `cairn help`)", name, didYouMean(name, names))
}

// globals are the flags every command takes.
type globals struct {
	db, project, now string
	dbFile           string // --db-file: a file whose first line is the database
	server           string // --server: the server that answers (a URL, or unix:PATH)
	// dbDefault: the database is the default one, not one named by
	// --db, --db-file, CAIRN_DB or CAIRN_DB_FILE.
	dbDefault bool
	// local stands for a PostgreSQL database on this machine: a path in
	// the data folder that names its server's socket and lock and holds
	// the local files (logs, conversation) a database file's folder holds.
	local string
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.db, "db", g.db, "the database `path` or postgres:// URL (env CAIRN_DB)")
	fs.StringVar(&g.dbFile, "db-file", g.dbFile, "a `file` whose first line is the database, so that a URL with a password stays off the command line (env CAIRN_DB_FILE)")
	fs.StringVar(&g.project, "project", g.project, "the project `name` (env CAIRN_PROJECT)")
	fs.StringVar(&g.now, "now", g.now, "the clock, as RFC 3339 `time` (env CAIRN_NOW)")
	fs.StringVar(&g.server, "server", g.server, "the cairn serve that answers search, context and hooks: an http:// `URL` or unix:PATH (env CAIRN_SERVER; default the server of the database, if one runs)")
}

// flagSet is a subcommand's flags; help prints its usage.
type flagSet struct {
	*flag.FlagSet
	help func()
}

// newFlags returns a subcommand's flag set with the global flags on it.
func newFlags(m *Main, g *globals, name, synopsis string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	g.register(fs)
	return &flagSet{FlagSet: fs, help: func() {
		fmt.Fprintf(m.Stdout, "Usage: cairn %s %s\n\nFlags:\n", name, synopsis)
		fs.SetOutput(m.Stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}}
}

// parseFlags parses flags that may come before, between and after the
// positional arguments ("--" ends the flags) and returns the positionals.
func parseFlags(fs *flagSet, args []string) ([]string, error) {
	var tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.help()
				return nil, err
			}
			return nil, usagef("%s: %v%s (see `cairn help %s`)", fs.Name(), err, flagSuggestion(fs.FlagSet, err), fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func (g *globals) resolve(m *Main) error {
	if err := g.resolveDB(m); err != nil {
		return err
	}
	if g.project == "" {
		g.project = m.Getenv("CAIRN_PROJECT")
	}
	if g.project == "" {
		wd, err := m.Getwd()
		if err != nil {
			return cairn.Errorf(cairn.EINVALID, "cannot tell the project: set --project or CAIRN_PROJECT")
		}
		g.project = filepath.Base(m.rootOf(wd))
	}
	if g.now == "" {
		g.now = m.Getenv("CAIRN_NOW")
	}
	if g.server == "" {
		g.server = m.Getenv("CAIRN_SERVER")
	}
	return nil
}

// projectFolder is the folder of the working directory's project when it
// is the project g names (a context's memories are checked against its
// files for staleness), else "".
func (m *Main) projectFolder(g *globals) string {
	wd, err := m.Getwd()
	if err != nil || wd == "" {
		return ""
	}
	root := m.rootOf(wd)
	if filepath.Base(root) != g.project {
		return ""
	}
	return root
}

// isURL reports whether s starts with a URL scheme and "://".
func isURL(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok || scheme == "" {
		return false
	}
	for i, r := range scheme {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// redactURL keeps a URL's password out of an error message.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s[:strings.Index(s, "://")+3] + "…"
}

// projectOf names the project of a folder: the name of the enclosing git
// work tree's top-level folder, else the folder's own name.
func projectOf(dir string) string { return filepath.Base(projectRoot(dir)) }

// clock returns the engine clock: fixed when --now is set.
func (g *globals) clock() (func() time.Time, error) {
	if g.now == "" {
		return nil, nil
	}
	t, err := wire.ParseTime(g.now)
	if err != nil {
		return nil, usagef("--now: %v", err)
	}
	return func() time.Time { return t }, nil
}

// session is an open store and engine; close it when done.
type session struct {
	store cairn.Store
	// eng is the engine bound to the command's project (every id a
	// command is given is looked up there); all is the same engine bound
	// to none.
	eng, all *engine.Engine
	g        *globals
	// settings are the engine's own (the command's files).
	settings *cairn.Settings
}

func (s *session) Close() error {
	if s.store == nil {
		return nil
	}
	return s.store.Close()
}

// redactSecrets removes secrets and <private> spans from text before it is
// stored.
func redactSecrets(s string) string { return redact.Text(s) }

// errNoDatabase means a read found no database file: there is nothing to read.
var errNoDatabase = errors.New("no database")

// noDatabase is what a read of g's database, which does not exist, fails
// with: errNoDatabase, which the reading commands show as nothing (exit
// 0; the first write creates the database). When the user named the
// database (--db, CAIRN_DB), a command run by hand also says on standard
// error that no database is there, once: a mistyped path must not read as
// an empty memory in silence. Hooks say nothing.
func (m *Main) noDatabase(g *globals) error {
	if !g.dbDefault && m.configFallback == nil && !m.toldNoDatabase {
		m.toldNoDatabase = true
		fmt.Fprintf(m.Stderr, "cairn: no database at %s yet: nothing to read (check --db or CAIRN_DB; a write such as `cairn add` creates it)\n", g.db)
	}
	return errNoDatabase
}

// open opens the store and its engine. A read-only open of a database
// that does not exist returns errNoDatabase, so readers show "nothing"
// without creating files.
func (m *Main) open(ctx context.Context, g *globals, readOnly bool) (*session, error) {
	return m.openWith(ctx, g, readOnly, nil)
}

// openWith is open whose engine is built (once, by newEngine) with the
// command's settings and clock as tune changes them when it is not nil:
// a long-lived process's search cache, serve's own settings.
func (m *Main) openWith(ctx context.Context, g *globals, readOnly bool, tune func(*engineSetup)) (*session, error) {
	m.catchSignals()
	if err := g.resolve(m); err != nil {
		return nil, err
	}
	clock, err := g.clock()
	if err != nil {
		return nil, err
	}
	if readOnly && !g.remote() {
		if _, err := os.Stat(g.db); errors.Is(err, os.ErrNotExist) {
			return nil, m.noDatabase(g)
		}
	}
	// The engine's own settings (for a project without stored ones, and
	// its embeddings endpoint) are the command's files'.
	cfg, err := m.loadConfig()
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx, g, readOnly)
	if err != nil {
		return nil, err
	}
	setup := engineSetup{settings: cfg.Config, clock: clock}
	if tune != nil {
		tune(&setup)
	}
	eng, err := newEngine(m, g, st, setup)
	if err != nil {
		st.Close()
		return nil, err
	}
	// Every id a command is given is looked up in its project only.
	return &session{store: st, all: eng, eng: eng.WithProject(g.project), settings: cfg.Config, g: g}, nil
}

// nowClock returns the command's clock: --now's time when set, else the
// machine's, in UTC to the millisecond (as engine.Engine's and
// client.Project's Now), for what a command writes outside the database.
func (g *globals) nowClock() (func() time.Time, error) {
	clock, err := g.clock()
	if err != nil {
		return nil, err
	}
	if clock == nil {
		clock = time.Now
	}
	return func() time.Time { return clock().UTC().Truncate(time.Millisecond) }, nil
}
