package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/bench/latency"
	"github.com/cairn-dev/cairn/engine"
)

// BenchmarkRecordUses100k measures what `cairn serve` spends writing the
// use of the memories its contexts showed (engine.RecordUses, as its use
// queue calls it): each iteration is one context's use of 10 memories
// drawn at random from the 100,000, written in batches of 1 to 200
// contexts, one transaction each, on a copy of the corpus's database.
// Besides ns/op (wall time per context) it reports the process's CPU per
// use (cpu-us/use, user and system, checkpoints included) and the bytes
// it wrote to the database and its log per use (write-KiB/use: a page is
// 4 KiB, 4 KiB and 24 bytes in the log). The session variants record
// each context in a session of 20 contexts, as hooks do, so that the
// engine also reads what the session was shown. The queued variants
// write as `cairn serve` does under 10 sessions, each sending a prompt
// every 50 ms (200 contexts a second): batches of 100 contexts (its
// 500 ms FlushWait) to the use queue (engine.QueueUses), folded into
// the memories every 10 batches (its 5 s FoldWait; the folds' CPU is
// counted). batch=100 writes the same batches straight to the memories,
// as it did before the queue.
//
//	CAIRN_BENCH_KEEP=/tmp/bk go test -run '^$' -bench RecordUses100k -benchtime 2000x ./bench/gen
func BenchmarkRecordUses100k(b *testing.B) {
	n := benchN(b)
	for _, batch := range []int{1, 10, 50, 100, 200} {
		b.Run("batch="+strconv.Itoa(batch), func(b *testing.B) { benchUses(b, n, batch, 0, false) })
	}
	b.Run("batch=50/session", func(b *testing.B) { benchUses(b, n, 50, 0, true) })
	b.Run("batch=100/queued", func(b *testing.B) { benchUses(b, n, 100, 10, false) })
	b.Run("batch=100/queued/session", func(b *testing.B) { benchUses(b, n, 100, 10, true) })
}

// benchUses writes batches of batch contexts; with foldEvery > 0 to the
// use queue, folded every foldEvery batches and at the end.
func benchUses(b *testing.B, n, batch, foldEvery int, sessions bool) {
	ctx := context.Background()
	now := benchTime(b)
	st, eng := openBench(b, copyDatabase(b, database(b, n)), 64<<20, now)
	var ids []string
	err := st.View(ctx, func(tx cairn.Tx) error {
		return tx.ScanMemoryKeys(ctx, func(id, _, _ string) { ids = append(ids, id) })
	})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, uint64(batch)))
	use := func(i int) engine.Use {
		u := engine.Use{IDs: make([]string, 10), At: now.Add(time.Duration(i) * time.Millisecond)}
		for j := range u.IDs {
			u.IDs[j] = ids[r.IntN(len(ids))]
		}
		if sessions {
			u.Session = fmt.Sprintf("bench-session-%d", i/20)
		}
		return u
	}
	var pending []engine.Use
	batches := 0
	fold := func() {
		if _, err := eng.FoldUses(ctx); err != nil {
			b.Fatal(err)
		}
	}
	flush := func() {
		var err error
		if foldEvery > 0 {
			_, err = eng.QueueUses(ctx, pending)
		} else {
			err = eng.RecordUses(ctx, pending)
		}
		if err != nil {
			b.Fatal(err)
		}
		pending = pending[:0]
		if batches++; foldEvery > 0 && batches%foldEvery == 0 {
			fold()
		}
	}
	// Warm up: SQLite's cache and the operating system's, the engine's
	// statements.
	for i := range 2 * batch {
		if pending = append(pending, use(-1-i)); len(pending) == batch {
			flush()
		}
	}
	cpu0, w0 := latency.ProcessCPU(), bytesWritten(b)
	i := 0
	b.ResetTimer()
	for b.Loop() {
		if pending = append(pending, use(i)); len(pending) == batch {
			flush()
		}
		i++
	}
	if len(pending) > 0 {
		flush()
	}
	if foldEvery > 0 {
		fold()
	}
	b.StopTimer()
	uses := float64(10 * i)
	b.ReportMetric(float64(latency.ProcessCPU()-cpu0)/float64(time.Microsecond)/uses, "cpu-us/use")
	b.ReportMetric(float64(bytesWritten(b)-w0)/1024/uses, "write-KiB/use")
}

// copyDatabase copies the database at src (without its log, which the
// benchmarks' databases do not keep) into the benchmark's temporary
// folder, so that writes leave src as it was.
func copyDatabase(b *testing.B, src string) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), filepath.Base(src))
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	return dst
}

// bytesWritten is what the process has passed to write system calls so
// far (wchar of /proc/self/io); 0 where there is no such file.
func bytesWritten(b *testing.B) int64 {
	b.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if v, ok := bytes.CutPrefix(line, []byte("wchar: ")); ok {
			n, _ := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n
		}
	}
	return 0
}
