// Package install wires cairn into Claude Code and Codex: it merges cairn's
// hooks and MCP server into their settings files, and takes them out
// again, without disturbing anything else in those files.
//
// What is written where:
//
//	claude, --scope project (default), in the project's top-level folder:
//	  .claude/settings.json   (.claude/settings.local.json with LocalHooks)
//	                          hooks SessionStart, UserPromptSubmit,
//	                          SubagentStart, Stop, SubagentStop, PreCompact,
//	                          SessionEnd, each running `<cairn> hook claude
//	                          <event>`, without a matcher (every occurrence),
//	                          and PreToolUse with the matcher
//	                          PreToolUseMatcher (edits and Bash); with CaptureTools
//	                          also PostToolUse, matcher "Bash", running
//	                          `<cairn> hook claude post-tool-use --capture-tools`
//	                          With HTTP, UserPromptSubmit, PreToolUse,
//	                          PostToolUseFailure and SubagentStart are
//	                          {"type": "http", "url": "<HTTP>hooks/claude/
//	                          <Event>", "timeout", "headers",
//	                          "allowedEnvVars"} instead
//	  .mcp.json               mcpServers.cairn = {"type": "stdio",
//	                          "command": "<cairn>", "args": ["mcp"]}; with
//	                          LocalHooks, ~/.claude.json's
//	                          projects.<root>.mcpServers.cairn instead
//	                          (Claude Code's local scope)
//	claude, --scope user:     ~/.claude/settings.json and ~/.claude.json
//	                          (its top-level mcpServers), same entries
//	codex, --scope user (default): $CODEX_HOME (else ~/.codex)
//	  config.toml             [mcp_servers.cairn] between "# cairn:begin"
//	                          and "# cairn:end" lines
//	  hooks.json              hooks SessionStart, UserPromptSubmit, Stop
//	                          (+ PostToolUse), same schema and commands as
//	                          for Claude Code (see HookAgent)
//	codex, --scope project:   .codex/config.toml and .codex/hooks.json in
//	                          the project (Codex reads them in trusted
//	                          projects only)
//	codex, both scopes:       AGENTS.md in the project, a section between
//	                          "<!-- cairn:begin" and "<!-- cairn:end" lines
//
// The rules callers and users rely on:
//
//   - JSON files are decoded into an order-preserving tree that keeps every
//     scalar's text, and re-encoded with the file's own indentation (two
//     spaces for a new file) and final newline. A file indented that way
//     and not changed by cairn comes back byte for byte. Text files
//     (config.toml, AGENTS.md) are edited only inside cairn's marked block.
//   - A file cairn would not change is not written. Installing twice
//     changes nothing the second time.
//   - Install makes cairn's entries exactly the wanted set: missing hooks
//     are added in a matcher group of their own at the end of the event's
//     list, a cairn hook with another command or timeout is updated in
//     place, and cairn hooks on events no longer wanted (PostToolUse
//     without CaptureTools) are removed; a cairn hook of the other kind
//     (command or http) on a wanted event is replaced in place, its keys
//     of the other kind removed. A hook is cairn's when its command
//     ends in "hook claude|codex <event>" after a program whose base name
//     starts with "cairn", or when it is an http hook whose URL is a
//     loopback address's /hooks/claude/<Event>; an MCP server entry is cairn's when it is named
//     "cairn" and its command or an argument is such a program.
//   - Uninstall removes cairn's hooks and server entries and blocks, and
//     then only the containers that removing them emptied: a matcher group
//     left without handlers, an event left without groups, a "hooks" or
//     "mcpServers" object left without members. A user's own empty
//     containers stay. Files are never deleted; a file cairn created is
//     left as {} (JSON) or empty (text).
//   - A malformed file (JSON, TOML, a cairn block without its end line) or
//     one of an unexpected shape ("hooks" not an object, an "mcpServers"
//     entry named cairn that runs something else) is a *SyntaxError naming
//     the file and, when known, the line; no file at all is written then.
//   - Files are written atomically (a temporary file in the same folder,
//     then a rename) with the old file's mode, through a symbolic link to
//     its target, and only if the file did not change since it was read.
package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Agents that install knows.
const (
	Claude = "claude"
	Codex  = "codex"
)

