package config_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
)

// project writes content as the project file of a new folder and returns
// the folder and the file's path.
func project(t *testing.T, content string) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = config.ProjectFile(dir)
	writeFile(t, file, content)
	return dir, file
}

// user writes content as the user file of a new configuration folder.
func user(t *testing.T, content string) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = config.UserFile(dir)
	writeFile(t, file, content)
	return dir, file
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sources(l *config.Loaded) map[string]config.Source {
	m := map[string]config.Source{}
	for _, s := range l.Sources {
		m[s.Key] = s
	}
	return m
}

func at(file string, line int) string { return file + ":" + strconv.Itoa(line) }

func TestExampleFileParsesIntoDefaultsAndNamesEveryKey(t *testing.T) {
	t.Parallel()
	example, err := os.ReadFile("example.cairn.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir, file := project(t, string(example))
	l, err := config.Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := config.Default(); !reflect.DeepEqual(l.Config, want) {
		g, _ := json.MarshalIndent(l.Config, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("example.cairn.toml differs from Default():\n%s\nwant\n%s", g, w)
	}
	if !slices.Equal(l.Files, []string{file}) {
		t.Errorf("Files = %q, want [%q]", l.Files, file)
	}
	// Every key is written out in the example: none is left at "default",
	// and each points at the line that sets it.
	lines := strings.Split(string(example), "\n")
	for _, s := range l.Sources {
		if !strings.HasPrefix(s.From, file+":") {
			t.Errorf("%s comes from %q: the example does not set it", s.Key, s.From)
			continue
		}
		n, _ := strconv.Atoi(strings.TrimPrefix(s.From, file+":"))
		last := s.Key[strings.LastIndex(s.Key, ".")+1:]
		if n < 1 || n > len(lines) || !strings.Contains(lines[n-1], last) && !strings.Contains(lines[n-1], "phrase") {
			t.Errorf("%s: line %d of the example is %q", s.Key, n, lines[max(0, min(n, len(lines))-1)])
		}
	}
}

func TestDefaultsComeFromTheTypeTable(t *testing.T) {
	t.Parallel()
	c := config.Default()
	ps := cairn.DefaultTypes()
	if len(c.Lifecycle) != len(ps) {
		t.Fatalf("%d lifecycle entries, %d types", len(c.Lifecycle), len(ps))
	}
	for n, p := range ps {
		lc := c.Lifecycle[n]
		if time.Duration(lc.TTLDays)*24*time.Hour != p.TTL || lc.Tier != string(p.Tier) || lc.InitialConfidence != p.Confidence {
			t.Errorf("%s: lifecycle %+v, policy %+v", n, lc, p)
		}
	}
	wantStatic := []string{"constraint", "convention", "decision", "global", "preference", "style", "user_preference"}
	if !slices.Equal(c.Context.Static.Types, wantStatic) || !slices.Equal(c.Context.Dynamic.Types, []string{"session"}) || len(c.Context.Relevant.Types) != 0 {
		t.Errorf("type lists: static %q, dynamic %q, relevant %q", c.Context.Static.Types, c.Context.Dynamic.Types, c.Context.Relevant.Types)
	}
	if got := c.Policies(); !reflect.DeepEqual(got, ps) {
		t.Errorf("Policies() of the defaults differs from cairn.DefaultTypes()")
	}
}

func TestLoadWithoutFilesGivesDefaults(t *testing.T) {
	t.Parallel()
	l, err := config.Load(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Config, config.Default()) || len(l.Files) != 0 {
		t.Errorf("Load of folders without files: files %q, config %+v", l.Files, l.Config)
	}
	for i, s := range l.Sources {
		if s.From != "default" {
			t.Errorf("%s comes from %q", s.Key, s.From)
		}
		if i > 0 && l.Sources[i-1].Key >= s.Key {
			t.Errorf("sources not sorted: %s before %s", l.Sources[i-1].Key, s.Key)
		}
	}
	if s := sources(l); s["context.budget"].Value != "1500" || s["scoring.relevance"].Value != "1.0" ||
		s["context.dynamic.types"].Value != `["session"]` || s[`keywords."quick task".dynamic_count`].Value != "1" {
		t.Errorf("rendered values: %+v %+v %+v", s["context.budget"], s["scoring.relevance"], s["context.dynamic.types"])
	}
}

func TestPrecedenceIsDefaultsThenUserThenProjectThenSet(t *testing.T) {
	t.Parallel()
	udir, ufile := user(t, `[context]
budget = 2000
max_chars = 8000

[context.dynamic]
count = 4

[modes.turbo]
dynamic_count = 9
`)
	pdir, pfile := project(t, `# the project's own
[context]
budget = 3000

[scoring.hat_relations]
explorer = ["planner", "critic"]

[modes.turbo]
search_limit = 12

[[keywords]]
phrase = "Quick   TASK"
search_limit = 2
`)
	l, err := config.Load(pdir, udir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Set("context.budget", "4000", "flag --budget"); err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.Context.Budget != 4000 || c.Context.MaxChars != 8000 || c.Context.Dynamic.Count != 4 || c.Context.Relevant.Limit != 10 {
		t.Errorf("budget %d, max_chars %d, count %d, limit %d", c.Context.Budget, c.Context.MaxChars, c.Context.Dynamic.Count, c.Context.Relevant.Limit)
	}
	if got := c.Modes["turbo"]; got != (config.ModeOverride{DynamicCount: 9, SearchLimit: 12}) {
		t.Errorf("modes.turbo = %+v: the project's key did not merge with the user's", got)
	}
	if i := slices.IndexFunc(c.Keywords, func(k config.KeywordOverride) bool { return k.Phrase == "quick task" }); i < 0 ||
		c.Keywords[i] != (config.KeywordOverride{Phrase: "quick task", DynamicCount: 1, SearchLimit: 2}) || len(c.Keywords) != 4 {
		t.Errorf("keywords = %+v: the project's quick task did not merge with the default", c.Keywords)
	}
	if !slices.Equal(l.Files, []string{ufile, pfile}) {
		t.Errorf("Files = %q", l.Files)
	}
	want := map[string]string{
		"context.budget":                      "flag --budget",
		"context.max_chars":                   at(ufile, 3),
		"context.dynamic.count":               at(ufile, 6),
		"context.dynamic.max_count":           "default",
		"modes.turbo.dynamic_count":           at(ufile, 9),
		"modes.turbo.search_limit":            at(pfile, 9),
		"modes.turbo.budget":                  at(ufile, 8), // the entry's table
		"scoring.hat_relations.explorer":      at(pfile, 6),
		"scoring.hat_relations.planner":       "default",
		`keywords."quick task".search_limit`:  at(pfile, 13),
		`keywords."quick task".budget`:        "default",
		`keywords."quick task".dynamic_count`: "default",
	}
	s := sources(l)
	for k, from := range want {
		if s[k].From != from {
			t.Errorf("%s comes from %q, want %q", k, s[k].From, from)
		}
	}
	if s["scoring.hat_relations.explorer"].Value != `["planner", "critic"]` {
		t.Errorf("explorer = %s", s["scoring.hat_relations.explorer"].Value)
	}
}

func TestFileMistakesNameFileLineAndKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		want          string // with P for the file's path
	}{
		{"not a number", "[context]\nbudget = \"big\"\n", `P:2: context.budget: expected a whole number, found "big"`},
		{"a float for a whole number", "[context]\n\nbudget = 1500.5\n", `P:3: context.budget: expected a whole number, found 1500.5`},
		{"unknown table", "# typo\n\n[contex]\nbudget = 1\n", `P:4: unknown key "contex.budget" (did you mean "context.budget"?)`},
		{"unknown key", "[context.relevant]\nmin_relevence = 0.3\n", `P:2: unknown key "context.relevant.min_relevence" (did you mean "context.relevant.min_relevance"?)`},
		{"key outside its table", "budget = 3\n", `P:1: unknown key "budget" (did you mean "context.budget"?)`},
		{"unknown key without a near miss", "[context]\nzzz = 1\n", `P:2: unknown key "context.zzz"`},
		{"empty unknown table", "[scorng]\n", `P:1: unknown key "scorng" (did you mean "scoring"?)`},
		{"relevance out of range", "[context.relevant]\nlimit = 8\n\n\n\n\n\n\n\n\n\nmin_relevance = 1.7\n", `P:12: context.relevant.min_relevance: 1.7 is out of range 0..1`},
		{"budget too small", "context.budget = 0\n", `P:1: context.budget: 0 is out of range 1..200000`},
		{"budget too big", "[context]\nbudget = 200001\n", `P:2: context.budget: 200001 is out of range 1..200000`},
		{"negative count", "[context.dynamic]\ncount = -1\n", `P:2: context.dynamic.count: -1 is out of range 0..1000`},
		{"count above max", "[context.dynamic]\ncount = 12\n", `P:2: context.dynamic.count: 12 is more than context.dynamic.max_count, 10 (default)`},
		{"max below count", "[context.relevant]\nlimit = 8\nmax_limit = 5\n", `P:3: context.relevant.max_limit: 5 is less than context.relevant.limit, 8 (P:2)`},
		{"weight too big", "[scoring]\nsame_hat = 11\n", `P:2: scoring.same_hat: 11 is out of range 0..10`},
		{"nan weight", "[scoring]\ntag_match = nan\n", `P:2: scoring.tag_match: NaN is out of range 0..10`},
		{"unknown mode", "[context]\nbudget = 1500\nmode = \"turbo\"\n", `P:3: context.mode: unknown mode "turbo" (known modes: autopilot, eco, ralph, swarm)`},
		{"mode near miss", "[context]\nmode = \"ecco\"\n", `P:2: context.mode: unknown mode "ecco" (known modes: autopilot, eco, ralph, swarm; did you mean "eco"?)`},
		{"mode name not a name", "[context]\nmode = \"Eco Mode\"\n", `P:2: context.mode: "Eco Mode" is not a mode name (lowercase letters, digits and _ - : . /)`},
		{"syntax", "[context]\nbudget = 1500\nmax_chars = = 3\n", `P:3: invalid TOML: `},
		{"unclosed table", "[context\nbudget = 1\n", `P:2: invalid TOML: `},
		{"duplicate key", "[context]\nbudget = 1\nbudget = 2\n", `P:3: invalid TOML: `},
		{"unknown format", "[context]\nformat = \"xml\"\n", `P:2: context.format: unknown format "xml" (known formats: markdown)`},
		{"embeddings url without scheme", "[embeddings]\nbase_url = \"localhost:11434/v1\"\n", `P:2: embeddings.base_url: "localhost:11434/v1" is not an http:// or https:// URL`},
		{"embeddings key instead of its name", "[embeddings]\napi_key_env = \"sk-proj-abcdefghijklmnopqrstuvwxyz012345\"\n", `P:2: embeddings.api_key_env: not the name of an environment variable (letters, digits and _); give the variable's name, not the key`},
		{"embeddings key that is a name", "[embeddings]\napi_key_env = \"sk_live_abcdefghijklmnopqrstuvwxyz012345\"\n", `P:2: embeddings.api_key_env: this looks like a key, not the name of the environment variable that holds it`},
		{"embeddings unknown mode", "[embeddings]\nmode = \"semantic\"\n", `P:2: embeddings.mode: unknown search mode "semantic" (hybrid, vector or lexical)`},
		{"embeddings prompt timeout zero", "[embeddings]\nprompt_timeout_ms = 0\n", `P:2: embeddings.prompt_timeout_ms: 0 is out of range 1..60000`},
		{"not a table", "context = 3\n", `P:1: context: expected a table, found 3`},
		{"table for a value", "[context.budget]\nx = 1\n", `P:1: context.budget: expected a whole number, found a table`},
		{"list of numbers", "[context.dynamic]\ntypes = [1, 2]\n", `P:2: context.dynamic.types: expected a list of strings, found [1, 2]`},
		{"string for a list", "[context.dynamic]\ntypes = \"session\"\n", `P:2: context.dynamic.types: expected a list of strings, found "session"`},
		{"type listed twice", "[context.static]\ntypes = [\"decision\", \"decision\"]\n", `P:2: context.static.types: lists "decision" twice`},
		{"unknown type in a list", "[context.dynamic]\ntypes = [\"sesion\"]\n", `P:2: context.dynamic.types: unknown type "sesion" (did you mean "session"?); declare a new type with a [lifecycle] table and a tier`},
		{"bad tier", "[lifecycle.session]\nttl_days = 30\ntier = \"warm\"\n", `P:3: lifecycle.session.tier: unknown tier "warm" (use static, dynamic, relevant)`},
		{"negative ttl", "[lifecycle]\nlearning = { ttl_days = -1 }\n", `P:2: lifecycle.learning.ttl_days: -1 is out of range 0..100000`},
		{"confidence out of range", "[lifecycle.fix]\ninitial_confidence = 1.5\n", `P:2: lifecycle.fix.initial_confidence: 1.5 is out of range 0..1`},
		{"unknown lifecycle key", "[lifecycle.fix]\nttl = 3\n", `P:2: unknown key "lifecycle.fix.ttl" (did you mean "lifecycle.fix.tier"?)`},
		{"typo in a type", "[lifecycle.sesion]\nttl_days = 3\n", `P:1: lifecycle.sesion: unknown type "sesion" (did you mean "session"?); to add a type, give it a tier`},
		{"bad type name", "[lifecycle.Runbook]\ntier = \"relevant\"\n", `P:1: lifecycle.Runbook: "Runbook" is not a type name (lowercase letters, digits and _ - : . /)`},
		{"bad mode name", "[modes.\"Big One\"]\nbudget = 3\n", `P:1: modes."Big One": "Big One" is not a mode name (lowercase letters, digits and _ - : . /)`},
		{"bad hat name", "[scoring.hat_relations]\nExplorer = [\"planner\"]\n", `P:2: scoring.hat_relations.Explorer: "Explorer" is not a hat name (lowercase letters, digits and _ - : . /)`},
		{"bad related hat", "[scoring.hat_relations]\nexplorer = [\"\"]\n", `P:2: scoring.hat_relations.explorer: "" is not a hat name (lowercase letters, digits and _ - : . /)`},
		{"mode count negative", "[modes.eco]\nsearch_limit = -2\n", `P:2: modes.eco.search_limit: -2 is out of range 0..1000`},
		{"unknown mode key", "[modes.eco]\ndynamic_cont = 2\n", `P:2: unknown key "modes.eco.dynamic_cont" (did you mean "modes.eco.dynamic_count"?)`},
		{"keyword without phrase", "[[keywords]]\nphrase = \"a\"\n\n[[keywords]]\ndynamic_count = 2\n", `P:4: keywords[1]: missing phrase`},
		{"keyword phrase not a string", "[[keywords]]\nphrase = 3\n", `P:2: keywords[0].phrase: expected a string, found 3`},
		{"keyword phrase empty", "[[keywords]]\nphrase = \"  \"\n", `P:2: keywords[0].phrase: the phrase is empty`},
		{"keyword twice", "[[keywords]]\nphrase = \"go fast\"\n[[keywords]]\nphrase = \"Go  Fast\"\n", `P:4: keywords[1].phrase: "go fast" is already defined at line 2`},
		{"keyword unknown key", "[[keywords]]\nphrase = \"go fast\"\ndynamic_cont = 2\n", `P:3: unknown key "keywords.\"go fast\".dynamic_cont" (did you mean "keywords.\"go fast\".dynamic_count"?)`},
		{"keyword bad count", "[[keywords]]\nphrase = \"go fast\"\nsearch_limit = \"x\"\n", `P:3: keywords."go fast".search_limit: expected a whole number, found "x"`},
		{"keyword unknown mode", "[[keywords]]\nphrase = \"go fast\"\nmode = \"turbo\"\n", `P:3: keywords."go fast".mode: unknown mode "turbo" (known modes: autopilot, eco, ralph, swarm)`},
		{"inline keyword", "keywords = [{phrase = \"a\"}, {phrase = \"b\", budget = -1}]\n", `P:1: keywords.b.budget: -1 is out of range 0..200000`},
		{"keywords as a table", "[keywords]\nphrase = \"a\"\n", `P:1: keywords: expected an array of tables ([[keywords]]), found a table`},
		{"tier and list disagree", "[lifecycle.learning]\ntier = \"dynamic\"\n\n[context.static]\ntypes = [\"decision\", \"learning\"]\n",
			`P:5: context.static.types: lists "learning", but lifecycle.learning.tier is "dynamic" (P:2); a type has one tier`},
		{"tier and list leave out", "[context.static]\ntypes = [\"decision\"]\n[lifecycle.style]\ntier = \"static\"\n",
			`P:4: lifecycle.style.tier: is "static", but context.static.types does not list "style" (P:2); a type has one tier`},
		{"two lists claim a type", "[context.static]\ntypes = [\"session\"]\n[context.dynamic]\ntypes = [\"session\"]\n",
			`P:4: context.dynamic.types: lists "session", but context.static.types lists "session" (P:2); a type has one tier`},
		{"first mistake by line", "[scoring]\nthreshold = 20\n[context]\nbudget = \"x\"\n", `P:2: scoring.threshold: 20 is out of range 0..10`},
		{"multi-line string before a mistake", "[[keywords]]\nphrase = \"\"\"\nbudget = 3\n\"\"\"\n[context]\nbudget = false\n", `P:6: context.budget: expected a whole number, found false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, file := project(t, tt.content)
			_, err := config.Load(dir, "")
			want := strings.ReplaceAll(tt.want, "P:", file+":")
			if err == nil {
				t.Fatalf("Load succeeded, want %q", want)
			}
			if got := err.Error(); got != want && !(strings.HasSuffix(want, "invalid TOML: ") && strings.HasPrefix(got, want)) {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			if code := cairn.ErrorCode(err); code != cairn.EINVALID {
				t.Errorf("code %q, want %q", code, cairn.EINVALID)
			}
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.HasPrefix(ce.Where, file) {
				t.Errorf("no *config.Error at %s in %#v", file, err)
			}
		})
	}
}

func TestUserFileMistakesNameTheUserFile(t *testing.T) {
	t.Parallel()
	udir, ufile := user(t, "[context.dynamic]\nmax_count = 2\n")
	pdir, _ := project(t, "[context]\nbudget = 100\n")
	_, err := config.Load(pdir, udir)
	want := ufile + ":2: context.dynamic.max_count: 2 is less than context.dynamic.count, 3 (default)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	// The project may fix what the user's file broke: keys resolve one by
	// one before the counts are compared.
	pdir, _ = project(t, "[context.dynamic]\ncount = 2\n")
	l, err := config.Load(pdir, udir)
	if err != nil || l.Config.Context.Dynamic.Count != 2 || l.Config.Context.Dynamic.MaxCount != 2 {
		t.Errorf("Load = %v, %+v", err, l)
	}
}

func TestUnreadableFileIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(config.ProjectFile(dir), 0o755); err != nil { // a folder where the file should be
		t.Fatal(err)
	}
	_, err := config.Load(dir, "")
	if err == nil || cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), config.ProjectFile(dir)) {
		t.Errorf("Load = %v", err)
	}
}

func TestSetValidatesLikeAFileAndChangesNothingOnError(t *testing.T) {
	t.Parallel()
	pdir, pfile := project(t, "[context.dynamic]\nmax_count = 6\n")
	tests := []struct {
		key, value, want string
	}{
		{"context.budget", "big", `flag --x: context.budget: expected a whole number, found "big"`},
		{"context.budget", "0", `flag --x: context.budget: 0 is out of range 1..200000`},
		{"contex.budget", "3", `flag --x: unknown key "contex.budget" (did you mean "context.budget"?)`},
		{"context.", "3", `flag --x: malformed key "context."`},
		{"context.mode", "turbo", `flag --x: context.mode: unknown mode "turbo" (known modes: autopilot, eco, ralph, swarm)`},
		{"context.dynamic.count", "7", `flag --x: context.dynamic.count: 7 is more than context.dynamic.max_count, 6 (` + pfile + `:2)`},
		{"context.static.enabled", "maybe", `flag --x: context.static.enabled: expected true or false, found "maybe"`},
		{"context.relevant.min_relevance", "2", `flag --x: context.relevant.min_relevance: 2 is out of range 0..1`},
		{"lifecycle.runbook.ttl_days", "3", `flag --x: lifecycle.runbook: unknown type "runbook"; set its tier first to add it`},
		{"lifecycle.session.tier", "static", ""}, // succeeds: see below
	}
	for _, tt := range tests {
		l, err := config.Load(pdir, "")
		if err != nil {
			t.Fatal(err)
		}
		before, _ := json.Marshal(l)
		err = l.Set(tt.key, tt.value, "flag --x")
		if tt.key == "lifecycle.session.tier" {
			// The dynamic list is at its default here, so it follows the tier.
			if err != nil || !slices.Contains(l.Config.Context.Static.Types, "session") || len(l.Config.Context.Dynamic.Types) != 0 {
				t.Errorf("Set(%s) = %v; static %q, dynamic %q", tt.key, err, l.Config.Context.Static.Types, l.Config.Context.Dynamic.Types)
			}
			if s := sources(l); s["context.static.types"].From != "flag --x" || s["lifecycle.session.tier"].From != "flag --x" {
				t.Errorf("sources: %+v %+v", s["context.static.types"], s["lifecycle.session.tier"])
			}
			continue
		}
		if err == nil || err.Error() != tt.want {
			t.Errorf("Set(%s, %s) = %v\nwant %s", tt.key, tt.value, err, tt.want)
		}
		if after, _ := json.Marshal(l); string(after) != string(before) {
			t.Errorf("Set(%s, %s) failed but changed the configuration", tt.key, tt.value)
		}
	}
}

func TestSetAddsEntriesAndRecordsTheOrigin(t *testing.T) {
	t.Parallel()
	l, err := config.Load("", "")
	if err != nil {
		t.Fatal(err)
	}
	steps := [][3]string{
		{"context.relevant.types", "learning, pattern,gotcha", "flag --types"},
		{"lifecycle.runbook.tier", "relevant", "flag --tier"},
		{"lifecycle.runbook.ttl_days", "7", "flag --ttl"},
		{"modes.deep.search_limit", "15", "flag --mode-limit"},
		{`keywords."Deep  Dive".mode`, "deep", "flag --kw"},
		{"scoring.hat_relations.reviewer", "critic,editor", "flag --hats"},
	}
	for _, s := range steps {
		if err := l.Set(s[0], s[1], s[2]); err != nil {
			t.Fatalf("Set(%s, %s): %v", s[0], s[1], err)
		}
	}
	c := l.Config
	if !slices.Equal(c.Context.Relevant.Types, []string{"learning", "pattern", "gotcha"}) ||
		c.Lifecycle["runbook"] != (config.TypeLifecycle{TTLDays: 7, Tier: "relevant"}) ||
		c.Modes["deep"] != (config.ModeOverride{SearchLimit: 15}) ||
		c.Keywords[len(c.Keywords)-1] != (config.KeywordOverride{Phrase: "deep dive", Mode: "deep"}) ||
		!slices.Equal(c.Scoring.HatRelations["reviewer"], []string{"critic", "editor"}) {
		t.Errorf("after Set: %+v", c)
	}
	want := map[string]string{
		"lifecycle.runbook.initial_confidence": "flag --tier", // the entry's origin
		"lifecycle.runbook.ttl_days":           "flag --ttl",
		"modes.deep.budget":                    "flag --mode-limit",
		`keywords."deep dive".budget`:          "flag --kw",
		"scoring.hat_relations.reviewer":       "flag --hats",
		"context.relevant.types":               "flag --types",
	}
	s := sources(l)
	for k, from := range want {
		if s[k].From != from {
			t.Errorf("%s comes from %q, want %q", k, s[k].From, from)
		}
	}
	p := c.Policies()["runbook"]
	if p.TTL != 7*24*time.Hour || p.Tier != cairn.TierRelevant || p.Weight != 1 {
		t.Errorf("Policies()[runbook] = %+v", p)
	}
}

func TestTiersFollowTheExplicitSetting(t *testing.T) {
	t.Parallel()
	dir, file := project(t, `[lifecycle.learning]
tier = "static"

[context.dynamic]
types = []
`)
	l, err := config.Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if !slices.Contains(c.Context.Static.Types, "learning") || c.Lifecycle["learning"].Tier != "static" {
		t.Errorf("learning: static list %q, tier %q", c.Context.Static.Types, c.Lifecycle["learning"].Tier)
	}
	// An explicit empty dynamic list demotes session to relevant.
	if c.Lifecycle["session"].Tier != "relevant" || len(c.Context.Dynamic.Types) != 0 {
		t.Errorf("session: tier %q, dynamic list %q", c.Lifecycle["session"].Tier, c.Context.Dynamic.Types)
	}
	s := sources(l)
	for k, from := range map[string]string{
		"context.static.types":    at(file, 2),
		"lifecycle.learning.tier": at(file, 2),
		"lifecycle.session.tier":  at(file, 5),
		"context.dynamic.types":   at(file, 5),
	} {
		if s[k].From != from {
			t.Errorf("%s comes from %q, want %q", k, s[k].From, from)
		}
	}
	if got := c.Policies()["session"].Tier; got != cairn.TierRelevant {
		t.Errorf("Policies()[session].Tier = %q", got)
	}
}

func TestModes(t *testing.T) {
	t.Parallel()
	t.Run("apply by name", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			mode                 string
			count, limit, budget int
		}{
			{"", 3, 10, 1500},
			{"autopilot", 5, 5, 1500},
			{"ralph", 5, 5, 1500},
			{"swarm", 3, 3, 1500},
			{"eco", 1, 2, 1500},
		}
		for _, tt := range tests {
			c := config.Default()
			if err := c.ApplyMode(tt.mode); err != nil {
				t.Fatal(err)
			}
			if c.Context.Dynamic.Count != tt.count || c.Context.Relevant.Limit != tt.limit || c.Context.Budget != tt.budget || c.Context.Mode != tt.mode {
				t.Errorf("%q: count %d limit %d budget %d mode %q", tt.mode, c.Context.Dynamic.Count, c.Context.Relevant.Limit, c.Context.Budget, c.Context.Mode)
			}
		}
	})
	t.Run("unknown mode lists the known ones", func(t *testing.T) {
		t.Parallel()
		c := config.Default()
		err := c.ApplyMode("turbo")
		if err == nil || err.Error() != `unknown mode "turbo" (known modes: autopilot, eco, ralph, swarm)` || cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("ApplyMode(turbo) = %v", err)
		}
		if !reflect.DeepEqual(c, config.Default()) {
			t.Errorf("a failed ApplyMode changed the config")
		}
	})
	t.Run("counts are capped at their max", func(t *testing.T) {
		t.Parallel()
		c := config.Default()
		c.Modes["huge"] = config.ModeOverride{DynamicCount: 50, SearchLimit: 50, Budget: 9000}
		if err := c.ApplyMode("huge"); err != nil {
			t.Fatal(err)
		}
		if c.Context.Dynamic.Count != 10 || c.Context.Relevant.Limit != 20 || c.Context.Budget != 9000 {
			t.Errorf("count %d limit %d budget %d", c.Context.Dynamic.Count, c.Context.Relevant.Limit, c.Context.Budget)
		}
	})
	t.Run("context.mode applies at load, below overrides", func(t *testing.T) {
		t.Parallel()
		udir, ufile := user(t, "[modes.eco]\nsearch_limit = 4\n")
		pdir, pfile := project(t, "[context]\nmode = \"eco\"\nbudget = 900\n[context.dynamic]\ncount = 6\n")
		l, err := config.Load(pdir, udir)
		if err != nil {
			t.Fatal(err)
		}
		c := l.Config
		if c.Context.Mode != "eco" || c.Context.Dynamic.Count != 1 || c.Context.Relevant.Limit != 4 || c.Context.Budget != 900 {
			t.Errorf("with eco: count %d, limit %d, budget %d", c.Context.Dynamic.Count, c.Context.Relevant.Limit, c.Context.Budget)
		}
		s := sources(l)
		if s["context.dynamic.count"].From != "mode eco (default)" || s["context.relevant.limit"].From != "mode eco ("+ufile+":2)" || s["context.mode"].From != at(pfile, 2) {
			t.Errorf("sources: %+v %+v %+v", s["context.dynamic.count"], s["context.relevant.limit"], s["context.mode"])
		}
		// A flag beats the mode; a flag's mode beats the file's.
		if err := l.Set("context.dynamic.count", "2", "flag --count"); err != nil {
			t.Fatal(err)
		}
		if err := l.Set("context.mode", "swarm", "flag --mode"); err != nil {
			t.Fatal(err)
		}
		c = l.Config
		if c.Context.Mode != "swarm" || c.Context.Dynamic.Count != 2 || c.Context.Relevant.Limit != 3 {
			t.Errorf("with flags: mode %q count %d limit %d", c.Context.Mode, c.Context.Dynamic.Count, c.Context.Relevant.Limit)
		}
		s = sources(l)
		if s["context.dynamic.count"].From != "flag --count" || s["context.relevant.limit"].From != "mode swarm (default)" {
			t.Errorf("sources: %+v %+v", s["context.dynamic.count"], s["context.relevant.limit"])
		}
	})
}

func TestApplyKeywords(t *testing.T) {
	t.Parallel()
	base := func() *config.Config {
		c := config.Default()
		c.Keywords = append(c.Keywords,
			config.KeywordOverride{Phrase: "go wide", SearchLimit: 15, Budget: 4000},
			config.KeywordOverride{Phrase: "c++", DynamicCount: 2},
			config.KeywordOverride{Phrase: "autopilot please", Mode: "autopilot", SearchLimit: 7},
		)
		return c
	}
	tests := []struct {
		prompt               string
		want                 []string
		count, limit, budget int
		mode                 string
	}{
		{"fix the login bug", nil, 3, 10, 1500, ""},
		{"Please give me DETAILED Context on auth", []string{"detailed context"}, 5, 10, 1500, ""},
		{"quick\n\ttask: rename a field", []string{"quick task"}, 1, 10, 1500, ""},
		{"read the full history", []string{"full history"}, 10, 10, 1500, ""},
		{"eco mode!", []string{"eco mode"}, 1, 10, 1500, ""},
		{"the deco model is wrong", nil, 3, 10, 1500, ""},
		{"quick tasks only", nil, 3, 10, 1500, ""},
		{"full history, then a quick task", []string{"full history", "quick task"}, 1, 10, 1500, ""},
		{"go wide on this", []string{"go wide"}, 3, 15, 4000, ""},
		{"port it to C++ today", []string{"c++"}, 2, 10, 1500, ""},
		{"autopilot please, quick task", []string{"quick task", "autopilot please"}, 1, 7, 1500, "autopilot"},
	}
	for _, tt := range tests {
		c := base()
		got := c.ApplyKeywords(tt.prompt)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: matched %q, want %q", tt.prompt, got, tt.want)
		}
		if c.Context.Dynamic.Count != tt.count || c.Context.Relevant.Limit != tt.limit || c.Context.Budget != tt.budget || c.Context.Mode != tt.mode {
			t.Errorf("%q: count %d limit %d budget %d mode %q", tt.prompt, c.Context.Dynamic.Count, c.Context.Relevant.Limit, c.Context.Budget, c.Context.Mode)
		}
	}
}
