package engine

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"
)

// Live events: every write appends activity entries (see RecordUse,
// AddMemory …), and an entry is an event (cairn.Event, its Seq the
// entry's id). Subscribe delivers a project's events as they are written,
// by this process or any other sharing the store.
//
// How: while anyone subscribes, one goroutine per engine (the feed) asks
// the store every EventPoll whether anything was committed (SQLite's
// data_version: a cheap check), and when something was, reads the
// entries after the last one it read (by primary key) into a ring of the
// latest ringSize events, then wakes the subscriptions. Each subscription
// has a goroutine of its own that copies its project's events from the
// ring to its channel; a subscription that falls behind the ring (a slow
// reader, or a resume from an old seq) reads its project's events from
// the store instead, until it has caught up. So one slow reader delays
// only itself, memory stays bounded, and nothing is dropped.

// DefaultEventPoll is how often the feed checks the store for writes
// while anyone subscribes.
const DefaultEventPoll = 20 * time.Millisecond

// ringSize is how many of the latest events the feed keeps for its
// subscriptions; eventPage how many a subscription reads from the store
// at once when it is behind the ring.
const (
	ringSize  = 4096
	eventPage = 512
)

// Subscription is a live stream of one project's events; see Subscribe.
type Subscription struct {
	ch     chan cairn.Event
	seq    atomic.Int64
	err    error // set before ch is closed
	cancel context.CancelFunc
}

// Events returns the channel the events arrive on. It is closed when the
// subscription ends: its context ended, Close was called, or the store
// failed (Err says which).
func (s *Subscription) Events() <-chan cairn.Event { return s.ch }

// Err returns why the channel was closed: nil when the context ended or
// Close was called, the store's error otherwise. Call it after the
// channel is closed.
func (s *Subscription) Err() error { return s.err }

// Seq is how far the subscription has delivered: every event of its
// project with a Seq up to this one has been received from the channel
// (or came before the subscription's start). Resuming after Seq loses
// nothing and repeats nothing. It may be greater than the last event
// received, since other projects' events advance it too.
func (s *Subscription) Seq() int64 { return s.seq.Load() }

// Close ends the subscription; the channel is closed soon after.
func (s *Subscription) Close() { s.cancel() }

// Subscribe streams the events of project with a Seq greater than after,
// in Seq order, each once: first those already stored, then each new one
// as it is written, by this process or another sharing the store
// (detected within about EventPoll). after < 0 means from now: only
// events written after the call. The subscription ends when ctx ends or
// Close is called.
//
// Delivery is ordered and exactly once within a subscription; across
// subscriptions, resuming after the Seq of the last event received (or
// Subscription.Seq) continues with nothing lost and nothing repeated.
// The channel is unbuffered: a subscriber that does not read holds up
// only its own subscription, which catches up from the store when it
// reads again (nothing is dropped, and the feed's memory stays bounded).
//
// Errors: EINVALID for a bad project, or an after greater than the
// newest stored event's Seq (the database was replaced since that Seq
// was read: resume from 0, or from now).
func (e *Engine) Subscribe(ctx context.Context, project string, after int64) (*Subscription, error) {
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	head, err := e.events.join(ctx)
	if err != nil {
		return nil, err
	}
	if after < 0 || after > head {
		// The feed reads up to a poll late; the store has the last word.
		last, err := e.LastEventSeq(ctx)
		if err == nil && after > last {
			err = cairn.Errorf(cairn.EINVALID, "event %d does not exist (the newest is %d): the database was replaced; resume from 0, or without an event id", after, last)
		}
		if err != nil {
			e.events.leave()
			return nil, err
		}
		if after < 0 {
			after = last
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Subscription{ch: make(chan cairn.Event), cancel: cancel}
	s.seq.Store(after)
	go func() {
		defer e.events.leave()
		defer close(s.ch)
		s.err = e.events.deliver(ctx, project, s)
	}()
	return s, nil
}

// LastEventSeq returns the Seq of the newest event stored, of any
// project (0 when there is none): where a stream "from now" starts.
func (e *Engine) LastEventSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		seq, err = tx.LastEventSeq(ctx)
		return err
	})
	return seq, err
}

