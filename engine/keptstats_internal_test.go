package engine

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// statsCounter is a SQLite store whose read transactions count the
// partitions' statistics they read.
type statsCounter struct {
	*sqlite.Store
	reads atomic.Int64
}

type statsCountingTx struct {
	cairn.Tx
	reads *atomic.Int64
}

func (c *statsCounter) View(ctx context.Context, fn func(cairn.Tx) error) error {
	return c.Store.View(ctx, func(tx cairn.Tx) error { return fn(statsCountingTx{tx, &c.reads}) })
}

func (tx statsCountingTx) PartitionCounts(ctx context.Context, name string) (*cairn.PartitionStats, error) {
	tx.reads.Add(1)
	return tx.Tx.PartitionCounts(ctx, name)
}

func (tx statsCountingTx) PartitionDocs(ctx context.Context) (map[string]int64, error) {
	tx.reads.Add(1)
	return tx.Tx.PartitionDocs(ctx)
}

// A long-lived engine searches with the partitions' statistics it keeps
// while the index version stays the same: a search after another reads
// none of them, across the uses written and folded between two calls;
// and none kept is used once this engine or another process (another
// engine on the same database) has changed the index: every search then
// answers as an engine that keeps nothing.
func TestKeptStatsUntilTheIndexChanges(t *testing.T) {
	t.Parallel()
	open := storeOpener(t)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	counted := &statsCounter{Store: open().(*sqlite.Store)}
	kept := New(counted, &Options{Now: clock, CacheBytes: 1 << 20})
	other := New(open(), &Options{Now: clock})
	fresh := New(open(), &Options{Now: clock})
	ctx := t.Context()
	for i := range 40 {
		if _, err := other.AddMemory(ctx, &cairn.Memory{Project: fmt.Sprintf("p%d", i%2), Content: fmt.Sprintf("memory %d about w%d and w%d", i, i%7, i%3)}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	search := func(step string) []string {
		t.Helper()
		n++
		// Each search its own words, which no search kept before.
		q := cairn.Query{Project: "p0", Text: fmt.Sprintf("w%d memory about q%d", n%7, n), Limit: 50, Now: now, Prompt: true}
		got, err := kept.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		ids := func(hs []cairn.Hit) []string {
			out := make([]string, len(hs))
			for i, h := range hs {
				out[i] = fmt.Sprintf("%s %.6f", h.Memory.ID, h.Score)
			}
			return out
		}
		if g, w := ids(got), ids(want); !slices.Equal(g, w) {
			t.Fatalf("%s: the engine that keeps statistics found %v, one that keeps nothing %v", step, g, w)
		}
		return ids(got)
	}
	ms, _, err := kept.FindMemories(ctx, cairn.MemoryFilter{Project: "p0", Limit: 3, SkipTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	// The uses of what was shown, written and folded as a server does.
	uses := func() {
		t.Helper()
		if err := kept.RecordUse(ctx, []string{ms[0].ID, ms[1].ID}, "s"); err != nil {
			t.Fatal(err)
		}
		if _, err := kept.QueueUses(ctx, []Use{{IDs: []string{ms[2].ID}, Session: "s"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := kept.FoldUses(ctx); err != nil {
			t.Fatal(err)
		}
	}
	search("first")
	uses() // the first commit the store sees after its first reading changes its versions
	search("after the first uses")
	before := counted.reads.Load()
	search("again")
	uses()
	search("after uses")
	if got := counted.reads.Load() - before; got != 0 {
		t.Errorf("searches with the index unchanged read the statistics %d times, want 0", got)
	}
	for i := range 3 {
		if _, err := other.AddMemory(ctx, &cairn.Memory{Project: "p0", Content: fmt.Sprintf("another process's memory %d about w1 w2 w3 w4 w5 w6 w0 q%d", i, n+1)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
		search(fmt.Sprintf("after another process's add %d", i))
	}
	if err := other.DeleteMemory(ctx, ms[0].ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	search("after another process's removal")
	if _, err := kept.AddMemory(ctx, &cairn.Memory{Project: "p0", Content: fmt.Sprintf("its own memory about w1 w2 w3 w4 w5 w6 w0 q%d", n+1)}); err != nil {
		t.Fatal(err)
	}
	search("after its own add")
}
