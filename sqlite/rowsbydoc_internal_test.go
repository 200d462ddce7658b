package sqlite

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
)

// rowidOf returns the rowid of memory id.
func rowidOf(t *testing.T, s *Store, id string) int64 {
	t.Helper()
	var rowid int64
	if err := s.writer.QueryRowContext(t.Context(), `SELECT rowid FROM memories WHERE id=?`, id).Scan(&rowid); err != nil {
		t.Fatalf("rowid of %s: %v", id, err)
	}
	return rowid
}

// partNum returns the number memory_partitions gives partition.
func partNum(t *testing.T, s *Store, partition string) int64 {
	t.Helper()
	var num int64
	if err := s.writer.QueryRowContext(t.Context(), `SELECT num FROM memory_partitions WHERE name=?`, partition).Scan(&num); err != nil {
		t.Fatalf("number of partition %q: %v", partition, err)
	}
	return num
}

// byDoc returns FindMemoriesByDoc's memories of partition, by document.
func byDoc(t *testing.T, s *Store, partition string, docs ...int64) map[int64]*cairn.Memory {
	t.Helper()
	out := map[int64]*cairn.Memory{}
	err := s.View(t.Context(), func(tx cairn.Tx) error {
		ms, err := tx.FindMemoriesByDoc(t.Context(), partition, docs)
		for _, m := range ms {
			if out[m.DocNum] != nil {
				t.Errorf("FindMemoriesByDoc(%q, %v) returned document %d twice", partition, docs, m.DocNum)
			}
			out[m.DocNum] = m
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func update(t *testing.T, s *Store, fn func(ctx context.Context, tx cairn.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), func(tx cairn.Tx) error { return fn(t.Context(), tx) }); err != nil {
		t.Fatal(err)
	}
}

// A memory's row is at the rowid of its partition's number and its
// document number: when it is created, when an update gives it another
// document or partition, and not moved by an update that keeps them. A
// document number outside the range gets a negative rowid and is found
// all the same.
func TestRowsAreAtTheirDocumentsRowID(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(3, 4))
	a, b, g := docMemory(r, "p", 7, false), docMemory(r, "q", 7, false), docMemory(r, "", 0, false)
	far := docMemory(r, "p", 1<<docRowBits, false)
	far2 := docMemory(r, "p", -3, false)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for _, m := range []*cairn.Memory{a, b, g, far, far2} {
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	p, q, glob := partNum(t, s, "p"), partNum(t, s, "q"), partNum(t, s, "")
	if p == q || p == glob || q == glob || min(p, q, glob) < 1 {
		t.Fatalf("partition numbers p %d, q %d, global %d: want distinct and positive", p, q, glob)
	}
	for _, c := range []struct {
		m    *cairn.Memory
		want int64
	}{{a, p<<40 | 7}, {b, q<<40 | 7}, {g, glob << 40}} {
		if got := rowidOf(t, s, c.m.ID); got != c.want {
			t.Errorf("%s (partition %q, document %d) at rowid %d, want %d", c.m.ID, c.m.Partition, c.m.DocNum, got, c.want)
		}
	}
	farRow, far2Row := rowidOf(t, s, far.ID), rowidOf(t, s, far2.ID)
	if farRow >= 0 || far2Row >= 0 || farRow == far2Row {
		t.Errorf("documents %d and %d at rowids %d and %d, want distinct negative ones", far.DocNum, far2.DocNum, farRow, far2Row)
	}
	got := byDoc(t, s, "p", 7, 1<<docRowBits, -3, 8)
	if len(got) != 3 || got[7].ID != a.ID || got[1<<docRowBits].ID != far.ID || got[-3].ID != far2.ID {
		t.Errorf("FindMemoriesByDoc(p) = %v, want %s, %s and %s", got, a.ID, far.ID, far2.ID)
	}

	// An update that keeps the document keeps the row; one that changes
	// it moves the row, and the old number finds nothing.
	a.Title = "retitled"
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.UpdateMemory(ctx, a) })
	if got := rowidOf(t, s, a.ID); got != p<<40|7 {
		t.Errorf("after an update in place: rowid %d, want %d", got, p<<40|7)
	}
	a.DocNum, b.Partition, b.DocNum, far.DocNum = 12, "r", 0, 13
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for _, m := range []*cairn.Memory{a, b, far} {
			if err := tx.UpdateMemory(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	rn := partNum(t, s, "r")
	for _, c := range []struct {
		m    *cairn.Memory
		want int64
	}{{a, p<<40 | 12}, {b, rn << 40}, {far, p<<40 | 13}} {
		if got := rowidOf(t, s, c.m.ID); got != c.want {
			t.Errorf("%s moved to partition %q, document %d: rowid %d, want %d", c.m.ID, c.m.Partition, c.m.DocNum, got, c.want)
		}
	}
	got = byDoc(t, s, "p", 7, 12, 13)
	if len(got) != 2 || got[12].Title != "retitled" || got[13].ID != far.ID {
		t.Errorf("FindMemoriesByDoc(p, 7, 12, 13) = %v, want %s at 12 and %s at 13", got, a.ID, far.ID)
	}
	if got := byDoc(t, s, "q", 7); len(got) != 0 {
		t.Errorf("FindMemoriesByDoc(q, 7) after the move = %v, want none", got)
	}
	if got := byDoc(t, s, "r", 0); len(got) != 1 || got[0].ID != b.ID {
		t.Errorf("FindMemoriesByDoc(r, 0) = %v, want %s", got, b.ID)
	}
	missing := docMemory(r, "p", 40, false)
	err = s.Update(t.Context(), func(tx cairn.Tx) error { return tx.UpdateMemory(t.Context(), missing) })
	if cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("update of a memory never stored: %v, want ENOTFOUND", err)
	}
	// A document another memory holds conflicts, as it did before rows
	// were placed by document.
	dup := docMemory(r, "p", 12, false)
	err = s.Update(t.Context(), func(tx cairn.Tx) error { return tx.CreateMemory(t.Context(), dup) })
	if cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Errorf("a second memory at document 12: %v, want ECONFLICT", err)
	}
}

// Rows that are not at their document's rowid (renumbered, as a VACUUM
// may renumber a table's rowids) are found through the index on
// (partition, docnum), and new rows are placed beside them.
func TestRowsElsewhereAreFound(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(5, 6))
	var want []*cairn.Memory
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for d := range int64(300) {
			m := docMemory(r, "p", d, false)
			want = append(want, m)
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	docs := make([]int64, 300)
	for i := range docs {
		docs[i] = int64(i)
	}
	before := byDoc(t, s, "p", docs...)
	// Every other row to a small rowid, in reverse order of documents.
	if _, err := s.writer.ExecContext(t.Context(), `UPDATE memories SET rowid = 1000 - docnum WHERE docnum % 2 = 0`); err != nil {
		t.Fatal(err)
	}
	if got := byDoc(t, s, "p", docs...); !reflect.DeepEqual(got, before) {
		t.Errorf("after renumbering half the rows, FindMemoriesByDoc found %d memories, want the same %d", len(got), len(before))
	}
	m := docMemory(r, "p", 300, false)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.CreateMemory(ctx, m) })
	if got := byDoc(t, s, "p", 300, 2, 3); len(got) != 3 || got[300].ID != m.ID {
		t.Errorf("FindMemoriesByDoc(p, 300, 2, 3) after renumbering = %v, want 3 with %s", got, m.ID)
	}
	if got, want := rowidOf(t, s, m.ID), partNum(t, s, "p")<<40|300; got != want {
		t.Errorf("a new row after renumbering: rowid %d, want %d", got, want)
	}
}

