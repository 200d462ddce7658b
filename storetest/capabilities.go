package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// The optional capabilities of the store contract (cairn.StoreCapabilities
// and cairn.TxCapabilities): each is tested on the backends that report
// it, and a backend that does not must refuse the method with EINTERNAL
// rather than do something else.

var capabilityStoreTests = []struct {
	name string
	fn   func(t *testing.T, s cairn.Store)
}{
	{"DataVersionChangesWithEveryWriteAndNeverDecreases", testDataVersion},
	{"CheckpointKeepsEveryCommittedWrite", testCheckpoint},
	{"BulkTransactionCommitsAndRollsBackAsAnyOther", testBulk},
	{"WritesOfARunOfWritesCommitAsAnyOther", testWriteRun},
	{"TouchEachCountsEveryUseAtItsOwnTime", testTouchEach},
	{"QueuedUsesChangeNothingUntilFoldedThenCountAsTouchEach", testUseQueue},
	{"QueuedUsesFoldedOldestFirstInStepsCountAsOneFold", testUseQueueSteps},
	{"UnsupportedCapabilitiesAreRefusedAsInternal", testUnsupportedCapabilities},
}

// txSupports reports what a write transaction of s says of a capability.
func txSupports(t *testing.T, s cairn.Store, supports func(cairn.Tx) bool) bool {
	t.Helper()
	var ok bool
	update(t, s, func(_ context.Context, tx cairn.Tx) error {
		ok = supports(tx)
		return nil
	})
	return ok
}

func testDataVersion(t *testing.T, s cairn.Store) {
	if !s.SupportsDataVersion() {
		t.Skip("the store does not report a data version")
	}
	ctx := t.Context()
	version := func() int64 {
		t.Helper()
		v, err := s.DataVersion(ctx)
		if err != nil {
			t.Fatalf("DataVersion: %v", err)
		}
		return v
	}
	v0 := version()
	prev := v0
	for i := range 3 {
		create(t, s, mem("p", int64(i+1)))
		// A write through this store is seen before Update returns.
		v := version()
		if v == prev || v < prev {
			t.Fatalf("after write %d: data version %d, was %d (want a greater one)", i+1, v, prev)
		}
		prev = v
	}
	// A write that fails commits nothing: whatever the version says then,
	// it never goes back.
	s.Update(ctx, func(tx cairn.Tx) error {
		if err := tx.CreateMemory(ctx, mem("p", 9)); err != nil {
			return err
		}
		return fmt.Errorf("rolled back")
	})
	if v := version(); v < prev {
		t.Errorf("after a rolled-back write: data version %d, was %d", v, prev)
	}
}

func testCheckpoint(t *testing.T, s cairn.Store) {
	if !s.SupportsCheckpoint() {
		t.Skip("the store has nothing to checkpoint")
	}
	var ms []*cairn.Memory
	for i := range 50 {
		ms = append(ms, mem("p", int64(i+1)))
	}
	create(t, s, ms...)
	if err := s.Checkpoint(t.Context()); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != len(ms) {
		t.Fatalf("after Checkpoint: %d memories, want %d", n, len(ms))
	}
	// The store keeps working, and checkpoints again.
	create(t, s, mem("p", 51))
	if err := s.Checkpoint(t.Context()); err != nil {
		t.Fatalf("second Checkpoint: %v", err)
	}
	checkSame(t, mem("p", 51), find(t, s, "m-0051"))
}

// WriteRun is answered by every backend: the transactions of a run, and
// of overlapping runs, read and write as any others, and the store works
// as before once they ended.
func testWriteRun(t *testing.T, s cairn.Store) {
	ctx := t.Context()
	end := s.WriteRun(ctx)
	create(t, s, mem("p", 1))
	inner := s.WriteRun(ctx)
	create(t, s, mem("p", 2))
	inner()
	create(t, s, mem("p", 3))
	end()
	create(t, s, mem("p", 4))
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != 4 {
		t.Fatalf("after writes in and after runs of writes: %d memories, want 4", n)
	}
}

