package engine

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestFileRefCandidatesEqualAScan: the memories about a file, found from
// the index terms of their references, are those a scan of every memory
// with references finds with cairn.FileRefMatch: for plain paths, folders
// (with and without a trailing slash), globs at the root, under folders,
// with "**" and with a wildcard in a file name, bare file names, absolute
// paths, "./" and Windows paths, and files given as absolute paths; for memories of the project in
// either scope (not another project's global ones); narrowed to types;
// after references were edited and memories deleted; and for a file given
// as a glob (which the scan answers). When more match than a block reads
// (fileCandidates), it finds the newest indexed of them (the project's
// partition's first). With and without the postings cache.
func TestFileRefCandidatesEqualAScan(t *testing.T) {
	t.Parallel()
	for _, cacheBytes := range []int64{0, 1 << 20} {
		t.Run(fmt.Sprint("cache", cacheBytes), func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
			e := New(st, &Options{CacheBytes: cacheBytes, Now: func() time.Time { return now }})
			r := rand.New(rand.NewPCG(7, uint64(cacheBytes)))
			dirs := []string{"a", "a/b", "a/b/c", "x", "x/y"}
			files := []string{"a/main.go", "a/b/db.go", "a/b/db_test.go", "a/b/c/deep.go", "x/y/z.sql", "x/readme.md", "top.go", "a/bz.go", "README.md", "a/x.tar.gz", "a/b/Makefile"}
			refs := append(slices.Clone(files), "a", "a/b/", "x/y", "*.go", "a/b/*_test.go", "**/*_test.go", "a/b*", "x/*/z.sql", "a/b/c/**", "a/b/db.go", "nothing/here.go", "a/[bc]/db.go",
				"*.md", "x/*.sql", "a/b/*.g?", "a/*.tar.gz", "a/b/db.*", "x/read[m]e.md", "a/b/db_test.g[o]", `a/b/db\.go`, "**/*.go",
				"db.go", "/home/u/p/a/b/db.go", "/home/u/p/top.go", "./a/main.go", `a\b\Makefile`, "a/b/c/*", "/elsewhere/z.sql")
			refs = append(refs, dirs...)
			types := []string{"pitfall", "pattern", "fix"}
			var ids []string
			for i := range 250 {
				now = now.Add(time.Minute)
				m := &cairn.Memory{Project: "p", Type: types[r.IntN(len(types))], Content: fmt.Sprintf("memory %d", i)}
				for range r.IntN(4) {
					m.FileRefs = append(m.FileRefs, refs[r.IntN(len(refs))])
				}
				switch r.IntN(10) {
				case 0:
					m.Scope = cairn.ScopeGlobal
				case 1:
					m.Project = "other"
					m.Scope = cairn.ScopeGlobal
				}
				ids = addAndChurn(t, e, r, ids, m, 15, func() cairn.MemoryUpdate {
					refs := []string{refs[r.IntN(len(refs))]}
					return cairn.MemoryUpdate{FileRefs: &refs}
				})
			}
			all, _, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p", HasFileRefs: true, Limit: 10000})
			if err != nil {
				t.Fatal(err)
			}
			capped := 0
			queries := [][]string{{"a/b/db_test.go"}, {"a/b/"}, {"top.go"}, {"x/y/z.sql", "a/main.go"}, {"a/bz.go"}, {"README.md"}, {"x/readme.md"}, {"a/x.tar.gz"}, {"a/b/Makefile"}, {"a/b/db.go"}, {"unknown/file.go"}, {"a/b/c/deep.go"}, {"a/*.go"}, {"/home/u/p/a/b/db.go"}, {"/home/u/p/a/b/c/deep.go"}, {"db.go"}, {"/elsewhere/x/y/z.sql"}}
			for _, q := range queries {
				for _, narrow := range [][]string{nil, {"pitfall", "fix"}} {
					got, err := e.fileRefCandidates(t.Context(), "p", q, narrow, 0)
					if err != nil {
						t.Fatal(err)
					}
					var want []string
					var matching []*cairn.Memory
					for _, m := range all {
						if m.FileMatch(q) > 0 && (narrow == nil || slices.Contains(narrow, m.Type)) {
							want = append(want, m.ID)
							matching = append(matching, m)
						}
					}
					// The project's partition first, then the global
					// one's, each the newest indexed first.
					slices.SortFunc(matching, func(a, b *cairn.Memory) int {
						if a.Partition != b.Partition {
							return strings.Compare(b.Partition, a.Partition)
						}
						return cmp.Compare(b.DocNum, a.DocNum)
					})
					var newest []string
					for _, m := range matching[:min(len(matching), fileCandidates)] {
						newest = append(newest, m.ID)
					}
					slices.Sort(newest)
					var gotIDs []string
					for _, m := range got {
						gotIDs = append(gotIDs, m.ID)
					}
					slices.Sort(want)
					slices.Sort(gotIDs)
					if len(want) == 0 && q[0] != "unknown/file.go" {
						t.Errorf("files %v, types %v: no memory refers to them; the test's corpus is wrong", q, narrow)
					}
					switch {
					case len(want) <= fileCandidates && !slices.Equal(gotIDs, want):
						t.Errorf("files %v, types %v: found %d memories, a scan finds %d\ngot  %v\nwant %v", q, narrow, len(gotIDs), len(want), gotIDs, want)
					case len(want) > fileCandidates:
						// More match than a block reads: the newest
						// indexed of them.
						if !slices.Equal(gotIDs, newest) {
							t.Errorf("files %v, types %v: found %d of the %d memories that match\ngot  %v\nwant the newest %v", q, narrow, len(gotIDs), len(want), gotIDs, newest)
						}
						capped++
					}
				}
			}
			if capped == 0 || capped == 2*len(queries) {
				t.Errorf("%d of %d lookups had more matches than a block reads: the corpus tests one case only", capped, 2*len(queries))
			}
		})
	}
}

