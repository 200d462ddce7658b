package main

// Tests of `cairn config`: the files it finds from the working directory
// and the environment, its text and JSON output, --mode, and its errors.
//
// Bad inputs tried here: a project file with a value of the wrong type, a
// user file with a TOML syntax error, an unknown --mode, a stray argument.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// configFixture is a git work tree with the working directory in a
// subfolder, a project file and a user file under $HOME/.config.
type configFixture struct {
	c            *cli
	top          string
	pfile, ufile string
}

func newConfigFixture(t *testing.T, project, user string) *configFixture {
	t.Helper()
	c := newCLI(t)
	top := filepath.Join(c.dir, "repo")
	c.wd = filepath.Join(top, "internal", "pkg")
	for _, d := range []string{filepath.Join(top, ".git"), c.wd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := &configFixture{c: c, top: top,
		pfile: filepath.Join(top, ".cairn", "cairn.toml"),
		ufile: filepath.Join(c.dir, ".config", "cairn", "cairn.toml")}
	if project != "" {
		writeConfigFile(t, f.pfile, project)
	}
	if user != "" {
		writeConfigFile(t, f.ufile, user)
	}
	return f
}

func writeConfigFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// configLine returns the output line for key, with its runs of spaces
// folded.
func configLine(t *testing.T, r result, key string) string {
	t.Helper()
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, key+" = ") {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	t.Errorf("no line for %s in:\n%s", key, r.stdout)
	return ""
}

func TestConfigPrintsEveryKeyWithItsSource(t *testing.T) {
	t.Parallel()
	f := newConfigFixture(t,
		"# project\n[context.dynamic]\ncount = 4\n\n[[keywords]]\nphrase = \"Ship It\"\nbudget = 800\n",
		"[context]\nbudget = 2000\n")
	r := f.c.ok("config")
	wantLines := []string{
		"# user file: " + f.ufile,
		"# project file: " + f.pfile,
		"context.budget = 2000 # " + f.ufile + ":2",
		"context.dynamic.count = 4 # " + f.pfile + ":3",
		"context.dynamic.max_count = 10 # default",
		"context.dynamic.types = [\"session\"] # default",
		"scoring.threshold = 0.25 # default",
		"lifecycle.session.ttl_days = 30 # default",
		"modes.eco.search_limit = 2 # default",
		"keywords.\"ship it\".budget = 800 # " + f.pfile + ":7",
		"keywords.\"ship it\".mode = \"\" # " + f.pfile + ":6",
	}
	var folded []string
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		folded = append(folded, strings.Join(strings.Fields(l), " "))
	}
	for _, w := range wantLines {
		found := false
		for _, l := range folded {
			found = found || l == w
		}
		if !found {
			t.Errorf("no line %q in:\n%s", w, r.stdout)
		}
	}
	if folded[2] != "# database: not read (no database yet)" {
		t.Errorf("the database line: %q", folded[2])
	}
	// Every line after the header is one key.
	keyLine := regexp.MustCompile(`^[a-z_."A-Z ]+ = .+ # .+$`)
	for _, l := range folded[3:] {
		if !keyLine.MatchString(l) {
			t.Errorf("not a key line: %q", l)
		}
	}
}

