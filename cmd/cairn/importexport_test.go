package main

// Tests of import and export through Main.Run.
//
// Bad inputs tried here: JSON Lines with one bad record (a confidence of
// "high", a confidence of 7, broken JSON, content with a \u0000 escape, raw
// invalid UTF-8 bytes, the type "Bad Type", empty content, a 9 MB line),
// an id already used by another project, blank lines (they still count for
// line numbers), a missing file, re-imports of the same file, seed 000's
// export document with integer task ids, null fields, tags as a JSON string
// and unknown fields.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestImportKeepsGivenIDProjectAndCreatedAt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := c.writeFile("in.jsonl", jsonLines(t,
		map[string]any{"id": "custom-1", "project": "other", "type": "decision", "title": "T1",
			"content": "imported into another project", "created_at": "2020-05-06T07:08:09Z",
			"tags": []string{"x", "y"}, "file_refs": []string{"a/*.go"}, "confidence": 0.66},
		map[string]any{"id": "custom-2", "content": "imported into the default project",
			"created_at": "2021-01-02T03:04:05.678Z"},
		map[string]any{"content": "no id given", "unknown_field": 42},
	))
	r := c.ok("import", file)
	if !strings.Contains(r.stdout, "read 3 records: 3 created") {
		t.Errorf("import report = %q", r.stdout)
	}
	c.project = "other"
	m := c.show("custom-1")
	c.project = "proj"
	for k, v := range map[string]any{"id": "custom-1", "project": "other", "type": "decision", "title": "T1",
		"created_at": "2020-05-06T07:08:09Z", "confidence": 0.66, "source": "imported"} {
		if m[k] != v {
			t.Errorf("custom-1 %s = %#v, want %#v", k, m[k], v)
		}
	}
	if got := strList(m["tags"]); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("tags = %q", got)
	}
	m = c.show("custom-2")
	if m["project"] != "proj" || m["created_at"] != "2021-01-02T03:04:05.678Z" {
		t.Errorf("custom-2 project %v created_at %v, want proj and 2021-01-02T03:04:05.678Z", m["project"], m["created_at"])
	}
	if n := c.total(); n != 2 {
		t.Errorf("proj total = %d, want 2", n)
	}
	c.project = "other"
	if n := c.total(); n != 1 {
		t.Errorf("other total = %d, want 1", n)
	}
	if ids := c.listIDs(); !slices.Equal(ids, []string{"custom-1"}) {
		t.Errorf("list of other = %v", ids)
	}
}

func TestReimportOfTheSameFileChangesNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := c.writeFile("in.jsonl", jsonLines(t,
		map[string]any{"id": "r-1", "content": "first record with an id", "created_at": "2024-01-01T00:00:00Z"},
		map[string]any{"id": "r-2", "type": "pitfall", "key": "k", "content": "second record with an id and key"},
		map[string]any{"type": "note", "key": "k2", "content": "third record, a key but no id"},
		map[string]any{"content": "fourth record, neither id nor key", "created_at": "2024-01-04T00:00:00Z"},
	))
	c.ok("import", file)
	before := c.ok("export", "--format", "jsonl").stdout
	r := c.ok("import", "--json", file)
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("import --json is not JSON: %v\n%s", err, r.stdout)
	}
	// The report's field names are whatever the command prints; find
	// them case-insensitively so that this test checks counts, not case.
	get := func(name string) float64 {
		for k, v := range rep {
			if strings.EqualFold(k, name) {
				f, _ := v.(float64)
				return f
			}
		}
		t.Errorf("import --json has no %q field: %s", name, r.stdout)
		return -1
	}
	if get("created") != 0 || get("unchanged") != 4 || get("updated") != 0 || get("reinforced") != 0 {
		t.Errorf("re-import report = %s, want 0 created and 4 unchanged", r.stdout)
	}
	if n := c.total(); n != 4 {
		t.Errorf("stats total = %d after re-import, want 4", n)
	}
	if after := c.ok("export", "--format", "jsonl").stdout; after != before {
		t.Errorf("re-import changed stored memories:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	r = c.ok("import", file)
	if !strings.Contains(r.stdout, "0 created") || !strings.Contains(r.stdout, "4 unchanged") {
		t.Errorf("third import report = %q, want 0 created, 4 unchanged", r.stdout)
	}
}

func TestImportWithOneBadLineImportsNothingAndNamesTheLine(t *testing.T) {
	t.Parallel()
	good := func(n string) string {
		return `{"id":"good-` + n + `","type":"note","content":"good record ` + n + `"}`
	}
	tests := []struct {
		name, bad, want string
	}{
		{"confidence as a word", `{"content":"x","confidence":"high"}`, "confidence"},
		{"confidence out of range", `{"content":"x","confidence":7}`, "confidence"},
		{"broken JSON", `{"content": "x",`, "JSON"},
		{"NUL escape in content", `{"content":"a\u0000b"}`, "NUL"},
		{"raw invalid UTF-8", "{\"content\":\"caf\xe9 \xff\"}", "UTF-8"},
		{"bad type name", `{"content":"x","type":"Bad Type"}`, "type"},
		{"empty content", `{"content":"   "}`, "empty"},
		{"not an object", `["content", "x"]`, "object"},
		{"line over 8 MB", `{"content":"` + strings.Repeat("z", 9<<20) + `"}`, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			// Line 2 is blank: it still counts, so the bad record is line 4.
			file := c.writeFile("in.jsonl", good("1")+"\n\n"+good("2")+"\n"+tt.bad+"\n"+good("3")+"\n")
			r := c.run("", "import", file)
			if r.code != 1 {
				t.Fatalf("want exit 1, got %v", r)
			}
			oneErrorLine(t, r)
			if !strings.Contains(r.stderr, "line 4") {
				t.Errorf("stderr does not name line 4: %q", r.stderr)
			}
			if !strings.Contains(strings.ToLower(r.stderr), strings.ToLower(tt.want)) {
				t.Errorf("stderr does not mention %q: %q", tt.want, r.stderr)
			}
			if strings.Contains(r.stderr, "internal error") {
				t.Errorf("a bad record is the user's mistake, not an internal error: %q", r.stderr)
			}
			if n := c.total(); n != 0 {
				t.Errorf("stats total = %d, want 0: nothing may be imported", n)
			}
			if r := c.run("", "show", "good-1"); r.code != 1 {
				t.Errorf("good-1 was imported despite the bad line: %v", r)
			}
		})
	}
}

