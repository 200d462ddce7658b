package main

import (
	"context"
	"sync"
	"time"
)

// cairn serve's soft memory limit (runtime/debug.SetMemoryLimit). With
// the Go runtime's default (GOGC=100) the heap grows to about twice what
// is live before a collection, what the engine keeps (its caches and
// vector indexes) and what the requests in flight hold alike, so a server
// whose caches hold 30 MiB grows to over 60 MiB, and more while many
// requests run. The limit keeps the runtime's memory near what the
// engine keeps (Engine.ResidentBytes) plus serveMemoryRoom for everything
// else, and follows the caches as they fill: the runtime collects sooner
// when the heap nears it and exceeds it rather than fail (an import
// through the server, which holds more for a while). A GOMEMLIMIT in the
// environment is the user's limit: the server leaves it alone.
const (
	serveMemoryRoom  = 64 << 20
	serveMemoryEvery = 10 * time.Second
)

// serveMemoryLimit is the limit for a server whose engine keeps resident
// bytes.
func serveMemoryLimit(resident int64) int64 { return resident + serveMemoryRoom }

// limitMemory sets the runtime's memory limit from resident (through set,
// debug.SetMemoryLimit's signature) now and every serveMemoryEvery until
// the returned stop is called, which puts the limit found at the start
// back. With GOMEMLIMIT set in getenv it does nothing.
func limitMemory(ctx context.Context, getenv func(string) string, resident func() int64, set func(int64) int64) (stop func()) {
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prior := set(-1) // a negative limit reads the current one
	set(serveMemoryLimit(resident()))
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(serveMemoryEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				set(serveMemoryLimit(resident()))
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
		set(prior)
	}
}
