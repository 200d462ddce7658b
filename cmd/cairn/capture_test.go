package main

// Tests of capture through Main.Run.
//
// Bad inputs tried here: malformed and unknown sigils (reported on stderr
// with their line numbers, exit 0), a missing file, two file arguments,
// content the store refuses (exit 1).

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

const captureOutput = "Working on it.\r\n" +
	"MEMORY:pattern:Tests use table-driven t.Run. Always.\n" +
	"```\nMEMORY:pattern:quoted example, not stored\n```\n" +
	"<learning category=\"pitfall\" tags=\"sqlite\" files=\"sqlite/*.go\">\n" +
	"busy_timeout must be in the DSN\n</learning>\n" +
	"<failure-report>\nerror: TestImport timed out\ntried: larger batches\navoid: batches over 10k rows\n</failure-report>\n" +
	"<difficulty-estimate>hard</difficulty-estimate>\n" +
	"<retry-suggestion>Split the import per table.</retry-suggestion>\n" +
	"<failure-reprot>oops</failure-reprot>\n" +
	"## Key Learnings\n- The engine dedups by content hash.\n\n" +
	"<learning>never closed\n"

func TestCaptureStoresSignalsAndReportsProblems(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	f := c.writeFile("out.txt", captureOutput)
	r := c.ok("capture", "--hat", "creator", "--agent", "claude", "--task", "t-1", "--session", "s-1", f)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("want 6 stored lines and a summary, got %v", r)
	}
	for _, l := range lines[:6] {
		if f := strings.Fields(l); len(f) < 3 || f[0] != "created" || !idRE.MatchString(f[1]) {
			t.Errorf("stored line %q is not `created ID type: title`", l)
		}
	}
	if !strings.HasPrefix(lines[0], "created ") || !strings.HasSuffix(lines[0], " pattern: Tests use table-driven t.Run") {
		t.Errorf("first line = %q", lines[0])
	}
	if want := "captured 6: 6 new, 0 reinforced, 0 unchanged; 2 problems"; lines[6] != want {
		t.Errorf("summary = %q, want %q", lines[6], want)
	}
	wantErr := "cairn: line 16: unknown sigil <failure-reprot> (did you mean <failure-report>?)\n" +
		"cairn: line 20: <learning> is not closed (no </learning> before the end of the output)\n"
	if r.stderr != wantErr {
		t.Errorf("stderr = %q, want %q", r.stderr, wantErr)
	}

	mems := c.listJSON()
	if len(mems) != 6 {
		t.Fatalf("want 6 memories, got %d", len(mems))
	}
	byType := map[string][]map[string]any{}
	for _, m := range mems {
		byType[m["type"].(string)] = append(byType[m["type"].(string)], m)
		for k, v := range map[string]string{"created_by_hat": "creator", "created_by_agent": "claude",
			"created_by_task_id": "t-1", "created_by_session_id": "s-1", "source": "explicit", "project": "proj"} {
			if m[k] != v {
				t.Errorf("%s: %s = %v, want %s", m["id"], k, m[k], v)
			}
		}
	}
	if p := byType["pitfall"]; len(p) != 1 || p[0]["content"] != "busy_timeout must be in the DSN" ||
		!slices.Equal(strList(p[0]["tags"]), []string{"sqlite"}) || !slices.Equal(strList(p[0]["file_refs"]), []string{"sqlite/*.go"}) {
		t.Errorf("pitfall = %v", p)
	}
	if f := byType["failure"]; len(f) != 1 || f[0]["content"] != "**Error:** TestImport timed out\n**Tried:** larger batches\n**Avoid:** batches over 10k rows" {
		t.Errorf("failure = %v", f)
	}
	if tr := byType["task_result"]; len(tr) != 2 {
		t.Errorf("want a difficulty and a retry suggestion as task results, got %v", tr)
	}
	if l := byType["learning"]; len(l) != 1 || l[0]["content"] != "The engine dedups by content hash." {
		t.Errorf("learning = %v", l)
	}
	// The pitfall first; its neighbours of the same session follow it
	// with a lent share of its score.
	if ids := c.searchIDs("busy_timeout"); len(ids) == 0 || ids[0] != byType["pitfall"][0]["id"] {
		t.Errorf("search busy_timeout = %v", ids)
	}
	if ids := c.searchIDs("quoted example"); len(ids) != 0 {
		t.Errorf("a signal inside a code fence was stored: %v", ids)
	}

	// The same output again adds nothing.
	r = c.ok("capture", "--hat", "creator", "--agent", "claude", "--task", "t-1", "--session", "s-1", f)
	if !strings.Contains(r.stdout, "captured 6: 0 new, 0 reinforced, 6 unchanged; 2 problems\n") {
		t.Errorf("second run: %v", r)
	}
	if strings.Contains(r.stdout, "created ") {
		t.Errorf("second run created memories: %v", r)
	}
	if n := c.total(); n != 6 {
		t.Errorf("after two captures: %d memories, want 6", n)
	}
}

