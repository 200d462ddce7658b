// Package latency measures the latency of single calls in Go benchmarks
// and reports its percentiles, which an average per operation hides.
package latency

import (
	"math"
	"slices"
	"testing"
	"time"
)

// Bench calls call once with each query to warm up, then once per
// benchmark iteration, cycling through queries, and reports the p50-ms and
// p99-ms metrics of those calls, and cpu-ms: the process's CPU time (user
// and system, every thread, the garbage collector's too) per call, which
// moves much less than the wall-clock figures with the machine's load.
func Bench(b *testing.B, queries []string, call func(q string)) {
	b.Helper()
	BenchFresh(b, queries, queries, call)
}

// PercentileMS is the nearest-rank percentile of sorted durations, in
// milliseconds: the smallest value with at least p% of them at or below
// it; 0 for none.
func PercentileMS(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := min(max(int(math.Ceil(p/100*float64(len(sorted)))), 1), len(sorted))
	return float64(sorted[k-1]) / float64(time.Millisecond)
}

// BenchFresh is Bench for calls that a process keeps answers to: it warms
// up with the warm queries, then measures each benchmark iteration with
// the next of queries, so that no measured query was asked before while
// b.N ≤ len(queries) (beyond that they cycle).
func BenchFresh(b *testing.B, warm, queries []string, call func(q string)) {
	b.Helper()
	for _, q := range warm {
		call(q)
	}
	durs := make([]time.Duration, 0, max(b.N, len(queries)))
	i := 0
	b.ResetTimer()
	cpu0 := ProcessCPU()
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		t0 := time.Now()
		call(q)
		durs = append(durs, time.Since(t0))
	}
	b.ReportMetric(float64(ProcessCPU()-cpu0)/float64(time.Millisecond)/float64(max(i, 1)), "cpu-ms")
	slices.Sort(durs)
	b.ReportMetric(PercentileMS(durs, 50), "p50-ms")
	b.ReportMetric(PercentileMS(durs, 99), "p99-ms")
}
