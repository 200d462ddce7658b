package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestSearchEqualsExhaustiveSearch runs random searches (seeded) twice,
// once with the bounded scoring Search uses and once scoring every
// posting, and wants the same hits with the same scores. The corpus mixes
// common and rare words, types with a time to live (so that expired
// memories are dropped after scoring), tags, sessions (neighbours),
// global-scope memories, deleted and edited memories (dead documents);
// the queries use type, tag, session, date and superseded filters and
// limits from 1 to 40, so that many searches must load more candidates
// than the first cap (the candidate count grows) before they have enough.
// It runs with and without the postings cache and with feedback on.
func TestSearchEqualsExhaustiveSearch(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"uncached", Options{}},
		{"cached", Options{CacheBytes: 1 << 20}},
		{"feedback", Options{CacheBytes: 1 << 20, Feedback: DefaultFeedback()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			now := start
			opts := c.opts
			opts.Now = func() time.Time { return now }
			counted := &loadCounter{Store: st}
			e := New(counted, &opts)
			r := rand.New(rand.NewPCG(3, uint64(len(c.name))))
			zipf := rand.NewZipf(r, 1.2, 3, 400)
			word := func() string { return fmt.Sprintf("w%d", zipf.Uint64()) }
			types := []string{"note", "session", "learning", "fix", "decision", "pattern"}
			tags := []string{"area:db", "area:ui", "agent:claude", "mode:plan"}
			var ids []string
			for i := range 1200 {
				now = now.Add(time.Duration(r.IntN(6)) * time.Hour)
				words := make([]string, 3+r.IntN(25))
				for j := range words {
					words[j] = word()
				}
				m := &cairn.Memory{
					Project:   "p",
					Type:      types[r.IntN(len(types))],
					Content:   strings.Join(words, " ") + fmt.Sprintf(" n%d", i),
					SessionID: fmt.Sprintf("s%d", i/7),
				}
				if r.IntN(10) == 0 {
					m.Scope = cairn.ScopeGlobal
				}
				for _, tag := range tags {
					if r.IntN(3) == 0 {
						m.Tags = append(m.Tags, tag)
					}
				}
				ids = addAndChurn(t, e, r, ids, m, 25, editContent(func() string { return fmt.Sprintf("%s %s edited %d", word(), word(), i) }))
			}
			searched, grew := 0, 0
			for i := range 300 {
				q := cairn.Query{Project: "p", Limit: 1 + r.IntN(40), Now: now}
				for range 1 + r.IntN(6) {
					q.Text += word() + " "
				}
				switch r.IntN(6) {
				case 0:
					q.Types = []string{types[r.IntN(len(types))]}
				case 1:
					q.Tags = []string{tags[r.IntN(len(tags))], tags[r.IntN(len(tags))]}
				case 2:
					q.ExcludeSession = fmt.Sprintf("s%d", r.IntN(170))
					q.After = start.Add(time.Duration(r.IntN(2000)) * time.Hour)
				case 3:
					q.Before = start.Add(time.Duration(r.IntN(4000)) * time.Hour)
					q.NoGlobal = true
				case 4:
					q.ExcludeSuperseded = true
					q.Now = now.Add(-time.Duration(r.IntN(3000)) * time.Hour)
				}
				counted.most = 0
				got, err := e.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				// A second load of candidates asks for more documents
				// than the first cap (the first load's are not asked
				// again).
				if counted.most > max(minCandidates, q.Limit*candidatesPerHit) {
					grew++
				}
				exhaustive, err := e.searchWith(t.Context(), q, true)
				if err != nil {
					t.Fatal(err)
				}
				want := e.publicHits(exhaustive, false)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("query %d %+v:\nbounded    %s\nexhaustive %s", i, q, describeHits(got), describeHits(want))
				}
				searched++
			}
			t.Logf("%d searches, %d loaded more candidates than the first cap", searched, grew)
			if grew < searched/10 {
				t.Errorf("only %d of %d searches loaded more candidates than the first cap: the filters do not make the candidate count grow", grew, searched)
			}
		})
	}
}

// loadCounter records the most documents one FindMemoriesByDoc asks for.
type loadCounter struct {
	cairn.Store
	most int
}

func (s *loadCounter) View(ctx context.Context, fn func(cairn.Tx) error) error {
	return s.Store.View(ctx, func(tx cairn.Tx) error { return fn(countingTx{tx, s}) })
}

type countingTx struct {
	cairn.Tx
	s *loadCounter
}

func (tx countingTx) FindMemoriesByDoc(ctx context.Context, partition string, docs []int64) ([]*cairn.Memory, error) {
	tx.s.most = max(tx.s.most, len(docs))
	return tx.Tx.FindMemoriesByDoc(ctx, partition, docs)
}

func describeHits(hs []cairn.Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s:%.6g ", h.Memory.ID, h.Score)
	}
	return b.String()
}

// openStore opens a new SQLite database for an internal test, closed when
// the test ends.
func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// storeOpener returns a function that opens another store on one
// database file, as another process would; each is closed at the test's
// end.
func storeOpener(t *testing.T) func() cairn.Store {
	path := filepath.Join(t.TempDir(), "c.db")
	return func() cairn.Store {
		st, err := sqlite.Open(t.Context(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
}

// addAndChurn adds m to e and appends its id to ids; then, one time in
// every, it deletes a memory of ids, and another time in every, it
// changes one by edit(): the deletes and edits that leave dead documents
// in an index. Memories already deleted are skipped.
func addAndChurn(t *testing.T, e *Engine, r *rand.Rand, ids []string, m *cairn.Memory, every int, edit func() cairn.MemoryUpdate) []string {
	t.Helper()
	res, err := e.AddMemory(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, res.Memory.ID)
	switch r.IntN(every) {
	case 0:
		if err := e.DeleteMemory(t.Context(), ids[r.IntN(len(ids))]); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Fatal(err)
		}
	case 1:
		if _, err := e.UpdateMemory(t.Context(), ids[r.IntN(len(ids))], edit()); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Fatal(err)
		}
	}
	return ids
}

// editContent is an edit for addAndChurn: the content edited() gives.
func editContent(edited func() string) func() cairn.MemoryUpdate {
	return func() cairn.MemoryUpdate {
		content := edited()
		return cairn.MemoryUpdate{Content: &content}
	}
}
