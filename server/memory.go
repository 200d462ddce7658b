package server

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// The server's soft memory limit (runtime/debug.SetMemoryLimit). With the
// Go runtime's default (GOGC=100) the heap grows to about twice what is
// live before a collection, what the engine keeps (its caches and vector
// indexes) and what the requests in flight hold alike, so a server whose
// caches hold 30 MiB grows to over 60 MiB, and more while many requests
// run. The limit keeps the runtime's memory near what the engine keeps
// (Engine.ResidentBytes) plus room for everything else, and follows the
// caches as they fill: the runtime collects sooner when the heap nears it
// and exceeds it rather than fail (an import through the server, which
// holds more for a while). A GOMEMLIMIT in the environment is the user's
// limit: the server leaves it alone.
//
// The room is memoryRoom while the limit stays within memoryCap, and
// shrinks towards memoryMinRoom as the caches fill beyond it: a server
// whose caches are full (their default bounds, 1,000,000 memories)
// collects more often, about twice as often at 40 MiB of room as at 64,
// so that its resident size stays within 150 MB beside SQLite's memory
// and the binary's pages; a smaller one keeps the full room
// (docs/performance.md).
const (
	memoryRoom    = 64 << 20
	memoryMinRoom = 40 << 20
	memoryCap     = 112 << 20
	memoryEvery   = 10 * time.Second
)

// memoryLimit is the limit for a server whose engine keeps resident bytes.
func memoryLimit(resident int64) int64 {
	return max(resident+memoryMinRoom, min(resident+memoryRoom, memoryCap))
}

// limitMemory sets the runtime's memory limit from resident (through set,
// debug.SetMemoryLimit's signature) now and every memoryEvery until the
// returned stop is called, which puts the limit found at the start back.
// When the user set a limit (userSet) it does nothing.
func limitMemory(userSet bool, resident func() int64, set func(int64) int64) (stop func()) {
	if userSet {
		return func() {}
	}
	prior := set(-1) // a negative limit reads the current one
	set(memoryLimit(resident()))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(memoryEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				set(memoryLimit(resident()))
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
		set(prior)
	}
}

// idleFreeAfter is how long a server that answered requests goes without
// one before it returns the free part of its heap to the operating system
// (freeWhenIdle).
const idleFreeAfter = 2 * time.Second

// freeWhenIdle calls free once whenever requests, a count of the requests
// answered, has changed and then stays the same from one tick to the
// next, until ctx ends. Under load the runtime keeps its heap near the
// soft limit (memoryLimit): what the requests in flight held is garbage
// or free pages it keeps for the next ones. At 1,000,000 memories that
// was 40 MiB of the resident size; returned once the requests stop
// (debug.FreeOSMemory, a collection and the return of the free pages),
// the server's size between bursts is what it keeps, at the cost of one
// collection after each burst.
func freeWhenIdle(ctx context.Context, tick <-chan time.Time, requests func() int64, free func()) {
	last, freed := requests(), true
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		if n := requests(); n != last {
			last, freed = n, false
		} else if !freed {
			free()
			freed = true
		}
	}
}

// freeEachIdle runs freeWhenIdle with debug.FreeOSMemory, ticking every
// idleFreeAfter, until the returned stop is called.
func freeEachIdle(requests func() int64) (stop func()) {
	return ticking(idleFreeAfter, func(ctx context.Context, tick <-chan time.Time) {
		freeWhenIdle(ctx, tick, requests, debug.FreeOSMemory)
	})
}

// ticking runs loop on a goroutine of its own with the ticks of a ticker
// of every, until the returned stop is called, which waits for loop to
// return.
func ticking(every time.Duration, loop func(ctx context.Context, tick <-chan time.Time)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	tick := time.NewTicker(every)
	done := make(chan struct{})
	go func() {
		defer close(done)
		loop(ctx, tick.C)
	}()
	return func() {
		cancel()
		<-done
		tick.Stop()
	}
}

// trimEvery is how often a server that answers requests hands back what
// its store's allocator keeps free (Config.TrimMemory).
const trimEvery = time.Second

// trimTicks says at each tick whether to trim: at every tick that finds
// requests answered since the one before, and at the first that finds
// none, so that what the last requests freed goes back too; an idle
// server does not trim again until requests come.
type trimTicks struct {
	last    int64
	pending bool
}

// due reports whether to trim at a tick where requests, the count of the
// requests answered, reads n.
func (t *trimTicks) due(n int64) bool {
	busy := n != t.last
	due := busy || t.pending
	t.last, t.pending = n, busy
	return due
}

// trimWhileBusy calls trim every trimEvery while requests, the count of
// the requests answered, changes, and once after it stops, until the
// returned stop is called.
func trimWhileBusy(requests func() int64, trim func()) (stop func()) {
	return ticking(trimEvery, func(ctx context.Context, tick <-chan time.Time) {
		t := trimTicks{last: requests()}
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick:
			}
			if t.due(requests()) {
				trim()
			}
		}
	})
}