func TestCaptureJSONFromStdin(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	in := "MEMORY:decision:Use WAL.\nMEMORY:Bad Type:x\n<difficulty-estimate>3</difficulty-estimate>\n"
	for _, args := range [][]string{{"capture", "--json"}, {"capture", "--json", "-"}} {
		r := c.run(in, args...)
		if r.code != 0 {
			t.Fatalf("want exit 0: %v", r)
		}
		var out struct {
			Stored []struct {
				ID, Status, Kind, Type, Title string
				Line                          int
			}
			Problems []struct {
				Line         int
				Reason, Text string
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("not JSON: %v\n%v", err, r)
		}
		if len(out.Stored) != 2 || out.Stored[0].Kind != "memory" || out.Stored[0].Type != "decision" ||
			out.Stored[0].Title != "Use WAL" || out.Stored[0].Line != 1 || !idRE.MatchString(out.Stored[0].ID) ||
			out.Stored[1].Kind != "difficulty" || out.Stored[1].Type != "task_result" || out.Stored[1].Line != 3 {
			t.Errorf("stored = %+v", out.Stored)
		}
		if len(out.Problems) != 1 || out.Problems[0].Line != 2 || out.Problems[0].Text != "MEMORY:Bad Type:x" ||
			!strings.Contains(out.Problems[0].Reason, "not valid") {
			t.Errorf("problems = %+v", out.Problems)
		}
	}
	// The second run reinforced what the first created.
	if n := c.total(); n != 2 {
		t.Errorf("total = %d, want 2", n)
	}
}

func TestCaptureWithoutSignals(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("all tests passed\n```\nnothing\n```\n", "capture")
	if r.code != 0 || r.stdout != "captured 0: 0 new, 0 reinforced, 0 unchanged; 0 problems\n" || r.stderr != "" {
		t.Errorf("got %v", r)
	}
	r = c.run("", "capture", "--json")
	if r.code != 0 || strings.Join(strings.Fields(r.stdout), "") != `{"stored":[],"problems":[]}` {
		t.Errorf("got %v", r)
	}
}

func TestCaptureDifficultyIsKeyedByTask(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.run("<difficulty-estimate>easy</difficulty-estimate>", "capture", "--task", "t-9")
	r := c.run("<difficulty-estimate>hard</difficulty-estimate>", "capture", "--task", "t-9")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "updated ") || !strings.Contains(r.stdout, "captured 1: 0 new, 1 updated, 0 reinforced") {
		t.Errorf("second estimate for the task: %v", r)
	}
	mems := c.listJSON()
	if len(mems) != 1 || mems[0]["content"] != "Difficulty: hard" || mems[0]["key"] != "difficulty:t-9" {
		t.Errorf("memories = %v", mems)
	}
}

func TestCaptureErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("", "capture", "a", "b")
	if r.code != 2 {
		t.Errorf("two files: want exit 2, got %v", r)
	}
	r = c.run("", "capture", c.dir+"/missing.txt")
	if r.code != 1 || !strings.Contains(r.stderr, "missing.txt") {
		t.Errorf("missing file: want exit 1, got %v", r)
	}
	oneErrorLine(t, r)
	// A title the store refuses (over 512 bytes) is a store error: the
	// other signals are still stored, and the exit status is 1.
	in := "MEMORY:fix:stored anyway\n<learning title=\"" + strings.Repeat("t", 600) + "\">body</learning>\n"
	r = c.run(in, "capture")
	if r.code != 1 || !strings.Contains(r.stderr, "cairn: line 2: cannot store the learning: ") ||
		!strings.Contains(r.stdout, "captured 1: 1 new, 0 reinforced, 0 unchanged; 0 problems") {
		t.Errorf("store error: want exit 1, got %v", r)
	}
	if n := c.total(); n != 1 {
		t.Errorf("total = %d, want 1", n)
	}
	if !strings.Contains(c.ok("help", "capture").stdout, "-task") {
		t.Error("help capture does not list --task")
	}
	if !strings.Contains(c.ok("help").stdout, "capture") {
		t.Error("help does not list capture")
	}
}
