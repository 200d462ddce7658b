package client_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/wire"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// server is an engine over a new database, answered by the REST API over
// TCP (url) and over a Unix socket (sock).
type server struct {
	eng  *engine.Engine
	url  string
	sock string
}

func startServer(t *testing.T, requireToken bool) *server {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, &engine.Options{Now: func() time.Time { return now }})
	api := httpapi.New(httpapi.Options{
		Service: func(p string, at time.Time) httpapi.Service {
			// The use a block shows is dated by the server's clock.
			rec := &local.Options{Record: eng.RecordUse}
			if at.IsZero() {
				return local.New(eng, p, rec)
			}
			return local.New(eng.WithClock(func() time.Time { return at }), p, rec)
		},
		Tokens:        eng,
		RequireToken:  requireToken,
		CheckSettings: config.Validate,
	})
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)
	sock := filepath.Join(dir, "c.db.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: api}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return &server{eng: eng, url: ts.URL, sock: sock}
}

// both runs fn with a client over TCP and one over the Unix socket.
func both(t *testing.T, s *server, fn func(t *testing.T, p *client.Project)) {
	for name, target := range map[string]string{"http": s.url, "unix": "unix:" + s.sock} {
		t.Run(name, func(t *testing.T) {
			c, err := client.New(target, nil)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, c.Project("alpha"))
		})
	}
}

func add(t *testing.T, eng *engine.Engine, project, typ, content string) *cairn.Memory {
	t.Helper()
	res, err := eng.WithProject(project).AddMemory(t.Context(), &cairn.Memory{Project: project, Type: typ, Content: content})
	if err != nil {
		t.Fatal(err)
	}
	return res.Memory
}

