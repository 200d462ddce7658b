package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestConflictsListsContradictionsUntilOneSupersedesTheOther(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	old := c.add("--type", "convention", "Always use tabs for indentation in Go files")
	nw := c.add("--type", "decision", "Never use tabs for indentation in Go files")
	c.add("--type", "note", "Release builds are signed in CI")

	served, local := c.bothWays("", "conflicts", "--json")
	if served.stdout != local.stdout {
		t.Errorf("through the server:\n%s\non the database:\n%s", served.stdout, local.stdout)
	}
	var pairs []struct{ Old, New struct{ ID string } }
	if err := json.Unmarshal([]byte(served.stdout), &pairs); err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1 || pairs[0].Old.ID != old || pairs[0].New.ID != nw {
		t.Fatalf("conflicts = %+v", pairs)
	}
	if r := c.ok("conflicts"); !strings.Contains(r.stdout, "cairn supersede "+old+" "+nw) {
		t.Errorf("no way to resolve it shown:\n%s", r.stdout)
	}
	c.ok("supersede", old, nw)
	if r := c.ok("conflicts", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("a resolved conflict is still listed: %s", r.stdout)
	}
	if r := c.run("", "conflicts", "extra"); r.code != exitUsage {
		t.Errorf("a stray argument: %v", r)
	}
}

// The conflicts, seed 002's recall, a capture, a task event and the
// explanation of a search are the server's answers: a server that serves those operations alone (no
// listing of memories to compute them from, no adding of memories one by
// one) is enough, and what it answers is what the command prints. A
// command that computed them itself would fail here.
func TestConflictsRecallAndCapturePrintTheServersAnswer(t *testing.T) {
	t.Parallel()
	mem := func(id, typ, content string) string {
		return `{"id":"` + id + `","type":"` + typ + `","title":"` + content + `","content":"` + content +
			`","tags":[],"file_refs":[],"confidence":0.9,"use_count":3,"created_at":"2026-01-02T03:04:05Z"}`
	}
	var paths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "GET /api/projects/proj/conflicts":
			io.WriteString(w, `{"conflicts":[{"old":`+mem("mem-old", "convention", "Tabs")+`,"new":`+mem("mem-new", "decision", "No tabs")+`}]}`)
		case "POST /api/projects/proj/recall":
			var in struct {
				Types  []string
				Limit  int
				Record bool
			}
			json.NewDecoder(r.Body).Decode(&in)
			if len(in.Types) != 1 || in.Types[0] != "fix" || in.Limit != 7 || !in.Record {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":{"code":"invalid","message":"the flags did not reach the server"}}`)
				return
			}
			io.WriteString(w, `{"memories":[`+mem("mem-fix", "fix", "Only the server knows this fix")+`]}`)
		case "POST /api/projects/proj/capture":
			var in struct {
				Text, Agent, HatTransition string `json:",omitempty"`
			}
			json.NewDecoder(r.Body).Decode(&in)
			if in.Text != "Plain prose.\n" || in.Agent != "claude" {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":{"code":"invalid","message":"the output did not reach the server"}}`)
				return
			}
			io.WriteString(w, `{"stored":[{"id":"mem-cap","status":"created","kind":"memory","type":"pitfall","title":"Read by the server","line":1}],"problems":[]}`)
		case "POST /api/projects/proj/tasks/events":
			io.WriteString(w, `{"event":{"id":"mem-ev","status":"created","kind":"event","type":"task_result","title":"Done","line":0},`+
				`"stored":[{"id":"mem-sig","status":"created","kind":"memory","type":"pitfall","title":"Read by the server","line":1}],"problems":[]}`)
		case "GET /api/projects/proj/search":
			io.WriteString(w, `[{"score":0.9,"relevance":1,"salience":1.2,`+
				`"explain":{"bm25":2,"coverage":1,"match":2,"strength":1,"date_factor":1,"salience_factor":1.234},`+mem("mem-hit", "fix", "Zebra fix")[1:]+`]`)
		case "GET /api/projects/proj/search/terms":
			io.WriteString(w, `{"terms":[{"term":"zebra","weight":0.5}],"bm25":{"k1":9,"b":0.5,"pivot":7},"coverage":0.3,"neighbour_share":0.2,"neighbour_cap":0.6}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":"not_found","message":"this server answers the conflicts and the recall only"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	c := newCLI(t)
	c.env["CAIRN_SERVER"] = srv.URL
	r := c.ok("conflicts", "--json")
	var pairs []struct{ Old, New struct{ ID string } }
	if err := json.Unmarshal([]byte(r.stdout), &pairs); err != nil || len(pairs) != 1 || pairs[0].Old.ID != "mem-old" || pairs[0].New.ID != "mem-new" {
		t.Errorf("conflicts: %v (%v)", r, err)
	}
	if r := c.ok("conflicts"); !strings.Contains(r.stdout, "cairn supersede mem-old mem-new") {
		t.Errorf("conflicts: %v", r)
	}
	if r := c.ok("recall", "--type", "fix", "--limit", "7"); !strings.Contains(r.stdout, "mem-fix") || !strings.Contains(r.stdout, "0.90 × 3 uses") {
		t.Errorf("recall: %v", r)
	}
	if r := c.run("Plain prose.\n", "capture", "--agent", "claude"); r.code != 0 || r.stdout != "created mem-cap pitfall: Read by the server\ncaptured 1: 1 new, 0 reinforced, 0 unchanged; 0 problems\n" {
		t.Errorf("capture: %v", r)
	}
	if r := c.run("", "task", "completed", "--task", "T-1", "Plain prose."); r.code != 0 || r.stdout != "mem-ev created task_result\nmem-sig created pitfall\n" {
		t.Errorf("task: %v", r)
	}
	if r := c.ok("search", "--explain", "zebra"); !strings.Contains(r.stdout, "query terms (weight): zebra (0.50)\n") ||
		!strings.Contains(r.stdout, "bm25: k1 9, b 0.5, lengths against 7 terms; coverage share 0.3; a neighbour is lent 0.2") ||
		!strings.Contains(r.stdout, "salience factor 1.234") {
		t.Errorf("search --explain: %v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range paths {
		if !strings.HasSuffix(p, "/conflicts") && !strings.HasSuffix(p, "/recall") && !strings.HasSuffix(p, "/capture") && !strings.HasSuffix(p, "/tasks/events") && !strings.HasSuffix(p, "/search") && !strings.HasSuffix(p, "/search/terms") && !strings.HasSuffix(p, "/settings") {
			t.Errorf("the command asked %s besides the operation itself", p)
		}
	}
}
