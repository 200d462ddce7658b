package main

// Tests of list and search (single and --batch) through Main.Run.
//
// Bad inputs tried here: queries hostile to FTS5 and SQL (an unbalanced
// quote, bare boolean operators, NEAR(), column filters and prefix stars,
// an SQL injection, emoji, 5 KB of punctuation, control characters), empty
// and blank queries, out-of-range --limit, unknown --sort, batch lines that
// are not JSON or carry a bad time, batch queries for unknown projects.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// seedList adds four memories at fixed times and returns their ids.
func seedList(t *testing.T, c *cli) (a, b, d, e string) {
	t.Helper()
	a = c.add("--now", "2024-01-01T00:00:00Z", "--type", "decision", "--tags", "db", "--confidence", "0.9", "--session", "s1", "kestrel alpha: chose SQLite")
	b = c.add("--now", "2024-02-01T00:00:00Z", "--type", "pitfall", "--tags", "db,perf", "--confidence", "0.5", "--session", "s2", "kestrel bravo: a slow query")
	d = c.add("--now", "2024-03-01T00:00:00Z", "--type", "decision", "--tags", "ui", "--confidence", "0.7", "--session", "s1", "kestrel charlie: tabs not spaces")
	e = c.add("--now", "2024-04-01T00:00:00Z", "--type", "note", "--confidence", "0.3", "--session", "s3", "kestrel delta: a passing thought")
	return
}

func TestListFiltersSortsAndLimits(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a, b, d, e := seedList(t, c)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"newest first by default", nil, []string{e, d, b, a}},
		{"type", []string{"--type", "decision"}, []string{d, a}},
		{"several types", []string{"--type", "decision,note"}, []string{e, d, a}},
		{"tag", []string{"--tag", "db"}, []string{b, a}},
		{"all tags", []string{"--tag", "db,perf"}, []string{b}},
		{"min confidence", []string{"--min-confidence", "0.6"}, []string{d, a}},
		{"limit", []string{"--limit", "2"}, []string{e, d}},
		{"oldest", []string{"--sort", "oldest"}, []string{a, b, d, e}},
		{"confidence", []string{"--sort", "confidence"}, []string{a, d, b, e}},
		{"after", []string{"--after", "2024-02-01", "--sort", "oldest"}, []string{b, d, e}},
		{"before", []string{"--before", "2024-02-01T00:00:00Z"}, []string{a}},
		{"session", []string{"--session", "s1"}, []string{d, a}},
	}
	for _, tt := range tests {
		if got := c.listIDs(tt.args...); !slices.Equal(got, tt.want) {
			t.Errorf("list %s %q = %v, want %v", tt.name, tt.args, got, tt.want)
		}
	}
	// Plain list: one line per memory, with the id.
	r := c.ok("list", "--limit", "0")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], e) {
		t.Errorf("plain list:\n%s", r.stdout)
	}
	// A cut list says so on stderr.
	if r := c.ok("list", "--limit", "1"); !strings.Contains(r.stderr, "1 of 4") {
		t.Errorf("list --limit 1 should say it shows 1 of 4: %q", r.stderr)
	}
	if r := c.run("", "list", "--sort", "sideways"); r.code != 2 {
		t.Errorf("list --sort sideways: want exit 2, got %v", r)
	}
}

func TestSearchJSONIsAnArrayOfHitsWithTheContractFields(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--type", "pitfall", "--title", "Flaky timers", "Tests that sleep are flaky; inject a clock instead")
	c.add("Unrelated: the logo is blue")
	r := c.ok("search", "--json", "flaky clock")
	var hits []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, r.stdout)
	}
	if len(hits) != 1 {
		t.Fatalf("want 1 hit, got %d: %s", len(hits), r.stdout)
	}
	h := hits[0]
	if h["id"] != id || h["type"] != "pitfall" || h["title"] != "Flaky timers" ||
		h["content"] != "Tests that sleep are flaky; inject a clock instead" {
		t.Errorf("hit = %v", h)
	}
	if s, ok := h["score"].(float64); !ok || s <= 0 {
		t.Errorf("score = %#v, want a positive number", h["score"])
	}
	// No match: an empty array, not null.
	if r := c.ok("search", "--json", "xylophone"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("no hits should print [], got %q", r.stdout)
	}
	// Plain output names the id.
	if r := c.ok("search", "flaky"); !strings.Contains(r.stdout, id) {
		t.Errorf("plain search does not print the id:\n%s", r.stdout)
	}
}

