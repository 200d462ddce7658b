package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/conversation"
)

func runContext(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "context", "[flags]")
	var files listFlag
	var budget, limit, maxChars optInt
	prompt := fs.String("prompt", "", "the task or prompt `text` to find relevant memories for")
	profile := fs.String("profile", "", "the kind of `block`: context (the default: every tier), or what a hook shows: prompt, session-start, subagent, edit (with --files), command (the command as --prompt)")
	hat := fs.String("hat", "", "the agent's current role, e.g. explorer, planner, creator, critic, editor")
	agent := fs.String("agent", "", "the agent's `name`: its own memories count more")
	task := fs.String("task", "", "the task `id`: its memories count more")
	session := fs.String("session", "", "the current `session`: its own memories are left out")
	fs.Var(&files, "files", "comma-separated `paths` being worked on")
	fs.Var(&budget, "budget", "token `budget` for the block (default from the configuration, 1500)")
	fs.Var(&limit, "limit", "at most `N` relevant memories (default from the configuration, 10)")
	fs.Var(&maxChars, "max-chars", "hard cap on the block in characters (default 10000, Claude Code's limit)")
	format := fs.String("format", "", "markdown (default), xml or json")
	mode := fs.String("mode", "", "a mode from the configuration: autopilot, ralph, swarm, eco, …")
	explain := fs.Bool("explain", false, "after the block, explain each chosen memory's score and what was left out and why")
	index := fs.Bool("index", false, "add the memory index: types with counts and recent titles")
	dryRun := fs.Bool("dry-run", false, "record nothing (use counts, last use, confidence stay as they are)")
	record := fs.Bool("record", false, "record the use of what the block shows even without --session (with --session it is recorded unless --dry-run)")
	searchMode := fs.String("search-mode", "", "rank relevant memories by `lexical` words, vector similarity, or both (hybrid); default embeddings.mode when an endpoint is configured, else lexical")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := searchModeFlag("context", "--search-mode", *searchMode); err != nil {
		return err
	}
	if err := g.resolve(m); err != nil {
		return err
	}
	cfg, err := m.loadConfig()
	if err != nil {
		return err
	}
	c := cfg.Config
	req := cairn.ContextRequest{
		Profile: *profile, Project: g.project, Prompt: *prompt, Hat: *hat, Agent: *agent, Task: *task, Session: *session,
		Files: files.vals, Mode: *mode, Format: *format, Explain: *explain, Index: *index, SearchMode: *searchMode,
		Budget: budget.v, BudgetSet: budget.set, Limit: limit.v, LimitSet: limit.set,
		MaxChars: maxChars.v, MaxCharsSet: maxChars.set, Root: m.projectFolder(g),
	}
	if *index || c.Context.Index {
		req.Conversations = conversation.MonthsNewestFirst(filepath.Dir(g.path()), g.project)
	}
	// Check the request before touching the database, so that a mistake
	// is reported even when nothing is remembered yet.
	if req.Mode != "" {
		if err := c.Clone().ApplyMode(req.Mode); err != nil {
			return usagef("context: --mode: %s", cairn.ErrorMessage(err))
		}
	}
	if err := req.Validate(c); err != nil {
		return usagef("context: %s", cairn.ErrorMessage(err))
	}
	// A block printed for a session is shown to an agent: its use counts
	// (use count, last use, a little confidence). Without a session it is
	// a preview, unless --record says otherwise: looking at the block ten
	// times must not make its memories look ten times as useful.
	rec := !*dryRun && (*session != "" || *record)
	call := cairn.ContextCall{ContextRequest: req, Record: rec}
	var own *cairn.Settings
	if m.settingsFolder(g) != "" {
		// This command owns the project's folder: its files are the
		// project's settings (a server, which they are written to,
		// builds with the same).
		own = c
	}
	var a *cairn.ContextBlock
	access := recordDB
	if !rec {
		access = readDB
	}
	err = m.withBlockService(ctx, g, access, own, func(svc cairn.App) error {
		a, err = svc.Context(ctx, call)
		return err
	})
	if errIsNoDatabase(err) {
		return nil // nothing remembered yet: an empty block, and no file created
	}
	if a == nil {
		return err
	}
	if a.Text != "" {
		fmt.Fprint(m.Stdout, a.Text)
		if !strings.HasSuffix(a.Text, "\n") {
			fmt.Fprintln(m.Stdout)
		}
	}
	if *explain {
		fmt.Fprint(m.Stdout, a.Explain)
	}
	return err // the use of the block's memories not recorded
}

// loadConfig reads the user's and the project's configuration files (the
// folders configDirs names). `cairn serve` keeps what it read and
// reads again only when a file changed.
func (m *Main) loadConfig() (*config.Loaded, error) {
	projectDir, userDir := m.configFolders()
	if m.configs != nil {
		return m.configs.Load(projectDir, userDir)
	}
	if m.configFallback == nil {
		return config.Effective(projectDir, userDir)
	}
	// A hook: a configuration that cannot be read in time, or not at
	// all, costs the agent nothing but its settings.
	type loaded struct {
		l   *config.Loaded
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		l, err := config.Effective(projectDir, userDir)
		done <- loaded{l, err}
	}()
	var r loaded
	select {
	case r = <-done:
	case <-time.After(hookConfigBudget):
		r.err = fmt.Errorf("reading it took longer than %v", hookConfigBudget)
	}
	if r.err == nil {
		return r.l, nil
	}
	m.configFallback(fmt.Errorf("configuration not used, the defaults are: %w", r.err))
	return config.Effective("", "")
}

// configFolders are the folders of the configuration files: the working
// directory's project ("" without one) and the user's.
func (m *Main) configFolders() (projectDir, userDir string) {
	projectDir, userDir, err := m.configDirs()
	if err != nil {
		projectDir = "" // no working directory: the user's file alone
	}
	if userDir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			userDir = filepath.Join(home, ".config")
		}
	}
	return projectDir, userDir
}

// hookConfigBudget is how long a hook waits for its configuration files
// before it goes on with the defaults: a usual file takes well under a
// millisecond.
const hookConfigBudget = 250 * time.Millisecond

// projectRoot is the git top-level folder of dir, else dir.
func projectRoot(dir string) string {
	if dir == "" {
		return ""
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
