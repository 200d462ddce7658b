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

// lagging is a SQLite store whose IndexVersion tells of nothing after
// freeze was called, as a reading reused within its millisecond may not
// tell of another process's commit; IndexVersionNow stays the store's.
type lagging struct {
	*sqlite.Store
	frozen atomic.Int64 // 0: not frozen
}

func (l *lagging) IndexVersion(ctx context.Context) (int64, bool, error) {
	if v := l.frozen.Load(); v != 0 {
		return v, true, nil
	}
	return l.Store.IndexVersion(ctx)
}

func (l *lagging) freeze(t *testing.T) {
	t.Helper()
	v, ok, err := l.Store.IndexVersionNow(t.Context())
	if err != nil || !ok || v == 0 {
		t.Fatalf("index version %d, %v, %v", v, ok, err)
	}
	l.frozen.Store(v)
}

// A search whose reading of the index version before it is late (another
// process removed or added a memory just before) still answers as an
// engine that keeps nothing: the version read after its transaction
// began (IndexVersionNow) tells of the commit, and the search runs again.
func TestKeptStatsWithALateVersionReading(t *testing.T) {
	t.Parallel()
	open := storeOpener(t)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	store := &lagging{Store: open().(*sqlite.Store)}
	kept := New(store, &Options{Now: clock, CacheBytes: 1 << 20})
	other := New(open(), &Options{Now: clock})
	ctx := t.Context()
	var ids []string
	for i := range 30 {
		res, err := other.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("the flaky retry test %d times out", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	found := func(q string) []string {
		t.Helper()
		hits, err := kept.Search(ctx, cairn.Query{Project: "p", Text: q, Limit: 50, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Memory.ID)
		}
		return out
	}
	if got := found("flaky retry"); len(got) != 30 {
		t.Fatalf("first search found %d memories, want 30", len(got))
	}
	store.freeze(t) // the statistics are kept at this version now
	if got := found("retry test times"); len(got) != 30 {
		t.Fatalf("second search found %d memories, want 30", len(got))
	}
	if err := other.DeleteMemory(ctx, ids[3]); err != nil {
		t.Fatal(err)
	}
	got := found("flaky test")
	if slices.Contains(got, ids[3]) || len(got) != 29 {
		t.Errorf("after another process's removal, with the version read before late, the search found %d memories (the removed one: %v), want the 29 left",
			len(got), slices.Contains(got, ids[3]))
	}
	if _, err := other.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "a flaky build that times out too"}); err != nil {
		t.Fatal(err)
	}
	if got := found("flaky times"); len(got) != 30 {
		t.Errorf("after another process's add, with the version read before late, the search found %d memories, want 30", len(got))
	}
}
