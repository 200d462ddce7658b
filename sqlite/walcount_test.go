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

func BenchmarkModes(b *testing.B) {
	for _, mode := range []int{0, 1, 2, 3} {
		b.Run(fmt.Sprint(mode), func(b *testing.B) { benchMode(b, mode) })
	}
}

func benchMode(b *testing.B, mode int) {
	ctx := b.Context()
	path := filepath.Join(b.TempDir(), "c.db")
	st, err := sqlite.Open(ctx, path, nil)
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
		err := st.Update(ctx, func(tx cairn.Tx) error {
			if mode&1 != 0 {
				if _, err := tx.TouchMemories(ctx, ids, now, 0.02, 0.95); err != nil {
					return err
				}
			}
			if mode&2 != 0 {
				var as []cairn.Activity
				for _, id := range ids {
					as = append(as, cairn.Activity{At: now, Project: "p", MemoryID: id, Action: "used", SessionID: "s"})
				}
				return tx.AppendActivity(ctx, as)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