func TestSearchFiltersByTypeTagDatesSessionAndLimit(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a, b, d, e := seedList(t, c)
	sorted := func(xs []string) []string { xs = slices.Clone(xs); slices.Sort(xs); return xs }
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no filter", nil, []string{a, b, d, e}},
		{"type", []string{"--type", "decision"}, []string{a, d}},
		{"tag", []string{"--tag", "db"}, []string{a, b}},
		{"after", []string{"--after", "2024-03-01"}, []string{d, e}},
		{"before", []string{"--before", "2024-02-15T00:00:00Z"}, []string{a, b}},
		{"after and before", []string{"--after", "2024-02-01", "--before", "2024-04-01"}, []string{b, d}},
		{"exclude session", []string{"--exclude-session", "s1"}, []string{b, e}},
	}
	for _, tt := range tests {
		got := c.searchIDs(append([]string{"kestrel"}, tt.args...)...)
		if !slices.Equal(sorted(got), sorted(tt.want)) {
			t.Errorf("search %s %q = %v, want %v", tt.name, tt.args, got, tt.want)
		}
	}
	if got := c.searchIDs("kestrel", "--limit", "2"); len(got) != 2 {
		t.Errorf("--limit 2 gave %d hits", len(got))
	}
	for _, bad := range []string{"0", "-1", "1001", "ten"} {
		if r := c.run("", "search", "kestrel", "--limit", bad); r.code != 2 {
			t.Errorf("--limit %s: want exit 2, got %v", bad, r)
		}
	}
}

func TestSearchTakesFlagsAfterTheQuery(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, w := range []string{"one", "two", "three", "four", "five"} {
		c.add("--type", "note", "ferret "+w)
	}
	c.add("--type", "decision", "ferret decided")
	if got := c.searchIDs("ferret", "--limit", "3"); len(got) != 3 {
		t.Errorf("search ferret --limit 3 gave %d hits", len(got))
	}
	r := c.ok("search", "ferret", "--limit", "3", "--json", "--type", "decision")
	var hits []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) != 1 || hits[0]["type"] != "decision" {
		t.Errorf("flags after the query were not applied: %v\n%s", err, r.stdout)
	}
	// Words on both sides of flags join into one query; -- ends flags.
	if got := c.searchIDs("ferret", "--limit", "10", "decided"); len(got) == 0 {
		t.Errorf("a query split around a flag found nothing")
	}
	if r := c.ok("search", "--json", "--", "--limit"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("after --, --limit is a query word: %v", r)
	}
}

func TestSearchHostileQueriesExitZeroWithoutSQLErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.add(`He said "hello" AND left; NEAR the col:umn 'quoted' -- dashes`)
	crab := c.add("The crab 🦀 mascot means Rust code")
	c.add("Another ordinary memory about tables")
	queries := []string{
		`"unbalanced`,
		`a AND OR NOT`,
		`NEAR(x y)`,
		`col:*`,
		`'; DROP TABLE memories; --`,
		`*`,
		`"`,
		`(((`,
		`AND`,
		`hello*`,
		`^start`,
		`content:hello`,
		`x OR 1=1`,
		`%_\`,
		"tab\there\x01ctrl",
		`🦀`,
		`🦀🦀🦀 🙂 👍🏽`,
		strings.Repeat(`!@#$%^&*()_+-=[]{}|;':",./<>?~`+"`", 170), // ~5 KB
	}
	for _, q := range queries {
		r := c.run("", "search", "--json", q)
		name := q
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		if r.code != 0 {
			t.Errorf("query %q: want exit 0, got %v", name, r)
			continue
		}
		low := strings.ToLower(r.stderr + r.stdout)
		for _, leak := range []string{"sql", "syntax error", "fts5", "no such", "internal error", "panic"} {
			if strings.Contains(low, leak) {
				t.Errorf("query %q leaks %q: %v", name, leak, r)
			}
		}
		var hits []map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil {
			t.Errorf("query %q: stdout is not a JSON array: %v", name, err)
		}
	}
	// The injection changed nothing.
	if n := c.total(); n != 3 {
		t.Errorf("stats total = %d after hostile queries, want 3", n)
	}
	// Words next to odd characters are still found.
	if ids := c.searchIDs("🦀 Rust"); len(ids) == 0 || ids[0] != crab {
		t.Errorf("search '🦀 Rust' = %v, want %s first", ids, crab)
	}
	if ids := c.searchIDs(`"hello`); len(ids) != 1 {
		t.Errorf(`search "hello found %v, want the one memory with hello`, ids)
	}
}

func TestSearchEmptyQueryFailsWithAClearMessage(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.add("something stored")
	for _, args := range [][]string{{"search"}, {"search", ""}, {"search", "   "}, {"search", "--json", "\t\n"}} {
		r := c.run("", args...)
		if r.code != 1 && r.code != 2 {
			t.Errorf("%q: want exit 1 or 2, got %v", args, r)
			continue
		}
		oneErrorLine(t, r)
		if !strings.Contains(r.stderr, "give the words") && !strings.Contains(r.stderr, "empty") {
			t.Errorf("%q: the message does not say the query is missing: %q", args, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%q printed %q", args, r.stdout)
		}
	}
}

type batchOut struct {
	QID   string   `json:"qid"`
	IDs   []string `json:"ids"`
	Error string   `json:"error"`
}

func decodeBatch(t *testing.T, r result) []batchOut {
	t.Helper()
	var out []batchOut
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("batch output line %q is not a JSON object: %v", line, err)
		}
		if ids, ok := raw["ids"]; !ok || string(ids) == "null" {
			t.Errorf("batch output line %q has no ids array", line)
		}
		var b batchOut
		json.Unmarshal([]byte(line), &b)
		out = append(out, b)
	}
	return out
}

