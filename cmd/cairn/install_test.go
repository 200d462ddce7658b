package main

// Tests of `cairn install` and `cairn uninstall` through Main.Run and the
// real binary. The merging rules themselves are tested in package install.
//
// Bad inputs tried here: no agent, an unknown agent ("cursor"), two agents,
// an unknown --scope ("team"), a --command with an unbalanced quote, a
// settings.json with a syntax error on line 3 (exit 1, one line naming
// file and line, file untouched).

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/install"
	"github.com/cairn-dev/cairn/server"
)

// installCLI is a cli whose working directory is a git project below its
// folder, with HOME in the folder.
func installCLI(t *testing.T) (c *cli, root string) {
	t.Helper()
	c = newCLI(t)
	root = filepath.Join(c.dir, "proj")
	c.wd = filepath.Join(root, "internal", "api")
	for _, d := range []string{filepath.Join(root, ".git"), c.wd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return c, root
}

func TestInstallClaudeSaysWhatItChangesAndIsIdempotent(t *testing.T) {
	t.Parallel()
	c, root := installCLI(t)
	settings := filepath.Join(root, ".claude", "settings.json")
	mcp := filepath.Join(root, ".mcp.json")

	r := c.raw("", "install", "claude", "--command", "cairn", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, settings+": would be created\n") || !strings.Contains(r.stdout, "dry run: nothing was written") {
		t.Fatalf("dry run: %v", r)
	}
	if _, err := os.Stat(settings); err == nil {
		t.Fatal("--dry-run wrote settings.json")
	}

	r = c.raw("", "install", "claude", "--command", "cairn")
	for _, want := range []string{
		settings + ": created\n",
		"  + hook SessionStart: cairn hook claude session-start (timeout 10s)\n",
		"  + hook SessionEnd: cairn hook claude session-end (timeout 5s)\n",
		mcp + ": created\n",
		"  + MCP server cairn: cairn mcp\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%v", want, r)
		}
	}
	var st struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, settings)), &st); err != nil || len(st.Hooks) != 9 || st.Hooks["Stop"][0].Hooks[0].Command != "cairn hook claude stop" {
		t.Errorf("settings.json: %v %+v", err, st)
	}
	before := readFile(t, settings) + readFile(t, mcp)

	r = c.raw("", "install", "claude", "--command", "cairn")
	if r.code != 0 || strings.Contains(r.stdout, "+") || strings.Count(r.stdout, ": unchanged\n") != 2 {
		t.Errorf("second install: %v", r)
	}
	if readFile(t, settings)+readFile(t, mcp) != before {
		t.Error("second install changed the files")
	}

	r = c.raw("", "uninstall", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, "  - hook Stop: cairn hook claude stop\n") || !strings.Contains(r.stdout, "  - MCP server cairn: cairn mcp\n") {
		t.Errorf("uninstall: %v", r)
	}
	if readFile(t, settings) != "{}\n" || readFile(t, mcp) != "{}\n" {
		t.Errorf("after uninstall: %q %q", readFile(t, settings), readFile(t, mcp))
	}
}