func testBulk(t *testing.T, s cairn.Store) {
	if !txSupports(t, s, cairn.Tx.SupportsBulk) {
		t.Skip("the store prepares no transaction for a bulk write")
	}
	ctx := t.Context()
	// On a read it does nothing.
	view(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.Bulk(ctx) })
	var ms []*cairn.Memory
	for i := range 200 {
		ms = append(ms, mem("p", int64(i+1)))
	}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.Bulk(ctx); err != nil {
			return err
		}
		if err := tx.Bulk(ctx); err != nil { // twice is once
			return err
		}
		for _, m := range ms {
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != len(ms) {
		t.Fatalf("after a bulk write: %d memories, want %d", n, len(ms))
	}
	// A bulk write that fails keeps nothing, and the next write is an
	// ordinary one.
	err := s.Update(ctx, func(tx cairn.Tx) error {
		if err := tx.Bulk(ctx); err != nil {
			return err
		}
		if err := tx.CreateMemory(ctx, mem("p", 500)); err != nil {
			return err
		}
		return fmt.Errorf("rolled back")
	})
	if err == nil {
		t.Fatal("a failed bulk write returned nil")
	}
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != len(ms) {
		t.Fatalf("after a failed bulk write: %d memories, want %d", n, len(ms))
	}
	create(t, s, mem("p", 501))
	checkSame(t, mem("p", 501), find(t, s, "m-0501"))
}

func testTouchEach(t *testing.T, s cairn.Store) {
	if !txSupports(t, s, cairn.Tx.SupportsTouchEach) {
		t.Skip("the store records uses through TouchMemories only")
	}
	a, b, capped, other := mem("p", 1), mem("p", 2), mem("p", 3), mem("q", 4)
	capped.Confidence = 0.97
	create(t, s, a, b, capped, other)
	t1, t2, t3 := at(time.Hour), at(2*time.Hour), at(3*time.Hour)
	var got map[string]string
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		// a three times, b once, the capped one once, a missing id, and a
		// memory of another project.
		got, err = tx.TouchEach(ctx,
			[]string{a.ID, b.ID, a.ID, "m-missing", capped.ID, other.ID, a.ID},
			[]time.Time{t1, t1, t2, t2, t2, t3, t3}, cairn.UsageBoost, cairn.MaxConfidence)
		return err
	})
	want := map[string]string{a.ID: "p", b.ID: "p", capped.ID: "p", other.ID: "q"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("TouchEach = %v, want %v (the missing id left out)", got, want)
	}
	checkUsed(t, s, "", []used{{a, 3, t3, 0.56}, {b, 1, t1, 0.52}, {capped, 1, t2, 0.97}, {other, 1, t3, 0.52}})
	var inner error
	s.View(t.Context(), func(tx cairn.Tx) error {
		_, inner = tx.TouchEach(t.Context(), []string{a.ID}, []time.Time{t3}, cairn.UsageBoost, cairn.MaxConfidence)
		return inner
	})
	wantCode(t, inner, cairn.EINVALID, "TouchEach in View")
}

