package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// liveTop gives the k best documents of memories live at the search's
// clock, exactly those exhaustive scoring ranks first once the expired
// ones are left out, with the expiry mask (a long-lived engine) and
// without it, whatever share of the best has expired.
func TestLiveTopIsTheBestLive(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	open := storeOpener(t)
	st := open()
	plain := New(st, &Options{Now: clock})
	cached := New(st, &Options{CacheBytes: 8 << 20, Now: clock})
	var masked, today int
	for i := range 90 {
		m := &cairn.Memory{Project: "p", Content: fmt.Sprintf("kiwi %s note %d %s", strings.Repeat("kiwi ", i%7), i, strings.Repeat("filler ", i%11))}
		switch {
		case i%3 == 0:
			m.ExpiresAt = now.Add(-time.Duration(1+i%4) * 24 * time.Hour) // masked
			masked++
		case i%5 == 0:
			m.ExpiresAt = now.Add(-time.Hour) // expired today: found by its row
			today++
		case i%4 == 0:
			m.ExpiresAt = now.Add(time.Hour)
		}
		if _, err := plain.AddMemory(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 { // the best, all live
		if _, err := plain.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("%s best %d", strings.Repeat("kiwi ", 12), i)}); err != nil {
			t.Fatal(err)
		}
	}
	terms, _ := queryWeights("kiwi")
	q := cairn.Query{Project: "p", Text: "kiwi", Now: now}
	for _, e := range []*Engine{plain, cached} {
		err := st.View(ctx, func(tx cairn.Tx) error {
			stats, whole, err := e.searchStats(ctx, tx, "p")
			if err != nil {
				return err
			}
			stats, dead, err := e.searchDead(ctx, tx, stats, whole)
			if err != nil {
				return err
			}
			all := dead
			dead, day, err := e.skipExpired(ctx, tx, stats, dead, now)
			if err != nil {
				return err
			}
			if e.cache != nil && (!day.Equal(time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)) || dead.Len()-all.Len() != masked) {
				t.Errorf("the mask skips %d documents before %s, want the %d expired before the day", dead.Len()-all.Len(), day, masked)
			}
			tps, err := e.preparedPostings(ctx, tx, stats, termNames(terms))
			if err != nil {
				return err
			}
			scorer := func(skip index.DeadSet, exhaustive bool) *index.Scorer {
				s := &index.Scorer{Params: e.bm25, Stats: stats, Dead: skip, Exhaustive: exhaustive}
				for _, p := range tps {
					s.AddPostings(p, scoreWeight(terms, p.Term, p.DF, stats.Docs))
				}
				return s
			}
			// The reference: every document scored, the expired left out
			// by their rows.
			ref := scorer(all, true)
			defer ref.Release()
			memo := docMemo{}
			var want []int64
			for _, s := range ref.Top(1000) {
				ms, err := memo.find(ctx, tx, "p", []int64{s.Doc})
				if err != nil {
					return err
				}
				if len(ms) == 1 && (ms[0].ExpiresAt.IsZero() || now.Before(ms[0].ExpiresAt)) {
					want = append(want, s.Doc)
				}
			}
			if len(want) != 100-masked-today {
				t.Fatalf("%d live documents, want %d", len(want), 100-masked-today)
			}
			for _, k := range []int{1, 5, 20, 40, 59, 80} {
				s := scorer(dead, false)
				top, more, err := e.liveTop(ctx, tx, docMemo{}, q, partScore{name: "p", scorer: s, masked: !day.IsZero()}, k)
				s.Release()
				if err != nil {
					return err
				}
				got := make([]int64, len(top))
				for i, x := range top {
					got[i] = x.Doc
				}
				w := want[:min(k, len(want))]
				if !slices.Equal(got, w) {
					t.Errorf("cache %t: liveTop(%d) = %v, want %v", e.cache != nil, k, got, w)
				}
				if more != (k < len(want)) && k < len(want) {
					t.Errorf("cache %t: liveTop(%d) says no more, with %d live", e.cache != nil, k, len(want))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// expiryReads records the ExpiredDocs calls of the stores it wraps.
type expiryReads struct {
	cairn.Store
	mu   sync.Mutex
	from []int64
}

func (s *expiryReads) reads() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.from
	s.from = nil
	return out
}

func (s *expiryReads) View(ctx context.Context, fn func(cairn.Tx) error) error {
	return s.Store.View(ctx, func(tx cairn.Tx) error { return fn(expiryTx{tx, s}) })
}

type expiryTx struct {
	cairn.Tx
	s *expiryReads
}

func (tx expiryTx) ExpiredDocs(ctx context.Context, partition string, from int64, before time.Time) ([]int64, error) {
	tx.s.mu.Lock()
	tx.s.from = append(tx.s.from, from)
	tx.s.mu.Unlock()
	return tx.Tx.ExpiredDocs(ctx, partition, from, before)
}

// A long-lived engine reads a partition's expired documents whole once a
// day of the clock it searches at, and after a write only those of the
// documents written since: a memory written every few seconds costs a
// search the read of its own row, not of every expiry.
func TestExpiryMaskReadsOnlyNewDocuments(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)
	st := &expiryReads{Store: openStore(t)}
	e := New(st, &Options{CacheBytes: 8 << 20, Now: func() time.Time { return now }})
	add := func(i int, expires time.Time) *cairn.Memory {
		t.Helper()
		res, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("the wombat burrow number %d", i), ExpiresAt: expires})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory
	}
	var old *cairn.Memory
	for i := range 20 {
		var exp time.Time
		if i%2 == 0 {
			exp = now.Add(-48 * time.Hour)
		}
		if m := add(i, exp); i == 0 {
			old = m
		}
	}
	search := func(when time.Time, want []int64) {
		t.Helper()
		st.reads()
		if _, err := e.Search(ctx, cairn.Query{Project: "p", Text: "wombat burrow", Limit: 5, Now: when}); err != nil {
			t.Fatal(err)
		}
		if got := st.reads(); !slices.Equal(got, want) {
			t.Errorf("search at %s read the expired documents from %v, want from %v", when, got, want)
		}
	}
	search(now, []int64{0})
	search(now.Add(time.Minute), nil)
	add(20, now.Add(-72*time.Hour))
	search(now.Add(2*time.Minute), []int64{20})
	// An expiry moved later gives the memory a new document, read as the
	// documents written since.
	if _, err := e.UpdateMemory(ctx, old.ID, cairn.MemoryUpdate{ExpiresAt: new(now.Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	search(now.Add(3*time.Minute), []int64{21})
	// Another day, another mask, read whole.
	search(now.Add(24*time.Hour), []int64{0})
}

// A large partition's mask is read on another goroutine: until it is
// there, searches skip by the partition's mask of an earlier day, which
// holds only memories expired before it, or by none.
func TestExpiryMaskOfALargePartitionIsReadAside(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)
	st := &expiryReads{Store: openStore(t)}
	e := New(st, &Options{CacheBytes: 8 << 20, Now: func() time.Time { return now }})
	e.cache.expiryInline = 0
	for i := range 20 {
		var exp time.Time
		if i%2 == 0 {
			exp = now.Add(-time.Duration(1+i) * 24 * time.Hour)
		}
		if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("the wombat burrow number %d", i), ExpiresAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	skipped := func(when time.Time) (int, time.Time) {
		t.Helper()
		var n int
		var day time.Time
		if err := st.View(ctx, func(tx cairn.Tx) error {
			ps, err := tx.Partition(ctx, "p")
			if err != nil {
				return err
			}
			skip, d, err := e.skipExpired(ctx, tx, ps, nil, when)
			n, day = skip.Len(), d
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n, day
	}
	if n, day := skipped(now); n != 0 || !day.IsZero() {
		t.Errorf("before its mask is read a search skips %d documents before %s, want none", n, day)
	}
	e.cache.expiryWG.Wait()
	if got := st.reads(); !slices.Equal(got, []int64{0}) {
		t.Errorf("the mask was read from %v, want once from document 0", got)
	}
	today := expiryDay(now)
	if n, day := skipped(now); n != 10 || !day.Equal(today) {
		t.Errorf("once read, a search skips %d documents before %s, want 10 before %s", n, day, today)
	}
	// Three days on, the mask of today serves until that day's is read.
	later := now.Add(3 * 24 * time.Hour)
	if n, day := skipped(later); n != 10 || !day.Equal(today) {
		t.Errorf("three days on, a search skips %d documents before %s, want today's 10 before %s", n, day, today)
	}
	e.cache.expiryWG.Wait()
	if n, day := skipped(later); n != 10 || !day.Equal(expiryDay(later)) {
		t.Errorf("three days on, once read, a search skips %d documents before %s, want 10 before %s", n, day, expiryDay(later))
	}
	// A day before today has no mask of an earlier day to use.
	if n, day := skipped(now.Add(-24 * time.Hour)); n != 0 || !day.IsZero() {
		t.Errorf("a day before, a search skips %d documents before %s, want none", n, day)
	}
	e.cache.expiryWG.Wait()
	if n, day := skipped(now.Add(-24 * time.Hour)); n != 9 || !day.Equal(today.Add(-24*time.Hour)) {
		t.Errorf("a day before, once read, a search skips %d documents before %s, want 9", n, day)
	}
}

// Searches of a partition in turn, plain and narrowed to types (each
// skipping by another dead set), are each handed the join of their own
// set with the expired documents kept from before, not one made anew at
// every change of kind; each join holds exactly its set and the expired.
func TestExpiryMaskKeepsAJoinPerDeadSet(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)
	st := openStore(t)
	e := New(st, &Options{CacheBytes: 8 << 20, Now: func() time.Time { return now }})
	var expired []int64
	for i := range 40 {
		m := &cairn.Memory{Project: "p", Type: []string{"fact", "fix"}[i%2], Content: fmt.Sprintf("the heron nest %d", i)}
		if i%3 == 0 {
			m.ExpiresAt = now.Add(-48 * time.Hour)
		}
		res, err := e.AddMemory(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			expired = append(expired, res.Memory.DocNum)
		}
	}
	err := st.View(ctx, func(tx cairn.Tx) error {
		stats, whole, err := e.searchStats(ctx, tx, "p")
		if err != nil {
			return err
		}
		stats, dead, err := e.searchDead(ctx, tx, stats, whole)
		if err != nil {
			return err
		}
		fixes, err := e.skipOtherTypes(ctx, tx, stats, dead, []string{"fix"})
		if err != nil {
			return err
		}
		first := map[string]index.DeadSet{}
		for round := range 3 {
			for name, set := range map[string]index.DeadSet{"plain": dead, "fixes": fixes} {
				skip, _, err := e.skipExpired(ctx, tx, stats, set, now)
				if err != nil {
					return err
				}
				for d := range stats.NextDoc {
					want := set.Has(d) || slices.Contains(expired, d)
					if skip.Has(d) != want {
						t.Errorf("round %d, %s: document %d skipped %v, want %v", round, name, d, skip.Has(d), want)
					}
				}
				if round == 0 {
					first[name] = skip
				} else if !sameSet(first[name], skip) {
					t.Errorf("round %d, %s: the join was made again", round, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