// Scopes: the project's files, or the user's.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Setup says what to install or uninstall, and where.
type Setup struct {
	Agent string // Claude or Codex
	Scope string // ScopeProject or ScopeUser

	Root      string // the project's top-level folder
	Home      string // the user's home folder
	CodexHome string // Codex's folder; "" means Home/.codex

	// Command runs cairn: the program and its leading arguments as words
	// (e.g. ["/usr/local/bin/cairn"] or ["go", "run", "./cmd/cairn"]).
	Command []string
	// CaptureTools adds a PostToolUse hook.
	CaptureTools bool
	// HTTP, when set, is the address of the local cairn server
	// (http://127.0.0.1:7421/): the HTTPEvents become http hooks that
	// POST to its /hooks/claude/<Event> instead of commands (Claude Code
	// only).
	HTTP string
	// HTTPNoDatabase leaves out of the http hooks the headers that say
	// the session's database (CAIRN_DB, CAIRN_DB_FILE): for values that
	// Claude Code cannot send in a header (characters beyond Latin-1, with
	// which it fails the whole call).
	HTTPNoDatabase bool
	// NoAgentsMD leaves AGENTS.md alone (Codex).
	NoAgentsMD bool
	// LocalHooks puts Claude Code's project hooks in
	// .claude/settings.local.json, the project's personal settings (not
	// committed), instead of .claude/settings.json, which a team shares,
	// and the MCP server in the project's entry of ~/.claude.json (the
	// local scope) instead of .mcp.json: for a Command that names a path
	// of this machine. Claude Code runs
	// the hooks of both files, so installing into one takes cairn's hooks
	// out of the other, but for those of the shared file that run cairn
	// by name (the team's, which fail harmlessly where cairn is not on
	// PATH). Uninstall takes them out of both.
	LocalHooks bool
}

// Edit is the planned change of one file. Old is nil when the file does not
// exist.
type Edit struct {
	Path  string
	Old   []byte
	New   []byte
	Mode  fs.FileMode
	Notes []string // one line per entry added (+), updated (~) or removed (-)
	// Cleanup marks an install's edit that only takes cairn's entries
	// out of a file (those that would run beside the ones installed):
	// worth reporting only when it changes something.
	Cleanup bool
}

// Changed reports whether writing the edit would change the file.
func (e *Edit) Changed() bool { return e.New != nil && (e.Old == nil || !bytes.Equal(e.Old, e.New)) }

// Hooks returns the hooks cairn installs for the setup's agent.
func (s *Setup) Hooks() []Hook {
	type ev struct {
		name    string
		matcher string
		timeout int    // seconds
		flags   string // after the event
	}
	// Timeouts: context events answer in milliseconds; capture events get
	// more than the handler's own 30 s budget; Claude Code waits only
	// about 1.5 s for SessionEnd, which the handler keeps to.
	var evs []ev
	if s.Agent == Codex {
		// The events of Codex's hooks documentation that match Claude Code's
		// (developers.openai.com/codex/hooks). Codex has no failure event:
		// its PostToolUse follows every shell command, failed or not, with
		// the command's output (and no exit status).
		post := ev{"PostToolUse", "Bash", 10, ""}
		if s.CaptureTools {
			post = ev{"PostToolUse", "Bash", 45, " --capture-tools"}
		}
		evs = []ev{{"SessionStart", "", 10, ""}, {"UserPromptSubmit", "", 10, ""}, post, {"Stop", "", 45, ""}}
	} else {
		evs = []ev{
			{"SessionStart", "", 10, ""}, {"UserPromptSubmit", "", 10, ""},
			{"PreToolUse", PreToolUseMatcher, 10, ""}, {"PostToolUseFailure", "Bash", 10, ""}, {"SubagentStart", "", 10, ""},
			{"Stop", "", 45, ""}, {"SubagentStop", "", 45, ""}, {"PreCompact", "", 45, ""}, {"SessionEnd", "", 5, ""},
		}
	}
	if s.CaptureTools && s.Agent != Codex {
		// The handler captures when a test, build or lint command passes:
		// shell commands only.
		evs = append(evs, ev{"PostToolUse", "Bash", 45, " --capture-tools"})
	}
	prog := ShellJoin(s.Command)
	hs := make([]Hook, len(evs))
	for i, e := range evs {
		hs[i] = Hook{Event: e.name, Matcher: e.matcher, Timeout: e.timeout,
			Command: prog + " hook " + HookAgent(s.Agent) + " " + HookEvents[e.name] + e.flags}
		if s.HTTP != "" && s.Agent == Claude && slices.Contains(HTTPEvents, e.name) {
			hs[i].Command, hs[i].URL = "", strings.TrimSuffix(s.HTTP, "/")+"/hooks/claude/"+e.name
			hs[i].NoDatabase = s.HTTPNoDatabase
		}
	}
	return hs
}

