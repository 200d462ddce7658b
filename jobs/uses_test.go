package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// gatedStore holds every write until the test opens its gate: a database
// whose write lock another process holds.
type gatedStore struct {
	cairn.Store
	gate chan struct{}
}

func (s *gatedStore) Update(ctx context.Context, fn func(cairn.Tx) error) error {
	select {
	case <-s.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Store.Update(ctx, fn)
}

func useCount(t *testing.T, e interface {
	FindMemoryByID(context.Context, string) (*cairn.Memory, error)
}, id string) int {
	t.Helper()
	m, err := e.FindMemoryByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m.UseCount
}

// The uses of several contexts are written in one transaction, to the
// activity log and the use queue: the use counts change at the fold,
// FoldWait later. Close writes what is still pending and folds it; a
// use recorded after Close is written and applied at once.
func TestUseWriterWritesUsesInBatchesAndWhatIsLeftOnClose(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, e, _ := openDB(t)
	var ids []string
	for i := range 3 {
		ids = append(ids, add(t, e, &cairn.Memory{Project: "p", Content: fmt.Sprintf("memory number %d", i)}).ID)
	}
	cfg := &UseWriterConfig{FlushWait: 20 * time.Millisecond, FoldWait: 300 * time.Millisecond}
	cfg.TestSignals.Init()
	w := NewUseWriter(e, cfg)
	if n := cfg.TestSignals.Folded.Wait(t); n != 0 {
		t.Fatalf("the fold at start applied %d uses, want 0", n)
	}
	start := time.Now()
	for i, id := range ids {
		if err := w.Record(ctx, []string{id, ids[0]}, fmt.Sprintf("s%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := cfg.TestSignals.Wrote.Wait(t); n != 3 {
		t.Fatalf("first write: %d uses, want the 3 contexts' in one", n)
	}
	if !cfg.TestSignals.Folded.Empty() {
		t.Fatal("folded at once, before FoldWait")
	}
	if got := []int{useCount(t, e, ids[0]), useCount(t, e, ids[1]), useCount(t, e, ids[2])}; fmt.Sprint(got) != "[0 0 0]" {
		t.Errorf("use counts %v before the fold, want [0 0 0]", got)
	}
	if as, _, err := e.FindActivity(ctx, cairn.ActivityFilter{Project: "p", Actions: []string{cairn.ActionUsed}}); err != nil || len(as) != 5 {
		t.Errorf("before the fold: %d used entries (%v), want 5 (written with the uses)", len(as), err)
	}
	if n := cfg.TestSignals.Folded.Wait(t); n != 5 {
		t.Fatalf("the fold applied %d uses, want 5 (one per session and memory)", n)
	}
	if waited := time.Since(start); waited < cfg.FoldWait {
		t.Errorf("folded %v after the uses, before FoldWait (%v)", waited, cfg.FoldWait)
	}
	if got := []int{useCount(t, e, ids[0]), useCount(t, e, ids[1]), useCount(t, e, ids[2])}; fmt.Sprint(got) != "[3 1 1]" {
		t.Errorf("use counts %v, want [3 1 1] (the first shown in three sessions)", got)
	}
	// Pending at Close: written and applied before Close returns.
	slow := NewUseWriter(e, &UseWriterConfig{FlushWait: time.Hour, FoldWait: time.Hour})
	if err := slow.Record(ctx, []string{ids[1]}, "s9"); err != nil {
		t.Fatal(err)
	}
	slow.Close()
	if n := useCount(t, e, ids[1]); n != 2 {
		t.Errorf("after Close: use count %d, want 2", n)
	}
	if err := slow.Record(ctx, []string{ids[2]}, "s10"); err != nil || useCount(t, e, ids[2]) != 2 {
		t.Errorf("a record after Close: %v, use count %d, want it written at once", err, useCount(t, e, ids[2]))
	}
	w.Close()
}

// FoldMax queued uses make a fold due at once, however long FoldWait.
func TestUseWriterFoldsAtFoldMax(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, e, _ := openDB(t)
	id := add(t, e, &cairn.Memory{Project: "p", Content: "The cache key must name the tenant."}).ID
	cfg := &UseWriterConfig{FlushWait: time.Millisecond, FoldWait: time.Hour, FoldMax: 3}
	cfg.TestSignals.Init()
	w := NewUseWriter(e, cfg)
	defer w.Close()
	cfg.TestSignals.Folded.Wait(t) // at start
	for i := range 3 {
		if err := w.Record(ctx, []string{id}, ""); err != nil {
			t.Fatal(err)
		}
		cfg.TestSignals.Wrote.Wait(t)
		if i < 2 && !cfg.TestSignals.Folded.Empty() {
			t.Fatalf("folded after %d uses, before FoldMax", i+1)
		}
	}
	folded := cfg.TestSignals.Folded.Wait(t)
	if folded != 3 || useCount(t, e, id) != 3 {
		t.Errorf("folded %d uses, use count %d; want 3, 3", folded, useCount(t, e, id))
	}
}

// What a process killed between a write and its fold left in the queue
// is lasting: the next writer, in another process, applies it when it
// starts.
func TestUseWriterFoldsWhatAKilledProcessQueued(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path, killed, c := openDB(t)
	m := add(t, killed, &cairn.Memory{Project: "p", Content: "Migrations run before the server answers."})
	// The killed process's last write: queued, never folded.
	if n, err := killed.QueueUses(ctx, []engine.Use{{IDs: []string{m.ID}, Session: "s1"}, {IDs: []string{m.ID}, Session: "s2"}}); err != nil || n != 2 {
		t.Fatalf("QueueUses = %d, %v; want 2", n, err)
	}
	next := openEngine(t, path, c)
	if n := useCount(t, next, m.ID); n != 0 {
		t.Fatalf("use count %d before any fold, want 0", n)
	}
	cfg := &UseWriterConfig{FoldWait: time.Hour}
	cfg.TestSignals.Init()
	w := NewUseWriter(next, cfg)
	defer w.Close()
	if n := cfg.TestSignals.Folded.Wait(t); n != 2 {
		t.Fatalf("the next writer's fold at start applied %d uses, want 2", n)
	}
	g, err := next.FindMemoryByID(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g.UseCount != 2 || !g.LastUsedAt.Equal(c.Now().UTC().Truncate(time.Millisecond)) || g.Confidence <= m.Confidence {
		t.Errorf("after the fold: %d uses, last %v, confidence %v; want 2, %v, above %v", g.UseCount, g.LastUsedAt, g.Confidence, c.Now(), m.Confidence)
	}
}

// A long queue is folded FoldStep uses at a time, each step a
// transaction of its own, and a use recorded during the fold is written
// between two steps rather than after the whole fold (which at a million
// memories takes seconds, long enough for new contexts to be held back,
// MaxAge): the fold goes on until the queue is empty, that use included.
func TestUseWriterWritesNewUsesBetweenTheStepsOfAFold(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path, killed, c := openDB(t)
	id := add(t, killed, &cairn.Memory{Project: "p", Content: "The importer skips rows without a tenant."}).ID
	var queued []engine.Use
	for i := range 3 {
		queued = append(queued, engine.Use{IDs: []string{id}, Session: fmt.Sprintf("s%d", i)})
	}
	if n, err := killed.QueueUses(ctx, queued); err != nil || n != 3 {
		t.Fatalf("QueueUses = %d, %v; want 3", n, err)
	}
	plain := openEngine(t, path, c)
	gated := &gatedStore{Store: plain.Store(), gate: make(chan struct{})}
	cfg := &UseWriterConfig{FlushWait: time.Hour, MaxAge: time.Hour, FoldWait: time.Hour, FoldStep: 1}
	cfg.TestSignals.Init()
	w := NewUseWriter(plainEngine(gated, c), cfg)
	// The fold at start waits at its first step; a context is answered
	// meanwhile.
	if err := w.Record(ctx, []string{id}, "s9"); err != nil {
		t.Fatal(err)
	}
	gated.gate <- struct{}{} // the first step
	gated.gate <- struct{}{} // then the new use, not the second step
	if n := cfg.TestSignals.Wrote.Wait(t); n != 1 {
		t.Fatalf("wrote %d uses between the steps, want 1", n)
	}
	if !cfg.TestSignals.Folded.Empty() {
		t.Fatal("the fold ended before the use recorded during it was written")
	}
	if got := useCount(t, plain, id); got != 1 {
		t.Errorf("use count %d after one step, want 1", got)
	}
	close(gated.gate)
	if n := cfg.TestSignals.Folded.Wait(t); n != 4 {
		t.Errorf("the fold applied %d uses, want 4 (the 3 queued before it and the one written during it)", n)
	}
	if got := useCount(t, plain, id); got != 4 {
		t.Errorf("use count %d after the fold, want 4", got)
	}
	w.Close()
}

// While no use can be written (the database's write lock is held), the
// writer lets at most MaxUnwritten uses wait: the next context is held
// until a write ends, so a process killed meanwhile loses no more than
// those. Once writes go through again, every use is written.
func TestUseWriterHoldsContextsBackWhenWritesCannotKeepUp(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path, _, c := openDB(t)
	plain := openEngine(t, path, c)
	id := add(t, plain, &cairn.Memory{Project: "p", Content: "The flaky auth test shares one fake clock."}).ID
	gated := &gatedStore{Store: plain.Store(), gate: make(chan struct{})}
	e := plainEngine(gated, c)
	cfg := &UseWriterConfig{FlushWait: time.Hour, MaxAge: time.Hour, BatchMax: 4, MaxUnwritten: 16}
	cfg.TestSignals.Init()
	w := NewUseWriter(e, cfg)
	answered := make(chan int, 64)
	go func() {
		for i := range 40 {
			if err := w.Record(ctx, []string{id}, ""); err != nil {
				t.Error(err)
				return
			}
			answered <- i + 1
		}
		close(answered)
	}()
	if held := cfg.TestSignals.Held.Wait(t); held != 16 {
		t.Fatalf("held back with %d unwritten uses, want %d", held, 16)
	}
	n := 0
	for len(answered) > 0 {
		n = <-answered
	}
	if n != 16 {
		t.Fatalf("%d contexts answered while no use could be written, want 16", n)
	}
	close(gated.gate)
	for range answered {
	}
	w.Close()
	if got := useCount(t, plain, id); got != 40 {
		t.Errorf("use count %d after the writes went through, want 40", got)
	}
}

// A use is shown in its session the moment it is queued, long before it
// is written: the session's next context and lookups leave it out, while
// other sessions are not affected; once written it counts as one use,
// not two, and stays shown.
func TestAQueuedUseIsShownInItsSessionAtOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, e, _ := openDB(t)
	m := add(t, e, &cairn.Memory{Project: "p", Content: "The retry loop must back off or the queue floods."})
	cfg := &UseWriterConfig{FlushWait: time.Hour}
	cfg.TestSignals.Init()
	w := NewUseWriter(e, cfg)
	shown := func(session string) (bool, int) {
		t.Helper()
		c, err := e.ContextCandidates(ctx, cairn.CandidateRequest{Project: "p", Session: session})
		if err != nil {
			t.Fatal(err)
		}
		counts, err := e.ShownCounts(ctx, "p", session)
		if err != nil {
			t.Fatal(err)
		}
		_, ok := c.Shown[m.ID]
		return ok, counts[m.ID]
	}
	if err := w.Record(ctx, []string{m.ID}, "s1"); err != nil {
		t.Fatal(err)
	}
	if ok, n := shown("s1"); !ok || n != 1 {
		t.Errorf("queued, not written: shown %v, %d times; want shown once", ok, n)
	}
	if ok, n := shown("s2"); ok || n != 0 {
		t.Errorf("another session: shown %v, %d times; want not", ok, n)
	}
	if n := useCount(t, e, m.ID); n != 0 {
		t.Fatalf("use count %d before the write, want 0 (still queued)", n)
	}
	w.Close()
	if ok, n := shown("s1"); !ok || n != 1 {
		t.Errorf("written: shown %v, %d times; want shown once (the queued use taken back)", ok, n)
	}
	if n := useCount(t, e, m.ID); n != 1 {
		t.Errorf("use count %d after the write, want 1", n)
	}
}
