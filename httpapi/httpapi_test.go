package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/sqlite"
)

// now is the clock of every test server.
var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// testAPI is an API server over a fresh database.
type testAPI struct {
	t    *testing.T
	eng  *engine.Engine
	srv  *httptest.Server
	root string // the folder of every project's files (Options.Root)
}

// newAPI starts an API server over a new database; requireToken makes it
// behave as a server reachable from other machines.
func newAPI(t *testing.T, requireToken bool) *testAPI {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newAPIOn(t, st, requireToken)
}

// newAPIOn is newAPI over st, which the caller closes.
func newAPIOn(t *testing.T, st cairn.Store, requireToken bool) *testAPI {
	t.Helper()
	eng := engine.New(st, &engine.Options{Now: func() time.Time { return now }})
	root := t.TempDir()
	a := startAPI(t, eng, httpapi.Options{
		Service: func(p string, at time.Time) httpapi.Service {
			return local.New(atTime(eng, at), p, &local.Options{Record: eng.RecordUse})
		},
		Root: func(p string) string {
			if p == "nofolder" {
				return ""
			}
			return root
		},
		Tokens:       eng,
		RequireToken: requireToken,
		// As a server's Unix socket, which needs no token, serves them.
		ManageTokens:  !requireToken,
		CheckSettings: config.Validate,
	})
	a.root = root
	return a
}

func startAPI(t *testing.T, eng *engine.Engine, opts httpapi.Options) *testAPI {
	t.Helper()
	srv := httptest.NewServer(httpapi.New(opts))
	t.Cleanup(srv.Close)
	return &testAPI{t: t, eng: eng, srv: srv}
}

// response is an answer: its status, content type and body.
type response struct {
	status int
	ctype  string
	body   []byte
}

func (r response) String() string { return http.StatusText(r.status) + ": " + string(r.body) }

// decode decodes the body into v.
func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r, err)
	}
}

// errorCode is the code of an error answer.
func (r response) errorCode() string {
	var e struct {
		Error struct{ Code string }
	}
	json.Unmarshal(r.body, &e)
	return e.Error.Code
}