func TestConfigJSONHasTheConfigAndItsSources(t *testing.T) {
	t.Parallel()
	f := newConfigFixture(t, "[context]\nmode = \"swarm\"\n", "[scoring]\nsame_hat = 0.5\n")
	r := f.c.ok("config", "--json")
	var out struct {
		Config struct {
			Context struct {
				Budget  int    `json:"budget"`
				Mode    string `json:"mode"`
				Dynamic struct {
					Count int      `json:"count"`
					Types []string `json:"types"`
				} `json:"dynamic"`
			} `json:"context"`
			Scoring struct {
				SameHat float64 `json:"same_hat"`
			} `json:"scoring"`
			Modes map[string]map[string]int `json:"modes"`
		} `json:"config"`
		Sources []struct{ Key, Value, From string } `json:"sources"`
		Files   []string                            `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("config --json: %v\n%s", err, r.stdout)
	}
	if out.Config.Context.Budget != 1500 || out.Config.Context.Mode != "swarm" || out.Config.Context.Dynamic.Count != 3 ||
		out.Config.Scoring.SameHat != 0.5 || out.Config.Modes["eco"]["search_limit"] != 2 || len(out.Config.Context.Dynamic.Types) != 1 {
		t.Errorf("config: %+v", out.Config)
	}
	if len(out.Files) != 2 || out.Files[0] != f.ufile || out.Files[1] != f.pfile {
		t.Errorf("files: %q", out.Files)
	}
	from := map[string]string{}
	for _, s := range out.Sources {
		from[s.Key] = s.From
	}
	for k, want := range map[string]string{
		"context.mode":           f.pfile + ":2",
		"scoring.same_hat":       f.ufile + ":2",
		"context.relevant.limit": "mode swarm (default)",
		"context.budget":         "default",
	} {
		if from[k] != want {
			t.Errorf("%s comes from %q, want %q", k, from[k], want)
		}
	}
}

func TestConfigModeFlagAppliesTheMode(t *testing.T) {
	t.Parallel()
	f := newConfigFixture(t, "[modes.eco]\nbudget = 600\n", "")
	r := f.c.ok("config", "--mode", "eco")
	for key, want := range map[string]string{
		"context.mode":           `context.mode = "eco" # flag --mode`,
		"context.dynamic.count":  "context.dynamic.count = 1 # mode eco (default)",
		"context.relevant.limit": "context.relevant.limit = 2 # mode eco (default)",
		"context.budget":         "context.budget = 600 # mode eco (" + f.pfile + ":2)",
	} {
		if got := configLine(t, r, key); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if !strings.Contains(r.stdout, "# user file: ") || !strings.Contains(r.stdout, "(not found)") {
		t.Errorf("the missing user file is not shown:\n%s", r.stdout)
	}
}

func TestConfigFindsTheUserFileInXDGConfigHome(t *testing.T) {
	t.Parallel()
	f := newConfigFixture(t, "", "[context]\nbudget = 111\n") // under $HOME/.config: ignored
	xdg := filepath.Join(f.c.dir, "xdg-config")
	f.c.env["XDG_CONFIG_HOME"] = xdg
	xfile := filepath.Join(xdg, "cairn", "cairn.toml")
	writeConfigFile(t, xfile, "[context]\nbudget = 222\n")
	r := f.c.ok("config")
	if got, want := configLine(t, r, "context.budget"), "context.budget = 222 # "+xfile+":2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestConfigOutsideAGitWorkTreeUsesTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pfile := filepath.Join(c.dir, ".cairn", "cairn.toml")
	writeConfigFile(t, pfile, "[context.relevant]\nlimit = 5\n")
	r := c.ok("config")
	if got, want := configLine(t, r, "context.relevant.limit"), "context.relevant.limit = 5 # "+pfile+":2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestConfigMistakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, project, user string
		args                []string
		code                int
		want                string // stderr, with P and U for the files' paths
	}{
		{"wrong type in the project file", "[context]\n\nbudget = \"big\"\n", "", nil, 1,
			`cairn: P:3: context.budget: expected a whole number, found "big"`},
		{"syntax error in the user file", "", "[context]\nbudget = = 1\n", nil, 1,
			`cairn: U:2: invalid TOML: expected value but found '=' instead`},
		{"unknown key", "[contex]\nbudget = 1\n", "", []string{"--json"}, 1,
			`cairn: P:2: unknown key "contex.budget" (did you mean "context.budget"?)`},
		{"unknown mode", "", "", []string{"--mode", "turbo"}, 2,
			`cairn: config: --mode: unknown mode "turbo" (known modes: autopilot, eco, ralph, swarm)`},
		{"stray argument", "", "", []string{"budget"}, 2,
			"cairn: config: unexpected argument \"budget\" (see `cairn help config`)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newConfigFixture(t, tt.project, tt.user)
			r := f.c.run("", append([]string{"config"}, tt.args...)...)
			want := strings.NewReplacer("P:", f.pfile+":", "U:", f.ufile+":").Replace(tt.want) + "\n"
			if r.code != tt.code || r.stderr != want || r.stdout != "" {
				t.Errorf("want exit %d and stderr %q, got %v", tt.code, want, r)
			}
			oneErrorLine(t, r)
		})
	}
}

