package ordered

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

// Tried: fewer items than a chunk, a multiple of the chunk, one more than
// a multiple, an empty input, one worker and several, chunk 0; f slower
// on some items than others, so that chunks finish out of order.
func TestMapKeepsOrderAndCallsOnce(t *testing.T) {
	for _, tc := range []struct{ n, workers, chunk int }{
		{0, 4, 8}, {5, 4, 8}, {64, 4, 8}, {65, 4, 8}, {1000, 3, 7}, {1000, 1, 7}, {100, 2, 0}, {100, 8, 1},
	} {
		var calls atomic.Int64
		f := func(i int) int {
			calls.Add(1)
			if i%13 == 0 {
				time.Sleep(100 * time.Microsecond) // finish later than the next chunk
			}
			return i * 2
		}
		want := 0
		for u := range Map(count(tc.n), tc.workers, tc.chunk, f) {
			if u != want*2 {
				t.Fatalf("%+v: item %d is %d, want %d", tc, want, u, want*2)
			}
			want++
		}
		if want != tc.n {
			t.Errorf("%+v: %d items, want %d", tc, want, tc.n)
		}
		if got := calls.Load(); got != int64(tc.n) {
			t.Errorf("%+v: f called %d times, want %d", tc, got, tc.n)
		}
	}
}

// A consumer that stops early leaves no goroutine behind, and the input
// is read no further than a few chunks ahead.
func TestMapStopsEarly(t *testing.T) {
	before := runtime.NumGoroutine()
	var read atomic.Int64
	in := func(yield func(int) bool) {
		for i := 0; ; i++ { // endless
			read.Add(1)
			if !yield(i) {
				return
			}
		}
	}
	got := 0
	for u := range Map(in, 4, 10, func(i int) int { return i }) {
		if u != got {
			t.Fatalf("item %d is %d", got, u)
		}
		if got++; got == 25 {
			break
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left running (%d before)", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
	// queue (2 per worker) + jobs (1 per worker) + one in hand, per chunk.
	if r := read.Load(); r > 25+(3*4+2)*10 {
		t.Errorf("read %d items ahead of 25 consumed", r)
	}
}
