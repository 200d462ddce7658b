package memtool_test

// Bad inputs tried here (each must answer an error and store nothing):
//
// paths: "" (missing), "/etc/passwd", "memories/a.md" (relative),
// "~/memories/a.md", "/MEMORIES/a.md", "/memoriesX/a.md", "/memories..",
// "/memories/../etc/passwd", "/memories/a/../../etc", "/memories/./a.md",
// "/memories/a/.", "/memories/..", "/memories/%2e%2e/etc/passwd",
// "/memories/%2E%2E%2Fetc", "/memories/..%2f..%2fetc",
// `/memories\..\etc`, "/memories/a\\b.md", "/memories/a\x00.md",
// "/memories/a\nb.md", "/memories/a\tb.md", "/memories/\u202egnp.exe"
// (right-to-left override), "/memories/a\u200b.md" (zero-width space),
// "/memories/\xff.md" (invalid UTF-8), a path one byte over MaxPathBytes,
// and a file name that is a GitHub token;
// commands: unknown, missing, malformed JSON, insert without insert_line;
// text: empty, only white space, a NUL byte, one byte over 64 KiB, an
// edit that would empty a file or push it over 64 KiB;
// view_range: [0, 1], [n+1, n+1], [3, 2], [1], [1, 2, 3], any range on
// a directory; insert_line -1 and n+1; str_replace with no match, with
// several matches (also on one line, and overlapping), and an empty
// old_str; rename onto an existing file, onto an existing directory,
// onto /memories, into itself, into a file, of /memories, of a missing
// path; delete of /memories and of a missing path; two processes
// inserting into one file at the same time, and creating one path at the
// same time; names with white space at either end (ASCII, no-break and em
// spaces), which the store's key trimming would fold into another file.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/memtool"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/sqlite"
)

const project = "demo"

type env struct {
	t    *testing.T
	ctx  context.Context
	svc  *engine.Engine
	tool *memtool.Tool
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	svc := engine.New(st, &engine.Options{
		Now:    func() time.Time { return now },
		Redact: func(s string) string { out, _ := redact.String(s); return out },
	})
	return &env{t: t, ctx: ctx, svc: svc, tool: memtool.New(svc, project)}
}

// ok runs c and fails unless it succeeds with want.
func (e *env) ok(c memtool.Command, want string) {
	e.t.Helper()
	got, err := e.tool.Run(e.ctx, c)
	if err != nil {
		e.t.Fatalf("%+v: error %v, want %q", c, err, want)
	}
	if got != want {
		e.t.Fatalf("%+v:\n got %q\nwant %q", c, got, want)
	}
}

// fail runs c and fails unless it answers the *memtool.Error want.
func (e *env) fail(c memtool.Command, want string) {
	e.t.Helper()
	got, err := e.tool.Run(e.ctx, c)
	var me *memtool.Error
	if !errors.As(err, &me) {
		e.t.Fatalf("%+v: got %q, %v; want *memtool.Error %q", c, got, err, want)
	}
	if me.Message != want {
		e.t.Fatalf("%+v:\n got error %q\nwant error %q", c, me.Message, want)
	}
}

// failPrefix is fail for messages checked by their beginning.
func (e *env) failPrefix(c memtool.Command, prefix string) string {
	e.t.Helper()
	_, err := e.tool.Run(e.ctx, c)
	var me *memtool.Error
	if !errors.As(err, &me) || !strings.HasPrefix(me.Message, prefix) {
		e.t.Fatalf("%+v: error %v, want one starting with %q", c, err, prefix)
	}
	return me.Message
}

func (e *env) create(p, text string) {
	e.t.Helper()
	e.ok(memtool.Command{Command: "create", Path: p, FileText: text}, "File created successfully at: "+p)
}

func (e *env) view(p string) string {
	e.t.Helper()
	got, err := e.tool.Run(e.ctx, memtool.Command{Command: "view", Path: p})
	if err != nil {
		e.t.Fatalf("view %s: %v", p, err)
	}
	return got
}

func (e *env) memories() []*cairn.Memory {
	e.t.Helper()
	ms, _, err := e.svc.FindMemories(e.ctx, cairn.MemoryFilter{Project: project, Sort: cairn.SortCreatedAsc})
	if err != nil {
		e.t.Fatal(err)
	}
	return ms
}

func (e *env) content(p string) string {
	e.t.Helper()
	for _, m := range e.memories() {
		if m.Key == memtool.KeyPrefix+p {
			return m.Content
		}
	}
	e.t.Fatalf("no memory for %s", p)
	return ""
}

func line(n int) *int { return &n }

const header = "Here're the files and directories up to 2 levels deep in "

func TestViewEmptyRoot(t *testing.T) {
	e := newEnv(t)
	want := header + "/memories, excluding hidden items and node_modules:\n0B\t/memories"
	e.ok(memtool.Command{Command: "view", Path: "/memories"}, want)
	e.ok(memtool.Command{Command: "view", Path: "/memories/"}, want)
	e.fail(memtool.Command{Command: "view", Path: "/memories/notes"},
		"The path /memories/notes does not exist. Please provide a valid path.")
}

