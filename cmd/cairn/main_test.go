package main

// The harness shared by the CLI tests: an in-process runner over Main.Run
// (each test gets its own database, project, environment and working
// directory, so the user's CAIRN_* variables never leak in), and the cairn
// binary, built once in TestMain for the whole-process tests.
//
// Bad inputs tried by the tests of this package, file by file:
//   - add_test.go: content over 64 KiB, invalid UTF-8, NUL bytes, empty
//     content, bad confidence, repeated content with different white
//     space, repeated keys with lower confidence, ANSI escapes and
//     carriage returns in the first line.
//   - search_test.go: FTS/SQL-hostile queries (unbalanced quotes, boolean
//     operators, NEAR(), column filters, SQL injection, emoji, 5 KB of
//     punctuation), empty and blank queries, malformed --batch lines,
//     batch queries for unknown projects.
//   - importexport_test.go: malformed JSON Lines (a non-numeric confidence,
//     broken JSON, a NUL escape, raw invalid UTF-8, a bad type name, an id
//     taken by another project), re-imports, seed 000 export documents.
//   - misc_test.go: unknown commands and flags, bad --now, missing
//     databases, project resolution from git folders and the environment.
//   - binary_test.go: concurrent writer processes, a process killed in the
//     middle of a 200,000-memory import, exit statuses of the real binary,
//     /dev/zero as an import and capture, SIGINT and SIGTERM to an import
//     reading a pipe that stays open.
//   - usage_test.go: unknown --mode and --scope, invalid type names,
//     typos of known types, database URLs as --db and CAIRN_DB.
//   - isolation_test.go: another project's ids and id prefixes given to
//     every command taking an id.
//   - serve_events_test.go: a bad Last-Event-ID, a negative ?after=, a
//     seq past the newest event, another Host, a stream cut while writes
//     go on, interleaved projects, a server stopped under open streams,
//     bad watch flags.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cairnBin is the binary built by TestMain; empty under -short.
var cairnBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "cairn-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cairnBin = filepath.Join(dir, "cairn")
	build := exec.Command("go", "build", "-o", cairnBin, "./")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cairn: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var idRE = regexp.MustCompile(`^mem-[0-9a-z]{16}$`)

// cli runs cairn in process against its own database and project.
type cli struct {
	t       *testing.T
	dir     string // a private folder: the working directory and XDG data home
	db      string
	project string
	env     map[string]string
	wd      string
	// startServer, when set, is Main.StartServer (tests leave it nil so
	// that no server is started behind their back).
	startServer func(db, project string) error
}

// result is what one run of cairn produced.
type result struct {
	served         bool // a server answered
	args           []string
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("cairn %q: exit %d\nstdout: %s\nstderr: %s", r.args, r.code, r.stdout, r.stderr)
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	dir := t.TempDir()
	return &cli{
		t: t, dir: dir, db: filepath.Join(dir, "cairn.db"), project: "proj",
		// HOME and XDG_DATA_HOME point into the test's folder so that a
		// forgotten --db can never touch the user's real database.
		env: map[string]string{"HOME": dir, "XDG_DATA_HOME": filepath.Join(dir, "xdg")},
		wd:  dir,
	}
}

// raw runs cairn with exactly args (no --db or --project added).
func (c *cli) raw(stdin string, args ...string) result {
	c.t.Helper()
	var out, errb bytes.Buffer
	m := &Main{
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errb,
		Getenv: func(k string) string { return c.env[k] },
		Getwd:  func() (string, error) { return c.wd, nil },

		StartServer: c.startServer,
	}
	code := m.Run(c.t.Context(), args)
	return result{args: args, code: code, stdout: out.String(), stderr: errb.String(), served: m.served}
}

// run runs cairn with the test's --db and --project before args.
func (c *cli) run(stdin string, args ...string) result {
	c.t.Helper()
	return c.raw(stdin, append([]string{"--db", c.db, "--project", c.project}, args...)...)
}

// ok runs cairn and fails the test unless it exits 0.
func (c *cli) ok(args ...string) result {
	c.t.Helper()
	r := c.run("", args...)
	if r.code != 0 {
		c.t.Fatalf("want exit 0, got %v", r)
	}
	return r
}

// add adds a memory and returns its id.
func (c *cli) add(args ...string) string {
	c.t.Helper()
	r := c.ok(append([]string{"add"}, args...)...)
	id := strings.TrimSpace(r.stdout)
	if !idRE.MatchString(id) {
		c.t.Fatalf("add printed %q, not an id: %v", r.stdout, r)
	}
	return id
}

// show returns the memory as show --json prints it.
func (c *cli) show(id string) map[string]any {
	c.t.Helper()
	r := c.ok("show", "--json", id)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		c.t.Fatalf("show --json is not a JSON object: %v\n%v", err, r)
	}
	return m
}

// searchIDs returns the ids search --json finds, best first.
func (c *cli) searchIDs(args ...string) []string {
	c.t.Helper()
	r := c.ok(append([]string{"search", "--json"}, args...)...)
	var hits []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil {
		c.t.Fatalf("search --json is not a JSON array: %v\n%v", err, r)
	}
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, h["id"].(string))
	}
	return ids
}

// listIDs returns the ids list --json prints, in its order.
func (c *cli) listIDs(args ...string) []string {
	c.t.Helper()
	mems := c.listJSON(args...)
	ids := make([]string, 0, len(mems))
	for _, m := range mems {
		ids = append(ids, m["id"].(string))
	}
	return ids
}

func (c *cli) listJSON(args ...string) []map[string]any {
	c.t.Helper()
	r := c.ok(append([]string{"list", "--json"}, args...)...)
	var mems []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &mems); err != nil {
		c.t.Fatalf("list --json is not a JSON array: %v\n%v", err, r)
	}
	return mems
}

// total is stats --json's total for the test's project.
func (c *cli) total() int {
	c.t.Helper()
	return statsTotal(c.t, c.ok("stats", "--json"))
}

func statsTotal(t *testing.T, r result) int {
	t.Helper()
	var st struct {
		Total *int `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Total == nil {
		t.Fatalf("stats --json has no total: %v\n%v", err, r)
	}
	return *st.Total
}

// writeFile writes a file in the test's folder and returns its path.
func (c *cli) writeFile(name, content string) string {
	c.t.Helper()
	p := filepath.Join(c.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// oneErrorLine fails unless stderr is exactly one non-empty line.
func oneErrorLine(t *testing.T, r result) {
	t.Helper()
	s := strings.TrimSuffix(r.stderr, "\n")
	if s == "" || strings.Contains(s, "\n") {
		t.Errorf("want one line on stderr, got %q (%v)", r.stderr, r)
	}
}

// jsonLines joins records as JSON Lines.
func jsonLines(t *testing.T, recs ...any) string {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		if s, ok := r.(string); ok {
			b.WriteString(s)
			b.WriteByte('\n')
			continue
		}
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func strList(v any) []string {
	xs, _ := v.([]any)
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
