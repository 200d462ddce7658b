package httpapi

import (
	"net/http/httptest"
	"testing"
)

// A handler reads a dozen parameters; the query is parsed at the first
// read only, so the reads after it allocate nothing.
func TestQueryParsesTheParametersOnce(t *testing.T) {
	r := httptest.NewRequest("GET", "/search?q=+flaky+test+&limit=7&tag=a,b&tag=c&explain=1", nil)
	q := &query{r: r}
	if got := q.str("q"); got != "flaky test" {
		t.Fatalf("q = %q", got)
	}
	if got := q.integer("limit", 10, 1, 100); got != 7 {
		t.Fatalf("limit = %d", got)
	}
	if got := q.list("tag"); len(got) != 3 || got[0] != "a" || got[2] != "c" {
		t.Fatalf("tag = %q", got)
	}
	if !q.flag("explain", false) || q.flag("exact", false) || q.err != nil {
		t.Fatalf("explain, exact, err: %v %v %v", q.flag("explain", false), q.flag("exact", false), q.err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		_ = q.str("q")
		_ = q.integer("limit", 10, 1, 100)
		_ = q.flag("explain", false)
		_ = q.str("agent")
	})
	if allocs != 0 {
		t.Fatalf("reading parsed parameters allocates %v times", allocs)
	}
}
