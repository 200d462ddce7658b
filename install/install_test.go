package install

// Tests of the merging: users' files keep everything of theirs, byte for
// byte where cairn changes nothing, and uninstall gives them back.
//
// Bad inputs tried here: JSON with a trailing comma (the error names line
// 4), a JSON array at the top level, "hooks" that is an array, an event
// whose value is an object, an "mcpServers" entry named cairn that runs
// another program, TOML with an unclosed table header, a config.toml that
// already defines [mcp_servers.cairn] itself, a config.toml whose
// mcp_servers is an inline table (adding cairn's table would break it),
// an AGENTS.md with cairn's begin marker and no end marker. Each is an
// error naming the file, and no file is written or created.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

const cairnExe = "/opt/cairn/bin/cairn"

func newSetup(t *testing.T, agent, scope string) *Setup {
	t.Helper()
	dir := t.TempDir()
	s := &Setup{Agent: agent, Scope: scope, Root: filepath.Join(dir, "proj"), Home: filepath.Join(dir, "home"), Command: []string{cairnExe}}
	for _, d := range []string{s.Root, s.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run plans and writes; it returns the edits.
func run(t *testing.T, s *Setup, install bool) []*Edit {
	t.Helper()
	var edits []*Edit
	var err error
	if install {
		edits, err = s.Install()
	} else {
		edits, err = s.Uninstall()
	}
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if err := Write(edits); err != nil {
		t.Fatalf("write: %v", err)
	}
	return edits
}

func changedFiles(edits []*Edit) []string {
	var out []string
	for _, e := range edits {
		if e.Changed() {
			out = append(out, e.Path)
		}
	}
	return out
}

// A user's settings: hooks of their own on cairn's events (with and
// without matchers) and on others, unknown keys, escapes and numbers
// spelled their way.
const userSettings = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(go test:*)",
      "Read(~/notes/caf\u00e9.md)"
    ],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/guard.sh",
            "timeout": 5
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hello"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "cleanupPeriodDays": 30.50,
  "env": {
    "FOO": "<bar> & \"baz\""
  }
}
`

const userMCP = `{
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {
        "GITHUB_TOKEN": "${GITHUB_TOKEN}"
      }
    },
    "docs": {
      "type": "http",
      "url": "https://example.com/mcp"
    }
  }
}
`

// claudeSettings is the shape Claude Code loads, strictly: every hook
// handler a command with a positive timeout.
type claudeSettings struct {
	Hooks map[string][]struct {
		Matcher *string `json:"matcher"`
		Hooks   []struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// eventsWithoutMatcher are the events whose matcher Claude Code ignores.
var eventsWithoutMatcher = map[string]bool{"UserPromptSubmit": true, "Stop": true, "SubagentStop": true, "Notification": true}

// checkClaudeShape decodes a settings file as Claude Code reads hooks and
// returns cairn's hook commands by event.
func checkClaudeShape(t *testing.T, data string) map[string]string {
	t.Helper()
	var st claudeSettings
	if err := json.Unmarshal([]byte(data), &st); err != nil {
		t.Fatalf("settings are not Claude Code's shape: %v\n%s", err, data)
	}
	cairn := map[string]string{}
	for ev, groups := range st.Hooks {
		if _, ok := HookEvents[ev]; !ok && ev != "PreToolUse" {
			t.Errorf("unknown event %q", ev)
		}
		for _, g := range groups {
			if len(g.Hooks) == 0 {
				t.Errorf("%s: a matcher group without handlers", ev)
			}
			for _, h := range g.Hooks {
				if h.Type != "command" || h.Command == "" {
					t.Errorf("%s: handler %+v", ev, h)
				}
				if e, ok := IsCairnHook(h.Command); ok {
					if h.Timeout <= 0 {
						t.Errorf("%s: cairn's hook has no timeout", ev)
					}
					if e != HookEvents[ev] {
						t.Errorf("%s runs cairn's %s hook", ev, e)
					}
					wantMatcher := map[string]string{"PostToolUse": "Bash", "PostToolUseFailure": "Bash", "PreToolUse": PreToolUseMatcher}[ev]
					if g.Matcher != nil && (eventsWithoutMatcher[ev] || *g.Matcher != wantMatcher) {
						t.Errorf("%s: cairn's group has matcher %q", ev, *g.Matcher)
					}
					if _, dup := cairn[ev]; dup {
						t.Errorf("%s: cairn's hook twice", ev)
					}
					cairn[ev] = h.Command
				}
			}
		}
	}
	return cairn
}

func decode(t *testing.T, data string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return v
}

func TestClaudeProjectInstallKeepsTheUsersEntriesAndUninstallRestoresThem(t *testing.T) {
	s := newSetup(t, Claude, ScopeProject)
	settings := filepath.Join(s.Root, ".claude", "settings.json")
	mcp := filepath.Join(s.Root, ".mcp.json")
	writeTestFile(t, settings, userSettings)
	writeTestFile(t, mcp, userMCP)

	edits := run(t, s, true)
	if got := changedFiles(edits); len(got) != 2 {
		t.Fatalf("changed %v, want both files", got)
	}
	after := readTestFile(t, settings)
	cairn := checkClaudeShape(t, after)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionEnd"} {
		if want := cairnExe + " hook claude " + HookEvents[ev]; cairn[ev] != want {
			t.Errorf("%s: cairn's command %q, want %q", ev, cairn[ev], want)
		}
	}
	if _, ok := cairn["PostToolUse"]; ok {
		t.Error("PostToolUse installed without CaptureTools")
	}
	// Every key of the user's is still there with the same value; their
	// hooks come first in each event's list, unchanged.
	orig, now := decode(t, userSettings), decode(t, after)
	for k, v := range orig {
		if k == "hooks" {
			continue
		}
		if !reflect.DeepEqual(now[k], v) {
			t.Errorf("%s changed: %v → %v", k, v, now[k])
		}
	}
	oh, nh := orig["hooks"].(map[string]any), now["hooks"].(map[string]any)
	for ev, groups := range oh {
		got := nh[ev].([]any)
		if !reflect.DeepEqual(got[:len(groups.([]any))], groups) {
			t.Errorf("%s: the user's groups changed: %v", ev, got)
		}
	}
	// Scalars keep their spelling, keys their order.
	for _, s := range []string{`"Read(~/notes/caf\u00e9.md)"`, `30.50`, `"<bar> & \"baz\""`} {
		if !strings.Contains(after, s) {
			t.Errorf("%s lost its spelling:\n%s", s, after)
		}
	}
	// The user's PreToolUse group stays first, as it was; cairn's follows.
	if !strings.HasPrefix(after, userSettings[:strings.Index(userSettings, `"timeout": 5
          }
        ]
      }`)]) {
		t.Errorf("the file's start changed:\n%s", after)
	}

	servers := decode(t, readTestFile(t, mcp))["mcpServers"].(map[string]any)
	for k, v := range decode(t, userMCP)["mcpServers"].(map[string]any) {
		if !reflect.DeepEqual(servers[k], v) {
			t.Errorf("server %s changed", k)
		}
	}
	want := map[string]any{"type": "stdio", "command": cairnExe, "args": []any{"mcp"}}
	if !reflect.DeepEqual(servers["cairn"], want) {
		t.Errorf("cairn's server %v, want %v", servers["cairn"], want)
	}

	// Twice: nothing changes, nothing is written.
	mcpAfter := readTestFile(t, mcp)
	if got := changedFiles(run(t, s, true)); len(got) != 0 {
		t.Errorf("second install changed %v", got)
	}
	if readTestFile(t, settings) != after || readTestFile(t, mcp) != mcpAfter {
		t.Error("second install changed bytes")
	}

	// Uninstall gives back the user's files byte for byte.
	run(t, s, false)
	if got := readTestFile(t, settings); got != userSettings {
		t.Errorf("uninstall left\n%s\nwant\n%s", got, userSettings)
	}
	if got := readTestFile(t, mcp); got != userMCP {
		t.Errorf("uninstall left\n%s\nwant\n%s", got, userMCP)
	}
	if got := changedFiles(run(t, s, false)); len(got) != 0 {
		t.Errorf("second uninstall changed %v", got)
	}
}

const freshSettings = `{
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude session-start",
            "timeout": 10
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude user-prompt-submit",
            "timeout": 10
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Edit|MultiEdit|Write|NotebookEdit|Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude pre-tool-use",
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude post-tool-use-failure",
            "timeout": 10
          }
        ]
      }
    ],
    "SubagentStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude subagent-start",
            "timeout": 10
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude stop",
            "timeout": 45
          }
        ]
      }
    ],
    "SubagentStop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude subagent-stop",
            "timeout": 45
          }
        ]
      }
    ],
    "PreCompact": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude pre-compact",
            "timeout": 45
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude session-end",
            "timeout": 5
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/cairn/bin/cairn hook claude post-tool-use --capture-tools",
            "timeout": 45
          }
        ]
      }
    ]
  }
}
`

const freshMCP = `{
  "mcpServers": {
    "cairn": {
      "type": "stdio",
      "command": "/opt/cairn/bin/cairn",
      "args": [
        "mcp"
      ]
    }
  }
}
`

func TestClaudeFreshProjectGetsNewFilesAndUninstallLeavesEmptyObjects(t *testing.T) {
	s := newSetup(t, Claude, ScopeProject)
	s.CaptureTools = true
	edits := run(t, s, true)
	if len(changedFiles(edits)) != 2 || edits[0].Old != nil {
		t.Fatalf("edits %+v", edits)
	}
	settings := filepath.Join(s.Root, ".claude", "settings.json")
	if got := readTestFile(t, settings); got != freshSettings {
		t.Errorf("settings.json:\n%s\nwant\n%s", got, freshSettings)
	}
	checkClaudeShape(t, readTestFile(t, settings))
	if got := readTestFile(t, filepath.Join(s.Root, ".mcp.json")); got != freshMCP {
		t.Errorf(".mcp.json:\n%s\nwant\n%s", got, freshMCP)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	if _, err := os.Stat(filepath.Join(s.Home, ".claude")); err == nil {
		t.Error("project scope touched the home folder")
	}

	// Without CaptureTools, install takes the PostToolUse hook out again.
	s.CaptureTools = false
	edits = run(t, s, true)
	if got := readTestFile(t, settings); strings.Contains(got, `"PostToolUse"`) {
		t.Errorf("PostToolUse kept:\n%s", got)
	}
	if !strings.Contains(strings.Join(edits[0].Notes, "\n"), "- hook PostToolUse") {
		t.Errorf("notes %q", edits[0].Notes)
	}

	run(t, s, false)
	for _, p := range []string{settings, filepath.Join(s.Root, ".mcp.json")} {
		if got := readTestFile(t, p); got != "{}\n" {
			t.Errorf("%s after uninstall: %q", p, got)
		}
	}
}

func TestClaudeInstallUpdatesItsHooksInPlace(t *testing.T) {
	s := newSetup(t, Claude, ScopeProject)
	settings := filepath.Join(s.Root, ".claude", "settings.json")
	writeTestFile(t, settings, userSettings)
	run(t, s, true)
	first := readTestFile(t, settings)

	s.Command = []string{"/new place/cairn"}
	edits := run(t, s, true)
	got := readTestFile(t, settings)
	cairn := checkClaudeShape(t, got)
	if cairn["Stop"] != `'/new place/cairn' hook claude stop` {
		t.Errorf("Stop: %q", cairn["Stop"])
	}
	if n := strings.Count(got, "hook claude"); n != 9 {
		t.Errorf("%d cairn hooks, want 9:\n%s", n, got)
	}
	// Same structure: only the commands differ.
	if strings.ReplaceAll(got, `'/new place/cairn'`, cairnExe) != first {
		t.Errorf("update moved things:\n%s", got)
	}
	if !strings.HasPrefix(edits[0].Notes[0], "~ hook") {
		t.Errorf("notes %q", edits[0].Notes)
	}
	// The quoted program is still recognised: uninstall restores.
	run(t, s, false)
	if readTestFile(t, settings) != userSettings {
		t.Error("uninstall after an update did not restore the file")
	}
}

func TestUninstallRemovesOnlyWhatItEmptied(t *testing.T) {
	s := newSetup(t, Claude, ScopeProject)
	settings := filepath.Join(s.Root, ".claude", "settings.json")
	// The user's own empty group, event and server map stay.
	const own = `{
  "hooks": {
    "Notification": [],
    "Stop": [
      {
        "hooks": []
      }
    ]
  },
  "mcpServers": {}
}
`
	writeTestFile(t, settings, own)
	run(t, s, true)
	run(t, s, false)
	if got := readTestFile(t, settings); got != own {
		t.Errorf("got\n%s\nwant\n%s", got, own)
	}
}

func TestClaudeUserScopeWritesUnderHome(t *testing.T) {
	s := newSetup(t, Claude, ScopeUser)
	claudeJSON := filepath.Join(s.Home, ".claude.json")
	// Claude Code's own file: no final newline, many keys, other servers.
	const state = `{
  "numStartups": 12,
  "projects": {
    "/work/x": {
      "mcpServers": {}
    }
  },
  "mcpServers": {
    "notes": {
      "command": "notes-mcp",
      "args": []
    }
  }
}`
	writeTestFile(t, claudeJSON, state)
	if err := os.Chmod(claudeJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, s, true)
	settings := filepath.Join(s.Home, ".claude", "settings.json")
	checkClaudeShape(t, readTestFile(t, settings))
	got := readTestFile(t, claudeJSON)
	if strings.HasSuffix(got, "\n") {
		t.Error("a final newline was added")
	}
	v := decode(t, got)
	if v["numStartups"] != float64(12) || v["mcpServers"].(map[string]any)["notes"] == nil || v["mcpServers"].(map[string]any)["cairn"] == nil {
		t.Errorf(".claude.json: %s", got)
	}
	if p := v["projects"].(map[string]any)["/work/x"].(map[string]any)["mcpServers"]; len(p.(map[string]any)) != 0 {
		t.Error("the project's local servers changed")
	}
	if fi, _ := os.Stat(claudeJSON); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(s.Root); len(entries) != 0 {
		t.Errorf("user scope wrote into the project: %v", entries)
	}
	run(t, s, false)
	if got := readTestFile(t, claudeJSON); got != state {
		t.Errorf("uninstall left\n%s", got)
	}
}

func TestIndentationAndSymlinksAreKept(t *testing.T) {
	s := newSetup(t, Claude, ScopeProject)
	real := filepath.Join(s.Root, "dotfiles", "settings.json")
	const four = "{\n    \"model\": \"opus\"\n}\n"
	writeTestFile(t, real, four)
	link := filepath.Join(s.Root, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	run(t, s, true)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	got := readTestFile(t, real)
	if !strings.Contains(got, "\n        \"SessionStart\": [\n            {") {
		t.Errorf("not indented by four spaces:\n%s", got)
	}
	run(t, s, false)
	if readTestFile(t, real) != four {
		t.Errorf("uninstall left\n%s", readTestFile(t, real))
	}
}

const userCodexConfig = `# My Codex settings
model = "o4-mini"   # the fast one

