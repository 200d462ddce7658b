package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// ResidentBytes counts what the caches keep: nothing without a cache,
// more once searches have filled it.
func TestResidentBytesFollowsTheCaches(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := openStore(t)
	for _, cache := range []int64{0, 8 << 20} {
		e := New(st, &Options{CacheBytes: cache, Now: func() time.Time { return now }})
		if cache == 0 {
			for i := range 20 {
				if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("the flaky retry test %d times out on CI", i)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		before := e.ResidentBytes()
		if _, err := e.Search(ctx, cairn.Query{Project: "p", Text: "flaky retry timeout"}); err != nil {
			t.Fatal(err)
		}
		after := e.ResidentBytes()
		switch {
		case cache == 0 && (before != 0 || after != 0):
			t.Errorf("no cache: ResidentBytes %d before a search, %d after, want 0", before, after)
		case cache > 0 && after <= before:
			t.Errorf("with a cache: ResidentBytes %d before a search, %d after, want more", before, after)
		case after > cache+cache/retrievalShare:
			t.Errorf("ResidentBytes %d, over the caches' bound %d", after, cache+cache/retrievalShare)
		}
	}
}