func TestCreateViewAndMapping(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/notes.txt", "Hello World\nThis is line two\n")
	e.ok(memtool.Command{Command: "view", Path: "/memories/notes.txt"},
		"Here's the content of /memories/notes.txt with line numbers:\n     1\tHello World\n     2\tThis is line two")

	ms := e.memories()
	if len(ms) != 1 {
		t.Fatalf("%d memories, want 1", len(ms))
	}
	m := ms[0]
	if m.Key != "memfile:/memories/notes.txt" || m.Title != "/memories/notes.txt" || m.Type != memtool.FileType ||
		!m.HasTag(memtool.FileTag) || m.Content != "Hello World\nThis is line two\n" || m.Source != cairn.SourceExplicit {
		t.Errorf("memory = %+v", m)
	}
}

func TestSameTextInTwoFiles(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/a.md", "Run go test ./... before every commit.")
	e.create("/memories/b.md", "Run go test ./... before every commit.")
	e.create("/memories/c.md", "Run go test ./... before each commit.") // near-identical
	if n := len(e.memories()); n != 3 {
		t.Errorf("%d memories, want 3: files are never folded into each other", n)
	}
}

func TestCreateErrors(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/a.md", "alpha")
	e.create("/memories/dir/b.md", "beta")
	e.fail(memtool.Command{Command: "create", Path: "/memories/a.md", FileText: "again"},
		"Error: File /memories/a.md already exists")
	e.fail(memtool.Command{Command: "create", Path: "/memories/dir", FileText: "x"},
		"Error: The path /memories/dir is a directory; give the path of a file in it, such as /memories/dir/notes.md.")
	e.fail(memtool.Command{Command: "create", Path: "/memories", FileText: "x"},
		"Error: The path /memories is a directory; give the path of a file in it, such as /memories/notes.md.")
	e.fail(memtool.Command{Command: "create", Path: "/memories/a.md/c.md", FileText: "x"},
		"Error: /memories/a.md is a file, so /memories/a.md/c.md cannot be created inside it.")
	e.fail(memtool.Command{Command: "create", Path: "/memories/empty.md"},
		"Error: The file text would be empty; a memory file must hold some text (delete the file instead).")
	e.fail(memtool.Command{Command: "create", Path: "/memories/blank.md", FileText: " \n\t\n"},
		"Error: The file text would be empty; a memory file must hold some text (delete the file instead).")
	e.fail(memtool.Command{Command: "create", Path: "/memories/nul.md", FileText: "a\x00b"},
		"Error: The file text contains a NUL byte; memory files hold text only.")
	e.fail(memtool.Command{Command: "create", Path: "/memories/big.md", FileText: strings.Repeat("x", cairn.MaxContentBytes+1)},
		"Error: The file text would be 65537 bytes, more than the limit of 65536 bytes for one memory file; split it into several files.")
	// Exactly the limit is fine.
	e.create("/memories/limit.md", strings.Repeat("word ", cairn.MaxContentBytes/5)+"x")
	if n := len(e.memories()); n != 3 {
		t.Errorf("%d memories stored, want 3", n)
	}
}

func TestViewRange(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/f.txt", "one\ntwo\nthree\nfour\n")
	head := "Here's the content of /memories/f.txt with line numbers:\n"
	for _, tt := range []struct {
		r    []int
		want string
	}{
		{[]int{2, 3}, "     2\ttwo\n     3\tthree"},
		{[]int{2, -1}, "     2\ttwo\n     3\tthree\n     4\tfour"},
		{[]int{4, 4}, "     4\tfour"},
		{[]int{1, 1}, "     1\tone"},
		{[]int{3, 100}, "     3\tthree\n     4\tfour"},
	} {
		e.ok(memtool.Command{Command: "view", Path: "/memories/f.txt", ViewRange: tt.r}, head+tt.want)
	}
	for _, tt := range []struct {
		r    []int
		want string
	}{
		{[]int{0, 1}, "Error: Invalid `view_range`: [0, 1]. Its first element `0` should be within the range of lines of the file: [1, 4]"},
		{[]int{5, 5}, "Error: Invalid `view_range`: [5, 5]. Its first element `5` should be within the range of lines of the file: [1, 4]"},
		{[]int{3, 2}, "Error: Invalid `view_range`: [3, 2]. Its second element `2` should be larger or equal than its first `3`"},
		{[]int{1}, "Error: Invalid `view_range`: it should be a list of two integers, [start, end]."},
		{[]int{1, 2, 3}, "Error: Invalid `view_range`: it should be a list of two integers, [start, end]."},
	} {
		e.fail(memtool.Command{Command: "view", Path: "/memories/f.txt", ViewRange: tt.r}, tt.want)
	}
	e.fail(memtool.Command{Command: "view", Path: "/memories", ViewRange: []int{1, 2}},
		"Error: The `view_range` parameter is not allowed when `path` points to a directory.")

	// Line numbers stay 6 wide and right-aligned past 9.
	e.create("/memories/long.txt", strings.Repeat("x\n", 11))
	e.ok(memtool.Command{Command: "view", Path: "/memories/long.txt", ViewRange: []int{9, 11}},
		"Here's the content of /memories/long.txt with line numbers:\n     9\tx\n    10\tx\n    11\tx")
}

