package sqlite

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// The list orders the web page offers, and the static tier's read of a
// type's most trusted memories, read a project's memories through
// an index in that order: SQLite sorts no whole project, so the first
// page reads its own rows (and their ties) only, however many memories the project has.
// The plan is checked rather than timed: without these indexes each
// order sorted every memory of the project (0.5-1.9 s at 100,000). The
// value order (a product of two columns) has no index and is left out.
func TestListOrdersReadAnIndexInOrder(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var filters []cairn.MemoryFilter
	for _, sort := range []string{cairn.SortCreatedDesc, cairn.SortCreatedAsc, cairn.SortUpdatedDesc, cairn.SortUsedDesc, cairn.SortLastUsedDesc} {
		filters = append(filters, cairn.MemoryFilter{Project: "p", Sort: sort, Limit: 50})
	}
	// The static tier of a context block: one type's most trusted
	// memories, and the critical constraints above a confidence.
	filters = append(filters, cairn.MemoryFilter{Project: "p", Types: []string{"decision"}, Sort: cairn.SortConfidenceDesc, Limit: 40},
		cairn.MemoryFilter{Project: "p", Types: []string{"constraint"}, MinConfidence: 0.9, Sort: cairn.SortConfidenceDesc, Limit: 5})
	for _, f := range filters {
		sort := f.Sort
		where, args := filterSQL(f)
		q := `EXPLAIN QUERY PLAN SELECT id FROM memories` + indexHint(f) + ` WHERE ` + where + ` ORDER BY ` + orderSQL(f.Sort) + ` LIMIT 50`
		rows, err := s.reader.QueryContext(t.Context(), q, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		// A sort of the ties of the index's order (LAST TERM, RIGHT PART)
		// is fine: it reads a page's rows and the few that tie with them.
		if strings.Contains(p, "TEMP B-TREE FOR ORDER BY") || !strings.Contains(p, " INDEX idx_memories_project_") {
			t.Errorf("sort %q: the plan sorts rows or reads no index: %s", sort, p)
		}
	}
}

// TestPagesWithGlobalMemoriesEqualTheWholeList: a page of a project's
// memories with the global-scope memories of other projects (read as two
// queries that each stop at the page's end, findWithGlobal) is the same
// slice, in the same order, as the whole list read at once, and its total
// counts them all, for every order, with filters, offsets past the end,
// the project's own global memories and ties of dates.
func TestPagesWithGlobalMemoriesEqualTheWholeList(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "g.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(11, 12))
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	types := []string{"fix", "pattern", "decision"}
	err = s.Update(ctx, func(tx cairn.Tx) error {
		for i := range 300 {
			at := base.Add(time.Duration(r.IntN(40)) * time.Hour) // ties of dates
			m := &cairn.Memory{ID: fmt.Sprintf("m%03d", i), Project: []string{"p", "q", "r"}[r.IntN(3)], Type: types[r.IntN(3)],
				Title: "t", Content: fmt.Sprint("memory ", i), ContentHash: fmt.Sprint(i), Confidence: float64(r.IntN(10)) / 10,
				Scope: cairn.ScopeProject, Source: cairn.SourceExplicit, CreatedAt: at, UpdatedAt: at.Add(time.Duration(r.IntN(5)) * time.Hour),
				UseCount: r.IntN(4), Partition: "x", DocNum: int64(i)}
			if r.IntN(4) == 0 {
				m.Scope = cairn.ScopeGlobal
			}
			if r.IntN(3) == 0 {
				m.LastUsedAt = at.Add(time.Hour)
			}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sorts := []string{cairn.SortCreatedDesc, cairn.SortCreatedAsc, cairn.SortUpdatedDesc, cairn.SortConfidenceDesc, cairn.SortUsedDesc, cairn.SortLastUsedDesc, cairn.SortValueDesc}
	checked := 0
	for _, sort := range sorts {
		for _, typ := range [][]string{nil, {"fix"}, {"fix", "decision"}} {
			for _, limit := range []int{1, 7, 50} {
				for _, offset := range []int{0, 3, 95, 400} {
					f := cairn.MemoryFilter{Project: "p", IncludeGlobal: true, Types: typ, Sort: sort}
					var all []*cairn.Memory
					var page []*cairn.Memory
					var total int
					err := s.View(ctx, func(tx cairn.Tx) error {
						var err error
						if all, _, err = tx.FindMemories(ctx, f); err != nil { // no limit: one query
							return err
						}
						f.Limit, f.Offset = limit, offset
						page, total, err = tx.FindMemories(ctx, f)
						return err
					})
					if err != nil {
						t.Fatal(err)
					}
					want := all[min(offset, len(all)):min(offset+limit, len(all))]
					if total != len(all) || !sameIDs(page, want) {
						t.Fatalf("sort %s, types %v, limit %d, offset %d: page %v (total %d), want %v (total %d)",
							sort, typ, limit, offset, ids(page), total, ids(want), len(all))
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d pages checked", checked)
}

func ids(ms []*cairn.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func sameIDs(a, b []*cairn.Memory) bool { return slices.Equal(ids(a), ids(b)) }
