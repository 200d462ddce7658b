package main

// Tests of the CLI's wiring through Main.Run: help, version, usage errors,
// the clock, project isolation, the default project and database, and
// reading commands on a database that does not exist.
//
// Bad inputs tried here: unknown commands, unknown global and command
// flags, flags without values, a --now that is not a time, a database path
// under a folder that does not exist, a working directory inside a git
// work tree (and outside any).

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

func TestInformationalCommandsExitZero(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	tests := []struct {
		args []string
		want string // on stdout
	}{
		{[]string{"stats"}, "0 memories"},
		{[]string{"types"}, "decision"},
		{[]string{"types", "--json"}, `"name"`},
		{[]string{"version"}, "cairn "},
		{[]string{"help"}, "Commands:"},
		{[]string{"-h"}, "Commands:"},
		{[]string{"help", "search"}, "Usage: cairn search"},
		{[]string{"help", "import"}, "--skip-invalid"},
		{[]string{"search", "-h"}, "--batch"},
	}
	for _, tt := range tests {
		r := c.run("", tt.args...)
		if r.code != 0 {
			t.Errorf("%q: want exit 0, got %v", tt.args, r)
			continue
		}
		if !strings.Contains(r.stdout, tt.want) {
			t.Errorf("%q: stdout does not contain %q:\n%s", tt.args, tt.want, r.stdout)
		}
	}
	// None of them created the database.
	if _, err := os.Stat(c.db); !os.IsNotExist(err) {
		t.Errorf("informational commands created %s (%v)", c.db, err)
	}
	var types []map[string]any
	if err := json.Unmarshal([]byte(c.ok("types", "--json").stdout), &types); err != nil || len(types) < 10 {
		t.Errorf("types --json: %v, %d types", err, len(types))
	}
}

func TestUsageMistakesExitTwoWithOneLineOnStderr(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, "unknown command"},
		{[]string{"--bogus", "stats"}, "bogus"},
		{[]string{"search", "--bogus", "x"}, "bogus"},
		{[]string{"add", "--no-such-flag", "content"}, "no-such-flag"},
		{[]string{"list", "--limit"}, "limit"},
		{[]string{"list", "--limit", "-1"}, "negative"},
		{[]string{"list", "extra"}, "unexpected"},
		{[]string{"show"}, "id"},
		{[]string{"rm"}, "id"},
		{[]string{"import", "a.jsonl", "b.jsonl"}, "file"},
		{[]string{"export", "extra"}, "unexpected"},
		{[]string{"--now", "yesterday", "list"}, "not a time"},
		{[]string{"list", "--after", "last week"}, "not a time"},
	}
	for _, tt := range tests {
		r := c.run("", tt.args...)
		if r.code != 2 {
			t.Errorf("%q: want exit 2, got %v", tt.args, r)
			continue
		}
		oneErrorLine(t, r)
		if !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: stderr %q does not mention %q", tt.args, r.stderr, tt.want)
		}
		if r.stdout != "" {
			t.Errorf("%q: a usage error printed %q on stdout", tt.args, r.stdout)
		}
	}
	// No command at all is a usage error too (the usage goes to stderr).
	if r := c.raw(""); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "no command") {
		t.Errorf("no command: %v", r)
	}
}

func TestNowFlagAndEnvironmentFixTheClock(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--now", "2021-06-01T12:00:00Z", "remembered at a fixed time")
	if m := c.show(id); m["created_at"] != "2021-06-01T12:00:00Z" || m["updated_at"] != "2021-06-01T12:00:00Z" {
		t.Errorf("created_at %v updated_at %v, want 2021-06-01T12:00:00Z", m["created_at"], m["updated_at"])
	}
	// The id sorts by creation time, so it encodes the fixed clock too.
	id2 := c.add("--now", "2021-06-01T12:00:00.001Z", "one millisecond later")
	if !(id < id2) {
		t.Errorf("ids should sort by creation time: %s then %s", id, id2)
	}
	c.env["CAIRN_NOW"] = "2019-02-03"
	id3 := c.add("remembered under CAIRN_NOW")
	if m := c.show(id3); m["created_at"] != "2019-02-03T00:00:00Z" {
		t.Errorf("CAIRN_NOW: created_at = %v", m["created_at"])
	}
	// The flag wins over the environment.
	id4 := c.add("--now", "2022-01-01T00:00:00Z", "flag beats env")
	if m := c.show(id4); m["created_at"] != "2022-01-01T00:00:00Z" {
		t.Errorf("--now with CAIRN_NOW set: created_at = %v", m["created_at"])
	}
	if r := c.run("", "add", "--now", "soon", "x"); r.code != 2 {
		t.Errorf("--now soon: want exit 2, got %v", r)
	}
}

