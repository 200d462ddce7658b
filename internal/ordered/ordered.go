// Package ordered maps a sequence over several goroutines and yields the
// results in the order of the input: the work of a stage that is done one
// item at a time (decoding, analysis) spreads over the machine's cores
// while the stage after it still sees the items as they came.
package ordered

import "iter"

// Map returns the sequence of f(x) for each x of in, in the order of in.
// Items are taken from in in chunks of chunk, and workers goroutines apply
// f to whole chunks, so f must be safe to call from several goroutines at
// once; each f(x) runs exactly once. With workers ≤ 1 it is a plain loop
// on the caller's goroutine.
//
// Reading in runs on a goroutine of its own, ahead of the consumer by at
// most a few chunks per worker. When the consumer stops early, the
// goroutines end after the chunk they are in and the item in is yielding
// (a source blocked in a read holds its goroutine until the read returns).
func Map[T, U any](in iter.Seq[T], workers, chunk int, f func(T) U) iter.Seq[U] {
	if workers <= 1 {
		return func(yield func(U) bool) {
			for x := range in {
				if !yield(f(x)) {
					return
				}
			}
		}
	}
	chunk = max(chunk, 1)
	return func(yield func(U) bool) {
		type job struct {
			in   []T
			out  []U
			done chan struct{}
		}
		// Chunks go to the workers through jobs and, in the same order, to
		// the consumer through queue, which bounds how far reading runs
		// ahead. A chunk enters queue before jobs, so the chunk the
		// consumer waits for is always with a worker or in jobs.
		jobs := make(chan *job, workers)
		queue := make(chan *job, 2*workers)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			defer close(jobs)
			defer close(queue)
			send := func(xs []T) bool {
				j := &job{in: xs, done: make(chan struct{})}
				select {
				case queue <- j:
				case <-stop:
					return false
				}
				select {
				case jobs <- j:
				case <-stop:
					return false
				}
				return true
			}
			xs := make([]T, 0, chunk)
			for x := range in {
				if xs = append(xs, x); len(xs) == chunk {
					if !send(xs) {
						return
					}
					xs = make([]T, 0, chunk)
				}
			}
			if len(xs) > 0 {
				send(xs)
			}
		}()
		for range workers {
			go func() {
				for j := range jobs {
					j.out = make([]U, len(j.in))
					for i, x := range j.in {
						j.out[i] = f(x)
					}
					j.in = nil
					close(j.done)
				}
			}()
		}
		for j := range queue {
			<-j.done
			for _, u := range j.out {
				if !yield(u) {
					return
				}
			}
		}
	}
}
