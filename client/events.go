package client

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Subscription is a live stream of a project's events from the server
// (GET /api/projects/{project}/events, server-sent events); see
// Project.Subscribe. It implements cairn.Subscription.
type Subscription struct {
	ch     chan cairn.Event
	cancel context.CancelFunc
	seq    atomic.Int64
	err    error // set before ch is closed
}

// Events returns the channel the events arrive on, in order, each once.
// It is closed when the subscription ends (Err says why).
func (s *Subscription) Events() <-chan cairn.Event { return s.ch }

// Err returns why the channel was closed: nil when the context ended or
// Close was called; EUNAVAILABLE when the server shut down or the
// connection failed (resume with Subscribe after Seq); the server's
// error otherwise. Call it after the channel is closed.
func (s *Subscription) Err() error { return s.err }

// Seq returns the seq the stream has come to: every event of the project
// up to it was delivered. Resuming after it loses nothing and repeats
// nothing.
func (s *Subscription) Seq() int64 { return s.seq.Load() }

// Close ends the subscription; the channel is closed soon after.
func (s *Subscription) Close() { s.cancel() }

// Subscribe implements cairn.EventService: the project's events after
// the seq after, -1 from now, 0 every event stored, as local.Project's
// Subscribe does on a database. It returns once the server has said where the stream starts
// (Seq). The stream is not resumed by itself when it breaks: Subscribe
// again after Seq. Errors: EINVALID for a seq past the newest event (the
// server's database was replaced), EUNAVAILABLE when the server cannot
// be reached or streams no events (the Unix socket of a server that
// serves no HTTP).
func (p *Project) Subscribe(ctx context.Context, after int64) (cairn.Subscription, error) {
	ctx, cancel := context.WithCancel(ctx)
	target := p.path("/events")
	if after >= 0 {
		target += "?after=" + strconv.FormatInt(after, 10)
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, patientKey{}, true), http.MethodGet, target, nil)
	if err != nil {
		cancel()
		return nil, cairn.WrapError(cairn.EINVALID, err, "building the request")
	}
	req.Header.Set("Accept", "text/event-stream")
	if p.c.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.c.token)
	}
	if !p.now.IsZero() {
		req.Header.Set(wire.NowHeader, wire.FormatTime(p.now))
	}
	resp, err := p.c.patient.Do(req)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "the cairn server does not answer")
	}
	if resp.StatusCode >= 300 {
		defer cancel()
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the cairn server streams no events here (a server started without HTTP serves none)")
		}
		return nil, errorOf(resp)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		resp.Body.Close()
		cancel()
		return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the server answered %q, not an event stream", ct)
	}
	s := &Subscription{ch: make(chan cairn.Event, 64), cancel: cancel}
	r := &frameReader{sc: bufio.NewScanner(resp.Body)}
	r.sc.Buffer(make([]byte, 64<<10), 4<<20)
	// The first frame says where the stream starts.
	f, err := r.next()
	if err != nil || f.event != "" || f.id == "" {
		resp.Body.Close()
		cancel()
		return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the event stream did not start with its seq")
	}
	start, err := strconv.ParseInt(f.id, 10, 64)
	if err != nil {
		resp.Body.Close()
		cancel()
		return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the event stream started with a bad seq %q", f.id)
	}
	s.seq.Store(start)
	go func() {
		defer close(s.ch)
		defer resp.Body.Close()
		s.err = s.read(ctx, r)
		if ctx.Err() != nil {
			s.err = nil // ended by its context or Close
		}
	}()
	return s, nil
}

// read delivers the stream's events until it ends, and says why.
func (s *Subscription) read(ctx context.Context, r *frameReader) error {
	for {
		f, err := r.next()
		if err != nil {
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "the event stream broke off after seq %d", s.Seq())
		}
		switch f.event {
		case "":
			if seq, err := strconv.ParseInt(f.id, 10, 64); err == nil && f.id != "" {
				s.seq.Store(seq)
			}
			continue
		case "shutdown":
			return cairn.Errorf(cairn.EUNAVAILABLE, "the cairn server shut down; its events go on after seq %d", s.Seq())
		case "error":
			var body struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if json.Unmarshal([]byte(f.data), &body) != nil || body.Error.Code == "" {
				return cairn.Errorf(cairn.EUNAVAILABLE, "the event stream ended with an error it did not say")
			}
			return cairn.Errorf(body.Error.Code, "%s", body.Error.Message)
		}
		var ev wire.Event
		if err := json.Unmarshal([]byte(f.data), &ev); err != nil {
			return cairn.Errorf(cairn.EUNAVAILABLE, "an event of the stream is not cairn's JSON: %v", err)
		}
		select {
		case s.ch <- ev.ToEvent():
			s.seq.Store(ev.Seq)
		case <-ctx.Done():
			return nil
		}
	}
}

// frame is one server-sent event as read: its fields, comments dropped.
type frame struct{ id, event, data string }

// frameReader reads the frames of a text/event-stream.
type frameReader struct{ sc *bufio.Scanner }

// next returns the next frame; an error when the stream ends.
func (r *frameReader) next() (frame, error) {
	var f frame
	seen := false
	for r.sc.Scan() {
		line := r.sc.Text()
		if line == "" {
			if seen {
				return f, nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // a comment: keep-alive
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		seen = true
		switch name {
		case "id":
			f.id = value
		case "event":
			f.event = value
		case "data":
			if f.data != "" {
				f.data += "\n"
			}
			f.data += value
		}
	}
	if err := r.sc.Err(); err != nil {
		return f, err
	}
	return f, errStreamEnded
}

var errStreamEnded = cairn.Errorf(cairn.EUNAVAILABLE, "the stream ended")