func TestSearchThroughTheClientEqualsTheEngines(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	add(t, s.eng, "alpha", "decision", "Use SQLite in WAL mode for the session store")
	add(t, s.eng, "alpha", "pitfall", "The WAL file grows without checkpoints under long readers")
	add(t, s.eng, "beta", "decision", "Use WAL in beta too")
	for _, explain := range []bool{false, true} {
		q := cairn.Query{Project: "alpha", Text: "WAL sqlite", Limit: 5, Explain: explain}
		want, err := s.eng.WithProject("alpha").Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 2 || (want[0].Explain != nil) != explain {
			t.Fatalf("the engine found %d hits (explained: %v), want 2", len(want), want[0].Explain != nil)
		}
		both(t, s, func(t *testing.T, p *client.Project) {
			got, err := p.Search(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d hits, want %d", len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Memory.ID != w.Memory.ID || g.Score != w.Score || g.Strength != w.Strength || (g.Explain == nil) != (w.Explain == nil) || g.Explain != nil && *g.Explain != *w.Explain ||
					g.Memory.Confidence != w.Memory.Confidence || !g.Memory.CreatedAt.Equal(w.Memory.CreatedAt) {
					t.Errorf("hit %d: got %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestMemoryRoutesThroughTheClient(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	both(t, s, func(t *testing.T, p *client.Project) {
		res, err := p.AddMemory(t.Context(), &cairn.Memory{Type: "convention", Content: "Tabs in Go files " + t.Name(), Tags: []string{"go"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != cairn.StatusCreated || res.Memory.Project != "alpha" {
			t.Fatalf("add: %+v", res)
		}
		id := res.Memory.ID
		m, err := p.FindMemoryByID(t.Context(), id[:8])
		if err != nil || m.ID != id || !reflect.DeepEqual(m.Tags, []string{"go"}) {
			t.Fatalf("get by prefix: %+v, %v", m, err)
		}
		title := "Tabs"
		if m, err = p.UpdateMemory(t.Context(), id, cairn.MemoryUpdate{Title: &title}); err != nil || m.Title != title {
			t.Fatalf("update: %+v, %v", m, err)
		}
		ms, total, err := p.FindMemories(t.Context(), cairn.MemoryFilter{Types: []string{"convention"}})
		if err != nil || total < 1 || len(ms) != total {
			t.Fatalf("list: %d of %d, %v", len(ms), total, err)
		}
		st, err := p.Stats(t.Context(), "alpha")
		if err != nil || st.ByType["convention"] != total {
			t.Fatalf("stats: %+v, %v", st, err)
		}
		if err := p.DeleteMemory(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		// Bad inputs: a deleted id, an empty id, another project's stats.
		if _, err := p.FindMemoryByID(t.Context(), id); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Errorf("get after delete: %v, want ENOTFOUND", err)
		}
		if _, err := p.FindMemoryByID(t.Context(), " "); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("empty id: %v, want EINVALID", err)
		}
		if _, err := p.Stats(t.Context(), "beta"); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("stats of another project: %v, want EINVALID", err)
		}
	})
}

func TestContextThroughTheClientEqualsTheLocalBlock(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	add(t, s.eng, "alpha", "decision", "Deploys go through the blue-green switch, never straight to prod")
	add(t, s.eng, "alpha", "pitfall", "The deploy script needs AWS_PROFILE set or it deploys to staging")
	cfg := config.Default()
	cfg.Context.Budget = 400 // the project's settings, stored, apply wherever the block is built
	if err := s.eng.SetProjectSettings(t.Context(), "alpha", &cairn.ProjectSettings{Settings: cfg}); err != nil {
		t.Fatal(err)
	}
	call := cairn.ContextCall{ContextRequest: cairn.ContextRequest{Project: "alpha", Prompt: "how do I deploy", Explain: true}}
	want, err := recall.AnswerCall(t.Context(), s.eng.WithProject("alpha"), cfg, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want.Text == "" || len(want.IDs) == 0 {
		t.Fatalf("the local block is empty: %+v", want)
	}
	both(t, s, func(t *testing.T, p *client.Project) {
		got, err := p.Context(t.Context(), call)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("through the client:\n%+v\nlocal:\n%+v", got, want)
		}
		// Bad input: a negative budget.
		bad := call
		bad.Budget, bad.BudgetSet = -5, true
		if _, err := p.Context(t.Context(), bad); cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "budget") {
			t.Errorf("a negative budget: %v, want EINVALID naming the budget", err)
		}
	})
}

func TestTheClockOfARequestIsTheCallers(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	both(t, s, func(t *testing.T, p *client.Project) {
		res, err := p.At(at).AddMemory(t.Context(), &cairn.Memory{Type: "decision", Content: "Written at a given time " + t.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Memory.CreatedAt.Equal(at) {
			t.Errorf("created at %v, want the caller's clock %v", res.Memory.CreatedAt, at)
		}
	})
}

func TestTokensAndUnreachableServers(t *testing.T) {
	t.Parallel()
	s := startServer(t, true)
	// Bad inputs: no token for a server that needs one, a wrong token,
	// a server that is not there, targets that are not URLs.
	c, _ := client.New(s.url, nil)
	if _, err := c.Project("alpha").Search(t.Context(), cairn.Query{Text: "x"}); cairn.ErrorCode(err) != cairn.EUNAUTHORIZED {
		t.Errorf("no token: %v, want EUNAUTHORIZED", err)
	}
	c, _ = client.New(s.url, &client.Options{Token: "cairn_wrong"})
	if _, err := c.Project("alpha").Search(t.Context(), cairn.Query{Text: "x"}); cairn.ErrorCode(err) != cairn.EUNAUTHORIZED {
		t.Errorf("wrong token: %v, want EUNAUTHORIZED", err)
	}
	secret, _, err := s.eng.CreateToken(t.Context(), "alpha", "test", false)
	if err != nil {
		t.Fatal(err)
	}
	c, _ = client.New(s.url, &client.Options{Token: secret})
	if _, err := c.Project("alpha").Search(t.Context(), cairn.Query{Text: "x"}); err != nil {
		t.Errorf("a valid token: %v", err)
	}
	if _, err := c.Project("beta").Search(t.Context(), cairn.Query{Text: "x"}); cairn.ErrorCode(err) != cairn.EFORBIDDEN {
		t.Errorf("a token of alpha on beta: %v, want EFORBIDDEN", err)
	}
	c, _ = client.New("unix:"+filepath.Join(t.TempDir(), "none.sock"), nil)
	if _, err := c.Project("alpha").Search(t.Context(), cairn.Query{Text: "x"}); !client.IsUnavailable(err) {
		t.Errorf("no server: %v, want EUNAVAILABLE", err)
	}
	for _, target := range []string{"", "ftp://x", "unix:", "localhost:7421"} {
		if _, err := client.New(target, nil); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("New(%q): %v, want EINVALID", target, err)
		}
	}
}

// A project's settings stored through the client are the server's: its
// blocks are built with them, as the engine builds them in process, and
// the client reads back what it stored. Bad inputs tried: no settings, a
// budget beyond the configuration's range.
func TestSettingsStoredThroughTheClientBuildTheServersBlocks(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	add(t, s.eng, "alpha", "pitfall", "The deploy script needs AWS_PROFILE set or it deploys to staging")
	add(t, s.eng, "alpha", "note", "Staging deploys run the smoke tests before the switch")
	set := cairn.DefaultSettings()
	set.Context.Relevant.Limit = 1
	call := cairn.ContextCall{ContextRequest: cairn.ContextRequest{Project: "alpha", Prompt: "deploy to staging", Explain: true}}
	want, err := recall.AnswerCall(t.Context(), s.eng.WithProject("alpha"), set, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	both(t, s, func(t *testing.T, p *client.Project) {
		if err := p.SetProjectSettings(t.Context(), "alpha", &cairn.ProjectSettings{Settings: set, Source: "/a/.cairn/cairn.toml", Folder: "/a"}); err != nil {
			t.Fatal(err)
		}
		ps, err := p.ProjectSettings(t.Context(), "alpha")
		if err != nil || ps.Settings.Context.Relevant.Limit != 1 || ps.Source != "/a/.cairn/cairn.toml" || ps.Folder != "/a" {
			t.Fatalf("ProjectSettings = %+v, %v", ps, err)
		}
		got, err := p.Context(t.Context(), call)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || len(got.IDs) != 1 {
			t.Errorf("through the client:\n%+v\nlocal:\n%+v", got, want)
		}
		bad := cairn.DefaultSettings()
		bad.Context.Budget = 1 << 30
		if err := p.SetProjectSettings(t.Context(), "alpha", &cairn.ProjectSettings{Settings: bad}); cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "context.budget") {
			t.Errorf("a budget out of range: %v, want EINVALID naming context.budget", err)
		}
		if err := p.SetProjectSettings(t.Context(), "alpha", &cairn.ProjectSettings{}); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("no settings: %v, want EINVALID", err)
		}
		if err := p.DeleteProjectSettings(t.Context(), "alpha"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.ProjectSettings(t.Context(), "alpha"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Errorf("after delete: %v, want ENOTFOUND", err)
		}
	})
}

// A list longer than a page of the server comes whole for limit 0, and
// in the length asked for a limit beyond a page, with an offset; the
// lists equal the engine's. Bad input: a negative limit or offset is
// EINVALID.
func TestListsLongerThanAPage(t *testing.T) {
	s := startServer(t, false)
	var b strings.Builder
	for i := range 2345 {
		fmt.Fprintf(&b, "{\"type\":\"note\",\"content\":\"Note number %d of a long list.\",\"created_at\":\"2026-01-01T00:00:%02d.%03dZ\"}\n", i, i/1000, i%1000)
	}
	recs := wire.Read(strings.NewReader(b.String()))
	if _, err := s.eng.Import(t.Context(), recs, cairn.ImportOptions{Project: "alpha"}); err != nil {
		t.Fatal(err)
	}
	both(t, s, func(t *testing.T, p *client.Project) {
		for _, f := range []cairn.MemoryFilter{
			{Project: "alpha", Sort: cairn.SortCreatedAsc},
			{Project: "alpha", Sort: cairn.SortCreatedAsc, Limit: 1500, Offset: 100},
			{Project: "alpha", Sort: cairn.SortCreatedDesc, Offset: 2000},
		} {
			got, total, err := p.FindMemories(t.Context(), f)
			if err != nil {
				t.Fatal(err)
			}
			want, wantTotal, err := s.eng.FindMemories(t.Context(), f)
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal || len(got) != len(want) {
				t.Fatalf("%+v: %d of %d, want %d of %d", f, len(got), total, len(want), wantTotal)
			}
			for i := range got {
				if got[i].ID != want[i].ID {
					t.Fatalf("%+v: memory %d is %s, want %s", f, i, got[i].ID, want[i].ID)
				}
			}
		}
		for _, f := range []cairn.MemoryFilter{{Project: "alpha", Limit: -1}, {Project: "alpha", Offset: -5}} {
			if _, _, err := p.FindMemories(t.Context(), f); cairn.ErrorCode(err) != cairn.EINVALID {
				t.Errorf("%+v: %v, want EINVALID", f, err)
			}
		}
	})
}

// The list's filters by source, use and expiry answer what the engine's
// do, and the list of projects names every project with its count.
func TestListFiltersAndProjectsThroughTheClientEqualTheEngines(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	eng := s.eng.WithProject("alpha")
	for i, m := range []*cairn.Memory{
		{Content: "extracted, expires soon", Source: cairn.SourceExtracted, ExpiresAt: now.Add(48 * time.Hour)},
		{Content: "explicit, never expires"},
		{Content: "imported, expires later", Source: cairn.SourceImported, ExpiresAt: now.Add(30 * 24 * time.Hour)},
	} {
		m.Project, m.Type = "alpha", "note"
		if _, err := eng.AddMemory(t.Context(), m); err != nil {
			t.Fatalf("memory %d: %v", i, err)
		}
	}
	add(t, s.eng, "beta", "note", "beta's only memory")
	for _, f := range []cairn.MemoryFilter{
		{Source: cairn.SourceExtracted},
		{NeverUsed: true},
		{ExpiresAfter: now, ExpiresBefore: now.Add(7 * 24 * time.Hour)},
		{ExpiresAfter: now.Add(7 * 24 * time.Hour)},
	} {
		f.Project = "alpha"
		want, wantTotal, err := eng.FindMemories(t.Context(), f)
		if err != nil || len(want) == 0 {
			t.Fatalf("engine %+v: %d memories, %v", f, len(want), err)
		}
		both(t, s, func(t *testing.T, p *client.Project) {
			got, total, err := p.FindMemories(t.Context(), f)
			if err != nil || total != wantTotal || len(got) != len(want) || got[0].ID != want[0].ID {
				t.Errorf("client %+v: %d of %d, %v; want %d of %d", f, len(got), total, err, len(want), wantTotal)
			}
		})
	}
	c, err := client.New(s.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.Projects(t.Context())
	if err != nil || len(ps) != 2 || ps[0].Name != "alpha" || ps[0].Memories != 3 || ps[1].Name != "beta" || !ps[1].LastActivity.Equal(now) {
		t.Errorf("Projects = %+v, %v; want alpha (3) and beta (1, active at %v)", ps, err, now)
	}
}

// TestAnswersCutShortOrOfUnknownLength: an answer shorter than the length
// it announces is EUNAVAILABLE, never a partial result; one that
// announces no length (chunked) is read whole.
func TestAnswersCutShortOrOfUnknownLength(t *testing.T) {
	t.Parallel()
	hits := `[{"score":1,"relevance":1,"salience":1,"id":"m1","project":"alpha","scope":"project","type":"fact","title":"t","content":"c",` +
		`"tags":[],"file_refs":[],"confidence":0.5,"source":"manual","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","use_count":0}]`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := hits
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Query().Get("q") {
		case "short":
			w.Header().Set("Content-Length", fmt.Sprint(len(body)+100))
			w.Write([]byte(body)) // the server then closes: 100 bytes missing
		case "chunked":
			w.Write([]byte(body[:10]))
			w.(http.Flusher).Flush() // no length: chunked
			w.Write([]byte(body[10:]))
		default:
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write([]byte(body))
		}
	}))
	defer ts.Close()
	c, err := client.New(ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Project("alpha")
	if _, err := p.Search(t.Context(), cairn.Query{Text: "short"}); !client.IsUnavailable(err) {
		t.Errorf("an answer cut short: %v, want EUNAVAILABLE", err)
	}
	for _, q := range []string{"chunked", "whole"} {
		got, err := p.Search(t.Context(), cairn.Query{Text: q})
		if err != nil || len(got) != 1 || got[0].Memory.ID != "m1" || got[0].Memory.Content != "c" {
			t.Errorf("%s answer: %+v, %v; want the one hit m1", q, got, err)
		}
	}
}

// A server that takes a connection on its Unix socket and never answers
// holds a request no longer than the client's timeout, or its context's
// deadline when that is sooner: the wait for the answer is bounded.
func TestASilentServerOnTheSocketIsGivenUpOn(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "silent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // read nothing, answer nothing
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	c, err := client.New("unix:"+sock, &client.Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Project("alpha").Search(t.Context(), cairn.Query{Text: "x"}); !client.IsUnavailable(err) {
		t.Errorf("a silent server: %v, want EUNAVAILABLE", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Errorf("a silent server held the request %v, want about the 200ms timeout", d)
	}
	c, _ = client.New("unix:"+sock, nil) // the default timeout: 30 s
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := c.Project("alpha").Search(ctx, cairn.Query{Text: "x"}); err == nil {
		t.Error("a silent server answered a request whose context ended")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a silent server held a request with a 100ms deadline %v", d)
	}
}
