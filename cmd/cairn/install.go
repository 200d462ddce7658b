package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cairn-dev/cairn/install"
	"github.com/cairn-dev/cairn/server"
)

func runInstall(ctx context.Context, m *Main, g *globals, args []string) error {
	return setUp(m, g, "install", args)
}

func runUninstall(ctx context.Context, m *Main, g *globals, args []string) error {
	return setUp(m, g, "uninstall", args)
}

// setUp installs or uninstalls cairn's hooks, MCP server and AGENTS.md
// section for Claude Code or Codex (see package install for what goes
// where), and prints each file it changed with the entries added (+),
// updated (~) and removed (-).
func setUp(m *Main, g *globals, name string, args []string) error {
	fs := newFlags(m, g, name, "claude|codex [flags]")
	var scope optString
	fs.Var(&scope, "scope", "`project` (the git top-level folder's files; default for claude) or user (your home folder's; default for codex)")
	command := fs.String("command", "", "the command (`words`, quoted as for a shell) that runs cairn in hooks and the MCP entry (default: this executable's absolute path), e.g. cairn when it is on PATH")
	captureTools := fs.Bool("capture-tools", false, "also run cairn after each shell command (PostToolUse hook on Bash): a test, build or lint that passes is captured at once")
	noAgents := fs.Bool("no-agents-md", false, "codex: leave AGENTS.md alone")
	httpHooks := fs.Bool("http", false, "claude: answer UserPromptSubmit, PreToolUse, PostToolUseFailure and SubagentStart from the local cairn serve over HTTP (no process per hook); SessionStart, which starts that server, and the capture hooks stay commands")
	dryRun := fs.Bool("dry-run", false, "print what would change and write nothing")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != install.Claude && pos[0] != install.Codex) {
		return usagef("%s: name the agent: claude or codex", name)
	}
	s := &install.Setup{Agent: pos[0], Scope: scope.v, CaptureTools: *captureTools, NoAgentsMD: *noAgents}
	if !scope.set {
		s.Scope = install.ScopeProject
		if s.Agent == install.Codex {
			s.Scope = install.ScopeUser
		}
	}
	if s.Scope != install.ScopeProject && s.Scope != install.ScopeUser {
		return usagef("%s: --scope is project or user, not %q", name, s.Scope)
	}
	if *command != "" {
		words, err := install.SplitCommand(*command)
		if err != nil || len(words) == 0 {
			return usagef("%s: --command: give the program that runs cairn, e.g. --command cairn", name)
		}
		s.Command = words
		s.LocalHooks = !install.ByName(words)
	} else {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("cannot tell where this cairn is (%v); give --command", err)
		}
		if abs, err := filepath.Abs(exe); err == nil {
			exe = abs
		}
		s.Command = []string{exe}
		onPath := cairnOnPath(m)
		switch {
		case onPath != "" && sameProgram(onPath, exe):
			// By name: the committed settings then hold no path of this
			// machine, and the hooks survive an upgrade that moves the
			// binary (a package manager's versioned folder).
			s.Command = []string{"cairn"}
		case name == "install" && strings.Contains(exe, "go-build"):
			fmt.Fprintf(m.Stderr, "cairn: warning: %s is a temporary build (go run); install cairn or give --command\n", exe)
		case name == "install" && onPath != "":
			fmt.Fprintf(m.Stderr, "cairn: warning: the cairn on PATH (%s) is not this program; the hooks run this one, %s\n", onPath, exe)
		}
		s.LocalHooks = s.Command[0] != "cairn"
	}
	if g.db != "" || g.project != "" {
		fmt.Fprintf(m.Stderr, "cairn: warning: the hooks and the MCP server do not get --db or --project; set CAIRN_DB or CAIRN_PROJECT where the agent runs\n")
	}
	if *httpHooks {
		if s.Agent != install.Claude {
			return usagef("%s: --http is for claude: %s runs command hooks only", name, s.Agent)
		}
		if s.HTTP, err = localServerURL(m, g, name == "install" && !*dryRun); err != nil {
			return err
		}
		for _, v := range []string{"CAIRN_DB", "CAIRN_DB_FILE"} {
			if !latin1(m.Getenv(v)) {
				s.HTTPNoDatabase = true
				fmt.Fprintf(m.Stderr, "cairn: note: %s holds characters beyond Latin-1, which Claude Code cannot send in a header: the http hooks do not say their database, and the server does not check that it is its own\n", v)
			}
		}
	}
	if wd, err := m.Getwd(); err == nil {
		s.Root = projectRoot(wd)
	}
	s.Home = m.Getenv("HOME")
	if s.Home == "" {
		s.Home, _ = os.UserHomeDir()
	}
	s.CodexHome = m.Getenv("CODEX_HOME")

	var edits []*install.Edit
	if name == "install" {
		edits, err = s.Install()
	} else {
		edits, err = s.Uninstall()
	}
	if err != nil {
		return err
	}
	if !*dryRun {
		if err := install.Write(edits); err != nil {
			return err
		}
	}
	changed := false
	for _, e := range edits {
		state := "unchanged"
		switch {
		case e.Changed() && e.Old == nil:
			state = "created"
		case e.Changed():
			state = "updated"
		case e.Old == nil:
			state = "not there, nothing to do"
		}
		if name == "install" && !e.Changed() && (e.Old == nil || e.Cleanup) {
			continue // a file cairn had nothing to take out of
		}
		if e.Changed() {
			changed = true
			if *dryRun {
				state = "would be " + state
			}
		}
		fmt.Fprintf(m.Stdout, "%s: %s\n", e.Path, state)
		for _, n := range e.Notes {
			fmt.Fprintf(m.Stdout, "  %s\n", n)
		}
	}
	if name == "install" && changed && s.Agent == install.Claude && s.Scope == install.ScopeProject {
		why := "" // a --command was chosen, not found
		switch {
		case *command == "" && s.LocalHooks:
			why = " (cairn is not on PATH)"
		case *command == "":
			why = " (found on PATH)"
		}
		if s.LocalHooks {
			fmt.Fprintf(m.Stdout, "The hooks run %s, a path of this machine%s, so they are in .claude/settings.local.json, the project's personal settings (keep that file out of git), and the MCP server in ~/.claude.json, for this project only.\n", install.ShellJoin(s.Command), why)
			if !*dryRun && gitTracks(s.Root, filepath.Join(".claude", "settings.local.json")) {
				fmt.Fprintf(m.Stdout, "git does not ignore .claude/settings.local.json: add it to %s, so that this machine's path is not committed.\n", filepath.Join(s.Root, ".gitignore"))
			}
		} else {
			fmt.Fprintf(m.Stdout, "The hooks run %s by name%s, so they are in .claude/settings.json and .mcp.json, which the project shares.\n", install.ShellJoin(s.Command), why)
		}
	}
	if name == "install" && s.HTTP != "" {
		if err := databaseForHTTPHooks(m, g, *dryRun); err != nil {
			return err
		}
	}
	switch {
	case *dryRun:
		fmt.Fprintln(m.Stdout, "dry run: nothing was written")
	case name == "install" && changed && s.Agent == install.Claude:
		fmt.Fprintln(m.Stdout, "Start a new Claude Code session to load the hooks; approve the cairn MCP server when Claude Code asks.")
	case name == "install" && changed:
		fmt.Fprintln(m.Stdout, "Start a new Codex session and trust cairn's hooks in /hooks (older Codex versions also need [features] codex_hooks = true).")
	}
	if name == "install" {
		offerIngest(m, s)
	}
	return nil
}

