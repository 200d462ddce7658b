package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// docMemory is a memory of partition with number doc whose fields vary
// with r: empty and NULL keys, lists, times before 1970 and zero times,
// confidences no short decimal holds, texts with line breaks, tabs and
// non-ASCII letters; nul puts NUL bytes in its texts.
func docMemory(r *rand.Rand, partition string, doc int64, nul bool) *cairn.Memory {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	ms := func() time.Time {
		switch r.IntN(4) {
		case 0:
			return time.Time{}
		case 1:
			return time.UnixMilli(-r.Int64N(1e12)).UTC()
		}
		return time.UnixMilli(r.Int64N(4e12)).UTC()
	}
	m := &cairn.Memory{
		ID:           fmt.Sprintf("mem-%q-%d", partition, doc),
		Project:      pick("p", "q", "other"),
		Scope:        cairn.Scope(pick(string(cairn.ScopeProject), string(cairn.ScopeGlobal))),
		Type:         pick("note", "decision", "fix"),
		Key:          pick("", "", fmt.Sprintf("key-%s-%d", partition, doc)),
		Title:        pick("", "title ü ✓", "a\ttab and \"quotes\""),
		Content:      strings.Repeat(pick("line one\nline two ", "日本語 text ", "x"), 1+r.IntN(60)),
		ContentHash:  fmt.Sprintf("%x", r.Uint64()),
		Tags:         []string{"t1", "agent:claude", "scope:global"}[:r.IntN(4)],
		FileRefs:     []string{"a/*.go", "go.mod"}[:r.IntN(3)],
		Confidence:   []float64{0, 1, 0.1 + 0.2, math.SmallestNonzeroFloat64, r.Float64()}[r.IntN(5)],
		Source:       cairn.Source(pick(string(cairn.SourceExplicit), string(cairn.SourceImported))),
		Agent:        pick("", "claude"),
		Hat:          pick("", "builder"),
		TaskID:       pick("", "42"),
		SessionID:    pick("", "sess-1"),
		CreatedAt:    ms(),
		UpdatedAt:    ms(),
		LastUsedAt:   ms(),
		VerifiedAt:   ms(),
		ExpiresAt:    ms(),
		UseCount:     []int{0, 7, math.MaxInt32 + 1}[r.IntN(3)],
		Pinned:       r.IntN(2) == 0,
		SupersededBy: pick("", "mem-newer"),
		Flag:         pick("", cairn.FlagOverride+","+cairn.FlagRoleSyntax),
		Partition:    partition,
		DocNum:       doc,
	}
	if nul {
		m.Title, m.Content, m.Flag = "a\x00title", "content\x00with\x00NULs\x00", "\x00"
	}
	return m
}

