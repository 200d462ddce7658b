package capture

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// sig is the part of a Signal the table tests compare.
type sig struct {
	Kind, Type, Title, Content string
	Line                       int
}

func short(ss []Signal) []sig {
	out := []sig{}
	for _, s := range ss {
		out = append(out, sig{s.Kind, s.Type, s.Title, s.Content, s.Line})
	}
	return out
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		want  []sig
		probs []int // the lines of the expected problems
	}{
		{"no signals", "just some output\nwith <b>html</b> and a < b\n", nil, nil},
		{"empty", "", nil, nil},
		{"memory single line", "MEMORY:pattern:Tests use testify/assert, not standard library",
			[]sig{{"memory", "pattern", "Tests use testify/assert, not standard library", "Tests use testify/assert, not standard library", 1}}, nil},
		{"memory mid line, title rule", "done. MEMORY: Pitfall : session.Get() returns nil. Not an error.",
			[]sig{{"memory", "pitfall", "session.Get() returns nil", "session.Get() returns nil. Not an error.", 1}}, nil},
		{"memory word boundary and inline code", "NOMEMORY:a:b and `MEMORY:type:content` here", nil, nil},
		{"memory multi-line", "x\nMEMORY:decision:Use a mutex.\n  The state is one map;\n\tcheap access.\nafter",
			[]sig{{"memory", "decision", "Use a mutex", "Use a mutex.\nThe state is one map;\ncheap access.", 2}}, nil},
		{"memory multi-line empty first line", "  - MEMORY:pitfall:\n      Worktree is empty before Start.\n  - other",
			[]sig{{"memory", "pitfall", "Worktree is empty before Start", "Worktree is empty before Start.", 1}}, nil},
		{"memory continuation stops at a signal", "MEMORY:fix:a\n  MEMORY:fix:b",
			[]sig{{"memory", "fix", "a", "a", 1}, {"memory", "fix", "b", "b", 2}}, nil},
		{"memory no type", "MEMORY: remember this", nil, []int{1}},
		{"memory bad type", "ok\nMEMORY:some thing:x", nil, []int{2}},
		{"memory empty", "MEMORY:note:   ", nil, []int{1}},
		{"crlf", "a\r\nMEMORY:fix:Restart the daemon.\r\n<retry-suggestion>Split it\r\nup</retry-suggestion>\r\n",
			[]sig{{"memory", "fix", "Restart the daemon", "Restart the daemon.", 2},
				{"retry_suggestion", "task_result", "Split it", "Split it\nup", 3}}, nil},
		{"learning bare", "<learning>WAL mode avoids reader blocking.</learning>",
			[]sig{{"learning", "learning", "WAL mode avoids reader blocking", "WAL mode avoids reader blocking.", 1}}, nil},
		{"learning attributes multi-line", "x\n<learning category=\"Pattern\" tags='a,b' files=x.go>\n  first line\n  second\n</learning>",
			[]sig{{"learning", "pattern", "first line", "first line\n  second", 2}}, nil},
		{"learning nested-looking text", "<learning>Close <retry-suggestion> tags; MEMORY:x:y is text</learning>",
			[]sig{{"learning", "learning", "Close <retry-suggestion> tags; MEMORY:x:y is text", "Close <retry-suggestion> tags; MEMORY:x:y is text", 1}}, nil},
		{"several tags on a line", "<difficulty-estimate>easy</difficulty-estimate> and <Retry_Suggestion>go</retry-suggestion>",
			[]sig{{"difficulty", "task_result", "Difficulty: easy", "Difficulty: easy", 1}, {"retry_suggestion", "task_result", "go", "go", 1}}, nil},
		{"learning bad category", "<learning category=\"no way\">x</learning>", nil, []int{1}},
		{"learning empty", "a\nb\n<learning>  </learning>", nil, []int{3}},
		{"self-closing", "<learning/>", nil, []int{1}},
		{"unclosed at end", "a\n<failure-report>\nerror: x\n", nil, []int{2}},
		{"unclosed before next sigil", "<learning>one\n<learning>two</learning>",
			[]sig{{"learning", "learning", "two", "two", 2}}, []int{1}},
		{"stray closing", "text</learning>", nil, []int{1}},
		{"look-alike", "a\n<failure-reprot>x</failure-reprot>\n<learnings>y</learnings>\n<div>z</div>", nil, []int{2, 3}},
		{"malformed open tag", "<learning category=\"x", nil, []int{1}},
		{"difficulty words and numbers", "<difficulty-estimate>4/5: touches the scheduler</difficulty-estimate>\n<difficulty-estimate>Medium.</difficulty-estimate>",
			[]sig{{"difficulty", "task_result", "Difficulty: hard", "Difficulty: hard (4/5)\n\ntouches the scheduler", 1},
				{"difficulty", "task_result", "Difficulty: medium", "Difficulty: medium", 2}}, nil},
		{"difficulty bad", "<difficulty-estimate>impossible</difficulty-estimate>\n<difficulty-estimate>7</difficulty-estimate>", nil, []int{1, 2}},
		{"failure report", "<failure-report>\nerror: TestImport times out. Badly.\ntried: bigger batches\navoid:\n  - batches over 10k\n  - no fsync\ncause: WAL growth\n</failure-report>",
			[]sig{{"failure_report", "failure", "Failed: TestImport times out",
				"**Error:** TestImport times out. Badly.\n**Tried:** bigger batches\n**Avoid:**\n- batches over 10k\n- no fsync\n**Cause:** WAL growth", 1}}, nil},
		{"failure report free text", "<failure-report>the build broke</failure-report>",
			[]sig{{"failure_report", "failure", "Failed: the build broke", "**Error:** the build broke", 1}}, nil},
		{"code fence ignored", "```go\nMEMORY:pattern:quoted\n<learning>quoted</learning>\n```\nMEMORY:fix:real",
			[]sig{{"memory", "fix", "real", "real", 5}}, nil},
		{"tilde fence, longer close", "~~~~\n<learning>x\n~~~~~\n<learning>y</learning>",
			[]sig{{"learning", "learning", "y", "y", 4}}, nil},
		{"unclosed fence hiding signals", "```\nMEMORY:fix:x\n", nil, []int{2}},
		{"unclosed fence without signals", "```\nplain\n", nil, nil},
		{"key learnings", "# Report\n## Key Learnings\n\n- The engine dedups.\n- CLI tests\n  use Main.Run.\n  - nested\n* star item\n1. numbered\n\n- not a learning",
			[]sig{{"learning", "learning", "The engine dedups", "The engine dedups.", 4},
				{"learning", "learning", "CLI tests", "CLI tests\nuse Main.Run.\n- nested", 5},
				{"learning", "learning", "star item", "star item", 8},
				{"learning", "learning", "numbered", "numbered", 9}}, nil},
		{"learnings heading ends at heading", "### learnings:\n- a\n## Next\n- b",
			[]sig{{"learning", "learning", "a", "a", 2}}, nil},
		{"learnings with signal bullet", "#### Learnings\n- MEMORY:fix:x\n- y",
			[]sig{{"memory", "fix", "x", "x", 2}, {"learning", "learning", "y", "y", 3}}, nil},
		{"learnings heading without list", "## Learnings\nNothing new.\n##### Learnings\n", nil, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sigs, probs := Parse(tt.in)
			if got := short(sigs); !reflect.DeepEqual(got, append([]sig{}, tt.want...)) {
				t.Errorf("signals:\n got %+v\nwant %+v", got, tt.want)
			}
			var lines []int
			for _, p := range probs {
				lines = append(lines, p.Line)
				if p.Reason == "" {
					t.Errorf("problem without a reason: %+v", p)
				}
			}
			if !slices.Equal(lines, tt.probs) {
				t.Errorf("problem lines = %v, want %v (%+v)", lines, tt.probs, probs)
			}
		})
	}
}

