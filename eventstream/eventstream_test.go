package eventstream_test

// Bad inputs tried: a title with a line break, quotes and a would-be SSE
// field ("\ndata: forged") that must stay inside one data line; a request
// after shutdown.

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/eventstream"
	"github.com/cairn-dev/cairn/internal/golden"
	"github.com/cairn-dev/cairn/sqlite"
)

func TestFrameIsOneEventWithItsDataOnOneLine(t *testing.T) {
	t.Parallel()
	ev := cairn.Event{Seq: 42, At: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), Project: "shop", MemoryID: "mem-06gsdyrp00nxpfhj",
		Action: cairn.ActionCreated, SessionID: "s-1", Detail: "Prices <in> cents", Type: "pitfall",
		Title: "Prices \"in\" cents\ndata: forged"}
	got := eventstream.Frame(ev) + eventstream.Frame(cairn.Event{Seq: 43, Project: "shop", MemoryID: "gone", Action: cairn.ActionDeleted})
	golden.Check(t, filepath.Join("testdata", "frames.golden"), got, "./eventstream")
}

func newServer(t *testing.T, opts *eventstream.Options) (*httptest.Server, *eventstream.Handler) {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	h := eventstream.New(engine.New(s, nil), opts)
	mux := http.NewServeMux()
	mux.Handle("GET /api/projects/{project}/events", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts, h
}

func TestIdleStreamGetsHeartbeats(t *testing.T) {
	t.Parallel()
	beats := make(chan struct{}, 16)
	ts, h := newServer(t, &eventstream.Options{Heartbeat: 5 * time.Millisecond, Active: func() {
		select {
		case beats <- struct{}{}:
		default:
		}
	}})
	resp, err := http.Get(ts.URL + "/api/projects/shop/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() {
		if lines = append(lines, sc.Text()); sc.Text() == ": keep-alive" {
			break
		}
	}
	if len(lines) < 3 || lines[0] != "id: 0" || lines[1] != "" {
		t.Errorf("stream began %q, want an id-only frame, then a comment", lines)
	}
	<-beats // the stream counted as activity
	h.Shutdown()
}

func TestShutdownRefusesNewStreams(t *testing.T) {
	t.Parallel()
	ts, h := newServer(t, nil)
	h.Shutdown()
	resp, err := http.Get(ts.URL + "/api/projects/shop/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("a stream after shutdown: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