func TestListing(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/b.md", strings.Repeat("b", 1536))
	e.create("/memories/a/x.md", "xx")
	e.create("/memories/a/deep/y.md", "yyy")
	e.create("/memories/a/deep/deeper/z.md", "zzzz")
	e.create("/memories/a.md", "a")
	e.create("/memories/.hidden.md", "hidden")
	e.create("/memories/node_modules/pkg.md", "pkg")
	want := header + "/memories, excluding hidden items and node_modules:\n" +
		"1.5K\t/memories\n" +
		"9B\t/memories/a/\n" +
		"7B\t/memories/a/deep/\n" +
		"2B\t/memories/a/x.md\n" +
		"1B\t/memories/a.md\n" +
		"1.5K\t/memories/b.md"
	if got := e.view("/memories"); got != want {
		t.Errorf("view /memories:\n got %q\nwant %q", got, want)
	}
	want = header + "/memories/a, excluding hidden items and node_modules:\n" +
		"9B\t/memories/a\n" +
		"7B\t/memories/a/deep/\n" +
		"4B\t/memories/a/deep/deeper/\n" +
		"3B\t/memories/a/deep/y.md\n" +
		"2B\t/memories/a/x.md"
	if got := e.view("/memories/a/"); got != want {
		t.Errorf("view /memories/a/:\n got %q\nwant %q", got, want)
	}
	// Hidden files are still there to view by name.
	e.ok(memtool.Command{Command: "view", Path: "/memories/.hidden.md"},
		"Here's the content of /memories/.hidden.md with line numbers:\n     1\thidden")
}

func TestStrReplace(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/p.md", "l1\nl2\nFavorite color: blue\nl4\nl5\nl6\n")
	e.ok(memtool.Command{Command: "str_replace", Path: "/memories/p.md", OldStr: "Favorite color: blue", NewStr: "Favorite color: green\nSecond: red"},
		"The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"+
			"     1\tl1\n     2\tl2\n     3\tFavorite color: green\n     4\tSecond: red\n     5\tl4\n     6\tl5")
	if got := e.content("/memories/p.md"); got != "l1\nl2\nFavorite color: green\nSecond: red\nl4\nl5\nl6\n" {
		t.Errorf("content = %q", got)
	}

	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/p.md", OldStr: "purple", NewStr: "x"},
		"No replacement was performed, old_str `purple` did not appear verbatim in /memories/p.md.")
	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/p.md", OldStr: "l", NewStr: "x"},
		"No replacement was performed. Multiple occurrences of old_str `l` in lines: 1, 2, 3, 5, 6, 7. Please ensure it is unique")
	// Two matches on one line name the line once.
	e.create("/memories/q.md", "x = 1; x = 2\ny = 3\n")
	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/q.md", OldStr: "x =", NewStr: "z ="},
		"No replacement was performed. Multiple occurrences of old_str `x =` in lines: 1. Please ensure it is unique")
	// Overlapping matches count: "aa" is twice in "aaa".
	e.create("/memories/r.md", "aaa")
	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/r.md", OldStr: "aa", NewStr: "b"},
		"No replacement was performed. Multiple occurrences of old_str `aa` in lines: 1. Please ensure it is unique")
	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/p.md", NewStr: "x"},
		"Error: Parameter `old_str` is required and must not be empty; give the exact text to replace.")
	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/none.md", OldStr: "a"},
		"Error: The path /memories/none.md does not exist. Please provide a valid path.")
	e.create("/memories/d/f.md", "f")
	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/d", OldStr: "f"},
		"Error: The path /memories/d does not exist. Please provide a valid path.")

	// No new_str deletes old_str.
	e.ok(memtool.Command{Command: "str_replace", Path: "/memories/p.md", OldStr: "Second: red\n"},
		"The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"+
			"     2\tl2\n     3\tFavorite color: green\n     4\tl4\n     5\tl5\n     6\tl6")
	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/d/f.md", OldStr: "f"},
		"Error: The edited file would be empty; a memory file must hold some text (delete the file instead).")
	e.fail(memtool.Command{Command: "str_replace", Path: "/memories/d/f.md", OldStr: "f", NewStr: strings.Repeat("f", cairn.MaxContentBytes+1)},
		"Error: The edited file would be 65537 bytes, more than the limit of 65536 bytes for one memory file; split it into several files.")
	if got := e.content("/memories/d/f.md"); got != "f" {
		t.Errorf("a refused edit changed the file to %q", got)
	}
}

func TestEditKeepsTitle(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/t.md", "/memories/t.md")
	e.ok(memtool.Command{Command: "str_replace", Path: "/memories/t.md", OldStr: "/memories/t.md", NewStr: "Other first line. More."},
		"The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tOther first line. More.")
	if m := e.memories()[0]; m.Title != "/memories/t.md" {
		t.Errorf("title after edit = %q, want the path", m.Title)
	}
}

