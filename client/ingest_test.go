package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
)

// An import through the client is the engine's: its report, and its
// refusal of a bad record, named by its line, even when the server
// answers before it has read the whole body (a bad second line of a
// large import). Bad inputs tried: a record with a string confidence, a
// reader that fails (its error comes back as it is, nothing stored).
func TestImportStreamThroughTheClient(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	both(t, s, func(t *testing.T, p *client.Project) {
		way := t.Name()[strings.LastIndex(t.Name(), "/")+1:] // http or unix: both share the server
		rep, err := p.ImportStream(t.Context(), strings.NewReader(`{"id":"imp-`+way+`","content":"one `+way+`"}`+"\n"+`{"content":"two `+way+`"}`+"\n"), cairn.ImportOptions{})
		if err != nil || rep.Read != 2 || rep.Created != 2 {
			t.Fatalf("import: %+v %v", rep, err)
		}
		big := `{"content":"first"}` + "\n" + `{"content":"x","confidence":"high"}` + "\n" + strings.Repeat(`{"content":"padding padding padding padding"}`+"\n", 50000)
		_, err = p.ImportStream(t.Context(), strings.NewReader(big), cairn.ImportOptions{})
		if cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(cairn.ErrorMessage(err), "line 2") {
			t.Errorf("a bad second line of a large import: %v", err)
		}
		boom := errors.New("the disk went away")
		_, err = p.ImportStream(t.Context(), &failing{r: strings.NewReader(`{"content":"never stored"}` + "\n"), err: boom}, cairn.ImportOptions{})
		if !errors.Is(err, boom) {
			t.Errorf("a reader that fails: %v, want its error", err)
		}
		mems, _, err := p.FindMemories(t.Context(), cairn.MemoryFilter{Project: p.Name()})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mems {
			if m.Content == "never stored" || m.Content == "first" {
				t.Errorf("a failed import stored %q", m.Content)
			}
		}
	})
}

// failing reads r, then fails with err instead of io.EOF.
type failing struct {
	r   *strings.Reader
	err error
}

func (f *failing) Read(p []byte) (int, error) {
	if f.r.Len() == 0 {
		return 0, f.err
	}
	return f.r.Read(p)
}

// Cursors and uses through the client are the engine's; a project other
// than the client's is refused.
func TestCursorsAndUsesThroughTheClient(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	both(t, s, func(t *testing.T, p *client.Project) {
		src := "/home/u/" + t.Name() + ".jsonl"
		if err := p.PutIngestCursor(t.Context(), "alpha", cairn.IngestCursor{Source: src, Offset: 77, Pending: "{}"}); err != nil {
			t.Fatal(err)
		}
		c, err := s.eng.FindIngestCursor(context.Background(), "alpha", src)
		if err != nil || c.Offset != 77 || c.Pending != "{}" {
			t.Errorf("the engine's cursor after a put through the client: %+v %v", c, err)
		}
		got, err := p.FindIngestCursor(t.Context(), "alpha", src)
		if err != nil || *got != *c {
			t.Errorf("the cursor through the client %+v %v, the engine's %+v", got, err, c)
		}
		if _, err := p.FindIngestCursor(t.Context(), "beta", src); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("another project's cursor: %v", err)
		}
		res, err := p.AddMemory(t.Context(), &cairn.Memory{Content: "used through the client " + t.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.RecordUse(t.Context(), []string{res.Memory.ID}, "s1"); err != nil {
			t.Fatal(err)
		}
		if m, err := p.FindMemoryByID(t.Context(), res.Memory.ID); err != nil || m.UseCount != 1 {
			t.Errorf("use count after RecordUse: %+v %v", m, err)
		}
	})
}

// A server without a route (an older version, still running after an
// upgrade) is unavailable for it, so that the CLI falls back to the
// database; a memory that is not there is still ENOTFOUND.
func TestARouteTheServerLacksIsUnavailable(t *testing.T) {
	t.Parallel()
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		if strings.Contains(r.URL.Path, "/memories/") {
			w.Write([]byte(`{"error":{"code":"not_found","message":"no memory mem-1"}}`))
			return
		}
		w.Write([]byte(`{"error":{"code":"not_found","message":"no route GET /api/projects/p/ingest/cursor; GET /api/openapi.json lists them"}}`))
	}))
	t.Cleanup(old.Close)
	c, err := client.New(old.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Project("p")
	if _, err := p.FindIngestCursor(t.Context(), "p", "/t.jsonl"); !client.IsUnavailable(err) {
		t.Errorf("a route the server lacks: %v, want EUNAVAILABLE", err)
	}
	if _, err := p.FindMemoryByID(t.Context(), "mem-1"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("a memory that is not there: %v, want ENOTFOUND", err)
	}
}