// A queued use leaves its memory as it was; a fold applies every queued
// use as TouchEach would (a memory's last use is the time of its last
// queued use, unless a later one was applied meanwhile), drops those of
// memories deleted since, and empties the queue: a second fold applies
// nothing. The queue outlives the transaction that wrote it: it is read
// by a fold in a later one.
func testUseQueue(t *testing.T, s cairn.Store) {
	if !txSupports(t, s, cairn.Tx.SupportsUseQueue) {
		t.Skip("the store applies every use at once")
	}
	a, b, capped, other, gone, later := mem("p", 1), mem("p", 2), mem("p", 3), mem("q", 4), mem("p", 5), mem("p", 6)
	capped.Confidence = 0.97
	create(t, s, a, b, capped, other, gone, later)
	t1, t2, t3, t4 := at(time.Hour), at(2*time.Hour), at(3*time.Hour), at(4*time.Hour)
	var got map[string]string
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		// a three times (the last at t2, after one at t3), b once, the
		// capped one once, a missing id, a memory of another project, one
		// deleted before the fold and one used later meanwhile.
		got, err = tx.QueueUses(ctx,
			[]string{a.ID, b.ID, a.ID, "m-missing", capped.ID, other.ID, a.ID, gone.ID, later.ID},
			[]time.Time{t1, t1, t3, t2, t2, t3, t2, t1, t1})
		return err
	})
	want := map[string]string{a.ID: "p", b.ID: "p", capped.ID: "p", other.ID: "q", gone.ID: "p", later.ID: "p"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("QueueUses = %v, want %v (the missing id left out)", got, want)
	}
	for _, m := range []*cairn.Memory{a, b, capped, other, later} {
		checkSame(t, m, find(t, s, m.ID)) // nothing applied yet
	}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if _, err := tx.TouchMemories(ctx, []string{later.ID}, t4, cairn.UsageBoost, cairn.MaxConfidence); err != nil {
			return err
		}
		return tx.DeleteMemory(ctx, gone.ID)
	})
	fold := func() int {
		t.Helper()
		var n int
		update(t, s, func(ctx context.Context, tx cairn.Tx) error {
			var err error
			n, err = tx.FoldUses(ctx, cairn.UsageBoost, cairn.MaxConfidence)
			return err
		})
		return n
	}
	if n := fold(); n != 7 {
		t.Errorf("FoldUses = %d, want 7 (the deleted memory's use dropped)", n)
	}
	checkUsed(t, s, " after the fold", []used{{a, 3, t2, 0.56}, {b, 1, t1, 0.52}, {capped, 1, t2, 0.97}, {other, 1, t3, 0.52}, {later, 2, t4, 0.54}})
	if n := fold(); n != 0 {
		t.Errorf("a second FoldUses = %d, want 0: the queue is empty", n)
	}
	if g := find(t, s, a.ID); g.UseCount != 3 {
		t.Errorf("after a second fold: %d uses, want 3", g.UseCount)
	}
	// A queue rolled back with its transaction is never applied.
	err := s.Update(t.Context(), func(tx cairn.Tx) error {
		if _, err := tx.QueueUses(t.Context(), []string{b.ID}, []time.Time{t4}); err != nil {
			return err
		}
		return fmt.Errorf("rolled back")
	})
	if err == nil {
		t.Fatal("a failed write returned nil")
	}
	if n := fold(); n != 0 {
		t.Errorf("FoldUses after a rolled-back queue = %d, want 0", n)
	}
	var inner error
	s.View(t.Context(), func(tx cairn.Tx) error {
		_, inner = tx.QueueUses(t.Context(), []string{a.ID}, []time.Time{t4})
		return inner
	})
	wantCode(t, inner, cairn.EINVALID, "QueueUses in View")
	s.View(t.Context(), func(tx cairn.Tx) error {
		_, inner = tx.FoldUses(t.Context(), cairn.UsageBoost, cairn.MaxConfidence)
		return inner
	})
	wantCode(t, inner, cairn.EINVALID, "FoldUses in View")
}

