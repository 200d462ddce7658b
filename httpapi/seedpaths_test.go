package httpapi_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"
)

// onBothBackends runs test on an API over SQLite, and over PostgreSQL
// when CAIRN_TEST_POSTGRES_URL names a server (skipped otherwise).
func onBothBackends(t *testing.T, requireToken bool, test func(*testing.T, *testAPI)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		test(t, newAPI(t, requireToken))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		st, err := postgres.Open(t.Context(), pgtest.URL(t, "the REST API on PostgreSQL"),
			&postgres.Options{Schema: pgtest.Schema(t, "the REST API on PostgreSQL"), MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		test(t, newAPIOn(t, st, requireToken))
	})
}

// The seed's paths answer as the seed writes them: a memory by its id
// alone (read, changed field by field, deleted), search under
// /memories with after_date and before_date, and cleanup under
// /memories, a dry run unless apply. Bad inputs tried: after and
// after_date both given, an id of no memory, a PUT with nothing to
// change.
func TestSeedPathsAnswerAsTheSeedWritesThem(t *testing.T) {
	t.Parallel()
	onBothBackends(t, false, testSeedPaths)
}

func testSeedPaths(t *testing.T, a *testAPI) {
	// Written at their dates, as a client's clock says (a loopback server
	// takes Cairn-Now for writes).
	addAt := func(at string, m map[string]any) string {
		t.Helper()
		r := a.do("POST", "/api/projects/shop/memories", m, "", "Cairn-Now", at)
		var out struct{ Memory struct{ ID string } }
		r.decode(t, &out)
		if r.status != 201 {
			t.Fatalf("add: %v", r)
		}
		return out.Memory.ID
	}
	january := addAt("2024-01-10T09:00:00Z", map[string]any{"type": "pitfall", "title": "Cart rounding",
		"content": "The cart total rounds per line, not per order.", "tags": []string{"cart"}})
	march := addAt("2024-03-10T09:00:00Z", map[string]any{"type": "decision", "content": "The cart total is computed in cents to avoid rounding."})

	// GET /api/memories/{id}: the memory, its project found by its id.
	var m struct {
		ID, Project, Title, Content, Type string
		Tags                              []string
	}
	r := a.do("GET", "/api/memories/"+january, nil, "")
	r.decode(t, &m)
	if r.status != 200 || m.ID != january || m.Project != "shop" || m.Title != "Cart rounding" {
		t.Fatalf("GET /api/memories/%s: %v", january, r)
	}
	// PUT changes the fields given and keeps the others.
	r = a.do("PUT", "/api/memories/"+january, map[string]any{"title": "Cart rounding per line"}, "")
	r.decode(t, &m)
	if r.status != 200 || m.Title != "Cart rounding per line" || m.Content != "The cart total rounds per line, not per order." || m.Type != "pitfall" || len(m.Tags) != 1 {
		t.Fatalf("PUT /api/memories/%s: %v", january, r)
	}
	want(t, "PUT with nothing to change", a.do("PUT", "/api/memories/"+january, map[string]any{}, ""), 400, cairn.EINVALID)
	want(t, "an id of no memory", a.do("GET", "/api/memories/mem-0000000000000000", nil, ""), 404, cairn.ENOTFOUND)

	// Search under /memories, filtered by seed 000's date parameters.
	search := func(query string) []string {
		t.Helper()
		r := a.do("GET", "/api/projects/shop/memories/search?"+query, nil, "")
		if r.status != 200 {
			t.Fatalf("search %s: %v", query, r)
		}
		var hits []struct{ ID string }
		r.decode(t, &hits)
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.ID)
		}
		return ids
	}
	if got := search("q=cart+total+rounding"); len(got) != 2 {
		t.Errorf("search without dates: %v, want both memories", got)
	}
	if got := search("q=cart+total+rounding&after_date=2024-02-01"); strings.Join(got, ",") != march {
		t.Errorf("after_date=2024-02-01: %v, want [%s]", got, march)
	}
	if got := search("q=cart+total+rounding&before_date=2024-02-01"); strings.Join(got, ",") != january {
		t.Errorf("before_date=2024-02-01: %v, want [%s]", got, january)
	}
	if got := search("q=cart+total+rounding&after_date=2024-02-01T00:00:00Z&before_date=2024-03-01"); len(got) != 0 {
		t.Errorf("between the two dates: %v, want none", got)
	}
	// The project's own search path takes them too.
	r = a.do("GET", "/api/projects/shop/search?q=cart+total+rounding&after_date=2024-02-01", nil, "")
	if r.status != 200 || strings.Contains(string(r.body), january) || !strings.Contains(string(r.body), march) {
		t.Errorf("/search with after_date=2024-02-01: %v, want %s only", r, march)
	}
	want(t, "after and after_date", a.do("GET", "/api/projects/shop/memories/search?q=cart&after=2024-01-01&after_date=2024-02-01", nil, ""), 400, cairn.EINVALID)

	// Cleanup under /memories: a dry run, then applied.
	expired := a.add("shop", map[string]any{"content": "The sale banner runs until the end of the week.", "expires_at": "2026-01-01T00:00:00Z"}, "")
	var rep struct {
		Applied bool
		Expired int
	}
	r = a.do("POST", "/api/projects/shop/memories/cleanup", nil, "")
	r.decode(t, &rep)
	if r.status != 200 || rep.Applied || rep.Expired != 1 {
		t.Fatalf("cleanup: %v", r)
	}
	if r := a.do("GET", "/api/memories/"+expired, nil, ""); r.status != 200 {
		t.Fatalf("a dry run removed the expired memory: %v", r)
	}
	r = a.do("POST", "/api/projects/shop/memories/cleanup?apply=true", nil, "")
	r.decode(t, &rep)
	if r.status != 200 || !rep.Applied || rep.Expired != 1 {
		t.Fatalf("cleanup?apply=true: %v", r)
	}
	want(t, "the expired memory after cleanup", a.do("GET", "/api/memories/"+expired, nil, ""), 404, cairn.ENOTFOUND)

	// DELETE /api/memories/{id}.
	if r := a.do("DELETE", "/api/memories/"+march, nil, ""); r.status != 200 || !strings.Contains(string(r.body), `"deleted":true`) {
		t.Fatalf("DELETE /api/memories/%s: %v", march, r)
	}
	want(t, "a deleted memory", a.do("GET", "/api/memories/"+march, nil, ""), 404, cairn.ENOTFOUND)
}

