package server

import (
	"sync"
	"testing"
	"time"
)

// waitIdle waits until h has n idle workers.
func waitIdle(t *testing.T, h *hookWorkers, n int32) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); h.idle.Load() != n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d idle hook workers, want %d", h.idle.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A worker that built one answer builds the next; calls at once each get
// a worker; no more than maxIdleHookWorkers wait after them, and none
// once the server is done.
func TestHookWorkersAreKeptAndEnd(t *testing.T) {
	h := &hookWorkers{jobs: make(chan func())}
	done := make(chan struct{})
	ran := make(chan struct{}, 1)
	h.run(done, func() { ran <- struct{}{} })
	<-ran
	waitIdle(t, h, 1)
	// The idle worker takes the next job: while it runs, none is idle.
	h.run(done, func() {
		if n := h.idle.Load(); n != 0 {
			t.Errorf("%d idle workers while the only one works", n)
		}
		ran <- struct{}{}
	})
	<-ran
	waitIdle(t, h, 1)

	const calls = 3 * maxIdleHookWorkers
	var started, release sync.WaitGroup
	started.Add(calls)
	release.Add(1)
	for range calls {
		h.run(done, func() {
			started.Done()
			release.Wait() // every call at once: each has its own worker
		})
	}
	started.Wait()
	release.Done()
	waitIdle(t, h, maxIdleHookWorkers)
	close(done)
	waitIdle(t, h, 0)
}
