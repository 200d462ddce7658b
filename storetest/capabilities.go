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
	{"TouchEachCountsEveryUseAtItsOwnTime", testTouchEach},
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
	for _, c := range []struct {
		m    *cairn.Memory
		uses int
		last time.Time
		conf float64
	}{{a, 3, t3, 0.56}, {b, 1, t1, 0.52}, {capped, 1, t2, 0.97}, {other, 1, t3, 0.52}} {
		g := find(t, s, c.m.ID)
		if g.UseCount != c.uses || !g.LastUsedAt.Equal(c.last) || !approx(g.Confidence, c.conf) {
			t.Errorf("%s: %d uses, last %v, confidence %v; want %d, %v, %v", c.m.ID, g.UseCount, g.LastUsedAt, g.Confidence, c.uses, c.last, c.conf)
		}
		w := *c.m
		w.UseCount, w.LastUsedAt, w.Confidence = g.UseCount, g.LastUsedAt, g.Confidence
		checkSame(t, &w, g) // nothing else changed, updated_at neither
	}
	var inner error
	s.View(t.Context(), func(tx cairn.Tx) error {
		_, inner = tx.TouchEach(t.Context(), []string{a.ID}, []time.Time{t3}, cairn.UsageBoost, cairn.MaxConfidence)
		return inner
	})
	wantCode(t, inner, cairn.EINVALID, "TouchEach in View")
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
		if !tx.SupportsIterations() && tx.Iterations() != nil {
			t.Errorf("Iterations of a store without them = %T, want nil", tx.Iterations())
		}
		return nil
	})
	if checked == 0 {
		t.Skip("the store has every optional capability")
	}
}