func TestInstallUserScopeAndCodex(t *testing.T) {
	t.Parallel()
	c, root := installCLI(t)
	c.env["CODEX_HOME"] = filepath.Join(c.dir, "codex-home")
	r := c.raw("", "install", "claude", "--scope", "user", "--command", "'/opt/my tools/cairn'", "--capture-tools")
	if r.code != 0 {
		t.Fatal(r)
	}
	got := readFile(t, filepath.Join(c.dir, ".claude", "settings.json"))
	if !strings.Contains(got, `"command": "'/opt/my tools/cairn' hook claude post-tool-use --capture-tools"`) {
		t.Errorf("user settings:\n%s", got)
	}
	if !strings.Contains(readFile(t, filepath.Join(c.dir, ".claude.json")), `"command": "/opt/my tools/cairn"`) {
		t.Error("~/.claude.json lacks cairn's server")
	}
	if _, err := os.Stat(filepath.Join(root, ".claude")); err == nil {
		t.Error("user scope wrote into the project")
	}

	r = c.raw("", "install", "codex", "--command", "cairn")
	if r.code != 0 {
		t.Fatal(r)
	}
	cfg := readFile(t, filepath.Join(c.dir, "codex-home", "config.toml"))
	if !strings.Contains(cfg, "[mcp_servers.cairn]\ncommand = \"cairn\"\nargs = [\"mcp\"]\n") {
		t.Errorf("config.toml:\n%s", cfg)
	}
	if md := readFile(t, filepath.Join(root, "AGENTS.md")); !strings.Contains(md, "cairn context --prompt") {
		t.Errorf("AGENTS.md:\n%s", md)
	}
	if r := c.raw("", "uninstall", "codex"); r.code != 0 || readFile(t, filepath.Join(root, "AGENTS.md")) != "" {
		t.Errorf("uninstall codex: %v", r)
	}
}

func TestInstallMistakes(t *testing.T) {
	t.Parallel()
	c, root := installCLI(t)
	for _, args := range [][]string{
		{"install"}, {"install", "cursor"}, {"install", "claude", "codex"},
		{"install", "claude", "--scope", "team"}, {"uninstall", "claude", "--command", "'cairn"},
	} {
		r := c.raw("", args...)
		if r.code != 2 {
			t.Errorf("%q: want exit 2, got %v", args, r)
		}
		oneErrorLine(t, r)
	}
	settings := filepath.Join(root, ".claude", "settings.json")
	const broken = "{\n  \"model\": \"opus\"\n  \"hooks\": {}\n}\n"
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.raw("", "install", "claude", "--command", "cairn")
	if r.code != 1 || !strings.Contains(r.stderr, settings+":3: malformed JSON") {
		t.Errorf("malformed settings: %v", r)
	}
	oneErrorLine(t, r)
	if readFile(t, settings) != broken {
		t.Error("the malformed file was changed")
	}
	if _, err := os.Stat(filepath.Join(root, ".mcp.json")); err == nil {
		t.Error(".mcp.json written although settings.json was malformed")
	}
}

