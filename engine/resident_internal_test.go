package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// ResidentBytes counts what the caches keep: nothing without a cache,
// more once a search and a lookup by tag have filled it, the rows kept
// included.
func TestResidentBytesFollowsTheCaches(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := openStore(t)
	for _, cache := range []int64{0, 8 << 20} {
		e := New(st, &Options{CacheBytes: cache, Now: func() time.Time { return now }})
		if cache == 0 {
			for i := range 20 {
				if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("the flaky retry test %d times out on CI", i), Tags: []string{"ci"}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		before := e.ResidentBytes()
		if _, err := e.Search(ctx, cairn.Query{Project: "p", Text: "flaky retry timeout"}); err != nil {
			t.Fatal(err)
		}
		searched := e.ResidentBytes()
		if _, err := e.tagCandidates(ctx, "p", []string{"ci"}, nil, 0); err != nil {
			t.Fatal(err)
		}
		after := e.ResidentBytes()
		if cache > 0 && (e.cache.rowBytes() == 0 || after-searched < e.cache.rowBytes()) {
			t.Errorf("with a cache: ResidentBytes %d after a search, %d after a lookup by tag that kept %d bytes of rows", searched, after, e.cache.rowBytes())
		}
		switch {
		case cache == 0 && (before != 0 || after != 0):
			t.Errorf("no cache: ResidentBytes %d before a search, %d after, want 0", before, after)
		case cache > 0 && after <= before:
			t.Errorf("with a cache: ResidentBytes %d before a search, %d after, want more", before, after)
		case after > cache+cache/retrievalShare+cache/rowShare:
			t.Errorf("ResidentBytes %d, over the caches' bound %d", after, cache+cache/retrievalShare+cache/rowShare)
		}
	}
}
