package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
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
