package postgres

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// DataVersion returns a number that changes whenever any process, on this
// machine or another, commits a write to the store: every Update that
// wrote sends a NOTIFY on the schema's channel at commit, and a connection
// of this store LISTENs to it (started by the first call). While that
// connection is down, and each time it is made again, the number changes
// too, so a cache or an event feed that compares it re-reads rather than
// miss a write: the events themselves are read from the activity table by
// sequence number, so a lost notification delays them, never loses them.
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	s.listenOnce.Do(s.startListening)
	return s.version.Load(), nil
}

// startListening runs the listener until Close.
func (s *Store) startListening() {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopListen = cancel
	s.listenDone = make(chan struct{})
	s.version.Add(1)
	ready := make(chan struct{})
	go func() {
		defer close(s.listenDone)
		s.listen(ctx, ready)
	}()
	// Wait briefly for LISTEN, so that a write right after the first call
	// is noticed; the version bump above covers the rest.
	select {
	case <-ready:
	case <-time.After(2 * time.Second):
	}
}

// listen holds one connection in LISTEN, reconnecting with a backoff;
// ready is closed once the first LISTEN succeeded or failed.
func (s *Store) listen(ctx context.Context, ready chan struct{}) {
	backoff := 50 * time.Millisecond
	once := func() {
		select {
		case <-ready:
		default:
			close(ready)
		}
	}
	defer once()
	for ctx.Err() == nil {
		err := s.listenOnceConn(ctx, once)
		// Whatever happened, writes may have been missed meanwhile.
		s.version.Add(1)
		once()
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			backoff = 50 * time.Millisecond
		}
		// While the connection is down, callers see a version that moves,
		// and so poll the table themselves.
		deadline := time.Now().Add(backoff)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			s.version.Add(1)
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (s *Store) listenOnceConn(ctx context.Context, listening func()) error {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return translate(err, "listen")
	}
	// The connection leaves the pool for good: a LISTEN connection must
	// not serve other queries.
	conn := c.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+quoteIdent(s.channel)); err != nil {
		return translate(err, "listen")
	}
	s.version.Add(1) // anything committed before LISTEN is read now
	listening()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "listen")
		}
		s.version.Add(1)
	}
}

func quoteIdent(s string) string {
	return `"` + s + `"` // channel names are made of [a-z0-9_] here
}