func TestImportOfAnIDOwnedByAnotherProjectFails(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("import", c.writeFile("a.jsonl", `{"id":"shared-id","project":"a","content":"owned by a"}`+"\n"))
	r := c.run("", "import", c.writeFile("b.jsonl", `{"id":"ok-id","content":"fine"}`+"\n"+`{"id":"shared-id","project":"b","content":"b wants it"}`+"\n"))
	if r.code != 1 || !strings.Contains(r.stderr, "line 2") || !strings.Contains(r.stderr, "shared-id") {
		t.Errorf("want exit 1 naming line 2 and the id, got %v", r)
	}
	c.project = "a"
	if m := c.show("shared-id"); m["project"] != "a" || m["content"] != "owned by a" {
		t.Errorf("the other project's memory was changed: %v", m)
	}
	c.project = "b"
	if r := c.run("", "show", "ok-id"); r.code != 1 {
		t.Errorf("ok-id was imported though the import failed")
	}
}

func TestImportSkipInvalidImportsGoodLinesAndReportsBadOnes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := c.writeFile("in.jsonl", strings.Join([]string{
		`{"id":"s-1","content":"good one"}`,
		`{"content":"x","confidence":"high"}`,
		`{"id":"s-3","content":"good three"}`,
		`{"content": broken`,
		`{"id":"s-5","content":"good five","type":"decision"}`,
		`{"content":"x","type":"Bad Type"}`,
	}, "\n")+"\n")
	r := c.run("", "import", "--skip-invalid", file)
	if r.code != 0 {
		t.Fatalf("--skip-invalid: want exit 0, got %v", r)
	}
	if !strings.Contains(r.stdout, "read 6 records: 3 created") || !strings.Contains(r.stdout, "3 skipped") {
		t.Errorf("report = %q", r.stdout)
	}
	for _, line := range []string{"line 2", "line 4", "line 6"} {
		if !strings.Contains(r.stderr, line) {
			t.Errorf("stderr does not report %s: %q", line, r.stderr)
		}
	}
	if strings.Count(r.stderr, "\n") != 3 {
		t.Errorf("want one stderr line per skipped record, got %q", r.stderr)
	}
	if n := c.total(); n != 3 {
		t.Errorf("stats total = %d, want 3", n)
	}
	for _, id := range []string{"s-1", "s-3", "s-5"} {
		c.show(id)
	}
}