[features]
web_search = true

# servers I use
[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { "GITHUB_TOKEN" = "x" }

[mcp_servers.docs]
url = "https://example.com/mcp"
`

func TestCodexInstallKeepsCommentsAndTables(t *testing.T) {
	s := newSetup(t, Codex, ScopeUser)
	cfg := filepath.Join(s.Home, ".codex", "config.toml")
	agents := filepath.Join(s.Root, "AGENTS.md")
	const userAgents = "# Agents\n\nRun `make test` before committing.\n"
	writeTestFile(t, cfg, userCodexConfig)
	writeTestFile(t, agents, userAgents)

	edits := run(t, s, true)
	if got := changedFiles(edits); len(got) != 3 {
		t.Fatalf("changed %v, want config.toml, hooks.json, AGENTS.md", got)
	}
	got := readTestFile(t, cfg)
	if !strings.HasPrefix(got, userCodexConfig+"\n"+tomlBegin) || !strings.HasSuffix(got, tomlEnd+"\n") {
		t.Errorf("config.toml:\n%s", got)
	}
	var conf struct {
		Model      string
		MCPServers map[string]struct {
			Command string
			Args    []string
			URL     string
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(got, &conf); err != nil {
		t.Fatal(err)
	}
	if c := conf.MCPServers["cairn"]; c.Command != cairnExe || !reflect.DeepEqual(c.Args, []string{"mcp"}) {
		t.Errorf("cairn server %+v", c)
	}
	if conf.MCPServers["github"].Command != "npx" || conf.MCPServers["docs"].URL == "" || conf.Model != "o4-mini" {
		t.Errorf("the user's settings changed: %+v", conf)
	}
	hooks := readTestFile(t, filepath.Join(s.Home, ".codex", "hooks.json"))
	cairn := checkClaudeShape(t, hooks)
	if len(cairn) != 4 || cairn["UserPromptSubmit"] != cairnExe+" hook codex user-prompt-submit" || cairn["PostToolUse"] != cairnExe+" hook codex post-tool-use" {
		t.Errorf("hooks.json:\n%s", hooks)
	}
	md := readTestFile(t, agents)
	if !strings.HasPrefix(md, userAgents+"\n<!-- cairn:begin") || !strings.Contains(md, cairnExe+" context --prompt") || !strings.Contains(md, "capture") {
		t.Errorf("AGENTS.md:\n%s", md)
	}

	if got := changedFiles(run(t, s, true)); len(got) != 0 {
		t.Errorf("second install changed %v", got)
	}
	run(t, s, false)
	if got := readTestFile(t, cfg); got != userCodexConfig {
		t.Errorf("config.toml after uninstall:\n%s", got)
	}
	if got := readTestFile(t, agents); got != userAgents {
		t.Errorf("AGENTS.md after uninstall:\n%q", got)
	}
	if got := readTestFile(t, filepath.Join(s.Home, ".codex", "hooks.json")); got != "{}\n" {
		t.Errorf("hooks.json after uninstall: %q", got)
	}
}

func TestCodexProjectScopeAndCodexHome(t *testing.T) {
	s := newSetup(t, Codex, ScopeProject)
	run(t, s, true)
	for _, p := range []string{".codex/config.toml", ".codex/hooks.json", "AGENTS.md"} {
		if _, err := os.Stat(filepath.Join(s.Root, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	u := newSetup(t, Codex, ScopeUser)
	u.CodexHome = filepath.Join(u.Home, "elsewhere")
	u.NoAgentsMD = true
	run(t, u, true)
	if _, err := os.Stat(filepath.Join(u.CodexHome, "config.toml")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(u.Root, "AGENTS.md")); err == nil {
		t.Error("AGENTS.md written with NoAgentsMD")
	}
}

func TestMalformedFilesAreLeftUntouched(t *testing.T) {
	// Files that are well-formed but wrong only for install.
	uninstallFine := map[string]bool{"foreign cairn server": true, "their cairn table": true, "inline servers": true}
	for _, c := range []struct {
		name, agent, file, content, want string
		line                             int
	}{
		{"trailing comma", Claude, ".claude/settings.json", "{\n  \"model\": \"opus\",\n  \"x\": 1,\n}\n", "malformed JSON", 4},
		{"array", Claude, ".claude/settings.json", "[1, 2]\n", "not a JSON object", 1},
		{"hooks array", Claude, ".claude/settings.json", `{"hooks": []}`, `"hooks" is not a JSON object`, 0},
		{"event object", Claude, ".claude/settings.json", `{"hooks": {"Stop": {}}}`, "hooks.Stop is not a JSON array", 0},
		{"foreign cairn server", Claude, ".mcp.json", `{"mcpServers": {"cairn": {"command": "python3", "args": ["stones.py"]}}}`, "does not run cairn", 0},
		{"bad toml", Codex, ".codex/config.toml", "model = \"x\"\n[mcp_servers.a\ncommand = \"y\"\n", "malformed TOML", 2},
		{"their cairn table", Codex, ".codex/config.toml", "[mcp_servers.cairn]\ncommand = \"other\"\n", "already defined", 0},
		{"inline servers", Codex, ".codex/config.toml", "# servers\nmcp_servers = { a = { command = \"x\" } }\n", "inline table", 2},
		{"unclosed block", Codex, "AGENTS.md", "# A\n<!-- cairn:begin -->\ntext\n", "no \"<!-- cairn:end\" line", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSetup(t, c.agent, ScopeProject)
			path := filepath.Join(s.Root, c.file)
			writeTestFile(t, path, c.content)
			for _, install := range []bool{true, false} {
				var err error
				if install {
					_, err = s.Install()
				} else {
					_, err = s.Uninstall()
				}
				if !install && uninstallFine[c.name] {
					if err != nil {
						t.Errorf("uninstall: %v", err)
					}
					continue // nothing of cairn's there: left alone, not an error
				}
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("install=%v: err %v, want a SyntaxError", install, err)
				}
				if se.Path != path || !strings.Contains(err.Error(), c.want) || se.Line != c.line || !strings.HasPrefix(err.Error(), path) {
					t.Errorf("install=%v: %v (line %d), want %q at line %d", install, err, se.Line, c.want, c.line)
				}
			}
			if got := readTestFile(t, path); got != c.content {
				t.Errorf("file changed: %q", got)
			}
			var files []string
			filepath.Walk(s.Root, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					files = append(files, p)
				}
				return nil
			})
			if len(files) != 1 {
				t.Errorf("files now: %v", files)
			}
		})
	}
}

func TestWriteRefusesAFileChangedMeanwhile(t *testing.T) {
	s := newSetup(t, Claude, ScopeProject)
	settings := filepath.Join(s.Root, ".claude", "settings.json")
	writeTestFile(t, settings, "{}\n")
	edits, err := s.Install()
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, settings, "{\"model\": \"x\"}\n")
	if err := Write(edits); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Errorf("err %v", err)
	}
	if got := readTestFile(t, settings); got != "{\"model\": \"x\"}\n" {
		t.Errorf("overwritten: %q", got)
	}
}

func TestRecognisingCairnsEntries(t *testing.T) {
	for cmd, want := range map[string]string{
		"/usr/local/bin/cairn hook claude stop":                        "stop",
		"cairn hook claude session-start":                              "session-start",
		"'/my tools/cairn' hook claude pre-compact":                    "pre-compact",
		"go run ./cmd/cairn hook claude stop":                          "stop",
		"cairn hook claude post-tool-use --capture-tools":              "post-tool-use",
		"/opt/cairn-v2/bin/cairn.exe  hook codex user-prompt-submit  ": "user-prompt-submit",
		"~/bin/guard.sh":                     "",
		"python3 hook.py hook claude stop":   "",
		"cairn hook claude stop && rm -rf /": "",
		"echo cairn hook claude":             "",
	} {
		got, ok := IsCairnHook(cmd)
		if got != want || ok != (want != "") {
			t.Errorf("%q: %q %v, want %q", cmd, got, ok, want)
		}
	}
	if !IsCairnServer("/x/cairn", []string{"mcp"}) || !IsCairnServer("go", []string{"run", "./cmd/cairn", "mcp"}) || IsCairnServer("python3", []string{"stones.py"}) {
		t.Error("IsCairnServer")
	}
}

func TestShellWords(t *testing.T) {
	for _, words := range [][]string{{"cairn"}, {"/a b/cairn", "it's"}, {"go", "run", "./cmd/cairn"}, {""}} {
		got, err := SplitCommand(ShellJoin(words))
		if err != nil || !reflect.DeepEqual(got, words) {
			t.Errorf("%q → %q → %q %v", words, ShellJoin(words), got, err)
		}
	}
	if got, _ := SplitCommand(`"/x y/cairn" --flag a\ b`); !reflect.DeepEqual(got, []string{"/x y/cairn", "--flag", "a b"}) {
		t.Errorf("%q", got)
	}
	if _, err := SplitCommand(`'unbalanced`); err == nil {
		t.Error("unbalanced quote accepted")
	}
}

