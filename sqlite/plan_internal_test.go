package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// The list orders the web page offers read a project's memories through
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
	for _, sort := range []string{cairn.SortCreatedDesc, cairn.SortCreatedAsc, cairn.SortUpdatedDesc, cairn.SortUsedDesc, cairn.SortLastUsedDesc} {
		f := cairn.MemoryFilter{Project: "p", Sort: sort, Limit: 50}
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
