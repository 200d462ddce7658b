// Package eventstream serves a project's events (engine.Engine.Subscribe)
// as server-sent events: `cairn serve`'s GET
// /api/projects/{project}/events.
//
// One event is one frame, its id the event's seq and its event name the
// action:
//
//	id: 42
//	event: created
//	data: {"seq":42,"at":"…","project":"p","memory_id":"mem-…","action":"created","session_id":"s-1","type":"pitfall","title":"…"}
//
// The data is package wire's Event, on one line. Seqs increase but are
// shared by all projects, so a project's are not consecutive.
//
// Where a stream starts: after the Last-Event-ID header's seq when the
// request has one (a reconnecting EventSource sends it), else after
// ?after=N, else from now. The first frame is an id-only frame (no event
// is dispatched) giving the seq the stream starts after, so that a client
// that has received nothing yet can still resume without loss.
//
// A comment (": keep-alive") is sent every Heartbeat, so that proxies
// and clients do not take an idle stream for a dead one. When the server
// shuts down (Shutdown), every stream sends a last frame, event
// "shutdown" with the seq to resume after as its id and data
// ({"seq":N}), and ends. A client that reconnects with that seq, or the
// id of the last event it received, misses nothing and gets nothing twice.
package eventstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/wire"
)

// Subscriber is where the events come from; *engine.Engine is one.
type Subscriber interface {
	Subscribe(ctx context.Context, project string, after int64) (*engine.Subscription, error)
}

// DefaultHeartbeat is how often an idle stream gets a comment.
const DefaultHeartbeat = 15 * time.Second

// writeTimeout bounds each write: a client that stops reading is cut off
// after it, instead of holding its stream forever.
const writeTimeout = 30 * time.Second

// Options tune a Handler. A nil *Options means defaults.
type Options struct {
	// Heartbeat is how often an idle stream gets a comment; 0 means
	// DefaultHeartbeat.
	Heartbeat time.Duration
	// Active, when set, is called when a stream starts and with each
	// heartbeat (a server that exits when idle counts a stream as use).
	Active func()
}

// Handler streams events. The project is the request's path value
// "project" (mount it at "GET /api/projects/{project}/events"). A Handler
// is safe for concurrent use.
type Handler struct {
	subs      Subscriber
	heartbeat time.Duration
	active    func()

	once sync.Once
	done chan struct{} // closed by Shutdown
}

// New returns a Handler of the events of subs.
func New(subs Subscriber, opts *Options) *Handler {
	if opts == nil {
		opts = &Options{}
	}
	h := &Handler{subs: subs, heartbeat: opts.Heartbeat, active: opts.Active, done: make(chan struct{})}
	if h.heartbeat <= 0 {
		h.heartbeat = DefaultHeartbeat
	}
	if h.active == nil {
		h.active = func() {}
	}
	return h
}

// Shutdown makes every open stream send its final frame and end, and new
// requests be refused (503). Register it with http.Server.RegisterOnShutdown:
// http.Server.Shutdown waits for streams, which never end by themselves.
func (h *Handler) Shutdown() { h.once.Do(func() { close(h.done) }) }

// ServeHTTP answers one stream request. A bad Last-Event-ID or ?after= is
// 400, as is a seq past the newest event (the database was replaced); the
// error is JSON, {"error": {"code", "message"}}.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-h.done:
		writeError(w, http.StatusServiceUnavailable, cairn.Errorf(cairn.EUNAVAILABLE, "the server is shutting down"))
		return
	default:
	}
	after, err := resumePoint(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	sub, err := h.subs.Subscribe(r.Context(), r.PathValue("project"), after)
	if err != nil {
		status := http.StatusServiceUnavailable
		if cairn.ErrorCode(err) == cairn.EINVALID {
			status = http.StatusBadRequest
		}
		writeError(w, status, err)
		return
	}
	defer sub.Close()
	h.active()
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	write := func(frame string) bool {
		rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := fmt.Fprint(w, frame); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write(fmt.Sprintf("id: %d\n\n", sub.Seq())) {
		return
	}
	beat := time.NewTicker(h.heartbeat)
	defer beat.Stop()
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				if err := sub.Err(); err != nil && r.Context().Err() == nil {
					write(errorFrame(err))
				}
				return
			}
			if !write(Frame(ev)) {
				return
			}
		case <-beat.C:
			h.active()
			if !write(": keep-alive\n\n") {
				return
			}
		case <-h.done:
			seq := sub.Seq()
			write(fmt.Sprintf("id: %d\nevent: shutdown\ndata: {\"seq\":%d}\n\n", seq, seq))
			return
		}
	}
}

// Frame is the server-sent event of ev.
func Frame(ev cairn.Event) string {
	data, _ := json.Marshal(wire.FromEvent(ev)) // one line: JSON escapes line breaks
	return fmt.Sprintf("id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, ev.Action, data)
}

// resumePoint is the seq a request's stream starts after: its
// Last-Event-ID, else its ?after=, else -1 (from now).
func resumePoint(r *http.Request) (int64, error) {
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		return parseSeq("the Last-Event-ID header", v)
	}
	if v := r.URL.Query().Get("after"); v != "" {
		return parseSeq("after", v)
	}
	return -1, nil
}

func parseSeq(what, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, cairn.Errorf(cairn.EINVALID, "%s must be an event's seq, a whole number from 0, not %q", what, v)
	}
	return n, nil
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func errorJSON(err error) []byte {
	var b errorBody
	b.Error.Code, b.Error.Message = cairn.ErrorCode(err), cairn.ErrorMessage(err)
	if b.Error.Code == cairn.EINTERNAL {
		b.Error.Message = "internal error" // no driver detail to clients
	}
	data, _ := json.Marshal(b)
	return data
}

func writeError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(errorJSON(err), '\n'))
}

// errorFrame ends a stream whose events could not be read (the store
// failed); the client reconnects with its last event's id.
func errorFrame(err error) string {
	return fmt.Sprintf("event: error\ndata: %s\n\n", errorJSON(err))
}