// feed reads new events from the store for an engine's subscriptions.
type feed struct {
	store cairn.Store
	poll  time.Duration

	mu      sync.Mutex
	subs    int
	stop    chan struct{} // closed to stop the running poller
	head    int64         // every event up to head has been read
	start   int64         // ring holds every event with start < Seq ≤ head
	ring    []cairn.Event
	changed chan struct{} // closed (and replaced) when head advances
}

func newFeed(store cairn.Store, poll time.Duration) *feed {
	if poll <= 0 {
		poll = DefaultEventPoll
	}
	return &feed{store: store, poll: poll}
}

// join counts a subscriber in, starting the poller for the first, and
// returns the feed's head.
func (f *feed) join(ctx context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == 0 {
		var head int64
		err := f.store.View(ctx, func(tx cairn.Tx) error {
			var err error
			head, err = tx.LastEventSeq(ctx)
			return err
		})
		if err != nil {
			return 0, err
		}
		f.head, f.start, f.ring = head, head, nil
		f.changed = make(chan struct{})
		f.stop = make(chan struct{})
		go f.run(f.stop, head)
	}
	f.subs++
	return f.head, nil
}

// leave counts a subscriber out, stopping the poller after the last.
func (f *feed) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs--
	if f.subs == 0 {
		close(f.stop)
		f.ring = nil
	}
}

// run polls the store until stop is closed.
func (f *feed) run(stop chan struct{}, head int64) {
	versioned := f.store.SupportsDataVersion()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()
	tick := time.NewTicker(f.poll)
	defer tick.Stop()
	seen := int64(-1) // the data version last read in full
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		var v int64
		if versioned {
			var err error
			if v, err = f.store.DataVersion(ctx); err == nil && v == seen {
				continue
			}
		}
		evs, err := f.read(ctx, head)
		if err != nil {
			continue // a busy or closing store: try again at the next tick
		}
		seen = v
		if len(evs) == 0 {
			continue
		}
		head = evs[len(evs)-1].Seq
		f.mu.Lock()
		if f.stop == stop { // not stopped (and restarted) meanwhile
			f.ring = append(f.ring, evs...)
			if n := len(f.ring) - ringSize; n > 0 {
				f.start = f.ring[n-1].Seq
				f.ring = append(f.ring[:0:0], f.ring[n:]...)
			}
			f.head = head
			close(f.changed)
			f.changed = make(chan struct{})
		}
		f.mu.Unlock()
	}
}

// read returns every event after seq, of all projects.
func (f *feed) read(ctx context.Context, seq int64) ([]cairn.Event, error) {
	var out []cairn.Event
	err := f.store.View(ctx, func(tx cairn.Tx) error {
		for {
			evs, err := tx.FindEvents(ctx, cairn.EventFilter{After: seq, Limit: eventPage})
			if err != nil {
				return err
			}
			out = append(out, evs...)
			if len(evs) < eventPage {
				return nil
			}
			seq = evs[len(evs)-1].Seq
		}
	})
	return out, err
}

// deliver sends project's events after s.Seq() to s until ctx ends; it
// returns the store's error when a read fails.
func (f *feed) deliver(ctx context.Context, project string, s *Subscription) error {
	send := func(evs []cairn.Event) bool {
		for _, ev := range evs {
			select {
			case s.ch <- ev:
				s.seq.Store(ev.Seq)
			case <-ctx.Done():
				return false
			}
		}
		return true
	}
	for {
		cursor := s.Seq()
		f.mu.Lock()
		changed, head := f.changed, f.head
		behind := cursor < f.start
		var evs []cairn.Event
		if !behind {
			i := sort.Search(len(f.ring), func(i int) bool { return f.ring[i].Seq > cursor })
			for _, ev := range f.ring[i:] {
				if ev.Project == project {
					evs = append(evs, ev)
				}
			}
		}
		f.mu.Unlock()
		if behind {
			// Catch up from the store, a page at a time.
			var last int64
			err := f.store.View(ctx, func(tx cairn.Tx) error {
				var err error
				if evs, err = tx.FindEvents(ctx, cairn.EventFilter{Project: project, After: cursor, Limit: eventPage}); err != nil {
					return err
				}
				last, err = tx.LastEventSeq(ctx)
				return err
			})
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return err
			}
			if !send(evs) {
				return nil
			}
			if len(evs) < eventPage && last > s.Seq() {
				s.seq.Store(last) // nothing more of the project up to last
			}
			continue
		}
		if !send(evs) {
			return nil
		}
		if head > s.Seq() {
			s.seq.Store(head)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}
