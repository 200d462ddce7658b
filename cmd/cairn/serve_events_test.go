package main

// Live sharing between agents, through the real binary: `cairn serve`'s
// event stream and `cairn watch`, with writes made by other cairn
// processes.
//
// Bad inputs and situations tried here: a Last-Event-ID that is not a
// number, a negative ?after=, a seq past the newest event (a replaced
// database), a request naming another host (DNS rebinding), a stream cut
// while writes go on (resumed with Last-Event-ID), interleaved writes to
// two projects, a server stopped while streams are open, bad watch flags.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sseFrame is one server-sent event as received.
type sseFrame struct {
	id, event, data string
	comment         bool
	recv            time.Time // when its last line was read
}

// sseStream reads frames from a response body on a goroutine.
type sseStream struct {
	resp   *http.Response
	frames chan sseFrame
}

func (h *httpServe) eventsURL(project string) string {
	return strings.TrimSuffix(h.url, "/mcp") + "/api/projects/" + project + "/events"
}

// openEvents opens a project's stream with the given query and headers
// ("Name", "value" pairs); the stream is closed when the test ends.
func openEvents(t testing.TB, h *httpServe, project, query string, hdr ...string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.eventsURL(project)+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &sseStream{resp: resp, frames: make(chan sseFrame, 1024)}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: HTTP %d %s", req.URL, resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	go func() {
		defer close(s.frames)
		sc := bufio.NewScanner(resp.Body)
		var f sseFrame
		started := false
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				if started {
					f.recv = time.Now()
					s.frames <- f
				}
				f, started = sseFrame{}, false
				continue
			}
			started = true
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimPrefix(v, " ")
			switch k {
			case "":
				f.comment = true
			case "id":
				f.id = v
			case "event":
				f.event = v
			case "data":
				f.data = v
			}
		}
	}()
	return s
}

// streamEvent is an event frame's data.
type streamEvent struct {
	Seq       int64  `json:"seq"`
	Project   string `json:"project"`
	MemoryID  string `json:"memory_id"`
	Action    string `json:"action"`
	SessionID string `json:"session_id"`
	Type      string `json:"type"`
	Title     string `json:"title"`
}

// next returns the next frame that is not a comment, failing when the
// stream ends or nothing comes within a generous guard time (a guard
// against a hang, not a timing assertion).
func (s *sseStream) next(t testing.TB) sseFrame {
	t.Helper()
	guard := time.After(20 * time.Second)
	for {
		select {
		case f, ok := <-s.frames:
			if !ok {
				t.Fatal("the stream ended")
			}
			if !f.comment {
				return f
			}
		case <-guard:
			t.Fatal("no frame came")
		}
	}
}

// start reads the stream's first frame, the id-only one, and returns its seq.
func (s *sseStream) start(t testing.TB) int64 {
	t.Helper()
	f := s.next(t)
	n, err := strconv.ParseInt(f.id, 10, 64)
	if err != nil || f.event != "" || f.data != "" {
		t.Fatalf("the first frame is %+v, want an id only", f)
	}
	return n
}

// events reads n event frames, checking that each frame's id, event name
// and data agree.
func (s *sseStream) events(t *testing.T, n int) []streamEvent {
	t.Helper()
	var out []streamEvent
	for len(out) < n {
		f := s.next(t)
		var ev streamEvent
		if err := json.Unmarshal([]byte(f.data), &ev); err != nil {
			t.Fatalf("frame %+v: %v", f, err)
		}
		if f.id != strconv.FormatInt(ev.Seq, 10) || f.event != ev.Action {
			t.Fatalf("frame %+v disagrees with its data", f)
		}
		out = append(out, ev)
	}
	return out
}

// addAs runs `cairn add` in its own process, as an agent of session.
func addAs(t *testing.T, h *httpServe, project, session, content string) string {
	t.Helper()
	r := runBin(t.Context(), h.dir, "", "--db", h.db, "--project", project, "add", "--session", session, "--type", "learning", content)
	if r.code != 0 {
		t.Fatal(r)
	}
	return strings.TrimSpace(r.stdout)
}

// watchProc is a running `cairn watch` process.
type watchProc struct {
	cmd  *exec.Cmd
	out  strings.Builder
	errb strings.Builder
}

func startWatch(t *testing.T, h *httpServe, args ...string) *watchProc {
	t.Helper()
	w := &watchProc{}
	w.cmd = exec.CommandContext(t.Context(), cairnBin, append([]string{"--db", h.db, "--project", "shop", "watch"}, args...)...)
	w.cmd.Dir, w.cmd.Env = h.dir, binEnv(h.dir)
	w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.errb
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// wait waits for the watch to exit on its own (--count).
func (w *watchProc) wait(t *testing.T) string {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("cairn watch: %v: %s", err, w.errb.String())
		}
	case <-time.After(30 * time.Second):
		w.cmd.Process.Kill()
		t.Fatalf("cairn watch did not exit; printed %q", w.out.String())
	}
	return w.out.String()
}