func TestInsert(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/todo.txt", "a\nb\nc\n")
	e.ok(memtool.Command{Command: "insert", Path: "/memories/todo.txt", InsertLine: line(0), InsertText: "first\n"},
		"The file /memories/todo.txt has been edited.")
	e.ok(memtool.Command{Command: "insert", Path: "/memories/todo.txt", InsertLine: line(4), InsertText: "last"},
		"The file /memories/todo.txt has been edited.")
	e.ok(memtool.Command{Command: "insert", Path: "/memories/todo.txt", InsertLine: line(2), InsertText: "m1\nm2\n"},
		"The file /memories/todo.txt has been edited.")
	if got, want := e.content("/memories/todo.txt"), "first\na\nm1\nm2\nb\nc\nlast\n"; got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	e.fail(memtool.Command{Command: "insert", Path: "/memories/todo.txt", InsertLine: line(8), InsertText: "x"},
		"Error: Invalid `insert_line` parameter: 8. It should be within the range of lines of the file: [0, 7]")
	e.fail(memtool.Command{Command: "insert", Path: "/memories/todo.txt", InsertLine: line(-1), InsertText: "x"},
		"Error: Invalid `insert_line` parameter: -1. It should be within the range of lines of the file: [0, 7]")
	e.fail(memtool.Command{Command: "insert", Path: "/memories/todo.txt", InsertText: "x"},
		"Error: Parameter `insert_line` is required for command: insert (0 inserts before the first line).")
	e.fail(memtool.Command{Command: "insert", Path: "/memories/none.txt", InsertLine: line(0), InsertText: "x"},
		"Error: The path /memories/none.txt does not exist")
	e.fail(memtool.Command{Command: "insert", Path: "/memories", InsertLine: line(0), InsertText: "x"},
		"Error: The path /memories does not exist")

	// A file without a final newline keeps none; inserting after its last line.
	e.create("/memories/n.txt", "x\ny")
	e.ok(memtool.Command{Command: "insert", Path: "/memories/n.txt", InsertLine: line(2), InsertText: "z"},
		"The file /memories/n.txt has been edited.")
	if got := e.content("/memories/n.txt"); got != "x\ny\nz" {
		t.Errorf("content = %q", got)
	}
	e.fail(memtool.Command{Command: "insert", Path: "/memories/n.txt", InsertLine: line(0), InsertText: strings.Repeat("z", cairn.MaxContentBytes)},
		"Error: The edited file would be 65542 bytes, more than the limit of 65536 bytes for one memory file; split it into several files.")
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/a/x.md", "x")
	e.create("/memories/a/b/y.md", "y")
	e.create("/memories/ab.md", "ab")
	e.create("/memories/c.md", "c")
	e.ok(memtool.Command{Command: "delete", Path: "/memories/c.md"}, "Successfully deleted /memories/c.md")
	e.ok(memtool.Command{Command: "delete", Path: "/memories/a"}, "Successfully deleted /memories/a")
	e.fail(memtool.Command{Command: "delete", Path: "/memories/a"}, "Error: The path /memories/a does not exist")
	e.fail(memtool.Command{Command: "delete", Path: "/memories/a/x.md"}, "Error: The path /memories/a/x.md does not exist")
	e.fail(memtool.Command{Command: "delete", Path: "/memories"}, "Cannot delete the /memories directory itself")
	e.fail(memtool.Command{Command: "delete", Path: "/memories/"}, "Cannot delete the /memories directory itself")
	ms := e.memories()
	if len(ms) != 1 || ms[0].Key != "memfile:/memories/ab.md" {
		t.Errorf("left %d memories, want only /memories/ab.md (a sibling with the same prefix)", len(ms))
	}
}

func TestRename(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/draft.txt", "draft")
	id := e.memories()[0].ID
	e.ok(memtool.Command{Command: "rename", OldPath: "/memories/draft.txt", NewPath: "/memories/final/v1.txt"},
		"Successfully renamed /memories/draft.txt to /memories/final/v1.txt")
	m, err := e.svc.FindMemoryByID(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Key != "memfile:/memories/final/v1.txt" || m.Title != "/memories/final/v1.txt" || m.Content != "draft" {
		t.Errorf("renamed memory = %+v", m)
	}
	e.fail(memtool.Command{Command: "view", Path: "/memories/draft.txt"},
		"The path /memories/draft.txt does not exist. Please provide a valid path.")

	e.create("/memories/other.txt", "other")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/other.txt", NewPath: "/memories/final/v1.txt"},
		"Error: The destination /memories/final/v1.txt already exists")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/other.txt", NewPath: "/memories/final"},
		"Error: The destination /memories/final already exists")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/other.txt", NewPath: "/memories"},
		"Error: The destination /memories already exists")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/other.txt", NewPath: "/memories/other.txt"},
		"Error: The destination /memories/other.txt already exists")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/missing.txt", NewPath: "/memories/m2.txt"},
		"Error: The path /memories/missing.txt does not exist")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories", NewPath: "/memories/x"},
		"Error: The /memories directory itself cannot be renamed; rename the files or directories in it.")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/final", NewPath: "/memories/final/sub"},
		"Error: /memories/final cannot be moved inside itself (to /memories/final/sub).")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/final", NewPath: "/memories/other.txt/final"},
		"Error: /memories/other.txt is a file, so /memories/other.txt/final cannot be created inside it.")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/other.txt", NewPath: ""},
		"Error: Parameter `new_path` is required; give a path under /memories, such as /memories/notes.md.")
	if got := e.content("/memories/other.txt"); got != "other" {
		t.Errorf("refused renames changed other.txt to %q", got)
	}

	// A directory moves with everything in it.
	e.create("/memories/final/v2.txt", "v2")
	e.ok(memtool.Command{Command: "rename", OldPath: "/memories/final/", NewPath: "/memories/archive/2026"},
		"Successfully renamed /memories/final to /memories/archive/2026")
	want := header + "/memories, excluding hidden items and node_modules:\n" +
		"12B\t/memories\n" +
		"7B\t/memories/archive/\n" +
		"7B\t/memories/archive/2026/\n" +
		"5B\t/memories/other.txt"
	if got := e.view("/memories"); got != want {
		t.Errorf("after rename:\n got %q\nwant %q", got, want)
	}
	if m, _ := e.svc.FindMemoryByID(e.ctx, id); m.Key != "memfile:/memories/archive/2026/v1.txt" {
		t.Errorf("key after directory rename = %q", m.Key)
	}

	// A directory rename that would push a file in it past the length limit moves nothing.
	name := strings.Repeat("n", 100)
	e.create("/memories/d/"+name, "n")
	e.fail(memtool.Command{Command: "rename", OldPath: "/memories/d", NewPath: "/memories/dddddddddddd"},
		"Error: Renaming /memories/d to /memories/dddddddddddd would make the path /memories/dddddddddddd/"+name+" longer than the limit of 120 bytes; choose a shorter name.")
	e.view("/memories/d/" + name)
}

