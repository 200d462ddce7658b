package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// How a long-running process (cairn serve, cairn mcp) writes the use of
// the memories its contexts showed. Each write changes the database, which
// drops the cached tiers of every context, so uses are gathered and
// written in one transaction every useFlushWait (or every useBatchMax
// contexts). A process killed outright (SIGKILL, a crash) loses what it
// had not written yet: never more than the uses of the contexts answered
// in the last useMaxAge, because a context that would make the oldest
// unwritten use older than that, or the unwritten uses more than
// useMaxUnwritten, waits for the write in progress before it is answered.
const (
	useFlushWait    = 500 * time.Millisecond
	useMaxAge       = time.Second
	useBatchMax     = 256
	useMaxUnwritten = 1024
)

// useQueue gathers use records and writes them in batches on its own
// goroutine. Its methods are safe for concurrent use.
type useQueue struct {
	eng  *engine.Engine
	errw io.Writer

	mu         sync.Mutex
	written    *sync.Cond // broadcast after each write and on close
	pending    []engine.Use
	pendingAt  time.Time // when the first pending use came
	inflight   int       // uses being written
	inflightAt time.Time // when the first of them came
	closed     bool
	wake       chan struct{} // the writer has something to do
	done       chan struct{} // the writer has stopped
}

// newUseQueue starts the writer of eng's uses; errors go to errw. Close
// it to write what is left and stop.
func newUseQueue(eng *engine.Engine, errw io.Writer) *useQueue {
	q := &useQueue{eng: eng, errw: errw, wake: make(chan struct{}, 1), done: make(chan struct{})}
	q.written = sync.NewCond(&q.mu)
	go q.run()
	return q
}

func (q *useQueue) kick() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// behind reports whether a new use must wait for the write in progress;
// call with q.mu held.
func (q *useQueue) behind(now time.Time) bool {
	oldest := q.pendingAt
	if q.inflight > 0 {
		oldest = q.inflightAt
	} else if len(q.pending) == 0 {
		return false
	}
	return now.Sub(oldest) >= useMaxAge || len(q.pending)+q.inflight >= useMaxUnwritten
}

// add queues u, first waiting while the writer is behind; it reports
// false, queueing nothing, once the queue is closed.
func (q *useQueue) add(u engine.Use) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.behind(time.Now()) {
		q.written.Wait()
	}
	if q.closed {
		return false
	}
	q.pending = append(q.pending, u)
	if len(q.pending) == 1 {
		q.pendingAt = time.Now()
		q.kick()
	} else if len(q.pending) >= useBatchMax {
		q.kick()
	}
	return true
}

// record queues a context's use of ids, or writes it at once when the
// queue is closed.
func (q *useQueue) record(ctx context.Context, ids []string, session string) error {
	u := engine.Use{IDs: ids, Session: session, At: q.eng.Now()}
	if q.add(u) {
		return nil
	}
	return q.eng.RecordUses(ctx, []engine.Use{u})
}

// Close writes what is pending and stops the writer; later records are
// written at once.
func (q *useQueue) Close() {
	q.mu.Lock()
	q.closed = true
	q.written.Broadcast()
	q.mu.Unlock()
	q.kick()
	<-q.done
}

func (q *useQueue) run() {
	defer close(q.done)
	for range q.wake {
		q.mu.Lock()
		if len(q.pending) == 0 {
			closed := q.closed
			q.mu.Unlock()
			if closed {
				return
			}
			continue
		}
		at, due := q.pendingAt, q.closed || len(q.pending) >= useBatchMax
		q.mu.Unlock()
		if !due {
			timer := time.NewTimer(time.Until(at.Add(useFlushWait)))
			select {
			case <-timer.C:
			case <-q.wake: // full, or closing
			}
			timer.Stop()
		}
		q.mu.Lock()
		batch := q.pending
		q.pending, q.inflight, q.inflightAt = nil, len(batch), at
		q.mu.Unlock()
		if err := q.eng.RecordUses(context.Background(), batch); err != nil {
			fmt.Fprintf(q.errw, "cairn: recording the use of memories: %s\n", cairn.ErrorMessage(err))
		}
		q.mu.Lock()
		q.inflight, q.inflightAt = 0, time.Time{}
		q.written.Broadcast()
		if len(q.pending) > 0 || q.closed {
			q.kick()
		}
		q.mu.Unlock()
	}
}
