package jobs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/internal/testsignal"
)

// How a long-running process (cairn serve, cairn mcp) writes the use of
// the memories its contexts showed. Each write is a commit, with a cost of
// its own besides its uses' (the log's pages, checkpoints), so uses are
// gathered and written in one transaction every FlushWait (or every
// BatchMax contexts). A write of uses leaves the rows version as it is
// (sqlite.Store.RowsVersion): the engine's kept rows, tiers and searches
// stay; a fold changes it. A process killed outright (SIGKILL, a crash)
// loses what it had not written yet: never more than the uses of the
// contexts answered in the last MaxAge, because a context that would make
// the oldest unwritten use older than that, or the unwritten uses more
// than MaxUnwritten, waits for the write in progress before it is
// answered.
//
// On a store that keeps a use queue (SQLite, PostgreSQL), a write adds the
// uses' activity entries and appends the uses to the queue
// (engine.Engine.QueueUses); their use counts, last uses and confidence
// boosts are applied to the memories every FoldWait (or every FoldMax
// queued uses), and when the writer closes (engine.Engine.FoldOldestUses).
// Applied one by one, each use rewrote a memory's row and about eight
// pages of the indexes on use count, last use and confidence; folded, a
// memory's row and entries are rewritten once for all its uses since, and
// those of many memories share their pages. A fold applies the queue
// FoldStep uses at a time, a transaction each, and writes the uses
// recorded meanwhile between two steps: at a million memories a fold of
// 5 s of uses takes seconds, and contexts would otherwise be held back
// behind it (MaxAge). Each step costs a commit of its own (at a million
// memories a fold of 7,600 uses took 0.9 s of CPU whole, 1.1 s in two
// steps, 1.4 s in eight), so a step is large, and a fold of fewer uses is
// one transaction. A written use is as lasting as before: a process killed
// before it folds leaves its queue to the next fold (the next writer folds
// when it starts, a cleanup before it judges a page). Until it is folded,
// a use shows in the activity log and counts as shown in its session, but
// not yet in its memory's use count, last use and confidence, nor in the
// listings ordered by them: FoldWait later at most, while the process
// runs.

// Defaults of UseWriterConfig.
const (
	DefaultUseFlushWait    = 500 * time.Millisecond
	DefaultUseMaxAge       = time.Second
	DefaultUseBatchMax     = 256
	DefaultUseMaxUnwritten = 1024
	DefaultUseFoldWait     = 5 * time.Second
	DefaultUseFoldMax      = 65536
	DefaultUseFoldStep     = 4096
)

// UseWriterConfig tunes a UseWriter; zero values take the defaults.
type UseWriterConfig struct {
	FlushWait    time.Duration // how long a use waits for others to share its write
	MaxAge       time.Duration // how old the oldest unwritten use may get before new ones wait
	BatchMax     int           // uses that make a write due at once
	MaxUnwritten int           // unwritten uses that make new ones wait
	FoldWait     time.Duration // how long a written use may wait in the queue before it is applied to its memory
	FoldMax      int           // queued uses that make a fold due at once
	FoldStep     int           // queued uses a fold applies in one transaction, writing what was recorded meanwhile between two
	// Log receives a line for each write that failed; nil: none.
	Log io.Writer
	// Now is the clock of the ages above; nil: time.Now.
	Now func() time.Time

	TestSignals UseWriterTestSignals
}

// UseWriterTestSignals tell a test what the writer did.
type UseWriterTestSignals struct {
	// Wrote gets the number of uses of each write, failed or not.
	Wrote testsignal.Signal[int]
	// Folded gets the number of queued uses each fold applied, -1 for a
	// fold that failed.
	Folded testsignal.Signal[int]
	// Held gets the number of unwritten uses each time a Record starts
	// waiting for the write in progress.
	Held testsignal.Signal[int]
}

// Init turns every signal on.
func (ts *UseWriterTestSignals) Init() {
	ts.Wrote.Init()
	ts.Folded.Init()
	ts.Held.Init()
}

