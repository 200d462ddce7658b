package server

import (
	"context"
	"testing"
	"time"
)

// After a burst of requests the server returns its free memory once, at
// the first tick that finds no new request; not while requests keep
// coming, and not again until more have come.
func TestServerReturnsFreeMemoryOnceWhenRequestsStop(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	tick := make(chan time.Time)
	counts := make(chan int64) // what each reading of the count returns
	freed := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		freeWhenIdle(ctx, tick, func() int64 { return <-counts }, func() { freed <- struct{}{} })
	}()
	send := func(ch any, v any) {
		t.Helper()
		switch ch := ch.(type) {
		case chan time.Time:
			select {
			case ch <- time.Time{}:
			case <-freed:
				t.Fatal("free memory returned while requests came, or twice")
			case <-time.After(10 * time.Second):
				t.Fatal("the ticker is not read")
			}
		case chan int64:
			ch <- v.(int64)
		}
	}
	// step is one tick at which the count of requests reads n, and
	// whether the memory is returned then.
	step := func(n int64, free bool) {
		t.Helper()
		send(tick, nil)
		send(counts, n)
		if free {
			select {
			case <-freed:
			case <-time.After(10 * time.Second):
				t.Fatalf("no memory returned at a tick without new requests (count %d)", n)
			}
		}
	}
	send(counts, int64(0)) // at the start
	step(0, false)         // no request yet: nothing to return
	step(3, false)         // requests
	step(7, false)         // more
	step(7, true)          // none since the last tick: returned
	step(7, false)         // still none: returned already
	step(8, false)         // a request
	step(8, true)          // and none since
	send(tick, nil)        // a tick that would read the count again
	cancel()
	send(counts, int64(8))
	select {
	case <-done:
	case <-freed:
		t.Fatal("free memory returned twice without a request between")
	case <-time.After(10 * time.Second):
		t.Fatal("freeWhenIdle did not return when its context ended")
	}
}

// The store's allocator is trimmed at every tick that finds new requests
// and at the first that finds none, and not again while none come.
func TestTrimTicksWhileRequestsCome(t *testing.T) {
	t.Parallel()
	ticks := trimTicks{last: 5}
	for i, c := range []struct {
		requests int64
		due      bool
	}{
		{5, false}, // idle from the start: nothing freed to trim
		{5, false},
		{9, true},  // requests
		{12, true}, // more
		{12, true}, // none since: what the last ones freed
		{12, false},
		{12, false},
		{13, true},
		{13, true},
		{13, false},
	} {
		if got := ticks.due(c.requests); got != c.due {
			t.Errorf("tick %d (count %d): due %v, want %v", i, c.requests, got, c.due)
		}
	}
}

// The room above the caches is memoryRoom while the limit stays within
// memoryCap, and shrinks to no less than memoryMinRoom as they fill.
func TestMemoryLimitRoomShrinksAsTheCachesFill(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	for _, c := range []struct{ resident, want int64 }{
		{0, memoryRoom},
		{20 * mib, 20*mib + memoryRoom},
		{memoryCap - memoryRoom, memoryCap},
		{memoryCap - memoryRoom + 10*mib, memoryCap},
		{memoryCap - memoryMinRoom, memoryCap},
		{memoryCap, memoryCap + memoryMinRoom},
		{200 * mib, 200*mib + memoryMinRoom},
	} {
		if got := memoryLimit(c.resident); got != c.want {
			t.Errorf("memoryLimit(%d MiB) = %d MiB, want %d MiB", c.resident/mib, got/mib, c.want/mib)
		}
	}
}