func TestBinaryInstallUsesItsOwnPath(t *testing.T) {
	needBinary(t)
	t.Parallel()
	dir := t.TempDir()
	r := runBin(t.Context(), dir, "", "install", "claude")
	if r.code != 0 {
		t.Fatal(r)
	}
	// Not on PATH: its path goes to the project's personal files.
	if got := readFile(t, filepath.Join(dir, ".claude", "settings.local.json")); !strings.Contains(got, `"command": "`+cairnBin+` hook claude session-start"`) {
		t.Errorf(".claude/settings.local.json does not run %s:\n%s", cairnBin, got)
	}
	if got := readFile(t, filepath.Join(dir, ".claude.json")); !strings.Contains(got, `"command": "`+cairnBin+`"`) {
		t.Errorf("~/.claude.json does not run %s:\n%s", cairnBin, got)
	}
	// The installed hook runs: a SessionStart payload gets the pinned
	// memory as context, exit 0.
	if r := runBin(t.Context(), dir, "", "add", "--pin", "--type", "decision", "Releases are cut from main only."); r.code != 0 {
		t.Fatal(r)
	}
	cmd := exec.Command(cairnBin, "hook", "claude", "session-start")
	cmd.Dir, cmd.Env = dir, append(binEnv(dir), "CAIRN_NO_SERVER=1")
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"` + dir + `"}`)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"additionalContext"`) || !strings.Contains(string(out), "cut from main only") {
		t.Errorf("hook: %v\n%s", err, out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A cairn reached through a link on PATH (as package managers install it)
// is written as the link, not as the versioned file it points to.
func TestStableExecutablePrefersTheLinkOnPath(t *testing.T) {
	t.Parallel()
	dir, real, bin := linkedCairn(t)
	m := &Main{Getenv: func(k string) string { return map[string]string{"PATH": bin}[k] }}
	if got := stableExecutable(m, real); got != filepath.Join(bin, "cairn") {
		t.Errorf("stableExecutable = %s, want the link on PATH", got)
	}
	other := filepath.Join(dir, "other", "cairn")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755)
	if got := stableExecutable(m, other); got != other {
		t.Errorf("another cairn on PATH: got %s, want this program %s", got, other)
	}
}

// linkedCairn lays out a package manager's install in a folder dir: the
// program at real (dir/Cellar/cairn/1.2/bin/cairn) and a link to it in
// the folder bin.
func linkedCairn(t *testing.T) (dir, real, bin string) {
	t.Helper()
	dir = t.TempDir()
	real = filepath.Join(dir, "Cellar", "cairn", "1.2", "bin", "cairn")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Symlink(real, filepath.Join(bin, "cairn")); err != nil {
		t.Fatal(err)
	}
	return dir, real, bin
}

// A cairn reached through a link on PATH (as package managers install it)
// is this program; another cairn on PATH, a relative folder or a file
// that cannot run is not.
func TestCairnOnPathFindsThisProgramThroughALink(t *testing.T) {
	t.Parallel()
	dir, real, bin := linkedCairn(t)
	noexec := filepath.Join(dir, "noexec")
	os.MkdirAll(noexec, 0o755)
	os.WriteFile(filepath.Join(noexec, "cairn"), []byte("#!/bin/sh\n"), 0o644)
	m := &Main{Getenv: func(k string) string {
		if k == "PATH" {
			return "relative/bin" + string(filepath.ListSeparator) + noexec + string(filepath.ListSeparator) + bin
		}
		return ""
	}}
	got := cairnOnPath(m)
	if got != filepath.Join(bin, "cairn") || !sameProgram(got, real) {
		t.Errorf("cairnOnPath = %s, want the link in %s, the same program as %s", got, bin, real)
	}
	other := filepath.Join(dir, "other", "cairn")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755)
	if sameProgram(got, other) {
		t.Errorf("another cairn is taken for the one on PATH")
	}
}

