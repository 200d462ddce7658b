package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
)

// TestRemoteServerRefusesRequestsWithoutAValidToken tries no token, a
// malformed header, an unknown token and a revoked one.
func TestRemoteServerRefusesRequestsWithoutAValidToken(t *testing.T) {
	t.Parallel()
	a := newAPI(t, true)
	tok := a.token("p", false)
	r := a.do("GET", "/api/projects/p/memories", nil, "")
	want(t, "no token", r, 401, cairn.EUNAUTHORIZED)
	if r := a.do("GET", "/api/projects/p/stats", nil, "", "Authorization", "Basic dXNlcjpwdw=="); r.status != 401 {
		t.Errorf("basic credentials: %v, want 401", r)
	}
	want(t, "unknown token", a.do("GET", "/api/projects/p/memories", nil, "cairn_"+strings.Repeat("a", 52)), 401, cairn.EUNAUTHORIZED)
	if r := a.do("GET", "/api/projects/p/memories", nil, tok); r.status != 200 {
		t.Fatalf("a valid token is refused: %v", r)
	}
	toks, err := a.eng.FindTokens(t.Context())
	if err != nil || len(toks) != 1 {
		t.Fatalf("FindTokens = %v, %v", toks, err)
	}
	if err := a.eng.RevokeToken(t.Context(), toks[0].ID); err != nil {
		t.Fatal(err)
	}
	want(t, "revoked token", a.do("GET", "/api/projects/p/memories", nil, tok), 401, cairn.EUNAUTHORIZED)
	// The document describing the API needs no token.
	if r := a.do("GET", "/api/openapi.json", nil, ""); r.status != 200 {
		t.Errorf("openapi.json: %v", r)
	}
}

func TestTokenOfOneProjectIsForbiddenOnAnother(t *testing.T) {
	t.Parallel()
	a := newAPI(t, true)
	tokA := a.token("a", false)
	want(t, "A's token on B", a.do("GET", "/api/projects/b/memories", nil, tokA), 403, cairn.EFORBIDDEN)
	want(t, "A's token writing on B", a.do("POST", "/api/projects/b/memories", map[string]any{"content": "x"}, tokA), 403, cairn.EFORBIDDEN)
	a.add("a", map[string]any{"content": "x"}, tokA)
}

// The list of projects shows a token its own project only, and every
// project to a request without one on a server that needs none. Tried:
// no token and an unknown token on a remote server, and a token of a
// project without memories.
func TestProjectListShowsATokenItsOwnProject(t *testing.T) {
	t.Parallel()
	list := func(a *testAPI, tok string) []string {
		t.Helper()
		r := a.do("GET", "/api/projects", nil, tok)
		if r.status != 200 {
			t.Fatalf("GET /api/projects: %v", r)
		}
		var out struct{ Projects []struct{ Name string } }
		r.decode(t, &out)
		var names []string
		for _, p := range out.Projects {
			names = append(names, p.Name)
		}
		return names
	}
	remote := newAPI(t, true)
	tokA := remote.token("a", true)
	remote.add("a", map[string]any{"content": "x"}, remote.token("a", false))
	remote.add("b", map[string]any{"content": "y"}, remote.token("b", false))
	if got := list(remote, tokA); strings.Join(got, ",") != "a" {
		t.Errorf("a's token lists %v, want [a]", got)
	}
	if got := list(remote, remote.token("c", true)); len(got) != 0 {
		t.Errorf("the token of a project without memories lists %v, want none", got)
	}
	want(t, "no token on a remote server", remote.do("GET", "/api/projects", nil, ""), 401, cairn.EUNAUTHORIZED)
	want(t, "an unknown token", remote.do("GET", "/api/projects", nil, "cairn_"+strings.Repeat("a", 52)), 401, cairn.EUNAUTHORIZED)

	local := newAPI(t, false)
	local.add("a", map[string]any{"content": "x"}, "")
	local.add("b", map[string]any{"content": "y"}, "")
	if got := list(local, ""); strings.Join(got, ",") != "a,b" {
		t.Errorf("loopback without a token lists %v, want [a b]", got)
	}
	if got := list(local, local.token("b", true)); strings.Join(got, ",") != "b" {
		t.Errorf("b's token on loopback lists %v, want [b]", got)
	}
}

// TestReadOnlyTokenIsRefusedOnWrites tries every write route with a
// read-only token, and the reads it may do.
func TestReadOnlyTokenIsRefusedOnWrites(t *testing.T) {
	t.Parallel()
	a := newAPI(t, true)
	id := a.add("p", map[string]any{"content": "the build needs Go 1.26"}, a.token("p", false))
	ro := a.token("p", true)
	for _, w := range []struct{ method, path string }{
		{"POST", "/memories"}, {"PATCH", "/memories/" + id}, {"DELETE", "/memories/" + id},
		{"POST", "/memories/" + id + "/pin"}, {"POST", "/memories/" + id + "/unpin"}, {"POST", "/memories/" + id + "/verify"},
		{"POST", "/memories/" + id + "/promote"}, {"POST", "/memories/" + id + "/supersede"},
		{"POST", "/capture"}, {"POST", "/import"}, {"POST", "/cleanup"}, {"POST", "/ingest"},
	} {
		want(t, w.method+" "+w.path, a.do(w.method, "/api/projects/p"+w.path, map[string]any{"content": "x"}, ro), 403, cairn.EFORBIDDEN)
	}
	for _, path := range []string{"/memories", "/memories/" + id, "/search?q=build", "/export", "/stats", "/stats/created", "/activity"} {
		if r := a.do("GET", "/api/projects/p"+path, nil, ro); r.status != 200 {
			t.Errorf("GET %s with a read-only token: %v", path, r)
		}
	}
	if r := a.do("POST", "/api/projects/p/context", map[string]any{"prompt": "build"}, ro); r.status != 200 {
		t.Errorf("context with a read-only token: %v", r)
	}
}

