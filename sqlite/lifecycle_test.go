package sqlite_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/sqlite"
)

// BenchmarkRecordUse10 measures the usage recording the context command
// does after each injection: 10 ids, one transaction. Budget: ≤ 1 ms/op.
func BenchmarkRecordUse10(b *testing.B) {
	ctx := b.Context()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "c.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := engine.New(st, &engine.Options{Now: func() time.Time { return now }})
	const n = 10_000
	recs := func(yield func(cairn.ImportRecord) bool) {
		for i := range n {
			m := &cairn.Memory{ID: fmt.Sprintf("mem-%05d", i), Project: "p",
				Content: fmt.Sprintf("memory number %d about subsystem %d and its quirks", i, i%97)}
			if !yield(cairn.ImportRecord{Line: i + 1, Memory: m}) {
				return
			}
		}
	}
	if _, err := e.Import(ctx, recs, cairn.ImportOptions{Project: "p"}); err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 10)
	i := 0
	for b.Loop() {
		for j := range ids {
			ids[j] = fmt.Sprintf("mem-%05d", (i*7919+j*104729)%n)
		}
		i++
		if err := e.RecordUse(ctx, ids, "sess-bench"); err != nil {
			b.Fatal(err)
		}
	}
}