// Where cairn is on PATH (this very program), the project's hooks run
// it by name from the shared .claude/settings.json (and the MCP server
// from .mcp.json); where it is not, they run its absolute path from the
// personal .claude/settings.local.json (the server from the project's
// entry of ~/.claude.json), and the shared files keep no path of this
// machine. Installing one way
// moves the hooks out of the other file; uninstall takes them out of
// both, and leaves a team's hooks by name in the shared file when it
// installs the personal ones.
func TestInstallClaudeKeepsThisMachinesPathOutOfTheSharedSettings(t *testing.T) {
	t.Parallel()
	c, root := installCLI(t)
	shared, local := filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	commands := func(path string) []string {
		t.Helper()
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return nil
		}
		var st struct {
			Hooks map[string][]struct{ Hooks []struct{ Command string } }
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var out []string
		for _, groups := range st.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					out = append(out, h.Command)
				}
			}
		}
		return out
	}
	mcpJSON, userJSON := filepath.Join(root, ".mcp.json"), filepath.Join(c.dir, ".claude.json")
	// servers is the command of cairn's MCP server in .mcp.json and in
	// ~/.claude.json's entry of the project ("" where there is none).
	servers := func() (project, personal string) {
		t.Helper()
		var p struct {
			MCPServers map[string]struct{ Command string } `json:"mcpServers"`
		}
		var u struct {
			Projects map[string]struct {
				MCPServers map[string]struct{ Command string } `json:"mcpServers"`
			} `json:"projects"`
		}
		if b, err := os.ReadFile(mcpJSON); err == nil {
			json.Unmarshal(b, &p)
		}
		if b, err := os.ReadFile(userJSON); err == nil {
			json.Unmarshal(b, &u)
		}
		return p.MCPServers["cairn"].Command, u.Projects[root].MCPServers["cairn"].Command
	}
	allStart := func(cmds []string, prefix string) bool {
		for _, cmd := range cmds {
			if !strings.HasPrefix(cmd, prefix) {
				return false
			}
		}
		return len(cmds) == 9
	}

	// Not on PATH: the personal file, with this program's path; git
	// does not ignore it yet, which install says.
	os.RemoveAll(filepath.Join(root, ".git"))
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	c.env["PATH"] = filepath.Join(c.dir, "empty-bin")
	r := c.raw("", "install", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, "settings.local.json, the project's personal settings") ||
		!strings.Contains(r.stdout, "git does not ignore .claude/settings.local.json") {
		t.Fatalf("install without cairn on PATH: %v", r)
	}
	if got := commands(local); !allStart(got, install.ShellJoin([]string{exe})+" hook claude ") {
		t.Errorf("settings.local.json hooks: %v", got)
	}
	if got := commands(shared); len(got) != 0 {
		t.Errorf("settings.json got hooks: %v", got)
	}
	if project, personal := servers(); project != "" || personal != exe {
		t.Errorf("MCP server: .mcp.json %q, ~/.claude.json's project %q; want none and %s", project, personal, exe)
	}

	// On PATH (a link to this program): the shared file, by name; the
	// personal file loses its copies, which would run twice.
	bin := filepath.Join(c.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, "cairn")); err != nil {
		t.Fatal(err)
	}
	c.env["PATH"] = bin
	r = c.raw("", "install", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, "by name (found on PATH), so they are in .claude/settings.json") {
		t.Fatalf("install with cairn on PATH: %v", r)
	}
	if got := commands(shared); !allStart(got, "cairn hook claude ") {
		t.Errorf("settings.json hooks: %v", got)
	}
	if got := commands(local); len(got) != 0 {
		t.Errorf("settings.local.json keeps hooks: %v", got)
	}
	if strings.Contains(readFile(t, shared), exe) {
		t.Errorf("settings.json holds this machine's path:\n%s", readFile(t, shared))
	}
	if project, personal := servers(); project != "cairn" || personal != "" {
		t.Errorf("MCP server: .mcp.json %q, ~/.claude.json's project %q; want cairn and none", project, personal)
	}

	// Off PATH again: the personal file; the shared hooks by name stay
	// (a team's; they fail harmlessly where cairn is not on PATH). Git
	// ignores the personal file now: nothing to say about it.
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(".claude/settings.local.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.env["PATH"] = filepath.Join(c.dir, "empty-bin")
	if r := c.raw("", "install", "claude"); r.code != 0 || strings.Contains(r.stdout, "git does not ignore") {
		t.Fatal(r)
	}
	if got := commands(shared); !allStart(got, "cairn hook claude ") {
		t.Errorf("settings.json after a personal install: %v", got)
	}
	if got := commands(local); !allStart(got, install.ShellJoin([]string{exe})+" hook claude ") {
		t.Errorf("settings.local.json after a personal install: %v", got)
	}

	// An old install that wrote a path into the shared file: a personal
	// install moves those hooks out of it.
	writeJSON := func(path, cmd string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"model": "opus", "hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}})
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeJSON(shared, "/home/someone/bin/cairn hook claude stop")
	if r := c.raw("", "install", "claude"); r.code != 0 || !strings.Contains(r.stdout, "- hook Stop: /home/someone/bin/cairn hook claude stop") {
		t.Fatalf("personal install over a shared path: %v", r)
	}
	if got := commands(shared); len(got) != 0 || !strings.Contains(readFile(t, shared), `"model": "opus"`) {
		t.Errorf("settings.json after moving the path out: %s", readFile(t, shared))
	}

	// Uninstall: both files.
	writeJSON(shared, "cairn hook claude stop")
	if r := c.raw("", "uninstall", "claude"); r.code != 0 {
		t.Fatal(r)
	}
	if got := append(commands(shared), commands(local)...); len(got) != 0 {
		t.Errorf("after uninstall: %v", got)
	}
	if project, personal := servers(); project != "" || personal != "" {
		t.Errorf("MCP server after uninstall: .mcp.json %q, ~/.claude.json's project %q", project, personal)
	}
}

// install claude --http names the local server: the running one's
// address, else the one its last server had, else CAIRN_SERVE_ADDR or
// the default; it makes the database when there is none; --dry-run
// writes nothing; Codex and a remote address are refused.
func TestInstallClaudeHTTPNamesTheLocalServer(t *testing.T) {
	t.Parallel()
	c, root := installCLI(t)
	settings := filepath.Join(root, ".claude", "settings.json")
	r := c.raw("", "--db", c.db, "install", "claude", "--command", "cairn", "--http", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "  + hook UserPromptSubmit: POST http://127.0.0.1:7421/hooks/claude/UserPromptSubmit (timeout 10s)\n") ||
		!strings.Contains(r.stdout, "  + hook SessionStart: cairn hook claude session-start (timeout 10s)\n") {
		t.Fatalf("dry run: %v", r)
	}
	if _, err := os.Stat(settings); err == nil {
		t.Fatal("--dry-run wrote settings.json")
	}
	// The database does not exist yet: install makes it, so that the
	// session start's hook starts its server from the first session.
	if !strings.Contains(r.stdout, c.db+": would be created (the database") {
		t.Errorf("dry run: want the database to be created: %v", r)
	}
	if _, err := os.Stat(c.db); err == nil {
		t.Fatal("--dry-run created the database")
	}
	c.env["CAIRN_SERVE_ADDR"] = "127.0.0.1:8111"
	if r := c.raw("", "--db", c.db, "install", "claude", "--command", "cairn", "--http", "--dry-run"); !strings.Contains(r.stdout, "POST http://127.0.0.1:8111/hooks/claude/PreToolUse") {
		t.Errorf("CAIRN_SERVE_ADDR: %v", r)
	}
	if err := os.WriteFile(server.AddrPath(c.db), []byte("127.0.0.1:8112\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = c.raw("", "--db", c.db, "install", "claude", "--command", "cairn", "--http")
	if r.code != 0 || !strings.Contains(r.stdout, "POST http://127.0.0.1:8112/hooks/claude/SubagentStart") {
		t.Errorf("recorded address: %v", r)
	}
	if b, _ := os.ReadFile(settings); !strings.Contains(string(b), `"url": "http://127.0.0.1:8112/hooks/claude/PostToolUseFailure"`) {
		t.Errorf("settings.json:\n%s", b)
	}
	if _, err := os.Stat(c.db); err != nil || !strings.Contains(r.stdout, c.db+": created (the database") {
		t.Errorf("install --http made no database at %s (%v): %v", c.db, err, r)
	}
	// Again: nothing to change. Without --http: the command hooks again.
	if r := c.raw("", "--db", c.db, "install", "claude", "--command", "cairn", "--http"); r.code != 0 || strings.Contains(r.stdout, "hook") || strings.Contains(r.stdout, c.db) {
		t.Errorf("second install: %v", r)
	}
	if r := c.raw("", "--db", c.db, "install", "claude", "--command", "cairn"); r.code != 0 ||
		!strings.Contains(r.stdout, "  ~ hook UserPromptSubmit: cairn hook claude user-prompt-submit (timeout 10s)\n") {
		t.Errorf("back to command hooks: %v", r)
	}
	// The configured port held by another program: install takes the next
	// free one and records it for the server.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	os.Remove(server.AddrPath(c.db))
	c.env["CAIRN_SERVE_ADDR"] = taken.Addr().String()
	r = c.raw("", "--db", c.db, "install", "claude", "--command", "cairn", "--http")
	got := server.RecordedAddr(c.db)
	if r.code != 0 || got == "" || got == taken.Addr().String() || !strings.Contains(r.stdout, "POST http://"+got+"/hooks/claude/UserPromptSubmit") {
		t.Errorf("a taken port: recorded %q, %v", got, r)
	}
	for _, bad := range []struct {
		env  string
		args []string
	}{
		{"", []string{"install", "codex", "--http", "--dry-run"}},
		{"203.0.113.9:7421", []string{"install", "claude", "--http", "--dry-run"}},
		{"off", []string{"install", "claude", "--http", "--dry-run"}},
	} {
		c.env["CAIRN_SERVE_ADDR"] = bad.env
		os.Remove(server.AddrPath(c.db))
		if r := c.raw("", append([]string{"--db", c.db}, bad.args...)...); r.code != 2 || r.stderr == "" {
			t.Errorf("%v with CAIRN_SERVE_ADDR=%q: %v", bad.args, bad.env, r)
		}
	}
}

// The real binary, from nothing: install --http makes the database, so
// the session start's hook of the very first session starts the server,
// and the http hook of the first prompt reaches it (with no database,
// nobody would answer it until something was remembered).
func TestBinaryInstallHTTPServesTheFirstSession(t *testing.T) {
	needBinary(t)
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	project := filepath.Join(dir, "authsvc")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	addr := freeLoopbackAddr(t)
	env := []string{"HOME=" + dir, "XDG_DATA_HOME=" + filepath.Join(dir, "xdg"), "CAIRN_SERVE_ADDR=" + addr}
	if r := runBinEnv(ctx, project, env, "install", "claude", "--http", "--command", cairnBin); r.code != 0 {
		t.Fatalf("%v", r)
	}
	db := filepath.Join(dir, "xdg", "cairn", "cairn.db")
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("install --http made no database: %v", err)
	}
	defer runBinEnv(context.Background(), project, env, "serve", "stop")
	payload := func(event, extra string) string {
		return fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"cwd":%q,"permission_mode":"default","hook_event_name":%q%s}`,
			filepath.Join(dir, "t.jsonl"), project, event, extra)
	}
	cmd := exec.CommandContext(ctx, cairnBin, "hook", "claude", "session-start")
	cmd.Dir, cmd.Env = project, append(binEnv(project), env...)
	cmd.Stdin = strings.NewReader(payload("SessionStart", `,"source":"startup"`))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("session-start: %v\n%s", err, out)
	}
	// The hook waited for the server it started to answer.
	resp, err := http.Post("http://"+addr+"/hooks/claude/UserPromptSubmit", "application/json",
		strings.NewReader(payload("UserPromptSubmit", `,"prompt":"why do the Postgres tests skip"`)))
	if err != nil {
		t.Fatalf("the first prompt's http hook reached no server: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the first prompt's http hook: %s", resp.Status)
	}
}

// install --http writes headers that say the session's database
// (CAIRN_DB, CAIRN_DB_FILE), but not when one of them holds characters
// Claude Code cannot send in a header: it says so, and leaves them out.
func TestInstallClaudeHTTPSaysTheDatabaseWhereClaudeCodeCan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		db   string
		says bool
	}{{"", true}, {"café/cairn.db", true}, {"記憶/cairn.db", false}} {
		c, root := installCLI(t)
		if tc.db != "" {
			c.env["CAIRN_DB"] = filepath.Join(c.dir, tc.db)
		}
		r := c.raw("", "install", "claude", "--command", "cairn", "--http")
		b, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
		says := strings.Contains(string(b), `"X-Cairn-Database": "CAIRN_DB=${CAIRN_DB}"`) && strings.Contains(string(b), `"CAIRN_DB_FILE"`)
		noted := strings.Contains(r.stderr, "CAIRN_DB holds characters beyond Latin-1")
		if r.code != 0 || says != tc.says || noted == tc.says {
			t.Errorf("CAIRN_DB=%q: headers %v (want %v), noted %v: %v\n%s", tc.db, says, tc.says, noted, r, b)
		}
	}
}