// latin1 reports whether s can be sent in an HTTP header by Claude Code
// (a byte string: every character up to U+00FF).
func latin1(s string) bool {
	for _, r := range s {
		if r > 0xFF {
			return false
		}
	}
	return true
}

// databaseForHTTPHooks creates the local database when it does not exist
// yet (install --http). The session-start hook starts the server only
// for a database that exists, and the http hooks reach nobody without
// it: with nothing remembered yet, every prompt and tool call of the
// first sessions would be a failed call in Claude Code's transcript.
func databaseForHTTPHooks(m *Main, g *globals, dryRun bool) error {
	if g.remote() {
		return nil // PostgreSQL: its tables are made by whoever runs it
	}
	db, err := filepath.Abs(g.path())
	if err != nil {
		return err
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if dryRun {
		fmt.Fprintf(m.Stdout, "%s: would be created (the database, whose server answers the http hooks)\n", db)
		return nil
	}
	s, err := m.open(context.Background(), g, false)
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: created (the database, whose server answers the http hooks)\n", db)
	return nil
}

// cairnOnPath is the cairn program that PATH, as m sees it, runs; "" when
// none does.
func cairnOnPath(m *Main) string {
	name := "cairn"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(m.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue // a relative folder is found from wherever the hook runs
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0) {
			return p
		}
	}
	return ""
}

// gitTracks reports whether git would offer file (relative to root) for
// a commit: root is a git work tree and no ignore rule covers the file.
// Without git, or outside a work tree, it says no.
func gitTracks(root, file string) bool {
	cmd := exec.Command("git", "-C", root, "check-ignore", "-q", "--", file)
	err := cmd.Run()
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == 1 // 0: ignored; 128: no work tree
}

// stableExecutable prefers the cairn found on PATH (as m sees it) when it
// is this very program exe: os.Executable resolves symbolic links, so a
// package manager's link (/opt/homebrew/bin/cairn) would otherwise be
// written as the versioned file it points to, and what names it (a
// service's unit) would break on the next upgrade.
func stableExecutable(m *Main, exe string) string {
	if onPath := cairnOnPath(m); onPath != "" && sameProgram(onPath, exe) {
		return onPath
	}
	return exe
}

// sameProgram reports whether a and b are one file, through any
// symbolic links (a package manager's link on PATH to its versioned
// file).
func sameProgram(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// localServerURL is the address of the local server the http hooks reach
// (install --http): the one of the database's running server, else the
// one its last server had, else the configured one (CAIRN_SERVE_ADDR,
// default 127.0.0.1:7421), where the server the session-start hook starts
// will listen. reserve makes a configured port that another program
// holds move to the next free one, recorded beside the database for the
// server to take.
func localServerURL(m *Main, g *globals, reserve bool) (string, error) {
	if err := g.resolve(m); err != nil {
		return "", err
	}
	db, err := filepath.Abs(g.path())
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), serverTimeout)
	defer cancel()
	if u := server.URL(ctx, db); u != "" {
		return u, nil
	}
	addr := cmp.Or(strings.TrimSpace(m.Getenv("CAIRN_SERVE_ADDR")), defaultHTTPAddr)
	if addr == "off" {
		return "", usagef("install --http: CAIRN_SERVE_ADDR=off: the local server answers no HTTP; unset it, or install command hooks")
	}
	if remote, err := server.CheckAddr(addr, false); err != nil || remote {
		return "", usagef("install --http: CAIRN_SERVE_ADDR %q is not a loopback host:port such as 127.0.0.1:7421", addr)
	}
	if reserve {
		addr = server.ReserveAddr(db, addr, serveAddrTries)
	}
	return "http://" + addr + "/", nil
}
