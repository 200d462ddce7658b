package main

// `cairn hook claude EVENT`: Claude Code's hooks. The event's JSON comes
// on standard input (package hook); the answer is context for
// SessionStart and UserPromptSubmit, and nothing for the events that
// capture. A hook must never get in the user's way: whatever goes wrong
// (bad JSON, a locked or broken database, a panic) the command exits 0,
// adds nothing, and appends one line to cairn's log file.

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/hook/inject"
	"github.com/cairn-dev/cairn/server"
	"github.com/cairn-dev/cairn/wire"
)

// maxHookPayload bounds what a hook reads from standard input. A
// PostToolUse payload carries the tool's whole input and output.
const maxHookPayload = 16 << 20

// Time limits of the hook's work. Claude Code gives a SessionEnd hook
// about 1.5 s before it stops waiting; the others get its default hook
// timeout (60 s), far more than capture needs.
const (
	sessionEndBudget = 1200 * time.Millisecond
	captureBudget    = 30 * time.Second
)

// sessionStartServerWait bounds how long the session-start hook waits
// for the server it started to answer: the http hooks of the session's
// first prompt reach it directly.
const sessionStartServerWait = 2 * time.Second

// logFileName is the hook's log, next to the database.
const logFileName = "cairn.log"

const hookHelp = `
Events (kebab-case, or Claude Code's names such as SessionStart):
  session-start       prints the pinned, static and session-summary tiers for the
                      project of the payload's cwd, as hookSpecificOutput JSON
  user-prompt-submit  prints the memories relevant to the prompt; nothing when none are
  stop, subagent-stop capture: reads the new lines of the transcript (like
                      'cairn ingest claude') and the signals of last_assistant_message;
                      at stop, once per session, when a command failed and then
                      passed or the user corrected the agent and the agent recorded
                      nothing, asks it to write what a later session should know
                      (decision "block"; capture.ask_at_stop = false turns it off)
  pre-compact         capture, as stop; prints nothing
  session-end         capture and the session summary, within 1.2 s; prints nothing
  pre-tool-use        before Edit, MultiEdit, Write or NotebookEdit: the pitfalls, fixes
                      and decisions about the file; before Bash: the errors that
                      command (its program and sub-command) met before and what fixed
                      them; at most 300 tokens, nothing when nothing clears the floor
  post-tool-use-failure
                      after a tool call failed: the memory of the same error (its
                      error lines, with paths, numbers and ids set aside) and what
                      fixed it last time; nothing when no memory holds it
  subagent-start      the memories relevant to the subagent's type, at most 300 tokens
  post-tool-use       after a failed Bash command, as post-tool-use-failure; with
                      --capture-tools: when a test, build or lint command passes,
                      captures at once (a fix it ends is stored before the turn ends)

The hooks that add context, and stop, subagent-stop and pre-compact, start
'cairn serve' in the background when none answers for the database (it
stops after CAIRN_SERVE_IDLE, default 8h, without a request, or once
another cairn is installed in its place; CAIRN_NO_SERVER=1 turns this
off), so that the prompts that follow are answered in milliseconds.

With 'cairn install claude --http', Claude Code posts user-prompt-submit,
pre-tool-use, post-tool-use-failure and subagent-start to the running
cairn serve instead (POST /hooks/claude/EVENT), which answers exactly what
this command prints for the same payload, with no process started.

The hook always exits 0 and never blocks Claude Code. Errors (bad JSON, a
database that cannot be opened, …) add nothing and append one line to
cairn.log next to the database (default ~/.local/share/cairn/cairn.log), or
to $XDG_STATE_HOME/cairn/cairn.log when that folder does not exist.
`

