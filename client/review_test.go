package client_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
)

// counted serves api and counts its requests.
func counted(t *testing.T, api http.Handler) (*client.Client, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := client.New(ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, &n
}

// The conflicts, seed 002's recall and the weekly counts of a project are
// each one request, answered by the server as its own surface answers
// them: the client runs no rule of its own over listings.
func TestReviewOperationsAreOneRequestAnsweredByTheServer(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	old := add(t, s.eng, "alpha", "convention", "Always use tabs for indentation in Go files")
	nw := add(t, s.eng, "alpha", "decision", "Never use tabs for indentation in Go files")
	add(t, s.eng, "alpha", "fix", "Give each flaky auth subtest its own fake clock.")
	add(t, s.eng, "beta", "fix", "Another project's fix.")
	api := httpapi.New(httpapi.Options{Service: func(p string, _ time.Time) httpapi.Service { return local.New(s.eng, p, nil) }})
	c, requests := counted(t, api)
	p, want := c.Project("alpha"), local.New(s.eng, "alpha", nil)
	one := func(what string, fn func() error) {
		t.Helper()
		before := requests.Load()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n := requests.Load() - before; n != 1 {
			t.Errorf("%s took %d requests, want 1", what, n)
		}
	}

	var cs []cairn.Conflict
	one("FindConflicts", func() (err error) { cs, err = p.FindConflicts(t.Context()); return err })
	if len(cs) != 1 || cs[0].Old.ID != old.ID || cs[0].New.ID != nw.ID || cs[0].Old.Content != old.Content {
		t.Errorf("conflicts through the client: %+v, want %s then %s", cs, old.ID, nw.ID)
	}

	var ms []*cairn.Memory
	one("RecallByValue", func() (err error) {
		ms, err = p.RecallByValue(t.Context(), cairn.ValueRecall{Types: []string{"fix", "decision"}, Session: "s1", Record: true})
		return err
	})
	wantMs, err := want.RecallByValue(t.Context(), cairn.ValueRecall{Types: []string{"fix", "decision"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || len(wantMs) != 2 || ms[0].ID != wantMs[0].ID || ms[1].ID != wantMs[1].ID {
		t.Fatalf("recall through the client: %v; the server's own: %v", ms, wantMs)
	}
	if wantMs[0].UseCount != ms[0].UseCount+1 {
		t.Errorf("the recall through the client recorded no use: %d, then %d", ms[0].UseCount, wantMs[0].UseCount)
	}
	if _, err := p.RecallByValue(t.Context(), cairn.ValueRecall{Limit: cairn.MaxLimit + 1}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("a limit beyond the largest: %v, want EINVALID", err)
	}

	var weeks []cairn.CreatedPeriod
	one("CreatedByWeek", func() (err error) { weeks, err = p.CreatedByWeek(t.Context(), 3); return err })
	wantWeeks, err := want.CreatedByWeek(t.Context(), 3)
	if err != nil || !reflect.DeepEqual(weeks, wantWeeks) || weeks[2].ByType["fix"] != 1 {
		t.Errorf("weekly counts through the client: %+v; the server's own: %+v, %v", weeks, wantWeeks, err)
	}
	var ps []cairn.ProjectSummary
	one("Projects", func() (err error) { ps, err = p.Projects(t.Context()); return err })
	if len(ps) != 1 || ps[0].Name != "alpha" || ps[0].Memories != 3 {
		t.Errorf("the project's summary through the client: %+v", ps)
	}
	if ps, err := p.Named("").Projects(t.Context()); err != nil || len(ps) != 2 {
		t.Errorf("every project through the client: %+v, %v", ps, err)
	}
}

// Tokens are made, listed and revoked through a client of the API that
// serves them (a server's Unix socket), and refused, with a message that
// says where, through one that does not (its TCP port): nothing is made.
func TestTokensAreAdministeredOnTheOwnersSocketOnly(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	opts := httpapi.Options{Service: func(p string, _ time.Time) httpapi.Service { return local.New(s.eng, p, nil) }, Tokens: s.eng}
	tcp := httptest.NewServer(httpapi.New(opts))
	t.Cleanup(tcp.Close)
	opts.ManageTokens = true
	sock := filepath.Join(t.TempDir(), "o.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: httpapi.New(opts)}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	owner, err := client.New("unix:"+sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := client.New(tcp.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, r := owner.Project("alpha"), remote.Project("alpha")

	if _, _, err := r.CreateToken(t.Context(), "alpha", "ci", false); cairn.ErrorCode(err) != cairn.EFORBIDDEN {
		t.Errorf("CreateToken over TCP: %v, want EFORBIDDEN", err)
	}
	secret, tok, err := o.CreateToken(t.Context(), "alpha", "ci", true)
	if err != nil || tok.Project != "alpha" || !tok.ReadOnly || tok.Name != "ci" || tok.Hash != "" {
		t.Fatalf("CreateToken on the socket: %+v, %v", tok, err)
	}
	if got, err := s.eng.Authenticate(t.Context(), secret); err != nil || got.ID != tok.ID {
		t.Errorf("the secret made on the socket does not open the project: %v, %v", got, err)
	}
	if _, err := r.FindTokens(t.Context()); cairn.ErrorCode(err) != cairn.EFORBIDDEN {
		t.Errorf("FindTokens over TCP: %v, want EFORBIDDEN", err)
	}
	toks, err := o.FindTokens(t.Context())
	if err != nil || len(toks) != 1 || toks[0].ID != tok.ID || !toks[0].CreatedAt.Equal(tok.CreatedAt) {
		t.Errorf("FindTokens on the socket: %+v, %v", toks, err)
	}
	if err := r.RevokeToken(t.Context(), tok.ID); cairn.ErrorCode(err) != cairn.EFORBIDDEN {
		t.Errorf("RevokeToken over TCP: %v, want EFORBIDDEN", err)
	}
	if err := o.RevokeToken(t.Context(), tok.ID); err != nil {
		t.Fatal(err)
	}
	if err := o.RevokeToken(t.Context(), tok.ID); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("revoking it again: %v, want ENOTFOUND", err)
	}
	if _, err := s.eng.Authenticate(t.Context(), secret); cairn.ErrorCode(err) != cairn.EUNAUTHORIZED {
		t.Errorf("a revoked secret: %v, want EUNAUTHORIZED", err)
	}
}