// PreToolUseMatcher is the tools whose calls cairn answers with the
// memories about what they touch: file edits and shell commands.
const PreToolUseMatcher = "Edit|MultiEdit|Write|NotebookEdit|Bash"

// HookAgent is the agent name cairn's hook commands use for an agent:
// `cairn hook codex EVENT` for Codex, whose hook input and output follow
// Claude Code's (session_id, cwd, hookSpecificOutput.additionalContext) but
// whose transcript is not Claude Code's, and `cairn hook claude EVENT`
// otherwise.
func HookAgent(agent string) string {
	if agent == Codex {
		return Codex
	}
	return Claude
}

// Server returns cairn's MCP server entry.
func (s *Setup) Server() MCPServer {
	return MCPServer{Command: s.Command[0], Args: append(append([]string{}, s.Command[1:]...), "mcp")}
}

func (s *Setup) codexHome() string {
	if s.CodexHome != "" {
		return s.CodexHome
	}
	return filepath.Join(s.Home, ".codex")
}

func (s *Setup) check() error {
	if s.Agent != Claude && s.Agent != Codex {
		return fmt.Errorf("unknown agent %q: cairn sets up claude or codex", s.Agent)
	}
	if s.Scope != ScopeProject && s.Scope != ScopeUser {
		return fmt.Errorf("unknown scope %q: use project or user", s.Scope)
	}
	if len(s.Command) == 0 || s.Command[0] == "" {
		return errors.New("no command to run cairn")
	}
	if s.HTTP != "" {
		if s.Agent != Claude {
			return fmt.Errorf("http hooks are Claude Code's; %s runs command hooks", s.Agent)
		}
		if !cairnURLRE().MatchString(strings.TrimSuffix(s.HTTP, "/") + "/hooks/claude/UserPromptSubmit") {
			return fmt.Errorf("the server address %q is not a loopback http://HOST:PORT/", s.HTTP)
		}
	}

	if s.Scope == ScopeUser || s.Agent == Codex {
		if s.Home == "" && (s.Agent == Claude || s.CodexHome == "") {
			return errors.New("cannot find the home folder: set HOME")
		}
	}
	if s.Agent == Claude && s.Scope == ScopeProject && s.LocalHooks && s.Home == "" {
		return errors.New("cannot find the home folder, where Claude Code keeps a project's personal MCP servers (~/.claude.json): set HOME")
	}
	if (s.Scope == ScopeProject || (s.Agent == Codex && !s.NoAgentsMD)) && s.Root == "" {
		return errors.New("cannot tell the project's folder")
	}
	return nil
}

// Install plans cairn's set-up. Nothing is written: pass the edits to
// Write. An error (a malformed file, an entry cairn must not overwrite)
// means nothing should be written.
func (s *Setup) Install() ([]*Edit, error) { return s.plan(true) }

// Uninstall plans the removal of what Install adds.
func (s *Setup) Uninstall() ([]*Edit, error) { return s.plan(false) }