func runHook(ctx context.Context, m *Main, g *globals, args []string) (err error) {
	fs := newFlags(m, g, "hook", "claude|codex EVENT [flags] < payload.json")
	captureTools := fs.Bool("capture-tools", false, "post-tool-use: capture when a test, build or lint command passes (off by default)")
	hat := fs.String("hat", "", "the agent role (hat) of the session, given to captured memories")
	baseHelp := fs.help
	fs.help = func() {
		baseHelp()
		fmt.Fprint(m.Stdout, hookHelp)
	}
	h := &hookRun{m: m, g: g, agent: "claude", captureTools: *captureTools}
	defer func() {
		if r := recover(); r != nil {
			h.log(fmt.Errorf("internal error: %v", r))
			err = nil
		}
	}()
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	h.captureTools, h.hat = *captureTools, *hat
	if err == nil {
		switch {
		case len(pos) != 2 || pos[0] != "claude" && pos[0] != "codex":
			err = fmt.Errorf("usage: cairn hook claude|codex EVENT (got %q)", strings.Join(pos, " "))
		default:
			h.agent = pos[0]
			ev, ok := hook.ParseEvent(pos[1])
			if !ok {
				err = fmt.Errorf("unknown hook event %q (see `cairn help hook`)", pos[1])
			}
			h.event = ev
			h.eventArg = pos[1]
		}
	}
	if err != nil {
		// A hook must not fail: say it where a person running it by hand
		// sees it, log it, and exit 0.
		fmt.Fprintf(m.Stderr, "cairn: %s\n", oneLine(err.Error()))
		h.log(err)
		return nil
	}
	m.configFallback = h.log
	if err := h.run(ctx); err != nil {
		h.log(err)
	}
	m.served = m.served || h.m.served // h.m is the payload folder's copy
	return nil
}

// hookRun is one hook call.
type hookRun struct {
	m            *Main // the payload's cwd as working directory, once read
	g            *globals
	agent        string // claude or codex: the agent whose hook this is
	event        hook.Event
	eventArg     string
	p            *hook.Payload
	captureTools bool
	hat          string
}

func (h *hookRun) run(ctx context.Context) error {
	data, err := io.ReadAll(io.LimitReader(h.m.Stdin, maxHookPayload+1))
	if err != nil {
		return fmt.Errorf("reading the payload: %w", err)
	}
	if len(data) > maxHookPayload {
		return fmt.Errorf("the payload is larger than %d MiB", maxHookPayload>>20)
	}
	if out, ok := h.forward(data); ok {
		_, err := h.m.Stdout.Write(out)
		return err
	}
	p, err := hook.Parse(data)
	if err != nil {
		return err
	}
	h.p = p
	if p.CWD != "" {
		// The project and its configuration are those of the session's
		// folder, wherever Claude Code started the hook.
		hm := *h.m
		cwd := p.CWD
		hm.Getwd = func() (string, error) { return cwd, nil }
		h.m = &hm
	}
	if err := h.g.resolve(h.m); err != nil {
		return err
	}
	if inject.Answers(h.event) {
		out, err := inject.Answer(ctx, h.event, p, h.env())
		if out != nil {
			if _, werr := h.m.Stdout.Write(out); werr != nil {
				err = errors.Join(err, werr)
			}
		}
		if h.event != hook.PostToolUse {
			return errors.Join(err, h.startServer())
		}
		if err != nil || !h.captureTools {
			return err
		}
	}
	switch h.event {
	case hook.Stop, hook.SubagentStop, hook.PreCompact:
		// The session goes on after these: a server that stopped since
		// the session started it (idle, killed, its program replaced) is
		// started again for the calls to come. Claude Code's http hooks
		// reach only a running server, so without this a session that
		// outlived its server would go without memory until the next
		// session start; a command hook would start one itself.
		return errors.Join(bounded(ctx, captureBudget, h.capture), h.startServer())
	case hook.SessionEnd:
		return bounded(ctx, sessionEndBudget, h.capture)
	case hook.PostToolUse:
		// --capture-tools: a test, build or lint command that passed
		// ends what it fixed.
		if !p.PassedGate() {
			return nil
		}
		return bounded(ctx, captureBudget, h.capture)
	}
	return nil
}