// UseWriter gathers the use records of contexts and writes them in
// batches on its own goroutine. Its methods are safe for concurrent use.
type UseWriter struct {
	eng *engine.Engine
	cfg UseWriterConfig

	mu         sync.Mutex
	written    *sync.Cond // broadcast after each write and on close
	pending    []engine.Use
	pendingAt  time.Time // when the first pending use came
	inflight   int       // uses being written
	inflightAt time.Time // when the first of them came
	closed     bool
	wake       chan struct{} // the writer has something to do
	done       chan struct{} // the writer has stopped

	// Of the writer goroutine only: the uses it queued since its last
	// fold, and when the first of them was written.
	queued   int
	queuedAt time.Time
}

// NewUseWriter starts the writer of eng's uses (cfg nil: defaults). Close
// it to write what is left and stop.
func NewUseWriter(eng *engine.Engine, cfg *UseWriterConfig) *UseWriter {
	var c UseWriterConfig
	if cfg != nil {
		c = *cfg
	}
	c.FlushWait = cmp.Or(c.FlushWait, DefaultUseFlushWait)
	c.MaxAge = cmp.Or(c.MaxAge, DefaultUseMaxAge)
	c.BatchMax = cmp.Or(c.BatchMax, DefaultUseBatchMax)
	c.MaxUnwritten = cmp.Or(c.MaxUnwritten, DefaultUseMaxUnwritten)
	c.FoldWait = cmp.Or(c.FoldWait, DefaultUseFoldWait)
	c.FoldMax = cmp.Or(c.FoldMax, DefaultUseFoldMax)
	c.FoldStep = cmp.Or(c.FoldStep, DefaultUseFoldStep)
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	w := &UseWriter{eng: eng, cfg: c, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.written = sync.NewCond(&w.mu)
	go w.run()
	return w
}

func (w *UseWriter) kick() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// behind reports whether a new use must wait for the write in progress;
// call with w.mu held.
func (w *UseWriter) behind(now time.Time) bool {
	oldest := w.pendingAt
	if w.inflight > 0 {
		oldest = w.inflightAt
	} else if len(w.pending) == 0 {
		return false
	}
	return now.Sub(oldest) >= w.cfg.MaxAge || len(w.pending)+w.inflight >= w.cfg.MaxUnwritten
}

// add queues u, first waiting while the writer is behind; it reports
// false, queueing nothing, once the writer is closed.
func (w *UseWriter) add(u engine.Use) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.closed && w.behind(w.cfg.Now()) {
		w.cfg.TestSignals.Held.Signal(len(w.pending) + w.inflight)
		w.written.Wait()
	}
	if w.closed {
		return false
	}
	w.pending = append(w.pending, u)
	if len(w.pending) == 1 {
		w.pendingAt = w.cfg.Now()
		w.kick()
	} else if len(w.pending) >= w.cfg.BatchMax {
		w.kick()
	}
	return true
}

// Record queues a context's use of ids in session, at the engine's time;
// once the writer is closed it writes the use at once. It is
// recall.Recorder's signature.
//
// The use counts as shown in its session at once, before it is written
// (engine.Engine.NoteShown): the session's next block, answered a moment
// later, does not show the same memories again.
func (w *UseWriter) Record(ctx context.Context, ids []string, session string) error {
	u := engine.Use{IDs: ids, Session: session, At: w.eng.Now()}
	w.eng.NoteShown(u)
	if w.add(u) {
		return nil
	}
	err := w.eng.RecordUses(ctx, []engine.Use{u})
	w.eng.UnnoteShown([]engine.Use{u})
	return err
}

// Close writes what is pending, applies what is queued, and stops the
// writer; later records are written (and applied) at once.
func (w *UseWriter) Close() {
	w.mu.Lock()
	w.closed = true
	w.written.Broadcast()
	w.mu.Unlock()
	w.kick()
	<-w.done
}

