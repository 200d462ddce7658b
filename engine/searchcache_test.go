package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestCachedSearchEqualsFreshSearch searches an engine that keeps
// searches (a long-lived process's) and one that reads the store every
// time, on the same database file through two stores, as two processes
// would. Searches repeat at clock readings that cross memories' expiry
// times (memories with an explicit expiry, and session memories with a
// 30-day TTL), and between them the other store writes (adds, edits,
// deletes), the cached engine writes, and uses are recorded, or queued
// and folded: every answer must equal the fresh one, scores included.
// Queued uses keep the searches kept.
func TestCachedSearchEqualsFreshSearch(t *testing.T) {
	t.Parallel()
	open := storeOpener(t)
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	now := start
	clock := func() time.Time { return now }
	cached := New(open(), &Options{Now: clock, CacheBytes: 1 << 20})
	fresh := New(open(), &Options{Now: clock})
	r := rand.New(rand.NewPCG(7, 11))
	word := func() string { return fmt.Sprintf("w%d", r.IntN(60)) }
	types := []string{"note", "session", "fix", "decision"}
	var ids []string
	add := func(e *Engine, i int) {
		m := &cairn.Memory{Project: "p", Type: types[r.IntN(len(types))], SessionID: fmt.Sprintf("s%d", i/5),
			Content: fmt.Sprintf("%s %s %s %s n%d", word(), word(), word(), word(), i)}
		if r.IntN(4) == 0 {
			m.ExpiresAt = now.Add(time.Duration(1+r.IntN(20*24)) * time.Hour)
		}
		if r.IntN(8) == 0 {
			m.Scope = cairn.ScopeGlobal
		}
		res, err := e.AddMemory(t.Context(), m)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	for i := range 400 {
		now = now.Add(time.Duration(r.IntN(3)) * time.Hour)
		add(fresh, i)
	}
	var queries []cairn.Query
	for range 12 {
		q := cairn.Query{Project: "p", Text: word() + " " + word(), Limit: 1 + r.IntN(15)}
		switch r.IntN(4) {
		case 0:
			q.Types = []string{types[r.IntN(len(types))]}
		case 1:
			q.NoGlobal = true
		}
		queries = append(queries, q)
	}
	same := func(step string) {
		t.Helper()
		for _, q := range queries {
			q.Now = now
			want, err := fresh.Search(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second answer comes from the cache
				got, err := cached.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: search %q at %s: cached answer differs:\n got %s\nwant %s", step, q.Text, now.Format(time.RFC3339), hitIDs(got), hitIDs(want))
				}
			}
		}
	}
	for i := range 60 {
		same(fmt.Sprintf("step %d", i))
		switch i % 6 {
		case 0:
			now = now.Add(time.Duration(r.IntN(72)) * time.Hour) // crosses expiries, no write
		case 1:
			add(fresh, 1000+i) // another process writes
			// Seen within a millisecond (sqlite.Store.DataVersion).
			time.Sleep(2 * time.Millisecond)
		case 2:
			add(cached, 1000+i) // the cached engine writes
		case 3:
			content := word() + " " + word() + " edited"
			if _, err := fresh.UpdateMemory(t.Context(), ids[r.IntN(len(ids))], cairn.MemoryUpdate{Content: &content}); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond)
		case 4:
			if err := fresh.DeleteMemory(t.Context(), ids[r.IntN(len(ids))]); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond)
		case 5:
			if i%12 == 5 {
				if err := cached.RecordUse(t.Context(), []string{ids[r.IntN(len(ids))]}, "s1"); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
					t.Fatal(err)
				}
				now = now.Add(-time.Duration(r.IntN(48)) * time.Hour) // a request's clock may go back
				break
			}
			// Queued uses leave the searches kept as they are (what the
			// server writes after each context); their fold changes
			// them.
			kept := func() int {
				rc := &cached.cache.retrievals
				rc.mu.Lock()
				defer rc.mu.Unlock()
				return len(rc.entries)
			}
			n := kept()
			if _, err := cached.QueueUses(t.Context(), []Use{{IDs: []string{ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]}, Session: "s2", At: now}}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond)
			q := queries[0]
			q.Now = now
			if _, err := cached.Search(t.Context(), q); err != nil {
				t.Fatal(err)
			}
			if kept() < n {
				t.Fatalf("step %d: queuing uses dropped the searches kept (%d, then %d)", i, n, kept())
			}
			same(fmt.Sprintf("step %d, uses queued", i))
			if _, err := cached.FoldUses(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func hitIDs(hits []cairn.Hit) string {
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s(%.4f) ", h.Memory.ID, h.Score)
	}
	return b.String()
}