func TestParseDetails(t *testing.T) {
	t.Parallel()
	sigs, probs := Parse(`<learning category="pitfall" tags="SQLite, go,bad tag" files="a.go, b/*.go" title="Busy  timeout" source=critic>
body
</learning>
<failure-report>
- error: x
- files: a.go, b.go
- tags: flaky
</failure-report>
<difficulty-estimate>2 - small change</difficulty-estimate>`)
	if len(sigs) != 3 {
		t.Fatalf("want 3 signals, got %+v %+v", sigs, probs)
	}
	l := sigs[0]
	if !slices.Equal(l.Tags, []string{"sqlite", "go"}) || !slices.Equal(l.Files, []string{"a.go", "b/*.go"}) ||
		l.Title != "Busy timeout" || l.Fields["source"] != "critic" {
		t.Errorf("learning = %+v", l)
	}
	if len(probs) != 1 || probs[0].Line != 1 || !strings.Contains(probs[0].Reason, `"bad tag"`) {
		t.Errorf("want a problem for the bad tag on line 1, got %+v", probs)
	}
	f := sigs[1]
	if !slices.Equal(f.Files, []string{"a.go", "b.go"}) || !slices.Equal(f.Tags, []string{"failure-report", "flaky"}) ||
		f.Content != "**Error:** x" || f.Fields["error"] != "x" || f.Line != 4 {
		t.Errorf("failure = %+v", f)
	}
	d := sigs[2]
	if d.Fields["level"] != "easy" || d.Fields["score"] != "2" || d.Fields["reason"] != "small change" ||
		!slices.Equal(d.Tags, []string{"difficulty", "difficulty:easy"}) {
		t.Errorf("difficulty = %+v", d)
	}
}