func TestImportReadsSeed000ExportDocument(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.ok("import", filepath.Join("testdata", "seed000_export.json"))
	if !strings.Contains(r.stdout, "read 2 records: 2 created") {
		t.Errorf("report = %q", r.stdout)
	}
	c.project = "myproject"
	m := c.show("mem-abc123")
	for k, v := range map[string]any{
		"project": "myproject", "type": "pattern", "title": "Tests use table-driven pattern",
		"content": "Tests use table-driven patterns with t.Run subtests...", "confidence": 0.85,
		"created_by_hat": "creator", "created_by_task_id": "17", "created_by_session_id": "sess-9",
		"source": "automatic", "use_count": 5.0, "created_at": "2024-01-10T08:00:00Z",
		"last_used_at": "2024-01-14T09:00:00Z",
	} {
		if m[k] != v {
			t.Errorf("mem-abc123 %s = %#v, want %#v", k, m[k], v)
		}
	}
	if got := strList(m["tags"]); !slices.Equal(got, []string{"testing", "go"}) {
		t.Errorf("tags = %q", got)
	}
	if got := strList(m["file_refs"]); !slices.Equal(got, []string{"internal/session/*_test.go"}) {
		t.Errorf("file_refs = %q", got)
	}
	m = c.show("mem-def456")
	if got := strList(m["tags"]); !slices.Equal(got, []string{"errors", "go"}) {
		t.Errorf("tags written as a JSON string = %q, want [errors go]", got)
	}
	if _, ok := m["created_by_task_id"]; ok {
		t.Errorf("a null task id became %#v", m["created_by_task_id"])
	}
	c.project = "myproject"
	if n := c.total(); n != 2 {
		t.Errorf("myproject total = %d, want 2", n)
	}
	if ids := c.searchIDs("table-driven subtests"); len(ids) == 0 || ids[0] != "mem-abc123" {
		t.Errorf("search after import = %v", ids)
	}
	// A JSON array of memory objects is read too.
	c2 := newCLI(t)
	c2.ok("import", c2.writeFile("arr.json", `[{"id":"arr-1","content":"from an array"},`+"\n"+`{"id":"arr-2","content":"also from an array"}]`))
	if n := c2.total(); n != 2 {
		t.Errorf("JSON array import: total %d, want 2", n)
	}
	if r := c2.run("", "import", filepath.Join(c2.dir, "missing.jsonl")); r.code != 1 {
		t.Errorf("import of a missing file: want exit 1, got %v", r)
	}
}

// exportDoc is the export document as read back.
type exportDoc struct {
	Version    int              `json:"version"`
	Project    string           `json:"project"`
	ExportedAt string           `json:"exported_at"`
	Memories   []map[string]any `json:"memories"`
}

