package engine

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// A long-lived engine answers ShownCounts and NewFromOtherSessions from
// the session's entries it keeps; a one-shot engine reads the log. Both
// must agree while the log grows past maxShownCount entries of a
// session, with entries of two projects and times that do not follow the
// order the entries were written in.
func TestKeptShownAgreesWithTheLog(t *testing.T) {
	t.Parallel()
	open := storeOpener(t)
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	now := start
	clock := func() time.Time { return now }
	kept := New(open(), &Options{Now: clock, CacheBytes: 1 << 20})
	read := New(open(), &Options{Now: clock})
	ctx := t.Context()
	r := rand.New(rand.NewPCG(5, 9))
	projects := []string{"p", "q"}
	// Memories written by other sessions, an hour apart, in both projects.
	for i := range 60 {
		now = start.Add(time.Duration(i) * time.Hour)
		if _, err := read.AddMemory(ctx, &cairn.Memory{Project: projects[i%2], Type: "note", SessionID: fmt.Sprintf("o%d", i%3),
			Content: fmt.Sprintf("what another session learned, number %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	now = start.Add(72 * time.Hour)
	check := func(step string) {
		t.Helper()
		for _, p := range projects {
			for _, s := range []string{"s1", "s2", "never"} {
				want, err := read.ShownCounts(ctx, p, s)
				if err != nil {
					t.Fatal(err)
				}
				got, err := kept.ShownCounts(ctx, p, s)
				if err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(got, want) {
					t.Fatalf("%s: ShownCounts(%s, %s) kept %v, read from the log %v", step, p, s, got, want)
				}
				wantNew, err := read.NewFromOtherSessions(ctx, p, s, 10)
				if err != nil {
					t.Fatal(err)
				}
				gotNew, err := kept.NewFromOtherSessions(ctx, p, s, 10)
				if err != nil {
					t.Fatal(err)
				}
				id := func(m *cairn.Memory) string { return m.ID }
				if g, w := mapped(gotNew, id), mapped(wantNew, id); !slices.Equal(g, w) {
					t.Fatalf("%s: NewFromOtherSessions(%s, %s) kept %v, read from the log %v", step, p, s, g, w)
				}
			}
		}
	}
	check("no entries")
	// 2,500 uses, in batches, at times spread over the memories' hours
	// in no order, a few at the same millisecond; most of them of s1 in p,
	// past twice maxShownCount.
	pick := func(a, b string) string {
		if r.IntN(4) == 0 {
			return b
		}
		return a
	}
	for batch := range 25 {
		var as []cairn.Activity
		for range 100 {
			at := start.Add(time.Duration(r.IntN(70*60)) * time.Minute)
			as = append(as, cairn.Activity{At: at, Project: pick("p", "q"), MemoryID: fmt.Sprintf("m%d", r.IntN(40)),
				Action: cairn.ActionUsed, SessionID: pick("s1", "s2")})
		}
		if err := read.store.Update(ctx, func(tx cairn.Tx) error { return tx.AppendActivity(ctx, as) }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // the other store's commit seen (sqlite.Store.DataVersion)
		check(fmt.Sprintf("after batch %d", batch))
	}
	if n, err := kept.ShownCounts(ctx, "p", "s1"); err != nil || sum(n) != maxShownCount {
		t.Fatalf("ShownCounts counted %d uses (%v), want the latest %d", sum(n), err, maxShownCount)
	}
	if _, err := kept.ShownCounts(ctx, "", "s1"); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("ShownCounts without a project: %v, want EINVALID", err)
	}
}

func mapped[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func sum(n map[string]int) int {
	s := 0
	for _, v := range n {
		s += v
	}
	return s
}

// What a long-lived engine returns of a session's shown memories is the
// map it keeps, lent: a later use of the session, read from the log or
// noted and not yet written, must not change a map returned before.
func TestShownMapReturnedStaysAsItWas(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	e := New(storeOpener(t)(), &Options{Now: clock, CacheBytes: 1 << 20})
	ctx := t.Context()
	ids := addFacts(t, e, 3)
	if err := e.RecordUse(ctx, ids[:1], "s"); err != nil {
		t.Fatal(err)
	}
	first, err := e.sessionShownIn(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	before := maps.Clone(first)
	now = now.Add(time.Minute)
	if err := e.RecordUse(ctx, ids[1:2], "s"); err != nil { // read from the log next
		t.Fatal(err)
	}
	e.NoteShown(Use{IDs: ids[2:], Session: "s", At: now}) // noted, not written
	second, err := e.sessionShownIn(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(first, before) {
		t.Errorf("the map returned first changed to %v, was %v", first, before)
	}
	if len(second) != 3 {
		t.Errorf("shown after three uses: %v, want all three memories", second)
	}
	// Only a noted use changes: the kept map, lent again, stays.
	if err := e.RecordUse(ctx, ids[2:], "s"); err != nil {
		t.Fatal(err)
	}
	lent, err := e.sessionShownIn(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	before = maps.Clone(lent)
	now = now.Add(time.Minute)
	e.NoteShown(Use{IDs: ids[:1], Session: "s", At: now})
	last, err := e.sessionShownIn(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(lent, before) {
		t.Errorf("the map returned before the noted use changed to %v, was %v", lent, before)
	}
	if !last[ids[0]].Equal(now) {
		t.Errorf("shown with a noted use: %v, want %s at %s", last, ids[0], now)
	}
}

// The map a write transaction reads (shownInTx) is lent as well: a use
// recorded after it is read into a copy, not into the map handed out.
func TestShownMapOfAWriteStaysAsItWas(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	e := New(storeOpener(t)(), &Options{Now: func() time.Time { return now }, CacheBytes: 1 << 20})
	ctx := t.Context()
	ids := addFacts(t, e, 2)
	shownInWrite := func() map[string]time.Time {
		var shown map[string]time.Time
		if err := e.store.Update(ctx, func(tx cairn.Tx) error {
			var err error
			shown, err = e.shownInTx(ctx, tx, "s")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return shown
	}
	if err := e.RecordUse(ctx, ids[:1], "s"); err != nil {
		t.Fatal(err)
	}
	first := shownInWrite()
	before := maps.Clone(first)
	now = now.Add(time.Minute)
	if err := e.RecordUse(ctx, ids[1:], "s"); err != nil {
		t.Fatal(err)
	}
	second := shownInWrite()
	if !maps.Equal(first, before) {
		t.Errorf("the map returned first changed to %v, was %v", first, before)
	}
	if len(second) != 2 || !second[ids[1]].Equal(now) {
		t.Errorf("shown after two uses: %v, want both, %s at %s", second, ids[1], now)
	}
}

// addFacts adds n notes of project p to e and returns their ids.
func addFacts(t *testing.T, e *Engine, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		m, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "note", Content: fmt.Sprintf("a fact worth keeping, number %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.Memory.ID)
	}
	return ids
}

// viewCounter is a store that counts its read transactions.
type viewCounter struct {
	cairn.Store
	views atomic.Int64
}

func (c *viewCounter) View(ctx context.Context, fn func(cairn.Tx) error) error {
	c.views.Add(1)
	return c.Store.View(ctx, fn)
}

// A long-lived engine reads a session's log entries again only when
// something was committed since its last read: the asks of one hook call
// read the log once, and a use that another process (another engine on
// the same database) records is seen by the next call.
func TestKeptShownReadAgainOnlyAfterACommit(t *testing.T) {
	t.Parallel()
	open := storeOpener(t)
	ctx := t.Context()
	counted := &viewCounter{Store: open()}
	kept := New(counted, &Options{CacheBytes: 1 << 20})
	other := New(open(), nil)
	ids := addFacts(t, other, 3)
	if err := other.RecordUse(ctx, ids[:1], "s"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // the other store's commit seen (sqlite.Store.DataVersion)
	counts := func(step string, want map[string]int) {
		t.Helper()
		got, err := kept.ShownCounts(ctx, "p", "s")
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("%s: ShownCounts %v, want %v", step, got, want)
		}
		shown, err := kept.sessionShownIn(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if len(shown) != len(want) {
			t.Fatalf("%s: the session was shown %d memories, want %d", step, len(shown), len(want))
		}
	}
	counts("first", map[string]int{ids[0]: 1})
	before := counted.views.Load()
	counts("nothing committed", map[string]int{ids[0]: 1})
	if _, err := kept.NewFromOtherSessions(ctx, "q", "s", 5); err != nil { // no entry in q: nothing to read
		t.Fatal(err)
	}
	if n := counted.views.Load() - before; n != 0 {
		t.Errorf("with nothing committed, the asks read the store %d times, want 0", n)
	}
	if err := other.RecordUse(ctx, ids[1:3], "s"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	counts("after another engine's use", map[string]int{ids[0]: 1, ids[1]: 1, ids[2]: 1})
	// A commit of this engine's own is seen at once.
	if err := kept.RecordUse(ctx, ids[:1], "s"); err != nil {
		t.Fatal(err)
	}
	counts("after its own use", map[string]int{ids[0]: 2, ids[1]: 1, ids[2]: 1})
}