func (s *Setup) plan(install bool) ([]*Edit, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	var hooks []Hook
	var server *MCPServer
	if install {
		// cairn finds its own entries again (to update or remove them) by
		// the program's name: an entry it would not recognise must not be
		// written.
		probe := ShellJoin(s.Command) + " hook " + HookAgent(s.Agent) + " session-start"
		if _, ok := IsCairnHook(probe); !ok || !IsCairnServer(s.Server().Command, s.Server().Args) {
			return nil, fmt.Errorf("the command %s does not run a program whose name starts with cairn: cairn recognises its own entries by that name and could neither update nor remove these; rename the binary, or give --command", ShellJoin(s.Command))
		}
		hooks = s.Hooks()
		sv := s.Server()
		server = &sv
	}
	var edits []*Edit
	add := func(path string, f func(path string, old []byte) ([]byte, []string, error)) error {
		e, err := editFile(path, f)
		if err != nil {
			return err
		}
		edits = append(edits, e)
		return nil
	}
	jsonDoc := func(f func(path string, doc *node) ([]string, error)) func(string, []byte) ([]byte, []string, error) {
		return func(path string, old []byte) ([]byte, []string, error) {
			doc, err := parseObject(path, old)
			if err != nil {
				return nil, nil, err
			}
			notes, err := f(path, doc)
			if err != nil || len(notes) == 0 || !changes(notes) {
				return old, notes, err
			}
			return render(doc, old), notes, nil
		}
	}
	hookFile := jsonDoc(func(path string, doc *node) ([]string, error) { return mergeHooks(path, doc, hooks, nil) })
	// hooksOut takes cairn's hooks out of a file, but those leave keeps.
	hooksOut := func(leave func(*node) bool) func(string, []byte) ([]byte, []string, error) {
		return jsonDoc(func(path string, doc *node) ([]string, error) { return mergeHooks(path, doc, nil, leave) })
	}
	serverFile := jsonDoc(func(path string, doc *node) ([]string, error) { return mergeServer(path, doc, "cairn", server) })
	// serverOut takes cairn's server out of a file, unless leave keeps
	// its command.
	serverOut := func(leave func(string) bool) func(string, []byte) ([]byte, []string, error) {
		return jsonDoc(func(path string, doc *node) ([]string, error) {
			if cur := doc.get("mcpServers").get("cairn"); cur != nil && leave != nil {
				if cmd, args := serverOf(cur); leave(ShellJoin(append([]string{cmd}, args...))) {
					return nil, nil
				}
			}
			return mergeServer(path, doc, "cairn", nil)
		})
	}
	// localServer sets want (nil: takes cairn's out) in ~/.claude.json's
	// entry of the project, Claude Code's local scope: this user, in this
	// project only.
	localServer := func(want *MCPServer) func(string, []byte) ([]byte, []string, error) {
		return jsonDoc(func(path string, doc *node) ([]string, error) {
			projects := doc.get("projects")
			if projects != nil && !projects.isObject() {
				return nil, schemaError(path, `"projects" is not a JSON object`)
			}
			entry := projects.get(s.Root)
			if entry != nil && !entry.isObject() {
				return nil, schemaError(path, fmt.Sprintf("projects.%s is not a JSON object", s.Root))
			}
			if entry == nil {
				if want == nil {
					return nil, nil
				}
				if projects == nil {
					projects = newObject()
					doc.set("projects", projects)
				}
				entry = newObject()
				projects.set(s.Root, entry)
			}
			return mergeServer(path, entry, "cairn", want)
		})
	}
	cleanup := func(path string, f func(string, []byte) ([]byte, []string, error)) error {
		if err := add(path, f); err != nil {
			return err
		}
		edits[len(edits)-1].Cleanup = install
		return nil
	}

	var err error
	switch {
	case s.Agent == Claude && s.Scope == ScopeProject:
		shared, local := filepath.Join(s.Root, ".claude", "settings.json"), filepath.Join(s.Root, ".claude", "settings.local.json")
		mcp, user := filepath.Join(s.Root, ".mcp.json"), filepath.Join(s.Home, ".claude.json")
		switch {
		case !install:
			if err = add(shared, hookFile); err == nil {
				err = add(local, hookFile)
			}
			if err == nil {
				err = add(mcp, serverFile)
			}
			if err == nil && s.Home != "" {
				err = add(user, localServer(nil))
			}
		case s.LocalHooks:
			// This machine's path: the personal files only.
			if err = cleanup(shared, hooksOut(namesNoPath)); err == nil {
				err = add(local, hookFile)
			}
			if err == nil {
				err = cleanup(mcp, serverOut(commandByName))
			}
			if err == nil {
				err = add(user, localServer(server))
			}
		default:
			if err = add(shared, hookFile); err == nil {
				err = cleanup(local, hooksOut(nil))
			}
			if err == nil {
				err = add(mcp, serverFile)
			}
			if err == nil && s.Home != "" {
				err = cleanup(user, localServer(nil))
			}
		}
	case s.Agent == Claude:
		if err = add(filepath.Join(s.Home, ".claude", "settings.json"), hookFile); err == nil {
			err = add(filepath.Join(s.Home, ".claude.json"), serverFile)
		}
	default:
		dir := s.codexHome()
		if s.Scope == ScopeProject {
			dir = filepath.Join(s.Root, ".codex")
		}
		err = add(filepath.Join(dir, "config.toml"), func(path string, old []byte) ([]byte, []string, error) {
			return mergeCodexConfig(path, old, server)
		})
		if err == nil {
			err = add(filepath.Join(dir, "hooks.json"), hookFile)
		}
		if err == nil && !s.NoAgentsMD {
			cairn := ""
			if install {
				cairn = ShellJoin(s.Command)
			}
			err = add(filepath.Join(s.Root, "AGENTS.md"), func(path string, old []byte) ([]byte, []string, error) {
				return mergeAgentsMD(path, old, cairn)
			})
		}
	}
	if err != nil {
		return nil, err
	}
	return edits, nil
}