func TestParseProblemReasons(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("filler\n", 11) + "<failure-report>\nerror: x\n"
	_, probs := Parse(in)
	if len(probs) != 1 || probs[0].Line != 12 || !strings.HasPrefix(probs[0].Reason, "<failure-report> is not closed") ||
		probs[0].Text != "<failure-report>" {
		t.Errorf("got %+v", probs)
	}
	_, probs = Parse("<failure-reprot>x</failure-reprot>")
	if len(probs) != 1 || !strings.Contains(probs[0].Reason, "did you mean <failure-report>") {
		t.Errorf("got %+v", probs)
	}
}

func TestParseTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("word ", cairn.MaxContentBytes/5+10)
	sigs, probs := Parse("<learning>" + big + "</learning>\nMEMORY:note:\xff\xfe")
	if len(sigs) != 0 || len(probs) != 2 {
		t.Errorf("want 2 problems (too large, bad UTF-8), got %+v / %d problems", short(sigs), len(probs))
	}
}

// hugeInput is 5 MB of agent output with two signals per chunk, then a
// 1 MB line full of "<" and MEMORY look-alikes. It returns the input and
// the number of signals it holds.
func hugeInput() (string, int) {
	var b strings.Builder
	chunk := "Running tests... ok  \tgithub.com/x/y\t0.12s  <html> a < b > c\n" +
		"MEMORY:pattern:Table tests with t.Run\n" +
		"<learning category=\"pitfall\">x</learning> text `MEMORY:q:u` <div>\n" +
		"```\nMEMORY:fix:quoted\n```\n"
	n := 0
	for b.Len() < 5<<20 {
		b.WriteString(chunk)
		n++
	}
	b.WriteString(strings.Repeat("<a NOMEMORY:x ", 1<<20/14) + "\n")
	return b.String(), 2 * n
}

// TestParseHugeInput checks what is found in a huge input: the signals of
// every chunk, and nothing in the look-alikes (quoted MEMORY:, NOMEMORY:,
// stray "<"). How fast it goes is BenchmarkParseHuge's business.
func TestParseHugeInput(t *testing.T) {
	t.Parallel()
	in, want := hugeInput()
	sigs, probs := Parse(in)
	if len(sigs) != want || len(probs) != 0 {
		t.Fatalf("want %d signals and no problems, got %d and %d", want, len(sigs), len(probs))
	}
}

func BenchmarkParseHuge(b *testing.B) {
	in, _ := hugeInput()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Parse(in)
	}
}