func TestExportThenImportIntoAFreshDatabaseRoundTripsEveryField(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	const now = "2025-02-03T04:05:06Z"
	full := c.add("--now", "2025-01-01T10:00:00.123Z", "--type", "decision", "--title", "Full record",
		"--tags", "a,b:c", "--files", "x/*.go,y.md", "--key", "the-key", "--confidence", "0.77",
		"--session", "sess", "--task", "99", "--hat", "builder", "--agent", "codex", "--source", "extracted",
		"--pin", "Every field is set on this one.\nSecond line with unicode: żółw 🐢 and \"quotes\" <tags> & ampersands")
	c.ok("--now", "2025-01-02T00:00:00Z", "edit", full, "--expires", "2030-01-01T00:00:00Z", "--verified", "2025-01-02")
	global := c.add("--now", "2025-01-03T00:00:00Z", "--scope", "global", "--type", "preference", "Prefer tabs")
	old := c.add("--now", "2025-01-04T00:00:00Z", "An old way of doing things")
	c.ok("edit", old, "--superseded-by", full)
	reinforced := c.add("--now", "2025-01-05T00:00:00Z", "Said twice")
	c.add("--now", "2025-01-06T00:00:00Z", "Said   twice")
	ids := []string{full, global, old, reinforced}

	r := c.ok("--now", now, "export")
	var doc exportDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("export is not a JSON document: %v\n%s", err, r.stdout)
	}
	if doc.Version != 1 || doc.Project != "proj" || doc.ExportedAt != now || len(doc.Memories) != 4 {
		t.Fatalf("export document header/count wrong: version %d project %q exported_at %q, %d memories",
			doc.Version, doc.Project, doc.ExportedAt, len(doc.Memories))
	}
	file := c.writeFile("export.json", r.stdout)

	fresh := newCLI(t)
	fresh.ok("import", file)
	for _, id := range ids {
		a, b := c.show(id), fresh.show(id)
		for k, v := range a {
			if bv, ok := b[k]; !ok || !jsonEqual(v, bv) {
				t.Errorf("%s: %s = %#v before the round trip, %#v after", id, k, v, b[k])
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				t.Errorf("%s: %s appeared after the round trip: %#v", id, k, b[k])
			}
		}
	}
	m := fresh.show(full)
	for k, v := range map[string]any{"pinned": true, "expires_at": "2030-01-01T00:00:00Z",
		"verified_at": "2025-01-02T00:00:00Z", "source": "extracted", "key": "the-key",
		"created_at": "2025-01-01T10:00:00.123Z", "created_by_task_id": "99"} {
		if m[k] != v {
			t.Errorf("after the round trip %s = %#v, want %#v", k, m[k], v)
		}
	}
	if m := fresh.show(old); m["superseded_by"] != full {
		t.Errorf("superseded_by = %v", m["superseded_by"])
	}
	if m := fresh.show(reinforced); m["use_count"] != 1.0 {
		t.Errorf("use_count = %v, want 1", m["use_count"])
	}
	if m := fresh.show(global); m["scope"] != "global" {
		t.Errorf("scope = %v", m["scope"])
	}
	// Exporting the imported copy gives the same memories.
	again := fresh.ok("--now", now, "export").stdout
	if again != r.stdout {
		t.Errorf("export → import → export differs:\nfirst:\n%s\nsecond:\n%s", r.stdout, again)
	}
	// The copy is searchable.
	if got := fresh.searchIDs("żółw"); !slices.Contains(got, full) {
		t.Errorf("search in the imported copy = %v", got)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestExportFormatJSONLWritesOneMemoryALine(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var want []string
	for _, s := range []string{"one", "two", "three"} {
		want = append(want, c.add("jsonl export "+s))
	}
	c.project = "other"
	c.add("not exported: another project")
	c.project = "proj"
	r := c.ok("export", "--format", "jsonl")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	var got []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q is not a JSON object: %v", l, err)
		}
		if m["project"] != "proj" {
			t.Errorf("exported a memory of project %v", m["project"])
		}
		got = append(got, m["id"].(string))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("exported ids %v, want %v", got, want)
	}
	// -o writes the same to a file; JSON Lines import back is idempotent.
	out := filepath.Join(c.dir, "out.jsonl")
	c.ok("export", "--format", "jsonl", "-o", out)
	if b, _ := os.ReadFile(out); string(b) != r.stdout {
		t.Errorf("export -o wrote %q, want %q", b, r.stdout)
	}
	if r := c.ok("import", out); !strings.Contains(r.stdout, "3 unchanged") {
		t.Errorf("importing an export into its own database: %q", r.stdout)
	}
	if r := c.run("", "export", "--format", "xml"); r.code != 2 {
		t.Errorf("--format xml: want exit 2, got %v", r)
	}
}

func TestExportJSONLDirWritesOneFilePerTypeWithTheRightCounts(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	counts := map[string]int{"decision": 3, "pitfall": 2, "note": 1}
	for typ, n := range counts {
		for i := range n {
			c.add("--type", typ, typ+" memory number "+string(rune('a'+i)))
		}
	}
	dir := filepath.Join(c.dir, "per-type")
	r := c.ok("export", "--jsonl-dir", dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if !slices.Equal(names, []string{"decision.jsonl", "note.jsonl", "pitfall.jsonl"}) {
		t.Errorf("files = %v (no temporary files may be left)", names)
	}
	for typ, n := range counts {
		b, err := os.ReadFile(filepath.Join(dir, typ+".jsonl"))
		if err != nil {
			t.Error(err)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(lines) != n {
			t.Errorf("%s.jsonl has %d lines, want %d", typ, len(lines), n)
		}
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil || m["type"] != typ {
				t.Errorf("%s.jsonl line %q: %v", typ, l, err)
			}
		}
		if !strings.Contains(r.stdout, typ+".jsonl") {
			t.Errorf("stdout does not list %s.jsonl: %q", typ, r.stdout)
		}
	}
	// The per-type files import back into a fresh database.
	fresh := newCLI(t)
	for typ := range counts {
		fresh.ok("import", filepath.Join(dir, typ+".jsonl"))
	}
	if n := fresh.total(); n != 6 {
		t.Errorf("fresh total after importing the per-type files = %d, want 6", n)
	}
}

func TestImportFoldsDuplicatesWithinOneFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	in := jsonLines(t,
		map[string]any{"content": "the same   lesson twice", "tags": []string{"a"}},
		map[string]any{"id": "dup-1", "content": "an id given twice"},
		map[string]any{"content": "the same lesson twice", "tags": []string{"b"}},
		map[string]any{"id": "dup-1", "content": "an id given twice"},
		map[string]any{"type": "decision", "key": "k", "content": "first value of a key"},
		map[string]any{"type": "decision", "key": "k", "content": "second value of the key"},
	)
	r := c.run(in, "import", "-")
	if r.code != 0 {
		t.Fatalf("import -: %v", r)
	}
	if n := c.total(); n != 3 {
		t.Errorf("stats total = %d, want 3: duplicates in one file are folded", n)
	}
	if !strings.Contains(r.stdout, "read 6 records: 3 created") {
		t.Errorf("report = %q", r.stdout)
	}
	mems := c.listJSON("--limit", "0")
	byContent := map[string]map[string]any{}
	for _, m := range mems {
		byContent[m["content"].(string)] = m
	}
	if m := byContent["the same   lesson twice"]; m == nil || !slices.Equal(strList(m["tags"]), []string{"a", "b"}) || m["use_count"] != 1.0 {
		t.Errorf("the repeated content was not folded into one reinforced memory: %v", m)
	}
	if m := byContent["second value of the key"]; m == nil {
		t.Errorf("the key's second value did not replace the first: %v", mems)
	}
	folded := byContent["the same   lesson twice"]
	ids := c.searchIDs("lesson")
	if len(ids) == 0 || folded == nil || ids[0] != folded["id"] {
		t.Errorf("search lesson = %v, want the folded memory first", ids)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("search returns %s twice: %v", id, ids)
		}
		seen[id] = true
	}
}