func TestPathTraversal(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/ok.md", "ok")
	long := "/memories/" + strings.Repeat("a", memtool.MaxPathBytes-len("/memories/")+1)
	for _, tt := range []struct{ path, want string }{
		{"/etc/passwd", "Error: The path /etc/passwd is not a valid memory path: it must start with /memories/."},
		{"memories/a.md", "Error: The path memories/a.md is not a valid memory path: it must start with /memories/."},
		{"~/memories/a.md", "Error: The path ~/memories/a.md is not a valid memory path: it must start with /memories/."},
		{"/MEMORIES/a.md", "Error: The path /MEMORIES/a.md is not a valid memory path: it must start with /memories/."},
		{"/memoriesX/a.md", "Error: The path /memoriesX/a.md is not a valid memory path: it must start with /memories/."},
		{"/memories..", "Error: The path /memories.. is not a valid memory path: it must start with /memories/."},
		{"/memories/../etc/passwd", `Error: The path /memories/../etc/passwd is not a valid memory path: it must not contain "." or ".." segments.`},
		{"/memories/a/../../etc", `Error: The path /memories/a/../../etc is not a valid memory path: it must not contain "." or ".." segments.`},
		{"/memories/./a.md", `Error: The path /memories/./a.md is not a valid memory path: it must not contain "." or ".." segments.`},
		{"/memories/a/.", `Error: The path /memories/a/. is not a valid memory path: it must not contain "." or ".." segments.`},
		{"/memories/..", `Error: The path /memories/.. is not a valid memory path: it must not contain "." or ".." segments.`},
		{"/memories/%2e%2e/etc/passwd", `Error: The path /memories/%2e%2e/etc/passwd is not a valid memory path: it must not contain "%" (percent-encoding is not decoded).`},
		{"/memories/%2E%2E%2Fetc", `Error: The path /memories/%2E%2E%2Fetc is not a valid memory path: it must not contain "%" (percent-encoding is not decoded).`},
		{"/memories/..%2f..%2fetc", `Error: The path /memories/..%2f..%2fetc is not a valid memory path: it must not contain "%" (percent-encoding is not decoded).`},
		{`/memories\..\etc`, `Error: The path /memories\..\etc is not a valid memory path: it must not contain backslashes; separate names with "/".`},
		{`/memories/a\b.md`, `Error: The path /memories/a\b.md is not a valid memory path: it must not contain backslashes; separate names with "/".`},
		{"/memories/a\x00.md", `Error: The path "/memories/a\x00.md" is not a valid memory path: it must not contain control or invisible characters.`},
		{"/memories/a\nb.md", `Error: The path "/memories/a\nb.md" is not a valid memory path: it must not contain control or invisible characters.`},
		{"/memories/a\tb.md", `Error: The path "/memories/a\tb.md" is not a valid memory path: it must not contain control or invisible characters.`},
		{"/memories/\u202egnp.exe", `Error: The path "/memories/\u202egnp.exe" is not a valid memory path: it must not contain control or invisible characters.`},
		{"/memories/a\u200b.md", `Error: The path "/memories/a\u200b.md" is not a valid memory path: it must not contain control or invisible characters.`},
		{"/memories/\xff.md", `Error: The path "/memories/\xff.md" is not a valid memory path: it is not valid UTF-8.`},
		{long, "Error: The path " + long + " is not a valid memory path: it is 121 bytes long, more than the limit of 120."},
		{"/memories/ghp_" + strings.Repeat("aZ3k9Q", 6) + ".md", "Error: The path /memories/ghp_" + strings.Repeat("aZ3k9Q", 6) + ".md looks like it contains a secret (a key or token), which cairn does not store; choose another file name."},
	} {
		e.fail(memtool.Command{Command: "create", Path: tt.path, FileText: "pwned"}, tt.want)
		if !strings.Contains(tt.want, "secret") {
			e.fail(memtool.Command{Command: "view", Path: tt.path}, tt.want)
			e.fail(memtool.Command{Command: "delete", Path: tt.path}, tt.want)
			e.fail(memtool.Command{Command: "str_replace", Path: tt.path, OldStr: "ok", NewStr: "x"}, tt.want)
			e.fail(memtool.Command{Command: "insert", Path: tt.path, InsertLine: line(0), InsertText: "x"}, tt.want)
			e.fail(memtool.Command{Command: "rename", OldPath: tt.path, NewPath: "/memories/x.md"}, tt.want)
		}
		e.fail(memtool.Command{Command: "rename", OldPath: "/memories/ok.md", NewPath: tt.path}, tt.want)
	}
	e.fail(memtool.Command{Command: "view"}, "Error: Parameter `path` is required; give a path under /memories, such as /memories/notes.md.")
	ms := e.memories()
	if len(ms) != 1 || ms[0].Key != "memfile:/memories/ok.md" || ms[0].Content != "ok" {
		t.Errorf("bad paths changed the store: %d memories", len(ms))
	}
}