func TestParseUnclosedTagDoesNotHideLaterSignals(t *testing.T) {
	t.Parallel()
	sigs, probs := Parse("<learning>never closed\nmore\n<failure-report>error: x</failure-report>\nMEMORY:fix:y")
	if len(probs) != 1 || probs[0].Line != 1 {
		t.Errorf("problems %+v", probs)
	}
	if len(sigs) != 2 || sigs[0].Kind != KindFailureReport || sigs[1].Kind != KindMemory {
		t.Errorf("signals %+v", short(sigs))
	}
}

func TestMemory(t *testing.T) {
	t.Parallel()
	sigs, probs := Parse(`MEMORY:pattern:Tests use t.Run.
<learning tags="go" files="x.go">Use fmt.Errorf with %w.</learning>
<learning category="convention">Lowercase errors.</learning>
<failure-report>
error: it broke
approach: retried
avoid: retrying
files: a.go
</failure-report>
<difficulty-estimate>hard</difficulty-estimate>
<retry-suggestion>Split the task.</retry-suggestion>`)
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	type mem struct {
		Type, Title, Content string
		Tags, Files          []string
	}
	want := []mem{
		{"pattern", "Tests use t.Run", "Tests use t.Run.", nil, nil},
		{"learning", "Use fmt.Errorf with %w", "Use fmt.Errorf with %w.", []string{"go"}, []string{"x.go"}},
		{"convention", "Lowercase errors", "Lowercase errors.", nil, nil},
		{"failure", "Failed: it broke", "**Error:** it broke\n**Tried:** retried\n**Avoid:** retrying", []string{"failure-report"}, []string{"a.go"}},
		{"task_result", "Difficulty: hard", "Difficulty: hard", []string{"difficulty", "difficulty:hard"}, nil},
		{"task_result", "Split the task", "Split the task.", []string{"retry-suggestion"}, nil},
	}
	if len(sigs) != len(want) {
		t.Fatalf("got %d signals: %+v", len(sigs), short(sigs))
	}
	for i, s := range sigs {
		m := s.Memory("proj")
		got := mem{m.Type, m.Title, m.Content, m.Tags, m.FileRefs}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s: got %#v\nwant %#v", s.Kind, got, want[i])
		}
		if m.Project != "proj" || m.Source != cairn.SourceExplicit {
			t.Errorf("%s: project %q source %q", s.Kind, m.Project, m.Source)
		}
	}
	// The memory does not share slices with the signal.
	m := sigs[1].Memory("p")
	m.Tags[0] = "changed"
	if sigs[1].Tags[0] != "go" {
		t.Error("Memory shares its tags with the signal")
	}
	// A hand-made failure report signal is rendered from its fields.
	hm := Signal{Kind: KindFailureReport, Fields: map[string]string{"error": "e", "next": "n"}}.Memory("p")
	if hm.Type != "failure" || hm.Content != "**Error:** e\n**Next:** n" || hm.Title != "Failed: e" || !hm.HasTag("failure-report") {
		t.Errorf("hand-made failure memory = %+v", hm)
	}
}

// A derived title is cut at 100 bytes; a secret there must be redacted
// before the cut, or its cut prefix no longer looks like a secret and stays
// in the title. Tried: a MEMORY: line, a <learning>, a failure report's
// error line, each with a token across byte 100.
func TestDerivedTitlesAreRedactedBeforeTheCut(t *testing.T) {
	t.Parallel()
	token := "gh" + "p_" + strings.Repeat("aB3dE6gH9k", 4)[:36]
	pad := strings.Repeat("word ", 18)
	in := "MEMORY:note:" + pad + token + " rest\n" +
		"<learning>" + pad + token + "</learning>\n" +
		"<failure-report>\nerror: " + pad + token + "\napproach: retried\n</failure-report>\n"
	sigs, probs := Parse(in)
	if len(sigs) != 3 || len(probs) != 0 {
		t.Fatalf("got %d signals, problems %+v", len(sigs), probs)
	}
	for _, s := range sigs {
		if strings.Contains(s.Title, token[:6]) || strings.Contains(s.Memory("p").Title, token[:6]) {
			t.Errorf("%s title %q holds part of the secret", s.Kind, s.Title)
		}
	}
}
