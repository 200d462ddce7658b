package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
// (fileCandidates), it finds that many, all of which match. With and
// without the postings cache.
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
					for _, m := range all {
						if m.FileMatch(q) > 0 && (narrow == nil || slices.Contains(narrow, m.Type)) {
							want = append(want, m.ID)
						}
					}
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
						// More match than a block reads: as many as it
						// reads, each one of them.
						if len(gotIDs) != fileCandidates {
							t.Errorf("files %v, types %v: found %d of the %d memories that match, want %d", q, narrow, len(gotIDs), len(want), fileCandidates)
						}
						for _, id := range gotIDs {
							if _, ok := slices.BinarySearch(want, id); !ok {
								t.Errorf("files %v, types %v: found %s, which does not match", q, narrow, id)
							}
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