// Two agents, each its own process writing to one project, see each
// other's memories as they are written: through the server's stream and
// through their own `cairn watch`, which reads the database itself.
func TestTwoAgentProcessesSeeEachOthersMemoriesLive(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	streamA, streamB := openEvents(t, h, "shop", ""), openEvents(t, h, "shop", "")
	from := streamA.start(t)
	streamB.start(t)
	watchA := startWatch(t, h, "--after", strconv.FormatInt(from, 10), "--count", "2", "--json")
	watchB := startWatch(t, h, "--after", strconv.FormatInt(from, 10), "--count", "2")

	idA := addAs(t, h, "shop", "agent-a", "The checkout total must be computed in cents, never floats.")
	gotA := streamB.events(t, 1)[0] // B sees A's memory before A writes again
	if gotA.MemoryID != idA || gotA.SessionID != "agent-a" || gotA.Action != "created" || gotA.Type != "learning" ||
		!strings.HasPrefix(gotA.Title, "The checkout total") || gotA.Project != "shop" {
		t.Errorf("B saw %+v, want agent-a's creation of %s", gotA, idA)
	}
	idB := addAs(t, h, "shop", "agent-b", "The payment mock needs a fresh idempotency key per test.")
	evs := streamA.events(t, 2)
	if evs[0].MemoryID != idA || evs[1].MemoryID != idB || evs[1].SessionID != "agent-b" {
		t.Errorf("A saw %+v, want %s then %s", evs, idA, idB)
	}
	if gotB := streamB.events(t, 1)[0]; gotB.MemoryID != idB {
		t.Errorf("B's next event is %+v, want %s", gotB, idB)
	}

	// A's watch prints JSON lines, B's a line per event.
	lines := strings.Split(strings.TrimSpace(watchA.wait(t)), "\n")
	if len(lines) != 2 {
		t.Fatalf("watch --json printed %q", lines)
	}
	for i, id := range []string{idA, idB} {
		var ev streamEvent
		if err := json.Unmarshal([]byte(lines[i]), &ev); err != nil || ev.MemoryID != id || ev.Seq != evs[i].Seq {
			t.Errorf("watch --json line %d = %s (%v), want %s with seq %d", i, lines[i], err, id, evs[i].Seq)
		}
	}
	text := watchB.wait(t)
	for _, want := range []string{idA, "[agent-a]", idB, "[agent-b]", "learning: The payment mock", fmt.Sprintf("#%d ", evs[1].Seq)} {
		if !strings.Contains(text, want) {
			t.Errorf("watch printed %q, without %q", text, want)
		}
	}
}

// A stream cut while writes go on, resumed with the last id it received,
// gets exactly what it missed, in order: nothing lost, nothing twice.
// Last-Event-ID wins over ?after= (an EventSource reconnects to the same
// URL with the header).
func TestEventStreamResumedWithLastEventIDLosesNothing(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	var ids []string
	for i := range 3 {
		ids = append(ids, addAs(t, h, "shop", "s", fmt.Sprintf("Memory %d written before the stream opened.", i)))
	}
	first := openEvents(t, h, "shop", "?after=0")
	if seq := first.start(t); seq != 0 {
		t.Errorf("a stream after 0 starts at %d", seq)
	}
	got := first.events(t, 2)
	first.resp.Body.Close() // the connection drops
	for i := range 3 {
		ids = append(ids, addAs(t, h, "shop", "s", fmt.Sprintf("Memory %d written while no stream was open.", i)))
	}
	last := strconv.FormatInt(got[1].Seq, 10)
	again := openEvents(t, h, "shop", "?after=0", "Last-Event-ID", last)
	if seq := again.start(t); strconv.FormatInt(seq, 10) != last {
		t.Errorf("the resumed stream starts after %d, want %s", seq, last)
	}
	got = append(got, again.events(t, 4)...)
	for i, ev := range got {
		if ev.MemoryID != ids[i] {
			t.Errorf("event %d is of %s, want %s", i, ev.MemoryID, ids[i])
		}
		if i > 0 && ev.Seq <= got[i-1].Seq {
			t.Errorf("event %d has seq %d after %d", i, ev.Seq, got[i-1].Seq)
		}
	}
}