// Migration 20 moves every row to the rowid of its document, numbering
// the partitions, and leaves a row whose document number is out of range
// where it was; every memory reads as before it, and the indexes on
// memories (dropped while it runs) are those there were.
func TestMigration20PlacesRowsByDocument(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "c.db")
	old, err := Open(ctx, path, &Options{upTo: rowsByDocVersion - 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 9))
	parts := []string{"p", "q", ""}
	docs := map[string][]int64{}
	update(t, old, func(ctx context.Context, tx cairn.Tx) error {
		for i := range 900 {
			part := parts[r.IntN(len(parts))]
			d := int64(i)
			if i == 5 {
				d = 1 << docRowBits
			}
			docs[part] = append(docs[part], d)
			if err := tx.CreateMemory(ctx, docMemory(r, part, d, false)); err != nil {
				return err
			}
		}
		return nil
	})
	farRow := func(s *Store) int64 {
		var rowid int64
		if err := s.writer.QueryRowContext(ctx, `SELECT rowid FROM memories WHERE docnum=?`, int64(1<<docRowBits)).Scan(&rowid); err != nil {
			t.Fatal(err)
		}
		return rowid
	}
	wantFar := farRow(old)
	indexes := func(s *Store) []string {
		rows, err := s.writer.QueryContext(ctx, `SELECT name || ': ' || ifnull(sql, '') FROM sqlite_schema WHERE type='index' AND tbl_name='memories' ORDER BY name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var x string
			rows.Scan(&x)
			out = append(out, x)
		}
		return out
	}
	wantIndexes := indexes(old)
	want := map[string]map[int64]*cairn.Memory{}
	for _, p := range parts {
		want[p] = byDoc(t, old, p, docs[p]...)
	}
	old.Close()

	s, err := Open(ctx, path, &Options{upTo: rowsByDocVersion}) // later migrations add indexes of their own
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var nums []string
	rows, err := s.writer.QueryContext(ctx, `SELECT name FROM memory_partitions ORDER BY num`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		nums = append(nums, n)
	}
	rows.Close()
	if !slices.Equal(nums, []string{"", "p", "q"}) {
		t.Errorf("memory_partitions after the migration: %q, want the partitions by name", nums)
	}
	var placed, total int
	err = s.writer.QueryRowContext(ctx, `SELECT sum(m.rowid = p.num * 1099511627776 + m.docnum), count(*)
		FROM memories m JOIN memory_partitions p ON p.name = m.partition`).Scan(&placed, &total)
	if err != nil {
		t.Fatal(err)
	}
	if total != 900 || placed != 899 {
		t.Errorf("after the migration %d of %d rows at their document's rowid, want 899 of 900", placed, total)
	}
	if got := indexes(s); !slices.Equal(got, wantIndexes) || len(got) < 10 {
		t.Errorf("indexes on memories after the migration:\n%q\nbefore:\n%q", got, wantIndexes)
	}
	if got := farRow(s); got != wantFar {
		t.Errorf("the row out of range moved from rowid %d to %d", wantFar, got)
	}
	for _, p := range parts {
		if got := byDoc(t, s, p, docs[p]...); !reflect.DeepEqual(got, want[p]) {
			t.Errorf("partition %q after the migration: %d memories differ from the %d before", p, len(got), len(want[p]))
		}
	}
}

// A row written without its rowid (as package transfer copies a
// database) gets the one after the largest, which may be the place of a
// document to come: that document's memory is stored elsewhere, and a
// memory moved to such a place stays where it was; both are found.
func TestRowsWrittenWithoutRowIDsDoNotBlockWrites(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(10, 11))
	var ms []*cairn.Memory
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for d := range int64(3) {
			m := docMemory(r, "p", d, false)
			ms = append(ms, m)
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	p := partNum(t, s, "p")
	raw := func(m *cairn.Memory) {
		t.Helper()
		if _, err := s.writer.ExecContext(t.Context(), sqlInsertMemory, append([]any{nil, m.ID}, memoryArgs(m)...)...); err != nil {
			t.Fatal(err)
		}
	}
	x, y := docMemory(r, "q", 50, false), docMemory(r, "q", 51, false)
	raw(x)
	raw(y)
	if got := rowidOf(t, s, y.ID); got != p<<40|4 {
		t.Fatalf("a row written without its rowid is at %d, want %d (the test's premise)", got, p<<40|4)
	}
	next := docMemory(r, "p", 3, false)
	ms[1].DocNum = 4
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.CreateMemory(ctx, next); err != nil {
			return err
		}
		return tx.UpdateMemory(ctx, ms[1])
	})
	if got := rowidOf(t, s, next.ID); got >= 0 {
		t.Errorf("document 3, whose place another row holds, at rowid %d, want a negative one", got)
	}
	if got := byDoc(t, s, "p", 0, 1, 2, 3, 4); len(got) != 4 || got[3].ID != next.ID || got[4].ID != ms[1].ID || got[1] != nil {
		t.Errorf("FindMemoriesByDoc(p) = %v, want documents 0, 2, 3 and 4", got)
	}
	if got := byDoc(t, s, "q", 50, 51); len(got) != 2 || got[50].ID != x.ID || got[51].ID != y.ID {
		t.Errorf("FindMemoriesByDoc(q) = %v, want %s and %s", got, x.ID, y.ID)
	}
}

// PlaceRows moves rows written without their rowids (a copy by package
// transfer) to their places, whatever rowids they were given, including
// places other such rows held; a row out of range goes below 0; every
// memory reads as before, the indexes stay, and a second run changes
// nothing.
func TestPlaceRowsPlacesRowsWrittenWithoutRowIDs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(12, 13))
	docs := map[string][]int64{}
	// Some through a Tx (placed), then the rest as a copy writes them,
	// given the rowids after the largest (places of later documents).
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for d := range int64(5) {
			docs["p"] = append(docs["p"], d)
			if err := tx.CreateMemory(ctx, docMemory(r, "p", d, false)); err != nil {
				return err
			}
		}
		return nil
	})
	for i := range 400 {
		part := []string{"p", "q", "", "new"}[r.IntN(4)]
		d := int64(5 + i)
		if i == 7 {
			d = -1 // out of range
		}
		docs[part] = append(docs[part], d)
		m := docMemory(r, part, d, false)
		if _, err := s.writer.ExecContext(ctx, sqlInsertMemory, append([]any{nil, m.ID}, memoryArgs(m)...)...); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]map[int64]*cairn.Memory{}
	for p, ds := range docs {
		want[p] = byDoc(t, s, p, ds...)
	}
	var before int
	s.writer.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type='index' AND tbl_name='memories'`).Scan(&before)
	for run := range 2 {
		if err := s.PlaceRows(ctx); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		var placed, total, below, indexes int
		err := s.writer.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE m.rowid = p.num * 1099511627776 + m.docnum),
			count(*) FILTER (WHERE m.rowid < 0), count(*) FROM memories m JOIN memory_partitions p ON p.name = m.partition`).Scan(&placed, &below, &total)
		if err != nil {
			t.Fatal(err)
		}
		s.writer.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type='index' AND tbl_name='memories'`).Scan(&indexes)
		if total != 405 || placed != 404 || below != 1 || indexes != before {
			t.Errorf("run %d: %d of %d rows placed, %d below 0, %d indexes; want 404 of 405, 1, %d", run, placed, total, below, indexes, before)
		}
		for p, ds := range docs {
			if got := byDoc(t, s, p, ds...); !reflect.DeepEqual(got, want[p]) {
				t.Errorf("run %d: partition %q reads %d memories that differ from the %d before", run, p, len(got), len(want[p]))
			}
		}
	}
}