// forward hands the payload of an event that adds context, as it was
// read, to the database's running server on its Unix socket, where the
// route of Claude Code's http hooks answers it (server.HookSocketPattern,
// Codex's hooks too), and returns the answer to print as it is: one
// implementation for both kinds of hook, and a process that neither
// decodes the payload nor decodes and encodes a block. ok is false when
// no server took the call (none runs, one without that route, one
// stopping, a payload it refused, before any work): the hook then answers
// as before, through the REST API or the database itself. --hat, --server
// and CAIRN_NO_SERVER take that way too.
func (h *hookRun) forward(data []byte) (out []byte, ok bool) {
	m, g := h.m, h.g
	if h.hat != "" || !slices.Contains(server.HookEvents, h.event) || g.server != "" || m.Getenv("CAIRN_SERVER") != "" {
		return nil, false
	}
	if err := g.resolveDB(m); err != nil {
		return nil, false
	}
	sock := m.localSocket(g)
	if sock == "" {
		return nil, false
	}
	// What the command hook reads from its flags and environment, as an
	// http hook's headers carry it; the project, when neither names it,
	// is the payload's folder's, there as here.
	header := [][2]string{{"X-Cairn-Timeout", strconv.Itoa(int(serverTimeout / time.Second))}}
	if p := cmp.Or(g.project, m.Getenv("CAIRN_PROJECT")); p != "" {
		header = append(header, [2]string{"X-Cairn-Project", p})
	}
	if t := m.Getenv("CAIRN_TASK"); t != "" {
		header = append(header, [2]string{"X-Cairn-Task", t})
	}
	if now := cmp.Or(g.now, m.Getenv("CAIRN_NOW")); now != "" {
		t, err := wire.ParseTime(now)
		if err != nil {
			return nil, false // the hook's own way says what is wrong
		}
		header = append(header, [2]string{wire.NowHeader, wire.FormatTime(t)})
	}
	// The server answers within X-Cairn-Timeout, empty rather than late;
	// the exchange waits a little longer for that answer.
	status, body, err := client.PostHook(sock, "/hooks/"+h.agent+"/"+string(h.event), header, data, serverTimeout+time.Second)
	if err != nil || status != http.StatusOK {
		return nil, false
	}
	m.served = true
	return body, true
}

// env is what package inject needs of this call: the project and folders
// resolved from the payload's cwd, the configuration read there, and the
// service of the database (a server's, where the memories are, when one
// answers).
func (h *hookRun) env() *inject.Env {
	m, g := h.m, h.g
	cwdRoot := ""
	if h.p.CWD != "" {
		cwdRoot = m.rootOf(h.p.CWD)
	}
	svc := &hookService{h: h}
	return &inject.Env{
		Agent: h.agent, Project: g.project, Root: m.projectFolder(g), CWDRoot: cwdRoot,
		Home: m.Getenv("HOME"), Hat: h.hat, Task: m.Getenv("CAIRN_TASK"),
		State: statePath(g), DataDir: filepath.Dir(g.path()),
		Config: func() (*cairn.Settings, error) {
			cfg, err := m.loadConfig()
			if err != nil {
				return nil, err
			}
			if m.settingsFolder(g) != "" {
				// This command owns the project's folder: the block is
				// built with its files (a server, which they are written
				// to, builds with the same).
				svc.own = cfg.Config
			}
			return cfg.Config, nil
		},
		Service: svc,
		Log:     h.log,
	}
}

// hookService answers a hook's block through the surface of the database
// (withService: a server's when one answers); a database that does not
// exist yet answers nothing.
type hookService struct {
	h   *hookRun
	own *cairn.Settings // the settings of the project's folder, when this command owns it
}

func (s *hookService) Context(ctx context.Context, call cairn.ContextCall) (*cairn.ContextBlock, error) {
	var a *cairn.ContextBlock
	err := s.h.m.withBlockService(ctx, s.h.g, recordDB, s.own, func(svc cairn.App) error {
		var err error
		a, err = svc.Context(ctx, call)
		return err
	})
	if errIsNoDatabase(err) {
		return nil, nil // nothing remembered yet
	}
	return a, err
}

func (s *hookService) Lookup(ctx context.Context, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	var a *cairn.LookupAnswer
	err := s.h.m.withService(ctx, s.h.g, recordDB, func(svc cairn.App) error {
		var err error
		a, err = svc.Lookup(ctx, req)
		return err
	})
	if errIsNoDatabase(err) {
		return nil, nil
	}
	return a, err
}