func TestProjectsNeverSeeEachOthersMemories(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.project = "a"
	secret := c.add("--type", "decision", "--tags", "shared", "The pelican secret of project a")
	c.add("The second pelican memory of a")
	c.project = "b"
	mine := c.add("--type", "decision", "--tags", "shared", "The pelican plan of project b")

	if ids := c.searchIDs("pelican"); !slices.Equal(ids, []string{mine}) {
		t.Errorf("search in b = %v, want only %s", ids, mine)
	}
	if ids := c.searchIDs("secret project a", "--type", "decision", "--tag", "shared"); slices.Contains(ids, secret) {
		t.Errorf("search in b found a's memory")
	}
	if ids := c.listIDs(); !slices.Equal(ids, []string{mine}) {
		t.Errorf("list in b = %v", ids)
	}
	exp := c.ok("export", "--format", "jsonl").stdout
	if strings.Contains(exp, secret) || strings.Contains(exp, "project a") {
		t.Errorf("export of b contains a's memories:\n%s", exp)
	}
	if n := c.total(); n != 1 {
		t.Errorf("stats of b = %d, want 1", n)
	}
	r := c.run(jsonLines(t, map[string]any{"qid": "x", "project": "b", "query": "pelican secret"}), "search", "--batch", "-")
	if strings.Contains(r.stdout, secret) {
		t.Errorf("batch search for b found a's memory: %s", r.stdout)
	}
	if ctx := c.ok("context", "--prompt", "pelican secret"); strings.Contains(ctx.stdout, secret) {
		t.Errorf("context of b shows a's memory:\n%s", ctx.stdout)
	}

	// Global scope is the designed exception: visible from every project.
	c.project = "a"
	glob := c.add("--scope", "global", "Pelican preference: always global")
	c.project = "b"
	if ids := c.searchIDs("pelican preference"); !slices.Contains(ids, glob) {
		t.Errorf("a global-scope memory of a is not visible from b: %v", ids)
	}
	if ids := c.searchIDs("pelican preference", "--no-global"); slices.Contains(ids, glob) {
		t.Errorf("--no-global still shows the global memory")
	}
	if exp := c.ok("export", "--format", "jsonl").stdout; strings.Contains(exp, glob) {
		t.Errorf("export of b includes a's global memory without --global")
	}
}