// TestImportWithoutAFileReadsRedirectedStdin is `cairn import < file`:
// no file named, standard input not a terminal.
func TestImportWithoutAFileReadsRedirectedStdin(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run(`{"content":"imported from a redirected standard input"}`+"\n", "import")
	if r.code != 0 || !strings.Contains(r.stdout, "1 created") {
		t.Fatalf("%v", r)
	}
	if r := c.run("", "import", "a.jsonl", "b.jsonl"); r.code != 2 {
		t.Errorf("two files: want a usage error, got %v", r)
	}
}

func TestExportWritesTheItemShapeAgentsBrowse(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.project = filepath.Base(c.dir) // the working directory is the project's folder
	c.ok("task", "created", "--task", "T-7", "--agent", "alice", "Fix the timezone display bug in settings")
	id := c.add("--type", "decision", "--agent", "bob", "--session", "s-1", "Chose dayjs over moment.js for bundle size")
	var items []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(c.ok("export", "--format", "item").stdout), "\n") {
		var it map[string]any
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		items = append(items, it)
	}
	if len(items) != 2 {
		t.Fatalf("items: %v", items)
	}
	task, dec := items[0], items[1]
	if task["source"] != "task" || task["sourceId"] != "T-7" || task["type"] != "task_input" || task["createdBy"] != "alice" {
		t.Errorf("task item: %v", task)
	}
	if dec["id"] != id || dec["source"] != "explicit" || dec["sourceId"] != "s-1" || dec["createdBy"] != "bob" ||
		dec["projectPath"] != c.dir || !strings.HasSuffix(dec["createdAt"].(string), "Z") {
		t.Errorf("decision item: %v", dec)
	}
	for _, k := range []string{"title", "tags", "created_at", "confidence"} {
		if _, ok := dec[k]; ok {
			t.Errorf("item has cairn's field %s: %v", k, dec)
		}
	}
	dir := filepath.Join(c.dir, "items")
	c.ok("export", "--format", "item", "--jsonl-dir", dir)
	b, err := os.ReadFile(filepath.Join(dir, "decision.jsonl"))
	if err != nil || !strings.Contains(string(b), `"createdBy":"bob"`) {
		t.Errorf("decision.jsonl: %s %v", b, err)
	}
	if r := c.run("", "export", "--format", "yaml"); r.code != 2 {
		t.Errorf("unknown format: %v", r)
	}
}

func TestImportDrawsProgressOnATerminalOnly(t *testing.T) {
	t.Parallel()
	counted := &countingReader{r: strings.NewReader("")}
	var b strings.Builder
	importProgress(&b, false, counted, 8<<20)()
	if b.Len() != 0 {
		t.Errorf("drawn on a non-terminal: %q", b.String())
	}
	stop := importProgress(&b, true, counted, 8<<20)
	counted.n.Store(4 << 20)
	stop()
	if out := b.String(); !strings.HasPrefix(out, "\r") || !strings.HasSuffix(out, "100% 8/8 MB\n") {
		t.Errorf("progress: %q", out)
	}
	b.Reset()
	importProgress(&b, true, counted, 1000)() // a small file: no bar
	if b.Len() != 0 {
		t.Errorf("drawn for a small file: %q", b.String())
	}
}