// A batch larger than one request is sent in several, in order, the
// cursor with the last: every memory is stored, each item is its memory's
// (a refused one reported in its place), and the cursor is put. Bad
// inputs tried: an empty memory among 600, another project's name.
func TestIngestBatchInSeveralRequests(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	both(t, s, func(t *testing.T, p *client.Project) {
		way := t.Name()[strings.LastIndex(t.Name(), "/")+1:]
		src := "/home/u/rollout-" + way + ".jsonl"
		var b cairn.IngestBatch
		for i := range 600 {
			content := fmt.Sprintf("Batch %s memory %d: the heron queue drains in order.", way, i)
			if i == 300 {
				content = " "
			}
			b.Memories = append(b.Memories, &cairn.Memory{Type: "learning", Content: content, Source: cairn.SourceExtracted})
		}
		b.Cursor = &cairn.IngestCursor{Source: src, Offset: 9000, Pending: "{}"}
		if _, err := p.IngestBatch(t.Context(), "beta", b); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("another project: %v", err)
		}
		items, err := p.IngestBatch(t.Context(), p.Name(), b)
		if err != nil || len(items) != 600 {
			t.Fatalf("batch: %d items, %v", len(items), err)
		}
		for i, it := range items {
			if i == 300 {
				if cairn.ErrorCode(it.Err) != cairn.EINVALID {
					t.Errorf("the empty memory: %+v", it)
				}
				continue
			}
			if it.Err != nil || it.Result.Status != cairn.StatusCreated {
				t.Fatalf("item %d: %+v", i, it)
			}
			m, err := p.FindMemoryByID(t.Context(), it.Result.Memory.ID)
			if i%97 == 0 && (err != nil || m.Content != b.Memories[i].Content) {
				t.Errorf("item %d is not its memory: %+v %v", i, m, err)
			}
		}
		if c, err := p.FindIngestCursor(t.Context(), p.Name(), src); err != nil || c.Offset != 9000 || c.Pending != "{}" {
			t.Errorf("cursor: %+v %v", c, err)
		}
	})
}

// A memory created only if new through the client: created once, then a
// conflict that changes nothing. Bad input tried: no key.
func TestCreateMemoryThroughTheClient(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	both(t, s, func(t *testing.T, p *client.Project) {
		key := "memtool:/memories/" + t.Name()[strings.LastIndex(t.Name(), "/")+1:] + ".md"
		res, err := p.CreateMemory(t.Context(), &cairn.Memory{Type: "file", Key: key, Content: "first notes"})
		if err != nil || res.Status != cairn.StatusCreated {
			t.Fatalf("create: %+v %v", res, err)
		}
		if _, err := p.CreateMemory(t.Context(), &cairn.Memory{Type: "file", Key: key, Content: "second notes"}); cairn.ErrorCode(err) != cairn.ECONFLICT {
			t.Errorf("create of a key taken: %v, want ECONFLICT", err)
		}
		if m, err := p.FindMemoryByID(t.Context(), res.Memory.ID); err != nil || m.Content != "first notes" {
			t.Errorf("after the conflict: %+v %v", m, err)
		}
		if _, err := p.CreateMemory(t.Context(), &cairn.Memory{Content: "no key"}); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("create without a key: %v", err)
		}
	})
}