// startServer starts `cairn serve` in the background when this hook ran
// without one, so that the next prompt's hook is answered by it: the
// hooks that inject context, and those that end a turn while the session
// goes on (Stop, SubagentStop, PreCompact); never SessionEnd.
func (h *hookRun) startServer() error {
	if h.m.served {
		return nil // one answered
	}
	wait := time.Duration(0)
	if h.event == hook.SessionStart {
		wait = sessionStartServerWait
	}
	if err := h.m.ensureServer(h.g, wait); err != nil {
		return fmt.Errorf("starting cairn serve: %w", err)
	}
	return nil
}

// bounded runs fn with a deadline and returns when it is done or when the
// time is up, whichever is first: Claude Code stops waiting for a slow
// hook, and a slow database must not make the user wait either. Work cut
// off by the process's exit is safe: every write is one transaction.
func bounded(ctx context.Context, d time.Duration, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	done := make(chan error, 1)
	go func() {
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("internal error: %v", r)
			}
		}()
		done <- fn(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		select {
		case err := <-done: // finished just in time
			return err
		default:
		}
		return fmt.Errorf("gave up after %v: %w", d, ctx.Err())
	}
}

// capture stores what the session taught since the last capture
// (hook.Capture: the new lines of the transcript, the signals of the last
// assistant message) through the service of the database: a server's
// when one answers, else the database itself.
func (h *hookRun) capture(ctx context.Context) error {
	opts := hook.CaptureOptions{Project: h.g.project, Agent: h.agent, Hat: h.hat, Home: h.m.Getenv("HOME"),
		Root: h.m.projectFolder(h.g)}
	if !hook.HasCapture(h.event, h.p, opts) {
		return nil
	}
	if h.event == hook.Stop && !h.p.StopHookActive {
		cfg, err := h.m.loadConfig()
		if err != nil {
			return err
		}
		opts.Ask = cfg.Config.Capture.AskAtStop
	}
	var got hook.Captured
	err := h.m.withService(ctx, h.g, writeDB, func(svc cairn.App) error {
		var err error
		got, err = hook.Capture(ctx, svc, h.event, h.p, opts)
		return err
	})
	return errors.Join(err, h.askAtStop(got.Ask))
}

// hookLogPath is the hook's log file: cairn.log next to the database when
// that folder exists, else $XDG_STATE_HOME/cairn/cairn.log (default
// ~/.local/state/cairn/cairn.log).
func hookLogPath(m *Main, g *globals) string {
	if g.db != "" {
		dir := filepath.Dir(g.path())
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return filepath.Join(dir, logFileName)
		}
	}
	state := m.Getenv("XDG_STATE_HOME")
	if state == "" {
		home := m.Getenv("HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return ""
			}
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "cairn", logFileName)
}

// log appends one line about err to the log file; it never fails.
func (h *hookRun) log(err error) {
	g := *h.g
	if g.db == "" {
		_ = g.resolve(h.m) // for the log's place; a failure leaves the state dir
	}
	path := hookLogPath(h.m, &g)
	if path == "" {
		return
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	event := h.eventArg
	if h.event != "" {
		event = h.event.Kebab()
	}
	if event == "" {
		event = "?"
	}
	event = redactSecrets(event)
	session := ""
	if h.p != nil && h.p.SessionID != "" {
		session = " session " + redactSecrets(h.p.SessionID)
	}
	// Redacted before it is cut: a cut secret is no longer recognised.
	msg := redactSecrets(oneLine(err.Error()))
	if len(msg) > 2000 {
		msg = msg[:2000] + "…"
	}
	fmt.Fprintf(f, "%s hook %s %s%s: %s\n", time.Now().UTC().Format(time.RFC3339), h.agent, event, session, msg)
}

// askAtStop prints the Stop hook's request to the agent for its own
// account of the session (hook.AskReason), when the capture found one is
// due.
func (h *hookRun) askAtStop(why string) error {
	if why == "" {
		return nil
	}
	_, err := h.m.Stdout.Write(hook.Block(hook.AskReason(why)))
	return err
}

// statePath is the session state file of g's database (package
// sessionstate): beside the SQLite file, or beside the data folder's
// stand-in for a PostgreSQL database.
func statePath(g *globals) string { return g.path() + ".state.json" }