func TestDefaultProjectIsTheGitTopLevelFolderName(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	repo := filepath.Join(c.dir, "my-repo")
	sub := filepath.Join(repo, "internal", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.wd = sub
	r := c.raw("", "--db", c.db, "add", "remembered from a subfolder")
	if r.code != 0 {
		t.Fatalf("add: %v", r)
	}
	id := strings.TrimSpace(r.stdout)
	c.project = "my-repo"
	if m := c.show(id); m["project"] != "my-repo" {
		t.Errorf("default project = %v, want my-repo", m["project"])
	}
	// A worktree's .git is a file; it marks the top level too.
	wt := filepath.Join(c.dir, "worktree")
	if err := os.MkdirAll(filepath.Join(wt, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: ../my-repo/.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.wd = filepath.Join(wt, "pkg")
	r = c.raw("", "--db", c.db, "stats", "--json")
	var st map[string]any
	json.Unmarshal([]byte(r.stdout), &st)
	if st["project"] != "worktree" {
		t.Errorf("project in a worktree = %v, want worktree", st["project"])
	}
	// CAIRN_PROJECT wins over the folder; --project wins over both.
	c.env["CAIRN_PROJECT"] = "from-env"
	r = c.raw("", "--db", c.db, "stats", "--json")
	json.Unmarshal([]byte(r.stdout), &st)
	if st["project"] != "from-env" {
		t.Errorf("CAIRN_PROJECT: project = %v", st["project"])
	}
	r = c.raw("", "--db", c.db, "--project", "from-flag", "stats", "--json")
	json.Unmarshal([]byte(r.stdout), &st)
	if st["project"] != "from-flag" {
		t.Errorf("--project: project = %v", st["project"])
	}
	// Global flags after the command work too.
	r = c.raw("", "stats", "--json", "--db", c.db, "--project", "after-cmd")
	json.Unmarshal([]byte(r.stdout), &st)
	if st["project"] != "after-cmd" {
		t.Errorf("--project after the command: project = %v", st["project"])
	}
}

func TestDatabaseComesFromCairnDBThenXDGDataHome(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// Neither --db nor CAIRN_DB: $XDG_DATA_HOME/cairn/cairn.db.
	r := c.raw("", "--project", "p", "add", "stored in the XDG data home")
	if r.code != 0 {
		t.Fatalf("add: %v", r)
	}
	xdg := filepath.Join(c.env["XDG_DATA_HOME"], "cairn", "cairn.db")
	if _, err := os.Stat(xdg); err != nil {
		t.Errorf("the default database %s was not created: %v", xdg, err)
	}
	// CAIRN_DB names the database.
	envDB := filepath.Join(c.dir, "env", "from-env.db")
	c.env["CAIRN_DB"] = envDB
	id := strings.TrimSpace(c.raw("", "--project", "p", "add", "stored in CAIRN_DB").stdout)
	if _, err := os.Stat(envDB); err != nil {
		t.Errorf("CAIRN_DB %s was not created: %v", envDB, err)
	}
	if r := c.raw("", "--db", envDB, "--project", "p", "show", id); r.code != 0 {
		t.Errorf("the memory is not in CAIRN_DB: %v", r)
	}
	if r := c.raw("", "--db", xdg, "--project", "p", "show", id); r.code != 1 {
		t.Errorf("the memory went to the XDG database too: %v", r)
	}
	// --db wins over CAIRN_DB.
	flagDB := filepath.Join(c.dir, "flag.db")
	c.raw("", "--db", flagDB, "--project", "p", "add", "stored in --db")
	var st map[string]any
	json.Unmarshal([]byte(c.raw("", "--project", "p", "stats", "--json").stdout), &st)
	if st["database"] != envDB || st["total"] != 1.0 {
		t.Errorf("stats under CAIRN_DB = %v", st)
	}
}

func TestReadingCommandsOnAMissingDatabaseShowNothingAndCreateNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.db = filepath.Join(c.dir, "not-yet", "cairn.db")
	batch := jsonLines(t, map[string]any{"qid": "q", "project": "proj", "query": "anything"})
	tests := []struct {
		stdin  string
		args   []string
		stdout string // exact, after trimming white space; "-" skips
	}{
		{"", []string{"list"}, ""},
		{"", []string{"list", "--json"}, "[]"},
		{"", []string{"search", "--json", "anything"}, "[]"},
		{"", []string{"search", "anything"}, ""},
		{batch, []string{"search", "--batch", "-"}, `{"qid":"q","ids":[]}`},
		{"", []string{"export", "--format", "jsonl"}, ""},
		{"", []string{"context", "--prompt", "anything"}, ""},
		{"", []string{"stats", "--json"}, "-"},
		{"", []string{"export"}, "-"},
	}
	for _, tt := range tests {
		r := c.run(tt.stdin, tt.args...)
		if r.code != 0 {
			t.Errorf("%q: want exit 0, got %v", tt.args, r)
			continue
		}
		if tt.stdout != "-" && strings.TrimSpace(r.stdout) != tt.stdout {
			t.Errorf("%q: stdout = %q, want %q", tt.args, r.stdout, tt.stdout)
		}
	}
	if n := c.total(); n != 0 {
		t.Errorf("stats total = %d, want 0", n)
	}
	var doc exportDoc
	if err := json.Unmarshal([]byte(c.ok("export").stdout), &doc); err != nil || doc.Memories == nil || len(doc.Memories) != 0 {
		t.Errorf("export of a missing database: %v %+v, want an empty memories array", err, doc)
	}
	if r := c.run("", "show", "mem-0000000000000000"); r.code != 1 || !strings.Contains(r.stderr, "mem-0000000000000000") {
		t.Errorf("show on a missing database: want exit 1 naming the id, got %v", r)
	}
	if _, err := os.Stat(filepath.Dir(c.db)); !os.IsNotExist(err) {
		t.Errorf("reading commands created %s (%v)", filepath.Dir(c.db), err)
	}
}

// A database file that exists but has no schema yet is what a reader sees
// while another process is creating the database (its first open runs the
// migrations in a transaction). Readers must treat it as empty, not fail
// with an internal SQL error.
func TestReadingCommandsOnADatabaseBeingCreatedShowNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if err := os.WriteFile(c.db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"list", "--json"},
		{"search", "--json", "anything"},
		{"stats", "--json"},
		{"export", "--format", "jsonl"},
		{"context", "--prompt", "anything"},
	} {
		r := c.run("", args...)
		if r.code != 0 {
			t.Errorf("%q on a database without a schema yet: want exit 0 and nothing, got %v", args, r)
		}
		if strings.Contains(r.stderr, "no such table") || strings.Contains(r.stderr, "internal error") {
			t.Errorf("%q leaks an SQL error: %q", args, r.stderr)
		}
	}
	// The first write creates the schema in the same file.
	id := c.add("the first memory creates the schema")
	if got := c.listIDs(); !slices.Equal(got, []string{id}) {
		t.Errorf("list after the first add = %v", got)
	}
}

// TestVersionNamesTheModuleVersionAndCommit formats build informations
// with and without a version and VCS settings, and runs `version` and
// `--version`.
func TestVersionNamesTheModuleVersionAndCommit(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tt := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "(devel)"},
		{&debug.BuildInfo{}, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{&debug.BuildInfo{Settings: vcs("1310e87c3a2bd6f0a3c9e1b2", "false")}, "(devel) 1310e87c3a2b"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.1-0.20261122094715-1310e87c3a2b"}, Settings: vcs("1310e87c3a2bd6f0a3c9e1b2", "true")},
			"v1.4.1-0.20261122094715-1310e87c3a2b 1310e87c3a2b, modified"},
	} {
		if got := versionOf(tt.bi); got != tt.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
	c := newCLI(t)
	a, b := c.raw("", "version"), c.raw("", "--version")
	if a.code != 0 || b.code != 0 || !strings.HasPrefix(a.stdout, "cairn ") || a.stdout != b.stdout {
		t.Errorf("version and --version differ:\n%v\n%v", a, b)
	}
}
