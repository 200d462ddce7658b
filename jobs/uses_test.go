package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
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

// The uses of several contexts are written in one transaction, and Close
// writes what is still pending; a use recorded after Close is written at
// once.
func TestUseWriterWritesUsesInBatchesAndWhatIsLeftOnClose(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, e, _ := openDB(t)
	var ids []string
	for i := range 3 {
		ids = append(ids, add(t, e, &cairn.Memory{Project: "p", Content: fmt.Sprintf("memory number %d", i)}).ID)
	}
	cfg := &UseWriterConfig{FlushWait: 20 * time.Millisecond}
	cfg.TestSignals.Init()
	w := NewUseWriter(e, cfg)
	for i, id := range ids {
		if err := w.Record(ctx, []string{id, ids[0]}, fmt.Sprintf("s%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := cfg.TestSignals.Wrote.Wait(t); n != 3 {
		t.Fatalf("first write: %d uses, want the 3 contexts' in one", n)
	}
	if got := []int{useCount(t, e, ids[0]), useCount(t, e, ids[1]), useCount(t, e, ids[2])}; fmt.Sprint(got) != "[3 1 1]" {
		t.Errorf("use counts %v, want [3 1 1] (the first shown in three sessions)", got)
	}
	// Pending at Close: written before Close returns.
	slow := NewUseWriter(e, &UseWriterConfig{FlushWait: time.Hour})
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