func (w *UseWriter) run() {
	defer close(w.done)
	// What a process killed before its fold left queued.
	w.fold()
	fold := time.NewTimer(time.Hour)
	fold.Stop()
	defer fold.Stop()
	for {
		var foldDue <-chan time.Time
		if w.queued > 0 {
			fold.Reset(w.cfg.FoldWait - w.cfg.Now().Sub(w.queuedAt))
			foldDue = fold.C
		}
		select {
		case <-w.wake:
		case <-foldDue:
			w.fold()
			continue
		}
		fold.Stop()
		w.mu.Lock()
		if len(w.pending) == 0 {
			closed := w.closed
			w.mu.Unlock()
			if closed {
				w.fold()
				return
			}
			continue
		}
		at, due := w.pendingAt, w.closed || len(w.pending) >= w.cfg.BatchMax
		w.mu.Unlock()
		if !due {
			timer := time.NewTimer(w.cfg.FlushWait - w.cfg.Now().Sub(at))
			select {
			case <-timer.C:
			case <-w.wake: // full, or closing
			}
			timer.Stop()
		}
		w.runOnce(at)
		if w.queued >= w.cfg.FoldMax || w.queued > 0 && w.cfg.Now().Sub(w.queuedAt) >= w.cfg.FoldWait {
			w.fold()
		}
	}
}

// fold applies the queued uses, FoldStep at a time, each step a
// transaction of its own; after a failure it tries again FoldWait later.
// Between two steps it writes the uses recorded meanwhile: a fold of a
// long queue takes seconds at a million memories, and a Record that found
// the oldest unwritten use MaxAge old would otherwise wait for all of it.
// The steps go on until the queue is empty, those uses included.
func (w *UseWriter) fold() {
	n := 0
	for {
		step, more, err := w.eng.FoldOldestUses(context.Background(), w.cfg.FoldStep)
		n += step
		if err != nil || !more {
			w.folded(n, err)
			return
		}
		w.mu.Lock()
		pending, at := len(w.pending) > 0, w.pendingAt
		w.mu.Unlock()
		if pending {
			w.runOnce(at)
		}
	}
}

// folded ends a fold that applied n uses, or failed with err.
func (w *UseWriter) folded(n int, err error) {
	if err != nil {
		fmt.Fprintf(w.cfg.Log, "cairn: applying the queued uses of memories: %s\n", cairn.ErrorMessage(err))
		if w.queued > 0 {
			w.queuedAt = w.cfg.Now()
		}
		w.cfg.TestSignals.Folded.Signal(-1)
		return
	}
	w.queued, w.queuedAt = 0, time.Time{}
	w.cfg.TestSignals.Folded.Signal(n)
}

// runOnce writes what is pending as one batch, the first of it queued at
// at.
func (w *UseWriter) runOnce(at time.Time) {
	w.mu.Lock()
	batch := w.pending
	w.pending, w.inflight, w.inflightAt = nil, len(batch), at
	w.mu.Unlock()
	// A copy: RecordUses normalizes what it is given (ids, a session
	// with a secret redacted), and the batch must name the sessions as
	// they were noted and queued.
	if n, err := w.eng.QueueUses(context.Background(), slices.Clone(batch)); err != nil {
		fmt.Fprintf(w.cfg.Log, "cairn: recording the use of memories: %s\n", cairn.ErrorMessage(err))
	} else if n > 0 {
		if w.queued == 0 {
			w.queuedAt = w.cfg.Now()
		}
		w.queued += n
	}
	// Written (or lost): the log has them now, or never will.
	w.eng.UnnoteShown(batch)
	w.cfg.TestSignals.Wrote.Signal(len(batch))
	w.mu.Lock()
	w.inflight, w.inflightAt = 0, time.Time{}
	w.written.Broadcast()
	if len(w.pending) > 0 || w.closed {
		w.kick()
	}
	w.mu.Unlock()
}
