package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// runStore counts the runs of writes begun and ended on a store, and
// its write transactions made inside a run and outside any.
type runStore struct {
	cairn.Store
	mu              sync.Mutex
	began, open     int
	inRun, outOfRun int
}

func (s *runStore) WriteRun(ctx context.Context) func() {
	s.mu.Lock()
	s.began++
	s.open++
	s.mu.Unlock()
	end := s.Store.WriteRun(ctx)
	return func() {
		s.mu.Lock()
		s.open--
		s.mu.Unlock()
		end()
	}
}

func (s *runStore) Update(ctx context.Context, fn func(cairn.Tx) error) error {
	s.mu.Lock()
	if s.open > 0 {
		s.inRun++
	} else {
		s.outOfRun++
	}
	s.mu.Unlock()
	return s.Store.Update(ctx, fn)
}

func (s *runStore) counts() (began, open int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.began, s.open
}

func (s *runStore) updates() (inRun, outOfRun int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inRun, s.outOfRun
}

// A cleanup that applies its pages does so in one run of writes
// (cairn.Store.WriteRun), ended when it returns: every page's
// transaction is made inside it. One that only reports writes nothing
// and begins none.
func TestCleanupAppliesItsPagesInOneRunOfWrites(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := &runStore{Store: newStore(t)}
	e := engine.New(st, nil)
	// More memories than a page of the cleanup holds (500): two pages.
	const n = 600
	recs := make([]cairn.ImportRecord, n)
	for i := range recs {
		recs[i] = cairn.ImportRecord{Line: i + 1, Memory: &cairn.Memory{Type: "fact",
			Content: fmt.Sprintf("fact %d: the service w%d calls w%d through w%d", i, i, 7*i+1, 13*i+2)}}
	}
	rep, err := e.Import(ctx, slices.Values(recs), cairn.ImportOptions{Project: "p"})
	if err != nil || rep.Created != n {
		t.Fatalf("Import: %+v, %v; want %d created", rep, err, n)
	}
	_, before := st.updates()
	if _, err := e.Maintain(ctx, "p", false); err != nil {
		t.Fatal(err)
	}
	if began, _ := st.counts(); began != 0 {
		t.Errorf("a cleanup that applies nothing began %d runs of writes, want 0", began)
	}
	if inRun, outOfRun := st.updates(); inRun != 0 || outOfRun != before {
		t.Errorf("a cleanup that applies nothing made %d write transactions, want none", inRun+outOfRun-before)
	}
	if _, err := e.MaintainCounts(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if began, open := st.counts(); began != 1 || open != 0 {
		t.Errorf("a cleanup that applies its pages began %d runs of writes and left %d open, want 1 and 0", began, open)
	}
	if inRun, outOfRun := st.updates(); inRun < 2 || outOfRun != before {
		t.Errorf("a cleanup of two pages made %d write transactions in its run and %d outside it, want 2 or more and none", inRun, outOfRun-before)
	}
}