// do sends a request; body is JSON-encoded unless it is a string; token,
// when not empty, is sent as a bearer token.
func (a *testAPI) do(method, path string, body any, token string, hdr ...string) response {
	a.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(a.t.Context(), method, a.srv.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return response{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: b}
}

// add stores a memory in project over the API and returns its id.
func (a *testAPI) add(project string, m map[string]any, token string) string {
	a.t.Helper()
	r := a.do("POST", "/api/projects/"+project+"/memories", m, token)
	if r.status != http.StatusCreated {
		a.t.Fatalf("add: %v", r)
	}
	var out struct{ Memory struct{ ID string } }
	r.decode(a.t, &out)
	return out.Memory.ID
}

// token creates a token and returns its secret.
func (a *testAPI) token(project string, readOnly bool) string {
	a.t.Helper()
	secret, _, err := a.eng.CreateToken(a.t.Context(), project, "test", readOnly)
	if err != nil {
		a.t.Fatal(err)
	}
	return secret
}

func want(t *testing.T, what string, r response, status int, code string) {
	t.Helper()
	if r.status != status || r.errorCode() != code {
		t.Errorf("%s: got %v, want %d %q", what, r, status, code)
	}
}

// TestErrorCodesMapToStatuses tries a bad body, an unknown field, an
// unknown id, a key taken, content over 64 KiB, a bad query parameter, an
// unknown route and an invalid project name.
func TestErrorCodesMapToStatuses(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	want(t, "not JSON", a.do("POST", "/api/projects/p/memories", "{", ""), 400, cairn.EINVALID)
	want(t, "empty body", a.do("POST", "/api/projects/p/memories", "", ""), 400, cairn.EINVALID)
	want(t, "unknown field", a.do("POST", "/api/projects/p/memories", map[string]any{"content": "x", "contnet": "y"}, ""), 400, cairn.EINVALID)
	want(t, "unknown id", a.do("GET", "/api/projects/p/memories/mem-0000000000000000", nil, ""), 404, cairn.ENOTFOUND)
	big := strings.Repeat("a", cairn.MaxContentBytes+1)
	want(t, "content over 64 KiB", a.do("POST", "/api/projects/p/memories", map[string]any{"content": big}, ""), 400, cairn.EINVALID)
	want(t, "body over its limit", a.do("POST", "/api/projects/p/memories", map[string]any{"content": strings.Repeat("\u0001", httpapi.MaxJSONBytes/6+1)}, ""), 413, cairn.EINVALID)
	want(t, "bad limit", a.do("GET", "/api/projects/p/memories?limit=-1", nil, ""), 400, cairn.EINVALID)
	want(t, "bad sort", a.do("GET", "/api/projects/p/memories?sort=sideways", nil, ""), 400, cairn.EINVALID)
	want(t, "search without words", a.do("GET", "/api/projects/p/search", nil, ""), 400, cairn.EINVALID)
	want(t, "a query over 8 KiB", a.do("GET", "/api/projects/p/search?q="+strings.Repeat("word+", 2000), nil, ""), 400, cairn.EINVALID)
	want(t, "unknown route", a.do("GET", "/api/projects/p/nothing", nil, ""), 404, cairn.ENOTFOUND)
	want(t, "invalid project", a.do("GET", "/api/projects/%01/memories", nil, ""), 400, cairn.EINVALID)
	id := a.add("p", map[string]any{"content": "first", "type": "decision", "key": "k"}, "")
	want(t, "a typo of a type", a.do("PATCH", "/api/projects/p/memories/"+id, map[string]any{"type": "decison"}, ""), 400, cairn.EINVALID)
	want(t, "nothing to change", a.do("PATCH", "/api/projects/p/memories/"+id, map[string]any{}, ""), 400, cairn.EINVALID)
}

// failingService fails every call with an internal error whose cause
// names a detail that must not reach the client.
type failingService struct{ httpapi.Service }

func (failingService) FindMemoryByID(context.Context, string) (*cairn.Memory, error) {
	return nil, cairn.WrapError(cairn.EINTERNAL, io.ErrUnexpectedEOF, "disk I/O error at /secret/path/cairn.db")
}

func TestInternalErrorsAre500WithoutTheirCause(t *testing.T) {
	t.Parallel()
	a := startAPI(t, nil, httpapi.Options{Service: func(string, time.Time) httpapi.Service { return failingService{} }})
	r := a.do("GET", "/api/projects/p/memories/mem-1", nil, "")
	want(t, "internal error", r, 500, cairn.EINTERNAL)
	if bytes.Contains(r.body, []byte("secret")) || bytes.Contains(r.body, []byte("unexpected EOF")) {
		t.Errorf("the answer leaks the cause: %s", r.body)
	}
}

// TestMemoriesAreScopedToThePathsProject tries another project's id, and
// a change to another project's global memory.
func TestMemoriesAreScopedToThePathsProject(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	other := a.add("b", map[string]any{"content": "b's own memory"}, "")
	global := a.add("b", map[string]any{"content": "tabs, not spaces, everywhere", "scope": "global", "type": "preference"}, "")
	want(t, "another project's id", a.do("GET", "/api/projects/a/memories/"+other, nil, ""), 404, cairn.ENOTFOUND)
	want(t, "deleting another project's id", a.do("DELETE", "/api/projects/a/memories/"+other, nil, ""), 404, cairn.ENOTFOUND)
	if r := a.do("GET", "/api/projects/a/memories/"+global, nil, ""); r.status != 200 {
		t.Errorf("a global memory is not readable from another project: %v", r)
	}
	want(t, "changing another project's global memory", a.do("POST", "/api/projects/a/memories/"+global+"/pin", nil, ""), 400, cairn.EINVALID)
	// An import with a token of a may not write into b.
	r := a.do("POST", "/api/projects/a/import", `{"project":"b","type":"note","content":"smuggled"}`+"\n", a.token("a", false))
	want(t, "an import record of another project, with a token of a", r, 400, cairn.EINVALID)
	var list struct{ Total int }
	a.do("GET", "/api/projects/b/memories?global=false", nil, "").decode(t, &list)
	if list.Total != 2 {
		t.Errorf("project b has %d memories after the refused import, want 2", list.Total)
	}
	// Without a token (a server that needs none, whose routes of b are
	// open anyway), a record keeps its project, as `cairn import` does.
	if r := a.do("POST", "/api/projects/a/import", `{"project":"b","type":"note","content":"imported into b"}`+"\n", ""); r.status != 200 {
		t.Fatalf("an import record of another project, without a token: %v", r)
	}
	a.do("GET", "/api/projects/b/memories?global=false", nil, "").decode(t, &list)
	if list.Total != 3 {
		t.Errorf("project b has %d memories after the import without a token, want 3", list.Total)
	}
}

// TestContextRecordsUseUnlessDryRun asks for the same block twice, once
// as a dry run.
func TestContextRecordsUseUnlessDryRun(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	id := a.add("p", map[string]any{"content": "The auth tests share a clock; reset it in each test.", "type": "pitfall"}, "")
	uses := func() int {
		var m struct {
			UseCount int `json:"use_count"`
		}
		a.do("GET", "/api/projects/p/memories/"+id, nil, "").decode(t, &m)
		return m.UseCount
	}
	var out struct{ IDs []string }
	a.do("POST", "/api/projects/p/context", map[string]any{"prompt": "fix the auth tests clock", "dry_run": true}, "").decode(t, &out)
	if len(out.IDs) != 1 || out.IDs[0] != id || uses() != 0 {
		t.Fatalf("dry run: ids %v, use count %d; want [%s] and 0", out.IDs, uses(), id)
	}
	a.do("POST", "/api/projects/p/context", map[string]any{"prompt": "fix the auth tests clock"}, "").decode(t, &out)
	if uses() != 1 {
		t.Errorf("use count %d after a context, want 1", uses())
	}
	want(t, "unknown format", a.do("POST", "/api/projects/p/context", map[string]any{"format": "yaml"}, ""), 400, cairn.EINVALID)
}

// atTime is eng at the time of a request that sent Cairn-Now; eng itself
// when it sent none.
func atTime(eng *engine.Engine, at time.Time) *engine.Engine {
	if at.IsZero() {
		return eng
	}
	return eng.WithClock(func() time.Time { return at })
}

// TestIngestCursorsAreKeptPerProject puts a cursor in one project and
// reads it back there; another project, and a token of another project,
// do not see it. Bad inputs tried: an empty source, a negative offset.
func TestIngestCursorsAreKeptPerProject(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	src := "/home/u/.claude/projects/x/s1.jsonl"
	var c struct {
		Source  string
		Offset  int64
		Pending string
	}
	if r := a.do("PUT", "/api/projects/a/ingest/cursor", map[string]any{"source": src, "offset": 4096, "pending": "{}"}, ""); r.status != 200 {
		t.Fatalf("put: %v", r)
	}
	a.do("GET", "/api/projects/a/ingest/cursor?source="+src, nil, "").decode(t, &c)
	if c.Source != src || c.Offset != 4096 || c.Pending != "{}" {
		t.Errorf("project a's cursor: %+v", c)
	}
	a.do("GET", "/api/projects/b/ingest/cursor?source="+src, nil, "").decode(t, &c)
	if c.Offset != 0 || c.Pending != "" {
		t.Errorf("project b sees project a's cursor: %+v", c)
	}
	want(t, "a token of b reading a's cursor", a.do("GET", "/api/projects/a/ingest/cursor?source="+src, nil, a.token("b", false)), 403, cairn.EFORBIDDEN)
	want(t, "a read-only token moving a cursor", a.do("PUT", "/api/projects/a/ingest/cursor", map[string]any{"source": src, "offset": 1}, a.token("a", true)), 403, cairn.EFORBIDDEN)
	want(t, "an empty source", a.do("PUT", "/api/projects/a/ingest/cursor", map[string]any{"source": " ", "offset": 1}, ""), 400, cairn.EINVALID)
	want(t, "a negative offset", a.do("PUT", "/api/projects/a/ingest/cursor", map[string]any{"source": src, "offset": -5}, ""), 400, cairn.EINVALID)
}

// TestIngestStoresABatchWithItsCursor sends what one read of a transcript
// taught: the memories and the cursor are stored together, a refused
// memory is reported in its place, and a batch that cannot be stored
// stores nothing. Bad inputs tried: an empty memory in the batch, a
// cursor with a negative offset, a memory with supersedes, a token of
// another project.
func TestIngestStoresABatchWithItsCursor(t *testing.T) {
	t.Parallel()
	a := newAPI(t, true)
	tok := a.token("a", false)
	src := "/home/u/.codex/sessions/rollout-1.jsonl"
	body := func(offset int) map[string]any {
		return map[string]any{"memories": []any{
			map[string]any{"type": "fix", "content": "Ingested: give the heron test its own clock.", "source": "extracted", "created_by_session_id": "s1"},
			map[string]any{"type": "fix", "content": "  "},
			map[string]any{"type": "pitfall", "content": "Ingested: the heron cache never evicts.", "source": "extracted"},
		}, "cursor": map[string]any{"source": src, "offset": offset, "pending": "{}"}}
	}
	want(t, "a negative offset", a.do("POST", "/api/projects/a/ingest", body(-1), tok), 400, cairn.EINVALID)
	want(t, "a token of b", a.do("POST", "/api/projects/a/ingest", body(10), a.token("b", false)), 403, cairn.EFORBIDDEN)
	if r := a.do("GET", "/api/projects/a/memories", nil, tok); !strings.Contains(string(r.body), `"total":0`) {
		t.Fatalf("a refused batch stored memories: %v", r)
	}
	var out struct {
		Results []struct {
			Status, ID, Type string
			Error            *struct{ Code, Message string }
		}
		Cursor *struct{ Offset int64 }
	}
	r := a.do("POST", "/api/projects/a/ingest", body(4096), tok)
	if r.status != 200 {
		t.Fatalf("ingest: %v", r)
	}
	r.decode(t, &out)
	if len(out.Results) != 3 || out.Results[0].Status != "created" || out.Results[1].Error == nil || out.Results[1].Error.Code != cairn.EINVALID ||
		out.Results[2].Type != "pitfall" || out.Cursor == nil || out.Cursor.Offset != 4096 {
		t.Fatalf("ingest answered %s", r.body)
	}
	var c struct{ Offset int64 }
	a.do("GET", "/api/projects/a/ingest/cursor?source="+src, nil, tok).decode(t, &c)
	if c.Offset != 4096 {
		t.Errorf("the cursor after the batch: %+v", c)
	}
	// The same batch again folds into what is stored.
	first := out.Results[0].ID
	a.do("POST", "/api/projects/a/ingest", body(4096), tok).decode(t, &out)
	if out.Results[0].ID != first || out.Results[0].Status == "created" || out.Results[2].Status == "created" {
		t.Errorf("the same batch again: %+v", out.Results)
	}
	bad := map[string]any{"memories": []any{map[string]any{"content": "x", "supersedes": "mem-0000000000000000"}}}
	want(t, "supersedes in a batch", a.do("POST", "/api/projects/a/ingest", bad, tok), 400, cairn.EINVALID)
}

// TestUsesRaiseTheUseCount records the use of a memory and of an id of
// no memory (skipped).
func TestUsesRaiseTheUseCount(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	id := a.add("a", map[string]any{"content": "the use count rises when a client shows it"}, "")
	if r := a.do("POST", "/api/projects/a/uses", map[string]any{"ids": []string{id, "mem-0000000000000000"}, "session": "s1"}, ""); r.status != 200 {
		t.Fatalf("uses: %v", r)
	}
	var m struct {
		UseCount int `json:"use_count"`
	}
	a.do("GET", "/api/projects/a/memories/"+id, nil, "").decode(t, &m)
	if m.UseCount != 1 {
		t.Errorf("use count %d after one recorded use, want 1", m.UseCount)
	}
}
