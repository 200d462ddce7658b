package sqlite

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// addMemories stores n memories of project p (every fifth global, two in
// three already used i%3 times), m0000 …, with confidences from 0.5 to
// 0.89, but m0045 at the maximum and m0049 above it.
func addMemories(t *testing.T, s *Store, n int) {
	t.Helper()
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	err := s.Update(t.Context(), func(tx cairn.Tx) error {
		for i := range n {
			at := base.Add(time.Duration(i%40) * time.Hour) // ties of dates
			m := &cairn.Memory{ID: fmt.Sprintf("m%04d", i), Project: "p", Type: "fix", Title: "t", Content: fmt.Sprint("memory ", i),
				ContentHash: fmt.Sprint(i), Confidence: 0.5 + float64(i%40)/100, Scope: cairn.ScopeProject, Source: cairn.SourceExplicit,
				CreatedAt: at, UpdatedAt: at, UseCount: i % 3, Partition: "p", DocNum: int64(i)}
			switch i {
			case 45:
				m.Confidence = cairn.MaxConfidence
			case 49:
				m.Confidence = 0.99
			}
			if i%5 == 0 {
				m.Scope = cairn.ScopeGlobal
			}
			if i%3 != 0 {
				m.LastUsedAt = at.Add(time.Duration(i%7) * time.Hour)
			}
			if err := tx.CreateMemory(t.Context(), m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// btreePages digests the pages of each table and index of the database,
// by name, as the writer reads them (the log's pages included).
func btreePages(t *testing.T, s *Store) map[string][32]byte {
	t.Helper()
	rows, err := s.writer.QueryContext(t.Context(), `SELECT s.name, p.data FROM dbstat AS s
		JOIN sqlite_dbpage AS p ON p.pgno = s.pageno ORDER BY s.name, s.pageno`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	all := map[string][]byte{}
	for rows.Next() {
		var name string
		var data []byte
		if err := rows.Scan(&name, &data); err != nil {
			t.Fatal(err)
		}
		all[name] = append(all[name], data...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	for name, data := range all {
		out[name] = sha256.Sum256(data)
	}
	return out
}

// A use rewrites the memory's row and the entries of the indexes on what
// it changes (use count and last use; the confidence only while below
// the maximum), and no other index: each index a use rewrites costs it
// a page or two more to write, the largest part of its cost at 100,000
// memories. An index added on those columns belongs in this list only
// if a query needs it.
func TestAUseRewritesOnlyTheIndexesOfWhatItChanges(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addMemories(t, s, 600)
	at := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		id   string
		conf float64 // after the use
		want []string
	}{
		// A use that raises confidence moves the memory in both orders by
		// confidence: the project's, and its type's (the static tier's).
		{"m0001", 0.53, []string{"idx_memories_project_confidence", "idx_memories_project_recent", "idx_memories_project_type_confidence", "idx_memories_project_used", "memories"}},
		{"m0045", 0.95, []string{"idx_memories_project_recent", "idx_memories_project_used", "memories"}}, // at the maximum
		{"m0049", 0.99, []string{"idx_memories_project_recent", "idx_memories_project_used", "memories"}}, // above it
	} {
		before := btreePages(t, s)
		var projects map[string]string
		err := s.Update(t.Context(), func(tx cairn.Tx) error {
			var err error
			projects, err = tx.TouchMemories(t.Context(), []string{c.id, "missing"}, at, cairn.UsageBoost, cairn.MaxConfidence)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		after := btreePages(t, s)
		var changed []string
		for name, d := range after {
			if before[name] != d {
				changed = append(changed, name)
			}
		}
		slices.Sort(changed)
		if !slices.Equal(changed, c.want) {
			t.Errorf("a use of %s rewrote %v, want %v", c.id, changed, c.want)
		}
		var m *cairn.Memory
		err = s.View(t.Context(), func(tx cairn.Tx) error {
			m, err = tx.FindMemoryByID(t.Context(), c.id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var i int
		fmt.Sscanf(c.id, "m%d", &i)
		if !maps.Equal(projects, map[string]string{c.id: "p"}) || m.UseCount != i%3+1 || !m.LastUsedAt.Equal(at) || math.Abs(m.Confidence-c.conf) > 1e-9 {
			t.Errorf("after a use of %s: projects %v, use count %d, last used %v, confidence %v; want {%s: p}, one more, %v, %v",
				c.id, projects, m.UseCount, m.LastUsedAt, m.Confidence, c.id, at, c.conf)
		}
	}
}

// Migration 0015 drops the global index on last use; the lists by last
// use read the same memories in the same order without it, with and
// without a page limit, with and without global memories.
func TestMigration15DropsTheGlobalLastUseIndex(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	old, err := Open(t.Context(), path, &Options{upTo: 14})
	if err != nil {
		t.Fatal(err)
	}
	addMemories(t, old, 300)
	filters := []cairn.MemoryFilter{
		{Project: "p", Sort: cairn.SortLastUsedDesc},
		{Project: "p", Sort: cairn.SortLastUsedDesc, Limit: 20, Offset: 7},
		{Project: "p", IncludeGlobal: true, Sort: cairn.SortLastUsedDesc},
		{Project: "p", IncludeGlobal: true, Sort: cairn.SortLastUsedDesc, Limit: 20, Offset: 7},
		{GlobalScope: true, Sort: cairn.SortLastUsedDesc},
	}
	lists := func(s *Store) (out [][]string) {
		for _, f := range filters {
			var ms []*cairn.Memory
			err := s.View(t.Context(), func(tx cairn.Tx) error {
				var err error
				ms, _, err = tx.FindMemories(t.Context(), f)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ids(ms))
		}
		return out
	}
	hasIndex := func(s *Store) bool {
		var n int
		if err := s.writer.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema WHERE name='idx_memories_last_used'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if !hasIndex(old) {
		t.Fatal("schema 14 has no idx_memories_last_used")
	}
	want := lists(old)
	old.Close()
	s, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if hasIndex(s) {
		t.Error("idx_memories_last_used is still there after migration 15")
	}
	for i, got := range lists(s) {
		if !slices.Equal(got, want[i]) {
			t.Errorf("%+v after the migration: %v, want %v", filters[i], got, want[i])
		}
	}
}
