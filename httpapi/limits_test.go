package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/httpapi"
)

// memoryState is what agents are shown of a memory's standing.
type memoryState struct {
	Confidence float64 `json:"confidence"`
	UseCount   int     `json:"use_count"`
	LastUsedAt string  `json:"last_used_at"`
}

func (a *testAPI) state(project, id, token string) memoryState {
	a.t.Helper()
	var m memoryState
	r := a.do("GET", "/api/projects/"+project+"/memories/"+id, nil, token)
	if r.status != 200 {
		a.t.Fatalf("get %s: %v", id, r)
	}
	r.decode(a.t, &m)
	return m
}

// A read-only token changes nothing agents are shown: the uses it sends
// are not recorded, and the contexts it asks for are previews, however
// many and whatever their sessions. A clock sent with a change to a server that
// needs tokens is refused; the use a write token records is dated by the
// server's clock.
func TestReadOnlyTokenCannotRaiseConfidenceNorDateAUse(t *testing.T) {
	t.Parallel()
	a := newAPI(t, true)
	rw, ro := a.token("p", false), a.token("p", true)
	id := a.add("p", map[string]any{"content": "The billing worker retries failed charges twice.", "type": "pitfall", "confidence": 0.62}, rw)
	before := a.state("p", id, ro)
	for i := range 20 {
		// Answered, as a client that records what it showed expects, but
		// not recorded.
		var uses struct{ IDs []string }
		r := a.do("POST", "/api/projects/p/uses", map[string]any{"ids": []string{id}, "session": fmt.Sprint("s", i)}, ro)
		if r.status != 200 {
			t.Fatalf("uses with a read-only token: %v", r)
		}
		if r.decode(t, &uses); len(uses.IDs) != 0 {
			t.Errorf("uses with a read-only token answered as recorded: %v", r)
		}
		var out struct{ IDs []string }
		r = a.do("POST", "/api/projects/p/context", map[string]any{"prompt": "billing worker retries charges", "session": fmt.Sprint("s", i)}, ro)
		if r.status != 200 {
			t.Fatalf("a context with a read-only token: %v", r)
		}
		r.decode(t, &out)
		if len(out.IDs) != 1 || out.IDs[0] != id {
			t.Fatalf("a context with a read-only token shows %v, want [%s]", out.IDs, id)
		}
	}
	if after := a.state("p", id, ro); after != before {
		t.Errorf("after 20 uses and contexts with a read-only token: %+v, was %+v", after, before)
	}
	later := "2100-01-01T00:00:00Z"
	want(t, "a use dated 2100", a.do("POST", "/api/projects/p/uses", map[string]any{"ids": []string{id}}, rw, httpapi.NowHeader, later), 400, cairn.EINVALID)
	want(t, "a memory dated 2100", a.do("POST", "/api/projects/p/memories", map[string]any{"content": "from the future"}, rw, httpapi.NowHeader, later), 400, cairn.EINVALID)
	if r := a.do("POST", "/api/projects/p/context", map[string]any{"prompt": "billing worker retries charges", "session": "w"}, rw, httpapi.NowHeader, later); r.status != 200 {
		t.Fatalf("a context at 2100 with a write token: %v", r)
	}
	if r := a.do("GET", "/api/projects/p/search?q=billing", nil, ro, httpapi.NowHeader, later); r.status != 200 {
		t.Errorf("a search at 2100 (a read): %v", r)
	}
	got := a.state("p", id, ro)
	if got.UseCount != before.UseCount+1 || !strings.HasPrefix(got.LastUsedAt, now.Format("2006-01-02")) {
		t.Errorf("after a write token's context sent at 2100: %+v; want one more use, dated by the server's clock (%s)", got, now.Format("2006-01-02"))
	}
	if r := a.do("POST", "/api/projects/p/uses", map[string]any{"ids": []string{id}, "session": "w2"}, rw); r.status != 200 {
		t.Errorf("uses with a write token: %v", r)
	}

	// On a server that needs no token (this machine's), the clock is
	// the caller's, as the CLI's --now: tests and the evaluation use it.
	l := newAPI(t, false)
	lid := l.add("p", map[string]any{"content": "A memory written at a given time."}, "")
	if r := l.do("POST", "/api/projects/p/uses", map[string]any{"ids": []string{lid}}, "", httpapi.NowHeader, "2027-03-01T00:00:00Z"); r.status != 200 {
		t.Fatalf("a dated use on a local server: %v", r)
	}
	if got := l.state("p", lid, ""); !strings.HasPrefix(got.LastUsedAt, "2027-03-01") {
		t.Errorf("a dated use on a local server: last used %q", got.LastUsedAt)
	}
}

