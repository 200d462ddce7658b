package main

import (
	"strings"
	"testing"
)

func TestAddTTLSetsTheExpiryAndSeed000NamesWork(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.env["CAIRN_NOW"] = "2026-05-01T12:00:00Z"
	id := c.add("--ttl", "36h", "--content", "The staging token rotates tonight")
	mem := c.show(id)
	if mem["expires_at"] != "2026-05-03T00:00:00Z" || mem["content"] != "The staging token rotates tonight" {
		t.Errorf("add --ttl 36h --content: %v", mem)
	}
	if got := c.show(c.add("--ttl", "2w", "x y z"))["expires_at"]; got != "2026-05-15T12:00:00Z" {
		t.Errorf("--ttl 2w: %v", got)
	}
	// Expired after its time to live: no longer injected.
	c.env["CAIRN_NOW"] = "2026-05-04T00:00:00Z"
	if out := c.ok("context", "--prompt", "staging token rotates", "--dry-run").stdout; strings.Contains(out, id) {
		t.Errorf("an expired memory was injected:\n%s", out)
	}
	// Bad inputs tried: a negative, a zero and an unknown duration;
	// --content and an argument at once.
	for _, args := range [][]string{{"add", "--ttl", "-1h", "x"}, {"add", "--ttl", "0d", "x"}, {"add", "--ttl", "soon", "x"}, {"add", "--content", "a", "b"}} {
		if r := c.run("", args...); r.code != exitUsage {
			t.Errorf("%v: %v", args, r)
		}
	}
	// delete is rm; import reads standard input.
	c.ok("delete", id)
	if r := c.run("", "show", id); r.code == 0 {
		t.Errorf("delete left %s", id)
	}
	r := c.run(`{"type":"decision","content":"Imported from a pipe"}`+"\n", "import")
	if r.code != 0 || c.total() != 2 {
		t.Errorf("import < file: %v (total %d)", r, c.total())
	}
}

func TestASeed001ItemImports(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.project = "project"
	c.ok("import", c.writeFile("items.jsonl", `{"id":"mem-a1b2c3d4","type":"decision","content":"Chose dayjs over moment.js for smaller bundle size","source":"task","sourceId":"task-xyz","projectPath":"/path/to/project","createdBy":"Alice","createdAt":"2026-02-04T10:30:00.000Z"}`+"\n"))
	m := c.show("mem-a1b2c3d4")
	if m["source"] != "automatic" || m["created_by_task_id"] != "task-xyz" || m["created_by_agent"] != "Alice" ||
		m["created_at"] != "2026-02-04T10:30:00Z" || m["project"] != "project" {
		t.Errorf("seed 001 item: %v", m)
	}
}