func TestEncodeRoundTripsCanonicalJSON(t *testing.T) {
	for _, doc := range []string{userSettings, userMCP, freshSettings, "{}\n", "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    null,\n    true,\n    -1.5e3\n  ]\n}\n"} {
		n, err := parseObject("x.json", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := render(n, []byte(doc)); !bytes.Equal(got, []byte(doc)) {
			t.Errorf("round trip:\n%s\nwant\n%s", got, doc)
		}
	}
}

// A command whose program is not named cairn… would write entries that a
// later install or uninstall could not recognise as cairn's: refused, and
// nothing is written.
func TestInstallRefusesACommandItCouldNotFindAgain(t *testing.T) {
	for _, cmd := range [][]string{{"/opt/tools/cn"}, {"mem"}, {"/usr/bin/env", "mem"}} {
		s := &Setup{Agent: Claude, Scope: ScopeProject, Root: t.TempDir(), Home: t.TempDir(), Command: cmd}
		edits, err := s.Install()
		if err == nil || !strings.Contains(err.Error(), "starts with cairn") || edits != nil {
			t.Errorf("install with %q: %v, %d edits", cmd, err, len(edits))
		}
	}
	s := &Setup{Agent: Claude, Scope: ScopeProject, Root: t.TempDir(), Home: t.TempDir(), Command: []string{"/opt/tools/cairn-1.2"}}
	if _, err := s.Install(); err != nil {
		t.Errorf("a cairn-named program: %v", err)
	}
}

// A key a user added to one of cairn's hooks (async, say) survives an
// install that updates the hook, and an install that finds it unchanged
// writes nothing.
func TestReinstallKeepsKeysTheUserAddedToCairnsHooks(t *testing.T) {
	s := newSetup(t, Claude, ScopeProject)
	settings := filepath.Join(s.Root, ".claude", "settings.json")
	run(t, s, true)
	text := readTestFile(t, settings)
	old := `"command": "` + cairnExe + ` hook claude stop",`
	if !strings.Contains(text, old) {
		t.Fatalf("no Stop hook to edit:\n%s", text)
	}
	writeTestFile(t, settings, strings.Replace(text, old, old+"\n            \"async\": true,", 1))
	if edits := run(t, s, true); len(changedFiles(edits)) != 0 {
		t.Errorf("an install with nothing to change changed %v", changedFiles(edits))
	}
	s.Command = []string{"/new place/cairn"}
	run(t, s, true)
	got := readTestFile(t, settings)
	if !strings.Contains(got, `"command": "'/new place/cairn' hook claude stop",`+"\n            \"async\": true,") {
		t.Errorf("the user's async key was lost or moved:\n%s", got)
	}
}

// [mcp_servers.cairn.env] added by the user outside cairn's block (to set
// CAIRN_DB, say) is kept by a second install, and uninstall says it is
// left behind.
func TestCodexKeepsTheUsersAdditionsToCairnsServer(t *testing.T) {
	s := newSetup(t, Codex, ScopeUser)
	s.NoAgentsMD = true
	conf := filepath.Join(s.Home, ".codex", "config.toml")
	run(t, s, true)
	withEnv := readTestFile(t, conf) + "\n[mcp_servers.cairn.env]\nCAIRN_DB = \"/data/cairn.db\"\n"
	writeTestFile(t, conf, withEnv)
	if edits := run(t, s, true); len(changedFiles(edits)) != 0 {
		t.Errorf("a second install changed %v", changedFiles(edits))
	}
	var c struct {
		MCPServers map[string]struct {
			Command string
			Env     map[string]string
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(readTestFile(t, conf), &c); err != nil || c.MCPServers["cairn"].Command != cairnExe || c.MCPServers["cairn"].Env["CAIRN_DB"] != "/data/cairn.db" {
		t.Errorf("after install: %+v, %v", c, err)
	}
	edits := run(t, s, false)
	got := readTestFile(t, conf)
	if !strings.Contains(got, "[mcp_servers.cairn.env]") || strings.Contains(got, "command =") {
		t.Errorf("after uninstall:\n%s", got)
	}
	if notes := strings.Join(edits[0].Notes, "\n"); !strings.Contains(notes, "is left") {
		t.Errorf("uninstall did not say what it left: %q", notes)
	}
}

// With HTTP, the events that add context while a session runs are http
// hooks at the server's URL, the others stay commands; a second install
// changes nothing; switching between the kinds replaces each hook in
// place (never a second one beside it), keeping what the user added; and
// uninstall restores the user's file whichever kind is installed.
func TestClaudeHTTPHooksReplaceTheCommandHooksAndBack(t *testing.T) {
	s := newSetup(t, Claude, ScopeProject)
	settings := filepath.Join(s.Root, ".claude", "settings.json")
	writeTestFile(t, settings, userSettings)
	run(t, s, true)
	commands := readTestFile(t, settings)

	s.HTTP = "http://127.0.0.1:7423/"
	edits := run(t, s, true)
	got := readTestFile(t, settings)
	var doc struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatal(err)
	}
	for ev, groups := range doc.Hooks {
		n := 0
		for _, g := range groups {
			for _, h := range g.Hooks {
				cmd, _ := h["command"].(string)
				url, _ := h["url"].(string)
				if _, ok := IsCairnHook(cmd); !ok && !strings.Contains(url, "/hooks/claude/") {
					continue // the user's
				}
				n++
				isHTTP := false
				for _, e := range HTTPEvents {
					isHTTP = isHTTP || e == ev
				}
				switch {
				case isHTTP && (h["type"] != "http" || url != "http://127.0.0.1:7423/hooks/claude/"+ev || h["command"] != nil):
					t.Errorf("%s: %v, want an http hook at the server", ev, h)
				case isHTTP:
					headers, _ := h["headers"].(map[string]any)
					if headers["X-Cairn-Timeout"] != "10" || headers["X-Cairn-Project"] != "${CAIRN_PROJECT}" || headers["X-Cairn-Task"] != "${CAIRN_TASK}" ||
						headers["X-Cairn-Database"] != "CAIRN_DB=${CAIRN_DB}" || headers["X-Cairn-Database-File"] != "${CAIRN_DB_FILE}" ||
						!reflect.DeepEqual(h["allowedEnvVars"], []any{"CAIRN_PROJECT", "CAIRN_TASK", "CAIRN_DB", "CAIRN_DB_FILE"}) || h["timeout"] != 10.0 {
						t.Errorf("%s: %v", ev, h)
					}
				case h["type"] != "command" || h["url"] != nil || h["headers"] != nil:
					t.Errorf("%s: %v, want a command hook", ev, h)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s has %d cairn hooks, want 1", ev, n)
		}
	}
	notes := strings.Join(edits[0].Notes, "\n")
	if !strings.Contains(notes, "~ hook UserPromptSubmit: POST http://127.0.0.1:7423/hooks/claude/UserPromptSubmit (timeout 10s)") || strings.Contains(notes, "SessionStart") {
		t.Errorf("notes:\n%s", notes)
	}
	if edits := run(t, s, true); len(changedFiles(edits)) != 0 {
		t.Errorf("a second install changed %v", changedFiles(edits))
	}
	// A key the user added to cairn's http hook stays across the switch
	// back and forth.
	text := readTestFile(t, settings)
	old := `"url": "http://127.0.0.1:7423/hooks/claude/SubagentStart",`
	if !strings.Contains(text, old) {
		t.Fatalf("no SubagentStart http hook:\n%s", text)
	}
	writeTestFile(t, settings, strings.Replace(text, old, old+"\n            \"statusMessage\": \"recalling\",", 1))
	s.HTTP = ""
	run(t, s, true)
	back := readTestFile(t, settings)
	if !strings.Contains(back, `"statusMessage": "recalling"`) {
		t.Errorf("the user's key was lost:\n%s", back)
	}
	if strings.Replace(back, ",\n            \"statusMessage\": \"recalling\"", "", 1) != commands {
		t.Errorf("back to commands, the file differs from the command install by more than the user's key:\n%s\nwant\n%s", back, commands)
	}
	if strings.Contains(back, `"url"`) || strings.Contains(back, "allowedEnvVars") {
		t.Errorf("http keys left behind:\n%s", back)
	}
	s.HTTP = "http://127.0.0.1:7423/"
	run(t, s, true)
	run(t, s, false)
	if got := readTestFile(t, settings); got != userSettings {
		t.Errorf("uninstall did not restore the user's file:\n%s", got)
	}
	// Refused: an http hook for Codex, and a server that is not local.
	for _, bad := range []*Setup{
		{Agent: Codex, Scope: ScopeUser, Home: s.Home, Command: s.Command, HTTP: "http://127.0.0.1:7421/"},
		{Agent: Claude, Scope: ScopeProject, Root: s.Root, Command: s.Command, HTTP: "http://203.0.113.9:7421/"},
		{Agent: Claude, Scope: ScopeProject, Root: s.Root, Command: s.Command, HTTP: "https://127.0.0.1:7421/"},
	} {
		if _, err := bad.Install(); err == nil {
			t.Errorf("install with HTTP %q for %s succeeded", bad.HTTP, bad.Agent)
		}
	}
}

func TestRecognisingCairnsHTTPHooks(t *testing.T) {
	for url, want := range map[string]string{
		"http://127.0.0.1:7421/hooks/claude/UserPromptSubmit": "UserPromptSubmit",
		"http://localhost:8000/hooks/claude/PreToolUse":       "PreToolUse",
		"http://[::1]:7421/hooks/claude/SubagentStart":        "SubagentStart",
		"https://127.0.0.1:7421/hooks/claude/PreToolUse":      "",
		"http://example.com:7421/hooks/claude/PreToolUse":     "",
		"http://127.0.0.1:7421/api/hooks/claude/PreToolUse":   "",
		"http://127.0.0.1:7421/hooks/claude/PreToolUse?x=1":   "",
	} {
		if got, _ := IsCairnHTTPHook(url); got != want {
			t.Errorf("%s: %q, want %q", url, got, want)
		}
	}
}

// With LocalHooks, the project's hooks and MCP server go to the personal
// files, and the shared ones lose cairn's entries that name a path of
// this machine, but keep those that name none (a command by name, an
// http hook) and everything of the user's. Installing by name takes the
// personal entries out; uninstall takes every entry out of all four
// files.
func TestLocalHooksKeepPathsOutOfTheSharedFiles(t *testing.T) {
	t.Parallel()
	s := newSetup(t, Claude, ScopeProject)
	shared := filepath.Join(s.Root, ".claude", "settings.json")
	local := filepath.Join(s.Root, ".claude", "settings.local.json")
	mcp, user := filepath.Join(s.Root, ".mcp.json"), filepath.Join(s.Home, ".claude.json")
	writeTestFile(t, shared, `{
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "/home/someone/bin/cairn hook claude stop", "timeout": 45}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "cairn hook claude session-end", "timeout": 5}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:7421/hooks/claude/UserPromptSubmit", "timeout": 10}]}],
    "PreCompact": [{"hooks": [{"type": "command", "command": "echo mine"}]}]
  }
}
`)
	writeTestFile(t, mcp, `{"mcpServers": {"cairn": {"type": "stdio", "command": "/home/someone/bin/cairn", "args": ["mcp"]}}}`+"\n")
	s.LocalHooks = true
	run(t, s, true)
	got := readTestFile(t, shared)
	for _, want := range []string{`"model": "opus"`, "cairn hook claude session-end", "/hooks/claude/UserPromptSubmit", "echo mine"} {
		if !strings.Contains(got, want) {
			t.Errorf("settings.json lost %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/home/someone") || strings.Contains(got, cairnExe) {
		t.Errorf("settings.json keeps a path of a machine:\n%s", got)
	}
	if l := readTestFile(t, local); strings.Count(l, cairnExe+" hook claude ") != 9 {
		t.Errorf("settings.local.json:\n%s", l)
	}
	if m := readTestFile(t, mcp); strings.Contains(m, "cairn") {
		t.Errorf(".mcp.json keeps the server by path:\n%s", m)
	}
	var u struct {
		Projects map[string]struct {
			MCPServers map[string]struct{ Command string } `json:"mcpServers"`
		} `json:"projects"`
	}
	if err := json.Unmarshal([]byte(readTestFile(t, user)), &u); err != nil || u.Projects[s.Root].MCPServers["cairn"].Command != cairnExe {
		t.Errorf("~/.claude.json: %v %+v", err, u)
	}
	// By name: the personal entries go.
	s.LocalHooks, s.Command = false, []string{"cairn"}
	run(t, s, true)
	if l := readTestFile(t, local); strings.Contains(l, "cairn") {
		t.Errorf("settings.local.json after an install by name:\n%s", l)
	}
	if strings.Contains(readTestFile(t, user), `"cairn"`) {
		t.Errorf("~/.claude.json after an install by name:\n%s", readTestFile(t, user))
	}
	// Uninstall: nothing of cairn's anywhere; the user's hook stays.
	s.LocalHooks, s.Command = true, []string{cairnExe}
	run(t, s, true)
	run(t, s, false)
	for _, f := range []string{shared, local, mcp, user} {
		if b, err := os.ReadFile(f); err == nil && (strings.Contains(string(b), "hook claude") || strings.Contains(string(b), `"cairn"`)) {
			t.Errorf("%s after uninstall:\n%s", f, b)
		}
	}
	if !strings.Contains(readTestFile(t, shared), "echo mine") {
		t.Errorf("uninstall took the user's hook")
	}
}