// plainByDoc is FindMemoriesByDoc as one plain query of sqlSelectMemory
// per batch, each batch's memories in the order of their numbers.
func plainByDoc(ctx context.Context, t *Tx, partition string, docs []int64) ([]*cairn.Memory, error) {
	var out []*cairn.Memory
	for batch := range slices.Chunk(docs, docBatchSizes[len(docBatchSizes)-1]) {
		args := []any{partition}
		for _, d := range batch {
			args = append(args, d)
		}
		ms, err := t.many(ctx, sqlSelectMemory+` WHERE partition=? AND docnum IN (`+placeholders(len(batch))+`) ORDER BY docnum`, args...)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

// FindMemoriesByDoc reads its rows packed into two columns
// (sqlSelectPacked): the memories are those a plain query of every column
// returns, field for field and in the same order, for sets of numbers with
// duplicates, numbers of deleted memories and of no memory, numbers of
// other partitions' memories, the global partition, more numbers than a
// batch holds, and memories whose texts hold NUL bytes (read again by
// their rowid), in read and in write transactions.
func TestFindMemoriesByDocEqualsPlainQuery(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(7, 11))
	const docs = 1400
	var deleted []string
	err = s.Update(ctx, func(tx cairn.Tx) error {
		for _, part := range []string{"p", "q", ""} {
			for d := range int64(docs) {
				if r.IntN(5) == 0 {
					continue // no memory has this number
				}
				m := docMemory(r, part, d, r.IntN(50) == 0)
				if err := tx.CreateMemory(ctx, m); err != nil {
					return err
				}
				if r.IntN(10) == 0 {
					deleted = append(deleted, m.ID)
				}
			}
		}
		for _, id := range deleted {
			if err := tx.DeleteMemory(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var nuls int
	compare := func(tx cairn.Tx, part string, docs []int64) {
		t.Helper()
		got, err := tx.FindMemoriesByDoc(ctx, part, docs)
		if err != nil {
			t.Fatalf("FindMemoriesByDoc(%q, %d numbers): %v", part, len(docs), err)
		}
		want, err := plainByDoc(ctx, tx.(*Tx), part, docs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("FindMemoriesByDoc(%q, %v) = %d memories, the plain query %d", part, docs, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("FindMemoriesByDoc(%q)[%d] =\n%q\nthe plain query:\n%q", part, i, fmt.Sprintf("%+v", *got[i]), fmt.Sprintf("%+v", *want[i]))
			}
			if strings.Contains(got[i].Content, "\x00") {
				nuls++
			}
		}
	}
	for _, write := range []bool{false, true} {
		run := s.View
		if write {
			run = s.Update
		}
		err := run(ctx, func(tx cairn.Tx) error {
			for range 60 {
				n := []int{0, 1, 3, 24, 24, 33, 499, 500, 501, 1300}[r.IntN(10)]
				ds := make([]int64, n)
				for i := range ds {
					ds[i] = r.Int64N(docs+20) - 10 // some below 0 and above the last number
					if i > 0 && r.IntN(8) == 0 {
						ds[i] = ds[r.IntN(i)]
					}
				}
				compare(tx, []string{"p", "q", "", "none"}[r.IntN(4)], ds)
			}
			all := make([]int64, docs)
			for i := range all {
				all[i] = int64(i)
			}
			compare(tx, "p", all)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if nuls == 0 {
		t.Error("no memory with NUL bytes was compared")
	}
}

// A row whose columns hold what scanMemory cannot read fails as the plain
// query does, not with a guess.
func TestFindMemoriesByDocFailsOnARowScanMemoryRefuses(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 2))
	err = s.Update(ctx, func(tx cairn.Tx) error {
		return tx.CreateMemory(ctx, docMemory(r, "p", 1, false))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{`pinned = 2`, `use_count = 'many'`, `created_at = 1.5`} {
		if _, err := s.writer.ExecContext(ctx, `UPDATE memories SET `+set); err != nil {
			t.Fatal(err)
		}
		err := s.View(ctx, func(tx cairn.Tx) error {
			_, perr := plainByDoc(ctx, tx.(*Tx), "p", []int64{1})
			ms, err := tx.FindMemoriesByDoc(ctx, "p", []int64{1})
			if perr == nil || err == nil {
				t.Errorf("after SET %s: the plain query's error %v, FindMemoriesByDoc's %v (%d memories); want both to fail", set, perr, err, len(ms))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.writer.ExecContext(ctx, `UPDATE memories SET pinned = 0, use_count = 0, created_at = 0`); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkFindMemoriesByDoc reads the memories of 24 random numbers of a
// partition, as a search loads its candidates, in a read transaction of
// their own. The database is the bench/gen corpus of 100,000 memories when
// CAIRN_BENCH_KEEP names the folder that keeps it (search-100000.db, opened
// read-only), else 30,000 generated memories (far more than the readers'
// page cache holds).
func BenchmarkFindMemoriesByDoc(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(os.Getenv("CAIRN_BENCH_KEEP"), "search-100000.db")
	opts := &Options{ReadOnly: true}
	if _, err := os.Stat(path); os.Getenv("CAIRN_BENCH_KEEP") == "" || err != nil {
		path, opts = filepath.Join(b.TempDir(), "c.db"), nil
	}
	s, err := Open(ctx, path, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if opts == nil {
		r := rand.New(rand.NewPCG(3, 4))
		err := s.Update(ctx, func(tx cairn.Tx) error {
			for d := range int64(30000) {
				m := docMemory(r, "p", d, false)
				m.Content = m.Content[:min(len(m.Content), 400)]
				if err := tx.CreateMemory(ctx, m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	var part string
	var next int64
	if err := s.reader.QueryRowContext(ctx, `SELECT partition, max(docnum) + 1 FROM memories WHERE partition = (SELECT partition FROM memories LIMIT 1)`).Scan(&part, &next); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	docs := make([]int64, 24)
	var rows int
	for b.Loop() {
		for i := range docs {
			docs[i] = r.Int64N(next)
		}
		err := s.View(ctx, func(tx cairn.Tx) error {
			ms, err := tx.FindMemoriesByDoc(ctx, part, docs)
			rows += len(ms)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

// atoi reads every int64 as SQLite writes it, and whatever else it
// accepts, strconv.ParseInt reads as the same number.
func TestAtoiReadsWhatParseIntReads(t *testing.T) {
	t.Parallel()
	in := []string{"", "-", "+1", "007", "-0", "0", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "18446744073709551615", "99999999999999999999",
		"1 ", " 1", "1.5", "1e3", "0x10", "--1", "1-"}
	r := rand.New(rand.NewPCG(8, 9))
	for range 10000 {
		n := int64(r.Uint64()) >> r.IntN(64)
		in = append(in, strconv.FormatInt(n, 10))
		got, ok := atoi(strconv.FormatInt(n, 10))
		if !ok || got != n {
			t.Fatalf("atoi(%d) = %d, %v", n, got, ok)
		}
	}
	for _, s := range in {
		got, ok := atoi(s)
		want, err := strconv.ParseInt(s, 10, 64)
		if ok && (err != nil || got != want) {
			t.Errorf("atoi(%q) = %d; strconv.ParseInt: %d, %v", s, got, want, err)
		}
	}
	for _, s := range []string{"-9223372036854775808", "9223372036854775807", "-0", "007"} {
		if _, ok := atoi(s); !ok {
			t.Errorf("atoi(%q) refused", s)
		}
	}
}