// docsTx answers FindMemoriesByDoc from memories by document number,
// counting the rows it reads.
type docsTx struct {
	cairn.Tx
	byDoc map[int64]*cairn.Memory
	read  *int
}

func (tx docsTx) FindMemoriesByDoc(_ context.Context, _ string, docs []int64) ([]*cairn.Memory, error) {
	var out []*cairn.Memory
	for _, d := range docs {
		if m, ok := tx.byDoc[d]; ok {
			out = append(out, m)
			*tx.read++
		}
	}
	slices.SortFunc(out, func(a, b *cairn.Memory) int { return cmp.Compare(a.DocNum, b.DocNum) })
	return out, nil
}

// TestNewestMatchingReadsFewRows: the memories about a file are the limit
// newest of those whose rows match, whatever the batches they were read
// in, and the rows read beyond the newest that decide them are few: the
// batch after the first is of as many as are missing, over the share
// that matched (a second batch of limit read 62 rows for 40 in an Edit
// block at 1,000,000 memories).
func TestNewestMatchingReadsFewRows(t *testing.T) {
	t.Parallel()
	const limit = 40
	for _, c := range []struct {
		name  string
		match func(doc int64) bool
		// slack is how many rows beyond the newest limit that match
		// it may read.
		slack int
	}{
		{"all match", func(int64) bool { return true }, 0},
		{"one in ten does not", func(d int64) bool { return d%10 != 3 }, 2},
		{"a few old ones do not", func(d int64) bool { return d > 960 || d%2 == 0 }, 2},
		{"one in three", func(d int64) bool { return d%3 == 0 }, 3},
		{"none of the first batch", func(d int64) bool { return d <= 950 }, limit},
		{"too few", func(d int64) bool { return d%100 == 0 }, 0},
		{"none", func(int64) bool { return false }, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx := docsTx{byDoc: map[int64]*cairn.Memory{}, read: new(int)}
			var docs []int64 // the newest first
			for d := int64(1000); d > 800; d-- {
				if d%17 == 5 {
					continue // a document whose memory is gone
				}
				tx.byDoc[d] = &cairn.Memory{ID: fmt.Sprint("m", d), DocNum: d, FileRefs: []string{fmt.Sprint(c.match(d))}}
				docs = append(docs, d)
			}
			var want []int64
			decide := 0 // the newest rows that decide the answer
			for _, d := range docs {
				if len(want) == limit {
					break
				}
				decide++
				if c.match(d) {
					want = append(want, d)
				}
			}
			got, err := newestMatching(t.Context(), tx, &rowView{}, "p", docs, func(m *cairn.Memory) bool { return m.FileRefs[0] == "true" }, nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			var gotDocs []int64
			for _, m := range got {
				gotDocs = append(gotDocs, m.DocNum)
			}
			slices.Sort(want)
			slices.Sort(gotDocs)
			if !slices.Equal(gotDocs, want) {
				t.Errorf("found %v\nwant the newest %d that match: %v", gotDocs, limit, want)
			}
			if *tx.read > decide+c.slack {
				t.Errorf("read %d rows; the newest %d decide, and %d more may be read", *tx.read, decide, c.slack)
			}
		})
	}
}