// A tag filter beyond what a memory can hold is the caller's mistake
// (400), not a query too deep for the database (500).
func TestTagFilterBeyondTheLimitIsRefused(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	a.add("p", map[string]any{"content": "tagged once", "tags": []string{"t1"}}, "")
	tags := make([]string, 1000)
	for i := range tags {
		tags[i] = fmt.Sprint("t", i)
	}
	want(t, "a list of 1000 tags", a.do("GET", "/api/projects/p/memories?tag="+strings.Join(tags, ","), nil, ""), 400, cairn.EINVALID)
	want(t, "a search of 1000 tags", a.do("GET", "/api/projects/p/search?q=tagged&tag="+strings.Join(tags, ","), nil, ""), 400, cairn.EINVALID)
	if r := a.do("GET", "/api/projects/p/memories?tag="+strings.Join(tags[:cairn.MaxTags], ","), nil, ""); r.status != 200 {
		t.Errorf("a list of %d tags: %v", cairn.MaxTags, r)
	}
}

// Text that is not UTF-8 is refused wherever it comes, as the CLI refuses
// it, and nothing is stored: a JSON body (a Latin-1 byte, a lone
// continuation byte), a query parameter, a path.
func TestTextNotUTF8IsRefused(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	id := a.add("p", map[string]any{"content": "plain"}, "")
	want(t, "a body with a Latin-1 byte", a.do("POST", "/api/projects/p/memories", "{\"content\":\"caf\xe9\"}", ""), 400, cairn.EINVALID)
	want(t, "a body with a stray continuation byte", a.do("POST", "/api/projects/p/memories", "{\"content\":\"x\x80y\"}", ""), 400, cairn.EINVALID)
	want(t, "a change with a Latin-1 byte", a.do("PATCH", "/api/projects/p/memories/"+id, "{\"title\":\"caf\xe9\"}", ""), 400, cairn.EINVALID)
	want(t, "a capture with a Latin-1 byte", a.do("POST", "/api/projects/p/capture", "{\"text\":\"MEMORY:pitfall:caf\xe9\"}", ""), 400, cairn.EINVALID)
	want(t, "a query of Latin-1", a.do("GET", "/api/projects/p/search?q=caf%E9", nil, ""), 400, cairn.EINVALID)
	want(t, "a path of Latin-1", a.do("GET", "/api/projects/p/memories/mem-%E9", nil, ""), 400, cairn.EINVALID)
	var list struct{ Total int }
	a.do("GET", "/api/projects/p/memories", nil, "").decode(t, &list)
	if list.Total != 1 {
		t.Errorf("%d memories after the refusals, want 1", list.Total)
	}
	if got := a.state("p", id, ""); got.UseCount != 0 {
		t.Errorf("the memory changed: %+v", got)
	}
}

// blockingService waits in FindMemories until its request is cancelled,
// and then fails as a backend may when its query is cut short: with an
// error that does not say it was cancelled.
type blockingService struct {
	httpapi.Service
	started chan struct{}
}

func (blockingService) Now() time.Time { return now }

func (b blockingService) FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	close(b.started)
	<-ctx.Done()
	return nil, 0, cairn.WrapError(cairn.EINTERNAL, io.ErrUnexpectedEOF, "reading the memories: the connection to the database was closed")
}

// syncLog is a log written by the server's goroutines.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *syncLog) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// A client that leaves before its answer is not the server's failure:
// nothing is logged, and the request is not answered as an internal
// error (the status, which nobody reads, says it was cancelled).
func TestClientThatLeavesIsNotAnInternalError(t *testing.T) {
	t.Parallel()
	log := &syncLog{}
	started := make(chan struct{})
	api := httpapi.New(httpapi.Options{
		Service: func(string, time.Time) httpapi.Service { return blockingService{started: started} },
		Logger:  slog.New(slog.NewTextHandler(log, nil)),
	})
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, r)
		if rec.Code == http.StatusInternalServerError {
			t.Errorf("a request its client left answered %d: %s", rec.Code, rec.Body)
		}
	}))
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /api/projects/p/memories HTTP/1.1\r\nHost: %s\r\n\r\n", srv.Listener.Addr())
	select {
	case <-started:
	case <-done:
		t.Fatal("the request was answered before it reached the service")
	case <-time.After(20 * time.Second):
		t.Fatal("the request did not reach the service")
	}
	conn.Close()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the request was not cancelled when its client left")
	}
	if strings.Contains(log.String(), "request failed") || strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("a client that left was logged as a failure: %s", log.String())
	}
}