func TestOddFileNames(t *testing.T) {
	e := newEnv(t)
	names := []string{
		"/memories/my notes.md",
		"/memories/notes über/日本語 メモ.md",
		"/memories/emoji 🚀 launch.md",
		"/memories/a'b\"c`d$e(f).md",
		"/memories/..hidden dots.md",
		"/memories/" + strings.Repeat("é", (memtool.MaxPathBytes-len("/memories/"))/2), // exactly MaxPathBytes
	}
	for _, p := range names {
		e.create(p, "text of "+p)
		e.ok(memtool.Command{Command: "view", Path: p}, "Here's the content of "+p+" with line numbers:\n     1\ttext of "+p)
	}
	if got := e.view("/memories"); !strings.Contains(got, "\t/memories/notes über/\n") || !strings.Contains(got, "\t/memories/notes über/日本語 メモ.md") {
		t.Errorf("listing misses the unicode directory:\n%s", got)
	}
	e.ok(memtool.Command{Command: "rename", OldPath: "/memories/my notes.md", NewPath: "/memories/notes über/my notes.md"},
		"Successfully renamed /memories/my notes.md to /memories/notes über/my notes.md")
	e.ok(memtool.Command{Command: "str_replace", Path: "/memories/notes über/my notes.md", OldStr: "text", NewStr: "Text"},
		"The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tText of /memories/my notes.md")
	e.ok(memtool.Command{Command: "delete", Path: "/memories/notes über"}, "Successfully deleted /memories/notes über")
	if n := len(e.memories()); n != len(names)-2 {
		t.Errorf("%d memories left, want %d", n, len(names)-2)
	}
	// One byte more than the limit, reached by a rename into a directory.
	p := names[len(names)-1]
	msg := e.failPrefix(memtool.Command{Command: "rename", OldPath: p, NewPath: "/memories/x/" + p[len("/memories/"):]},
		"Error: The path /memories/x/")
	if !strings.HasSuffix(msg, "is not a valid memory path: it is 122 bytes long, more than the limit of 120.") {
		t.Errorf("rename past the length limit: %q", msg)
	}
}