// TestLoopbackServerTakesRequestsWithoutAToken also sends a bad token to
// it, which is refused: a token sent must be valid.
func TestLoopbackServerTakesRequestsWithoutAToken(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	a.add("p", map[string]any{"content": "x"}, "")
	want(t, "a bad token on loopback", a.do("GET", "/api/projects/p/memories", nil, "cairn_nope"), 401, cairn.EUNAUTHORIZED)
	want(t, "another project's token on loopback", a.do("GET", "/api/projects/q/memories", nil, a.token("p", true)), 403, cairn.EFORBIDDEN)
}

// TestRebindingHostIsRefused sends requests to the loopback server under
// other hosts' names, as a page of a rebound domain would.
func TestRebindingHostIsRefused(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	for _, host := range []string{"evil.example", "evil.example:80", "10.0.0.1"} {
		want(t, "Host "+host, a.do("GET", "/api/projects/p/memories", nil, "", "Host", host), 403, cairn.EFORBIDDEN)
	}
	for _, host := range []string{"localhost", "localhost:7421", "127.0.0.1", "[::1]:7421"} {
		if r := a.do("GET", "/api/projects/p/memories", nil, "", "Host", host); r.status != http.StatusOK {
			t.Errorf("Host %s: %v", host, r)
		}
	}
}

// A lookup that asks to record its use records it with a token that may
// write, and answers a read-only token's the same without recording: its
// answer is a preview, as its context blocks are.
func TestALookupOfAReadOnlyTokenIsNotRecorded(t *testing.T) {
	t.Parallel()
	a := newAPI(t, true)
	rw := a.token("p", false)
	id := a.add("p", map[string]any{"content": "token.go compares tokens in constant time", "type": "decision", "file_refs": []string{"auth/token.go"}}, rw)
	uses := func() int {
		var m struct {
			UseCount int `json:"use_count"`
		}
		a.do("GET", "/api/projects/p/memories/"+id, nil, rw).decode(t, &m)
		return m.UseCount
	}
	body := map[string]any{"kind": "file", "subject": "auth/token.go", "session": "s1", "record": true}
	for _, c := range []struct {
		tok  string
		uses int
	}{{a.token("p", true), 0}, {rw, 1}} {
		var out struct{ Items []struct{ ID string } }
		r := a.do("POST", "/api/projects/p/lookup", body, c.tok)
		r.decode(t, &out)
		if r.status != 200 || len(out.Items) != 1 || out.Items[0].ID != id || uses() != c.uses {
			t.Errorf("lookup: %v, items %+v, use count %d; want %s and %d", r.status, out.Items, uses(), id, c.uses)
		}
	}
}

// Seed 002's recall asked to record its use records it with a token that
// may write, and answers a read-only token's the same without recording.
func TestARecallOfAReadOnlyTokenIsNotRecorded(t *testing.T) {
	t.Parallel()
	a := newAPI(t, true)
	rw := a.token("p", false)
	id := a.add("p", map[string]any{"content": "Tokens are compared in constant time.", "type": "decision"}, rw)
	for _, c := range []struct {
		tok  string
		uses int
	}{{a.token("p", true), 0}, {rw, 1}} {
		var out struct {
			Memories []struct {
				ID       string `json:"id"`
				UseCount int    `json:"use_count"`
			}
		}
		r := a.do("POST", "/api/projects/p/recall", map[string]any{"session": "s1", "record": true}, c.tok)
		r.decode(t, &out)
		m, err := a.eng.WithProject("p").FindMemoryByID(t.Context(), id)
		if r.status != 200 || len(out.Memories) != 1 || out.Memories[0].ID != id || err != nil || m.UseCount != c.uses {
			t.Errorf("recall: %v, memories %+v; use count then %d (%v), want %d", r, out.Memories, m.UseCount, err, c.uses)
		}
	}
}

// The token routes answer only where Options.ManageTokens says (a
// server's Unix socket): elsewhere, a holder of a token that may write
// cannot mint another, list them or revoke one, and a request without a
// token on a loopback port cannot either.
func TestTokenRoutesAreRefusedWhereTheOwnerIsNotKnown(t *testing.T) {
	t.Parallel()
	remote := newAPI(t, true)
	rw := remote.token("p", false)
	loopback := startAPI(t, remote.eng, httpapi.Options{
		Service: func(p string, at time.Time) httpapi.Service { return local.New(remote.eng, p, nil) },
		Tokens:  remote.eng,
	})
	for _, c := range []struct {
		name string
		a    *testAPI
		tok  string
	}{{"a token holder", remote, rw}, {"a loopback port", loopback, ""}} {
		for _, r := range []response{
			c.a.do("POST", "/api/tokens", map[string]any{"project": "p"}, c.tok),
			c.a.do("GET", "/api/tokens", nil, c.tok),
			c.a.do("DELETE", "/api/tokens/tok-000000000000", nil, c.tok),
		} {
			want(t, c.name, r, 403, cairn.EFORBIDDEN)
			if !strings.Contains(string(r.body), "Unix socket") {
				t.Errorf("%s: %s does not say where tokens are made", c.name, r.body)
			}
		}
	}
	if toks, err := remote.eng.FindTokens(t.Context()); err != nil || len(toks) != 1 {
		t.Errorf("tokens after the refusals: %v, %v; want the one made", toks, err)
	}
}