// testUseQueueSteps: FoldOldestUses applies the uses queued first, at most
// its limit, leaves the later ones queued and says so; the steps of a
// queue together apply what one FoldUses would (a memory's uses split
// between two steps count once each, and its last use is its latest).
func testUseQueueSteps(t *testing.T, s cairn.Store) {
	if !txSupports(t, s, cairn.Tx.SupportsUseQueue) {
		t.Skip("the store applies every use at once")
	}
	a, b, c := mem("p", 1), mem("p", 2), mem("p", 3)
	create(t, s, a, b, c)
	t1, t2, t3 := at(time.Hour), at(2*time.Hour), at(3*time.Hour)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		_, err := tx.QueueUses(ctx, []string{a.ID, b.ID, a.ID, c.ID, a.ID}, []time.Time{t1, t1, t3, t2, t2})
		return err
	})
	step := func(limit int) (int, bool) {
		t.Helper()
		var n int
		var more bool
		update(t, s, func(ctx context.Context, tx cairn.Tx) error {
			var err error
			n, more, err = tx.FoldOldestUses(ctx, cairn.UsageBoost, cairn.MaxConfidence, limit)
			return err
		})
		return n, more
	}
	if n, more := step(3); n != 3 || !more {
		t.Errorf("FoldOldestUses(3) = %d, %v; want 3, true", n, more)
	}
	// The first three: a twice (its last at t3), b once; c not yet.
	checkUsed(t, s, " after the first step", []used{{a, 2, t3, 0.54}, {b, 1, t1, 0.52}, {c, 0, time.Time{}, 0.5}})
	if n, more := step(3); n != 2 || more {
		t.Errorf("FoldOldestUses(3) of the last two = %d, %v; want 2, false", n, more)
	}
	// a's use at t2, queued after its use at t3, comes after that use was
	// applied: a last use never goes back, so it stays t3 (one FoldUses
	// of the whole queue would leave the last queued, t2).
	checkUsed(t, s, " after the second step", []used{{a, 3, t3, 0.56}, {b, 1, t1, 0.52}, {c, 1, t2, 0.52}})
	if n, more := step(3); n != 0 || more {
		t.Errorf("FoldOldestUses of an empty queue = %d, %v; want 0, false", n, more)
	}
	var inner error
	s.Update(t.Context(), func(tx cairn.Tx) error {
		_, _, inner = tx.FoldOldestUses(t.Context(), cairn.UsageBoost, cairn.MaxConfidence, 0)
		return nil
	})
	wantCode(t, inner, cairn.EINVALID, "FoldOldestUses with a limit of 0")
}

func testUnsupportedCapabilities(t *testing.T, s cairn.Store) {
	ctx := t.Context()
	checked := 0
	refused := func(what string, err error) {
		t.Helper()
		checked++
		wantCode(t, err, cairn.EINTERNAL, what+" of a store that does not support it")
	}
	if !s.SupportsDataVersion() {
		_, err := s.DataVersion(ctx)
		refused("DataVersion", err)
	}
	if !s.SupportsCheckpoint() {
		refused("Checkpoint", s.Checkpoint(ctx))
	}
	if !s.SupportsVectors() && s.Vectors() != nil {
		t.Errorf("Vectors of a store without vectors = %T, want nil", s.Vectors())
	}
	s.Update(ctx, func(tx cairn.Tx) error {
		if !tx.SupportsBulk() {
			refused("Bulk", tx.Bulk(ctx))
		}
		if !tx.SupportsTouchEach() {
			_, err := tx.TouchEach(ctx, []string{"m-0001"}, []time.Time{at(0)}, cairn.UsageBoost, cairn.MaxConfidence)
			refused("TouchEach", err)
		}
		if !tx.SupportsUseQueue() {
			_, err := tx.QueueUses(ctx, []string{"m-0001"}, []time.Time{at(0)})
			refused("QueueUses", err)
			_, err = tx.FoldUses(ctx, cairn.UsageBoost, cairn.MaxConfidence)
			refused("FoldUses", err)
		}
		if !tx.SupportsIterations() && tx.Iterations() != nil {
			t.Errorf("Iterations of a store without them = %T, want nil", tx.Iterations())
		}
		return nil
	})
	if checked == 0 {
		t.Skip("the store has every optional capability")
	}
}

// used is what a memory's uses should have made of it.
type used struct {
	m    *cairn.Memory
	uses int
	last time.Time
	conf float64
}

// checkUsed checks each memory's use count, last use and confidence, and
// that nothing else of it changed, updated_at neither; when says when.
func checkUsed(t *testing.T, s cairn.Store, when string, cs []used) {
	t.Helper()
	for _, c := range cs {
		g := find(t, s, c.m.ID)
		if g.UseCount != c.uses || !g.LastUsedAt.Equal(c.last) || !approx(g.Confidence, c.conf) {
			t.Errorf("%s%s: %d uses, last %v, confidence %v; want %d, %v, %v", c.m.ID, when, g.UseCount, g.LastUsedAt, g.Confidence, c.uses, c.last, c.conf)
		}
		w := *c.m
		w.UseCount, w.LastUsedAt, w.Confidence = g.UseCount, g.LastUsedAt, g.Confidence
		checkSame(t, &w, g)
	}
}