func TestSearchBatchAnswersEveryLineInOrder(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	otter := c.add("--now", "2024-01-01T00:00:00Z", "The otter service owns billing")
	heron := c.add("--now", "2024-01-02T00:00:00Z", "The heron service owns search")
	c.project = "elsewhere"
	other := c.add("The otter service in another project")
	c.project = "proj"
	input := jsonLines(t,
		map[string]any{"qid": "q1", "project": "proj", "query": "otter billing", "now": "2024-06-01T00:00:00Z", "limit": 5},
		map[string]any{"qid": "q2", "project": "proj", "query": "heron"},
		map[string]any{"qid": "q3", "project": "no-such-project", "query": "otter"},
		map[string]any{"qid": "q4", "project": "elsewhere", "query": "otter"},
		map[string]any{"qid": "q5", "query": "service", "limit": 1},
		map[string]any{"qid": "q6", "project": "proj", "query": "nothing matches this"},
	)
	for _, from := range []string{"file", "stdin"} {
		var r result
		if from == "file" {
			r = c.run("", "search", "--batch", c.writeFile("batch.jsonl", input))
		} else {
			r = c.run(input, "search", "--batch", "-")
		}
		if r.code != 0 {
			t.Fatalf("batch from %s: want exit 0, got %v", from, r)
		}
		got := decodeBatch(t, r)
		want := []batchOut{
			{QID: "q1", IDs: []string{otter}},
			{QID: "q2", IDs: []string{heron}},
			{QID: "q3", IDs: []string{}},
			{QID: "q4", IDs: []string{other}},
			{QID: "q5"}, // one id, checked below
			{QID: "q6", IDs: []string{}},
		}
		if len(got) != len(want) {
			t.Fatalf("batch from %s: %d answers for %d queries:\n%s", from, len(got), len(want), r.stdout)
		}
		for i := range want {
			if got[i].QID != want[i].QID || got[i].Error != "" {
				t.Errorf("answer %d = %+v, want qid %s without error", i, got[i], want[i].QID)
			}
			switch {
			case want[i].IDs == nil:
			case len(want[i].IDs) == 0 || want[i].QID == "q4":
				if !slices.Equal(got[i].IDs, want[i].IDs) {
					t.Errorf("answer %s ids = %v, want %v", want[i].QID, got[i].IDs, want[i].IDs)
				}
			default:
				// Best first; related memories of the same project may follow.
				if len(got[i].IDs) == 0 || got[i].IDs[0] != want[i].IDs[0] || slices.Contains(got[i].IDs, other) {
					t.Errorf("answer %s ids = %v, want %s first and nothing of another project", want[i].QID, got[i].IDs, want[i].IDs[0])
				}
			}
		}
		if len(got[4].IDs) != 1 || (got[4].IDs[0] != otter && got[4].IDs[0] != heron) {
			t.Errorf("q5 (limit 1, default project) ids = %v", got[4].IDs)
		}
	}
}

func TestSearchBatchReportsBadLinesAndStillAnswersTheOthers(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("The badger cache expires hourly")
	input := jsonLines(t,
		map[string]any{"qid": "ok1", "project": "proj", "query": "badger"},
		`{"qid": "broken", "query": `,
		map[string]any{"qid": "badtime", "project": "proj", "query": "badger", "now": "yesterday"},
		map[string]any{"qid": "empty", "project": "proj", "query": ""},
		map[string]any{"qid": "ok2", "project": "proj", "query": "cache"},
	)
	r := c.run(input, "search", "--batch", "-")
	if r.code != 1 {
		t.Errorf("a batch with bad lines should exit 1, got %v", r)
	}
	got := decodeBatch(t, r)
	if len(got) != 5 {
		t.Fatalf("want 5 answers, got %d:\n%s", len(got), r.stdout)
	}
	if got[0].QID != "ok1" || !slices.Equal(got[0].IDs, []string{id}) || got[0].Error != "" {
		t.Errorf("answer 1 = %+v", got[0])
	}
	if got[1].Error == "" || len(got[1].IDs) != 0 || !strings.Contains(got[1].Error, "line 2") {
		t.Errorf("answer 2 (broken JSON) = %+v, want an error naming line 2", got[1])
	}
	if got[2].QID != "badtime" || got[2].Error == "" {
		t.Errorf("answer 3 (bad now) = %+v, want an error", got[2])
	}
	if got[3].QID != "empty" || got[3].Error == "" {
		t.Errorf("answer 4 (empty query) = %+v, want an error", got[3])
	}
	if got[4].QID != "ok2" || !slices.Equal(got[4].IDs, []string{id}) || got[4].Error != "" {
		t.Errorf("answer 5 = %+v", got[4])
	}
	oneErrorLine(t, r)
	if r := c.run("", "search", "--batch", "-", "also a query"); r.code != 2 {
		t.Errorf("--batch with a query: want exit 2, got %v", r)
	}
	if r := c.run("", "search", "--batch", c.dir+"/missing.jsonl"); r.code != 1 {
		t.Errorf("--batch of a missing file: want exit 1, got %v", r)
	}
}
