// Package testsignal lets a background job tell a test that it reached a
// point (a batch written, a run done), so that the test waits for that
// instead of sleeping. A Signal does nothing until a test calls Init: in
// a running program its sends cost a nil check.
package testsignal

import "time"

// Timeout is how long Wait waits: long, since a shared machine under load
// may take seconds, and a test that times out has failed anyway.
const Timeout = 20 * time.Second

// TB is the part of testing.TB a Signal uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Signal carries values of T from a job to a test. The zero value is off.
type Signal[T any] struct {
	ch chan T
}

// Init turns the signal on; call it before the job starts.
func (s *Signal[T]) Init() { s.ch = make(chan T, 1024) }

// Signal sends v when the signal is on. It never blocks the job: a test
// that lets more than 1024 values pile up unread loses the newest.
func (s *Signal[T]) Signal(v T) {
	if s.ch == nil {
		return
	}
	select {
	case s.ch <- v:
	default:
	}
}

// Wait returns the next value, failing tb after Timeout.
func (s *Signal[T]) Wait(tb TB) T {
	tb.Helper()
	select {
	case v := <-s.ch:
		return v
	case <-time.After(Timeout):
		tb.Fatalf("testsignal: no signal within %v", Timeout)
	}
	var zero T
	return zero
}

// Empty reports whether no value is waiting.
func (s *Signal[T]) Empty() bool { return len(s.ch) == 0 }
