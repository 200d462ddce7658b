package main

// Tests of `cairn install` and `cairn uninstall` through Main.Run and the
// real binary. The merging rules themselves are tested in package install.
//
// Bad inputs tried here: no agent, an unknown agent ("cursor"), two agents,
// an unknown --scope ("team"), a --command with an unbalanced quote, a
// settings.json with a syntax error on line 3 (exit 1, one line naming
// file and line, file untouched).

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
	if got := readFile(t, filepath.Join(dir, ".mcp.json")); !strings.Contains(got, `"command": "`+cairnBin+`"`) {
		t.Errorf(".mcp.json does not run %s:\n%s", cairnBin, got)
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
	dir := t.TempDir()
	real := filepath.Join(dir, "Cellar", "cairn", "1.2", "bin", "cairn")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Symlink(real, filepath.Join(bin, "cairn")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if got := stableExecutable(real); got != filepath.Join(bin, "cairn") {
		t.Errorf("stableExecutable = %s, want the link on PATH", got)
	}
	other := filepath.Join(dir, "other", "cairn")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755)
	if got := stableExecutable(other); got != other {
		t.Errorf("another cairn on PATH: got %s, want this program %s", got, other)
	}
}

// install claude --http names the local server: the running one's
// address, else the one its last server had, else CAIRN_SERVE_ADDR or
// the default; --dry-run writes nothing; Codex and a remote address are
// refused.
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
	c.env["CAIRN_SERVE_ADDR"] = "127.0.0.1:8111"
	if r := c.raw("", "--db", c.db, "install", "claude", "--command", "cairn", "--http", "--dry-run"); !strings.Contains(r.stdout, "POST http://127.0.0.1:8111/hooks/claude/PreToolUse") {
		t.Errorf("CAIRN_SERVE_ADDR: %v", r)
	}
	if err := os.WriteFile(server.AddrPath(c.db), []byte("127.0.0.1:8112\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := c.raw("", "--db", c.db, "install", "claude", "--command", "cairn", "--http"); r.code != 0 || !strings.Contains(r.stdout, "POST http://127.0.0.1:8112/hooks/claude/SubagentStart") {
		t.Errorf("recorded address: %v", r)
	}
	if b, _ := os.ReadFile(settings); !strings.Contains(string(b), `"url": "http://127.0.0.1:8112/hooks/claude/PostToolUseFailure"`) {
		t.Errorf("settings.json:\n%s", b)
	}
	// Again: nothing to change. Without --http: the command hooks again.
	if r := c.raw("", "--db", c.db, "install", "claude", "--command", "cairn", "--http"); r.code != 0 || strings.Contains(r.stdout, "hook") {
		t.Errorf("second install: %v", r)
	}
	if r := c.raw("", "--db", c.db, "install", "claude", "--command", "cairn"); r.code != 0 ||
		!strings.Contains(r.stdout, "  ~ hook UserPromptSubmit: cairn hook claude user-prompt-submit (timeout 10s)\n") {
		t.Errorf("back to command hooks: %v", r)
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