// A memory's id alone opens it only to its own project's tokens: a token
// of another project finds no memory there, and cannot change or delete
// it; a read-only token may read it only. Tried: no token on a remote
// server, another project's token (read, PUT, DELETE), a read-only token
// (PUT, DELETE), a revoked-looking token.
func TestSeedPathOfAMemoryKeepsItsProjectsTokens(t *testing.T) {
	t.Parallel()
	onBothBackends(t, true, testSeedPathTokens)
}

func testSeedPathTokens(t *testing.T, a *testAPI) {
	tokA, tokB, roA := a.token("a", false), a.token("b", false), a.token("a", true)
	id := a.add("a", map[string]any{"content": "Project a keeps its payment keys in the vault."}, tokA)
	want(t, "no token", a.do("GET", "/api/memories/"+id, nil, ""), 401, cairn.EUNAUTHORIZED)
	want(t, "an unknown token", a.do("GET", "/api/memories/"+id, nil, "cairn_"+strings.Repeat("a", 52)), 401, cairn.EUNAUTHORIZED)
	want(t, "b's token reading a's memory", a.do("GET", "/api/memories/"+id, nil, tokB), 404, cairn.ENOTFOUND)
	want(t, "b's token changing a's memory", a.do("PUT", "/api/memories/"+id, map[string]any{"title": "taken"}, tokB), 404, cairn.ENOTFOUND)
	want(t, "b's token deleting a's memory", a.do("DELETE", "/api/memories/"+id, nil, tokB), 404, cairn.ENOTFOUND)
	want(t, "a read-only token changing", a.do("PUT", "/api/memories/"+id, map[string]any{"title": "taken"}, roA), 403, cairn.EFORBIDDEN)
	want(t, "a read-only token deleting", a.do("DELETE", "/api/memories/"+id, nil, roA), 403, cairn.EFORBIDDEN)
	if r := a.do("GET", "/api/memories/"+id, nil, roA); r.status != 200 || strings.Contains(string(r.body), "taken") {
		t.Fatalf("a's read-only token reading: %v", r)
	}
	if r := a.do("PUT", "/api/memories/"+id, map[string]any{"title": "Payment keys"}, tokA); r.status != 200 {
		t.Fatalf("a's token changing: %v", r)
	}
	want(t, "b's token searching a", a.do("GET", "/api/projects/a/memories/search?q=vault", nil, tokB), 403, cairn.EFORBIDDEN)
	want(t, "a read-only token's cleanup", a.do("POST", "/api/projects/a/memories/cleanup", nil, roA), 403, cairn.EFORBIDDEN)
	if r := a.do("DELETE", "/api/memories/"+id, nil, tokA); r.status != 200 {
		t.Fatalf("a's token deleting: %v", r)
	}
}