func TestSearchFindsFilesAndProjectsAreIsolated(t *testing.T) {
	e := newEnv(t)
	e.create("/memories/auth.md", "AuthService.Refresh returns nil, nil for unknown tokens; check for a nil session.\n")
	hits, err := e.svc.Search(e.ctx, cairn.Query{Project: project, Text: "refresh unknown tokens"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Memory.Key != "memfile:/memories/auth.md" {
		t.Fatalf("search did not find the file: %+v", hits)
	}

	other := memtool.New(e.svc, "other-project")
	got, err := other.Run(e.ctx, memtool.Command{Command: "view", Path: "/memories"})
	if err != nil || got != header+"/memories, excluding hidden items and node_modules:\n0B\t/memories" {
		t.Errorf("other project's view = %q, %v", got, err)
	}
	_, err = other.Run(e.ctx, memtool.Command{Command: "view", Path: "/memories/auth.md"})
	if memtool.ErrorText(err) != "The path /memories/auth.md does not exist. Please provide a valid path." {
		t.Errorf("other project's view of the file: %v", err)
	}
	_, err = other.Run(e.ctx, memtool.Command{Command: "delete", Path: "/memories/auth.md"})
	if memtool.ErrorText(err) != "Error: The path /memories/auth.md does not exist" {
		t.Errorf("other project's delete: %v", err)
	}
	hits, err = e.svc.Search(e.ctx, cairn.Query{Project: "other-project", Text: "refresh unknown tokens"})
	if err != nil || len(hits) != 0 {
		t.Errorf("other project's search found %d hits, %v", len(hits), err)
	}
	// The other project has its own file of the same name.
	if _, err := other.Run(e.ctx, memtool.Command{Command: "create", Path: "/memories/auth.md", FileText: "other"}); err != nil {
		t.Fatal(err)
	}
	if got := e.content("/memories/auth.md"); !strings.HasPrefix(got, "AuthService") {
		t.Errorf("the other project's create changed this one's file to %q", got)
	}
}

func TestContentIsRedacted(t *testing.T) {
	e := newEnv(t)
	token := "ghp_" + strings.Repeat("aZ3k9Q", 6)
	e.create("/memories/ci.md", "CI uses token "+token+"\n")
	got := e.view("/memories/ci.md")
	if strings.Contains(got, token) || !strings.Contains(got, "[REDACTED:github-token]") {
		t.Errorf("view shows %q", got)
	}
}

func TestUnknownCommand(t *testing.T) {
	e := newEnv(t)
	e.fail(memtool.Command{Command: "undo_edit", Path: "/memories/a"},
		`Error: Unknown command "undo_edit"; use one of view, create, str_replace, insert, delete, rename.`)
	e.fail(memtool.Command{Path: "/memories/a"},
		"Error: Parameter `command` is required; use one of view, create, str_replace, insert, delete, rename.")
}

func TestHandle(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		input   string
		want    string
		isError bool
	}{
		{`{"command":"create","path":"/memories/prefs.md","file_text":"Tone: brief.\n"}`, "File created successfully at: /memories/prefs.md", false},
		{`{"command":"insert","path":"/memories/prefs.md","insert_line":0,"insert_text":"# Sam\n"}`, "The file /memories/prefs.md has been edited.", false},
		{`{"command":"view","path":"/memories/prefs.md","view_range":[2,-1]}`, "Here's the content of /memories/prefs.md with line numbers:\n     2\tTone: brief.", false},
		{`{"command":"view","path":"/memories/nope.md"}`, "The path /memories/nope.md does not exist. Please provide a valid path.", true},
		{`{"command":"rename","old_path":"/memories/prefs.md","new_path":"/memories/people/sam.md"}`, "Successfully renamed /memories/prefs.md to /memories/people/sam.md", false},
		{`{"command":"delete","path":"/memories/people"}`, "Successfully deleted /memories/people", false},
		{`{"command":"view","path":`, "Error: The input is not a valid memory command (unexpected end of JSON input).", true},
		{`{"command":"insert","path":"/memories/a.md","insert_line":"two"}`, "Error: The input is not a valid memory command (json: cannot unmarshal string into Go struct field Command.insert_line of type int).", true},
	} {
		got, isErr := e.tool.Handle(e.ctx, json.RawMessage(tt.input))
		if got != tt.want || isErr != tt.isError {
			t.Errorf("Handle(%s)\n got %q, %v\nwant %q, %v", tt.input, got, isErr, tt.want, tt.isError)
		}
	}
}

func TestCommandJSON(t *testing.T) {
	in := `{"command":"insert","path":"/memories/a","view_range":[1,2],"file_text":"f","old_str":"o","new_str":"n","insert_line":0,"insert_text":"i","old_path":"/memories/b","new_path":"/memories/c"}`
	var c memtool.Command
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(c)
	if string(out) != in {
		t.Errorf("round trip:\n got %s\nwant %s", out, in)
	}
}

func TestStoreFailureIsNotShownInDetail(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	_, err := e.tool.Run(ctx, memtool.Command{Command: "view", Path: "/memories"})
	var me *memtool.Error
	if err == nil || errors.As(err, &me) {
		t.Fatalf("a cancelled context gave %v, want a store error", err)
	}
	if got := memtool.ErrorText(errors.New("disk I/O error at /var/db")); got != "Error: The memory store failed to run the command; nothing may have changed." {
		t.Errorf("ErrorText(internal) = %q", got)
	}
	if got := memtool.ErrorText(cairn.Errorf(cairn.EUNAVAILABLE, "database is locked")); got != "Error: The memory store is busy or unavailable; try again." {
		t.Errorf("ErrorText(unavailable) = %q", got)
	}
}

// Two processes (two stores on one database file, each with its own tool)
// insert lines into one file at the same time: every insert that answered
// success is in the file, none was overwritten by the other's write.
func TestConcurrentEditsLoseNothing(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "c.db")
	tools := make([]*memtool.Tool, 2)
	for i := range tools {
		st, err := sqlite.Open(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		tools[i] = memtool.New(engine.New(st, nil), project)
	}
	if _, err := tools[0].Run(ctx, memtool.Command{Command: "create", Path: "/memories/log.md", FileText: "start\n"}); err != nil {
		t.Fatal(err)
	}
	const each = 15
	var mu sync.Mutex
	var done []string
	var wg sync.WaitGroup
	for w, tool := range tools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				line := fmt.Sprintf("writer %d line %d", w, i)
				zero := 0
				out, err := tool.Run(ctx, memtool.Command{Command: "insert", Path: "/memories/log.md", InsertLine: &zero, InsertText: line})
				var me *memtool.Error
				switch {
				case err == nil && strings.HasSuffix(out, "has been edited."):
					mu.Lock()
					done = append(done, line)
					mu.Unlock()
				case errors.As(err, &me) && strings.Contains(me.Message, "kept changing"):
					// refused, and said so: allowed
				default:
					t.Errorf("insert: %q, %v", out, err)
				}
			}
		}()
	}
	wg.Wait()
	got, err := tools[1].Run(ctx, memtool.Command{Command: "view", Path: "/memories/log.md"})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range done {
		if strings.Count(got, line+"\n") != 1 {
			t.Errorf("%q answered success but is not in the file once", line)
		}
	}
	if n := strings.Count(got, "writer "); n != len(done) {
		t.Errorf("the file holds %d inserted lines, %d inserts succeeded", n, len(done))
	}
	if len(done) < each {
		t.Errorf("only %d of %d inserts succeeded", len(done), 2*each)
	}
}

