package latency

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"
)

// evictBytes is what each of Evict's readers reads: twice the machine's
// last-level cache (32 MiB here), so that none of what a call touched
// before is left in any cache, nor in the TLB.
const evictBytes = 64 << 20

var evict struct {
	once sync.Once
	bufs [][]byte
	sink []uint64
}

// Evict leaves the caches as a long idle leaves them: one reader per
// GOMAXPROCS, each on its own 64 MiB buffer (written once, so that its
// pages are distinct memory, then only read, so that the lines it leaves
// behind are clean and cost no write-back), reads a byte of every cache
// line, in parallel, so that every core's L1 and L2 and the shared L3
// hold only the buffers' lines. It takes some milliseconds.
func Evict() {
	n := runtime.GOMAXPROCS(0)
	evict.once.Do(func() {
		evict.bufs = make([][]byte, n)
		evict.sink = make([]uint64, n*8) // a cache line each
		for i := range evict.bufs {
			evict.bufs[i] = make([]byte, evictBytes)
			for j := range evict.bufs[i] {
				evict.bufs[i][j] = byte(j*31 + i)
			}
		}
	})
	var wg sync.WaitGroup
	for i := range min(n, len(evict.bufs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s uint64
			buf := evict.bufs[i]
			for j := 0; j < len(buf); j += 64 {
				s += uint64(buf[j])
			}
			evict.sink[i*8] = s
		}()
	}
	wg.Wait()
}

// BenchCold is BenchFresh with the caches evicted (Evict, untimed)
// before every measured call: the latency of a call that comes after a
// long idle, as an agent's hooks come seconds apart, when every cache
// line the call touches, of data or of code, is a miss. It reports
// p50-ms and p99-ms of those calls; cpu-ms, the process's CPU time
// during the calls (not the evictions) per call; and goroutines/op, the
// goroutines started per call (each start wakes a thread on another
// core, whose caches are as cold).
func BenchCold(b *testing.B, warm, queries []string, call func(q string)) {
	b.Helper()
	BenchColdAfter(b, warm, queries, nil, call)
}

// BenchColdAfter is BenchCold with idle run (untimed, unless nil) before
// each eviction: what happens between two calls, such as the writing of
// the uses of the call before, which makes SQLite's readers drop their
// page caches.
func BenchColdAfter(b *testing.B, warm, queries []string, idle func(), call func(q string)) {
	b.Helper()
	for _, q := range warm {
		call(q)
	}
	Evict()
	durs := make([]time.Duration, 0, max(b.N, len(queries)))
	var cpu time.Duration
	var goroutines uint64
	i := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if idle != nil {
			idle()
		}
		Evict()
		b.StartTimer()
		q := queries[i%len(queries)]
		i++
		g0 := goroutinesCreated()
		c0 := ProcessCPU()
		t0 := time.Now()
		call(q)
		durs = append(durs, time.Since(t0))
		cpu += ProcessCPU() - c0
		goroutines += goroutinesCreated() - g0
	}
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(max(i, 1)), "cpu-ms")
	b.ReportMetric(float64(goroutines)/float64(max(i, 1)), "goroutines/op")
	slices.Sort(durs)
	b.ReportMetric(PercentileMS(durs, 50), "p50-ms")
	b.ReportMetric(PercentileMS(durs, 99), "p99-ms")
}

// goroutinesCreated is the number of goroutines the process has started.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