func TestConfigHelp(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.ok("help", "config")
	if !strings.Contains(r.stdout, "Usage: cairn config") || !strings.Contains(r.stdout, "-mode") {
		t.Errorf("help config:\n%s", r.stdout)
	}
	if !strings.Contains(c.ok("help").stdout, "config") {
		t.Errorf("help does not list config")
	}
}

// TestLifecycleConfigurationTakesEffect sets a type's time to live and
// initial confidence in cairn.toml: add gives new memories both, and
// cleanup expires by the configured time to live, also a memory stored
// before the file said so.
func TestLifecycleConfigurationTakesEffect(t *testing.T) {
	t.Parallel()
	f := newConfigFixture(t, "", "")
	c := f.c
	const start = "2026-03-01T00:00:00Z"
	before := c.add("--now", start, "--type", "learning", "Stored while learnings lived 90 days.")
	writeConfigFile(t, f.pfile, "[lifecycle.learning]\nttl_days = 10\n[lifecycle.note]\ninitial_confidence = 0.8\n")
	learning := c.show(c.add("--now", start, "--type", "learning", "The queue needs a warm cache."))
	if learning["expires_at"] != "2026-03-11T00:00:00Z" {
		t.Errorf("learning expires %v, want 10 days after creation", learning["expires_at"])
	}
	if note := c.show(c.add("--now", start, "A plain note.")); note["confidence"] != 0.8 {
		t.Errorf("note confidence %v, want 0.8", note["confidence"])
	}
	r := c.ok("--now", "2026-03-15T00:00:00Z", "cleanup")
	for _, id := range []string{before, learning["id"].(string)} {
		if !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "learning memories live 10 days") {
			t.Errorf("cleanup does not expire %s by the configured 10 days:\n%s", id, r.stdout)
		}
	}
}

// rootOf gives projectRoot's answer for each folder asked, whichever was
// asked before, with or without its memo.
func TestRootOfIsProjectRoot(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	deep := filepath.Join(repo, "a", "b")
	other := filepath.Join(base, "other")
	for _, d := range []string{filepath.Join(repo, ".git"), deep, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []*Main{{roots: &rootMemo{}}, {}} {
		for _, dir := range []string{deep, other, deep, deep, repo, other, ""} {
			if got, want := m.rootOf(dir), projectRoot(dir); got != want {
				t.Errorf("rootOf(%q) = %q, want %q", dir, got, want)
			}
		}
	}
	if got := (&Main{roots: &rootMemo{}}).rootOf(deep); got != repo {
		t.Errorf("rootOf(%q) = %q, want the repository %q", deep, got, repo)
	}
}

// A command run in the project's folder stores its settings; `cairn
// config` run for the project from another folder shows them as in force,
// from the database, and the folder's own files as not applying.
func TestConfigElsewhereShowsTheProjectsStoredSettings(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.wd
	c.wd = filepath.Join(home, c.project)
	os.MkdirAll(filepath.Join(c.wd, ".git"), 0o755)
	writeConfigFile(t, filepath.Join(c.wd, ".cairn", "cairn.toml"), "[lifecycle.learning]\nttl_days = 2\n")
	c.add("--type", "learning", "Stored settings follow the project.")
	if r := c.ok("config"); !strings.Contains(r.stdout, "# database:     these settings, stored for project proj") {
		t.Errorf("config in the project's folder:\n%s", r.stdout)
	}
	c.wd = filepath.Join(home, "elsewhere")
	os.MkdirAll(filepath.Join(c.wd, ".git"), 0o755)
	r := c.ok("config")
	for _, want := range []string{"from " + filepath.Join(home, c.project, ".cairn", "cairn.toml") + ", in force for it", "lifecycle.learning.ttl_days = 2 # database", "context.budget = 1500 # default"} {
		folded := strings.Join(strings.Fields(r.stdout), " ")
		if !strings.Contains(folded, want) {
			t.Errorf("config elsewhere lacks %q:\n%s", want, r.stdout)
		}
	}
}