// A name with white space at either end is refused: the store trims keys,
// so "/memories/a.md " would otherwise overwrite /memories/a.md.
func TestNamesWithOuterWhiteSpaceAreRefused(t *testing.T) {
	e := newEnv(t)
	e.ok(memtool.Command{Command: "create", Path: "/memories/a.md", FileText: "precious notes"}, "File created successfully at: /memories/a.md")
	for _, p := range []string{"/memories/a.md ", "/memories/a.md\u00a0", "/memories/a.md\u2003", "/memories/ a.md", "/memories/dir /a.md"} {
		if out, err := e.tool.Run(e.ctx, memtool.Command{Command: "create", Path: p, FileText: "junk"}); err == nil {
			t.Errorf("create %q: %q", p, out)
		}
	}
	got, err := e.tool.Run(e.ctx, memtool.Command{Command: "view", Path: "/memories/a.md"})
	if err != nil || !strings.Contains(got, "precious notes") {
		t.Errorf("a.md after the refused creates: %q, %v", got, err)
	}
}

// Two processes creating the same new file at once: one succeeds, the
// other is told the file exists, and the file holds the winner's text.
func TestConcurrentCreatesOfOnePath(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "c.db")
	for round := range 10 {
		path := fmt.Sprintf("/memories/race%d.md", round)
		var wg sync.WaitGroup
		outs := make([]string, 2)
		errs := make([]error, 2)
		for i := range 2 {
			st, err := sqlite.Open(ctx, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			tool := memtool.New(engine.New(st, nil), project)
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i], errs[i] = tool.Run(ctx, memtool.Command{Command: "create", Path: path, FileText: fmt.Sprintf("text of writer %d", i)})
			}()
		}
		wg.Wait()
		won := -1
		for i := range 2 {
			var me *memtool.Error
			switch {
			case errs[i] == nil:
				if won >= 0 {
					t.Fatalf("round %d: both creates succeeded", round)
				}
				won = i
			case errors.As(errs[i], &me) && me.Message == "Error: File "+path+" already exists":
			default:
				t.Fatalf("round %d: writer %d: %q, %v", round, i, outs[i], errs[i])
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no create succeeded", round)
		}
		st, _ := sqlite.Open(ctx, db, nil)
		got, err := memtool.New(engine.New(st, nil), project).Run(ctx, memtool.Command{Command: "view", Path: path})
		st.Close()
		if err != nil || !strings.Contains(got, fmt.Sprintf("text of writer %d", won)) {
			t.Errorf("round %d: %q, %v; want writer %d's text", round, got, err, won)
		}
	}
}

// failingUpdates is the engine with its n-th key change refused, as when
// another process took the destination in the middle of a rename.
type failingUpdates struct {
	*engine.Engine
	n, calls int
}

func (f *failingUpdates) UpdateMemory(ctx context.Context, id string, upd cairn.MemoryUpdate) (*cairn.Memory, error) {
	if upd.Key != nil {
		f.calls++
		if f.calls == f.n {
			return nil, cairn.Errorf(cairn.ECONFLICT, "the key is taken")
		}
	}
	return f.Engine.UpdateMemory(ctx, id, upd)
}

// A directory rename that fails on its third file moves the first two
// back: the directory is never left half moved.
func TestDirectoryRenameThatFailsMovesNothing(t *testing.T) {
	e := newEnv(t)
	for _, f := range []string{"a.md", "b.md", "c.md", "d.md"} {
		e.ok(memtool.Command{Command: "create", Path: "/memories/notes/" + f, FileText: "text of " + f}, "File created successfully at: /memories/notes/"+f)
	}
	before, _ := e.tool.Run(e.ctx, memtool.Command{Command: "view", Path: "/memories"})
	tool := memtool.New(&failingUpdates{Engine: e.svc, n: 3}, project)
	if _, err := tool.Run(e.ctx, memtool.Command{Command: "rename", OldPath: "/memories/notes", NewPath: "/memories/archive"}); err == nil {
		t.Fatal("the rename succeeded")
	}
	after, _ := e.tool.Run(e.ctx, memtool.Command{Command: "view", Path: "/memories"})
	if after != before {
		t.Errorf("after a failed rename:\n%s\nwant, as before:\n%s", after, before)
	}
}

func TestAPathIsOneFileWhateverItsUnicodeForm(t *testing.T) {
	e := newEnv(t)
	nfd, nfc := "/memories/cafe\u0301.md", "/memories/caf\u00e9.md"
	e.ok(memtool.Command{Command: "create", Path: nfd, FileText: "Decaf after four."}, "File created successfully at: "+nfc)
	e.ok(memtool.Command{Command: "view", Path: nfc}, "Here's the content of "+nfc+" with line numbers:\n     1\tDecaf after four.")
	e.fail(memtool.Command{Command: "create", Path: nfc, FileText: "again"}, "Error: File "+nfc+" already exists")
	if ms := e.memories(); len(ms) != 1 || ms[0].Key != memtool.KeyPrefix+nfc {
		t.Errorf("memories: %+v", ms)
	}
}