// changes reports whether notes record a change (not just a remark).
func changes(notes []string) bool {
	for _, n := range notes {
		if n != "" && n[0] != ' ' {
			return true
		}
	}
	return false
}

// editFile reads path (a missing file is empty) and plans its edit. A
// missing file that f leaves empty is not created.
func editFile(path string, f func(path string, old []byte) ([]byte, []string, error)) (*Edit, error) {
	old, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	if errors.Is(err, fs.ErrNotExist) {
		old = nil
		if filepath.Base(path) == ".claude.json" {
			mode = 0o600
		}
	} else if err != nil {
		return nil, err
	} else if old == nil {
		old = []byte{}
	}
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	out, notes, err := f(path, old)
	if err != nil {
		return nil, err
	}
	e := &Edit{Path: path, Old: old, New: out, Mode: mode, Notes: notes}
	if old == nil && !changes(notes) {
		e.New = nil // nothing to create
	}
	return e, nil
}

// Write writes the edits that change something, each atomically. It
// refuses to overwrite a file that changed since the edit was planned.
func Write(edits []*Edit) error {
	for _, e := range edits {
		if !e.Changed() {
			continue
		}
		if err := writeFile(e); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(e *Edit) error {
	path := e.Path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // keep a dotfiles manager's link
	}
	cur, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if e.Old != nil {
			return fmt.Errorf("%s was removed while cairn was editing it; run again", e.Path)
		}
	case err != nil:
		return err
	case e.Old == nil || !bytes.Equal(cur, e.Old):
		return fmt.Errorf("%s changed while cairn was editing it; run again", e.Path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".cairn-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing to remove
	if _, err := tmp.Write(e.New); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(e.Mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ShellJoin quotes words for a POSIX shell: a word of only safe characters
// stays as it is, any other is single-quoted.
func ShellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:@%+=,", r)) {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}

// SplitCommand splits a command line into words the way a POSIX shell
// would for plain words, '…' and "…" quoting and backslash escapes (no
// variables, globs or operators).
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unbalanced ' in the command")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`unbalanced " in the command`)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
