package main

// Tests of task through Main.Run.
//
// Bad inputs tried here: no event, an unknown event, no --task, empty text.

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// taskOK runs a task event and returns the ids it printed.
func (c *cli) taskOK(stdin string, args ...string) []string {
	c.t.Helper()
	r := c.run(stdin, append([]string{"task"}, args...)...)
	if r.code != 0 {
		c.t.Fatalf("want exit 0, got %v", r)
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || !idRE.MatchString(f[0]) {
			c.t.Fatalf("line %q is not `ID STATUS TYPE`: %v", l, r)
		}
		ids = append(ids, f[0])
	}
	return ids
}

func TestTaskEvents(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	long := strings.Repeat("Fix the timezone display bug in settings. ", 20) // 860 characters
	ids := c.taskOK("", "created", "--task", "t-1", "--agent", "claude", "--session", "s-1", long)
	in := c.show(ids[0])
	content := in["content"].(string)
	if in["type"] != "task_input" || in["key"] != "task:t-1:input" || in["created_by_task_id"] != "t-1" ||
		in["created_by_agent"] != "claude" || in["created_by_session_id"] != "s-1" {
		t.Errorf("task_input = %v", in)
	}
	if n := utf8.RuneCountInString(content); n > 500 || !strings.HasSuffix(content, "…") || !strings.HasPrefix(long, strings.TrimSuffix(content, "…")) {
		t.Errorf("truncated content (%d characters) = %q", n, content)
	}
	// Creating it again updates the same memory.
	if again := c.taskOK("", "created", "--task", "t-1", "Short description."); again[0] != ids[0] {
		t.Errorf("recreated task_input is %s, want %s", again[0], ids[0])
	}
	if got := c.show(ids[0])["content"]; got != "Short description." {
		t.Errorf("short description stored as %q", got)
	}

	summary := "Added the dayjs timezone plugin.\nMEMORY:decision:Use dayjs over moment for bundle size.\n"
	ids = c.taskOK(summary, "completed", "--task", "t-1", "--files", "src/a.ts,src/b.ts", "-")
	if len(ids) != 2 {
		t.Fatalf("want the result and one signal, got %v", ids)
	}
	res := c.show(ids[0])
	if res["type"] != "task_result" || res["key"] != "task:t-1:result" || res["created_by_task_id"] != "t-1" ||
		!strings.HasSuffix(res["content"].(string), "\n\nFiles: src/a.ts, src/b.ts") ||
		strings.Join(strList(res["file_refs"]), ",") != "src/a.ts,src/b.ts" {
		t.Errorf("task_result = %v", res)
	}
	if dec := c.show(ids[1]); dec["type"] != "decision" || dec["created_by_task_id"] != "t-1" {
		t.Errorf("captured signal = %v", dec)
	}

	f1 := c.taskOK("", "failed", "--task", "t-1", "TypeError: tz is undefined")
	f2 := c.taskOK("", "failed", "--task", "t-1", "Timeout after 300s")
	f3 := c.taskOK("", "failed", "--task", "t-1", "TypeError: tz is undefined")
	iss := c.show(f1[0])
	if iss["type"] != "issue" || iss["key"] != nil || iss["created_by_task_id"] != "t-1" || iss["content"] != "TypeError: tz is undefined" {
		t.Errorf("issue = %v", iss)
	}
	if f1[0] == f2[0] || f3[0] != f1[0] {
		t.Errorf("failures %v %v %v: want distinct errors kept and the repeat folded", f1, f2, f3)
	}
	if got := c.total(); got != 5 {
		t.Errorf("want 5 memories, got %d", got)
	}
}

func TestTaskUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"task"},
		{"task", "started", "--task", "t", "x"},
		{"task", "created", "x"},
		{"task", "created", "--task", "t"},
		{"task", "failed", "--task", "t", " "},
	} {
		r := c.run("", args...)
		if r.code != exitUsage {
			t.Errorf("want exit 2, got %v", r)
		}
		oneErrorLine(t, r)
	}
}

// TestTaskUsesTheDefaultProject runs task events without --project: the
// project is the working directory's, as for every other command.
func TestTaskUsesTheDefaultProject(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.env["CAIRN_PROJECT"] = "from-env"
	for _, ev := range []string{"created", "completed", "failed"} {
		if r := c.raw("", "--db", c.db, "task", ev, "--task", "T-1", "The importer is "+ev+"."); r.code != 0 {
			t.Errorf("task %s without --project: %v", ev, r)
		}
	}
	c.project = "from-env"
	if n := c.total(); n != 3 {
		t.Errorf("project from-env holds %d memories, want 3", n)
	}
}