// A project's stream never carries another project's events, however
// they interleave.
func TestEventStreamOfAProjectNeverCarriesAnothers(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	shop, garden := openEvents(t, h, "shop", ""), openEvents(t, h, "garden", "")
	shop.start(t)
	garden.start(t)
	want := map[string][]string{}
	var wg sync.WaitGroup
	for _, p := range []string{"shop", "garden"} {
		ids := make([]string, 4)
		want[p] = ids
		wg.Go(func() {
			for i := range ids {
				ids[i] = addAs(t, h, p, "s-"+p, fmt.Sprintf("Memory %d of the %s project.", i, p))
			}
		})
	}
	wg.Wait()
	for p, s := range map[string]*sseStream{"shop": shop, "garden": garden} {
		evs := s.events(t, 4)
		for i, ev := range evs {
			if ev.Project != p || ev.MemoryID != want[p][i] {
				t.Errorf("%s's event %d = %+v, want %s of %s", p, i, ev, want[p][i], p)
			}
		}
	}
	// Nothing more comes on garden's: a last write to shop reaches
	// shop's stream, and garden's gets nothing but comments.
	addAs(t, h, "shop", "s", "The last memory of the shop.")
	if ev := shop.events(t, 1)[0]; !strings.HasPrefix(ev.Title, "The last memory") {
		t.Errorf("shop's next event is %+v", ev)
	}
	select {
	case f := <-garden.frames:
		if !f.comment {
			t.Errorf("garden got %+v", f)
		}
	case <-time.After(200 * time.Millisecond):
	}
}

// A server that is stopped ends every stream with a "shutdown" frame
// whose id is where to resume.
func TestEventStreamEndsWithItsSeqWhenTheServerStops(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	s := openEvents(t, h, "shop", "")
	s.start(t)
	addAs(t, h, "shop", "s", "Written just before the server stops.")
	ev := s.events(t, 1)[0]
	if err := h.proc.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	f := s.next(t)
	if f.event != "shutdown" || f.id != strconv.FormatInt(ev.Seq, 10) || f.data != fmt.Sprintf(`{"seq":%d}`, ev.Seq) {
		t.Errorf("the last frame is %+v, want shutdown with id %d", f, ev.Seq)
	}
	for f := range s.frames {
		t.Errorf("a frame after shutdown: %+v", f)
	}
}

func TestEventStreamRefusesBadResumePointsAndOtherHosts(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	addAs(t, h, "shop", "s", "One memory, seq 1.")
	get := func(query string, hdr ...string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, h.eventsURL("shop")+query, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			if hdr[i] == "Host" {
				req.Host = hdr[i+1]
			} else {
				req.Header.Set(hdr[i], hdr[i+1])
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		name, query string
		hdr         []string
		status      int
		says        string
	}{
		{"a Last-Event-ID that is not a number", "", []string{"Last-Event-ID", "abc"}, 400, "Last-Event-ID header must be"},
		{"a negative after", "?after=-3", nil, 400, "after must be"},
		{"a seq past the newest", "?after=99", nil, 400, "does not exist"},
		{"another host (DNS rebinding)", "", []string{"Host", "evil.example:7421"}, 403, "loopback"},
	} {
		status, body := get(c.query, c.hdr...)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: HTTP %d %q, want %d saying %q", c.name, status, body, c.status, c.says)
		}
	}
}

func TestWatchRefusesBadFlags(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"watch", "--after", "-2"},
		{"watch", "--after", "x"},
		{"watch", "--action", "creatd"},
		{"watch", "--count", "-1"},
		{"watch", "extra"},
	} {
		r := c.run("", args...)
		if r.code != exitUsage {
			t.Errorf("%v: %v, want exit 2", args, r)
		}
		oneErrorLine(t, r)
	}
}

// cairn watch --server follows the server's stream through the client
// and prints what a watch of the database prints, event for event. Bad
// inputs tried: a resume point past the newest event (refused by the
// server, exit 1), a server that is not there.
func TestWatchThroughTheServerPrintsWhatTheDatabaseWatchPrints(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	base := strings.TrimSuffix(h.url, "/mcp")
	stream := openEvents(t, h, "shop", "")
	from := strconv.FormatInt(stream.start(t), 10)
	served := startWatch(t, h, "--server", base, "--after", from, "--count", "2", "--json")
	local := startWatch(t, h, "--after", from, "--count", "2", "--json")
	idA := addAs(t, h, "shop", "agent-a", "Prices are integers of cents.")
	idB := addAs(t, h, "shop", "agent-b", "Refunds go through the ledger, never straight to the card.")
	s, l := served.wait(t), local.wait(t)
	if s != l || !strings.Contains(s, idA) || !strings.Contains(s, idB) {
		t.Errorf("watch through the server printed\n%s\nthe database's watch\n%s", s, l)
	}
	for _, args := range [][]string{
		{"--server", base, "--after", "999999999"},
		{"--server", "http://127.0.0.1:1"},
	} {
		w := startWatch(t, h, args...)
		done := make(chan error, 1)
		go func() { done <- w.cmd.Wait() }()
		select {
		case err := <-done:
			if err == nil || !strings.HasPrefix(w.errb.String(), "cairn: ") || strings.Count(strings.TrimSpace(w.errb.String()), "\n") != 0 {
				t.Errorf("watch %q: %v, stderr %q; want exit 1 and one line", args, err, w.errb.String())
			}
		case <-time.After(30 * time.Second):
			w.cmd.Process.Kill()
			t.Errorf("watch %q did not fail", args)
		}
	}
}
