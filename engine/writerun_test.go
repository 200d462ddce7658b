package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// runStore counts the runs of writes begun and ended on a store.
type runStore struct {
	cairn.Store
	mu          sync.Mutex
	began, open int
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

func (s *runStore) counts() (began, open int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.began, s.open
}

// A cleanup that applies its pages does so in one run of writes
// (cairn.Store.WriteRun), ended when it returns; one that only reports
// writes nothing and begins none.
func TestCleanupAppliesItsPagesInOneRunOfWrites(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := &runStore{Store: newStore(t)}
	e := engine.New(st, nil)
	for _, content := range []string{"the build needs go 1.26", "run the tests with -race"} {
		if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "fact", Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Maintain(ctx, "p", false); err != nil {
		t.Fatal(err)
	}
	if began, _ := st.counts(); began != 0 {
		t.Errorf("a cleanup that applies nothing began %d runs of writes, want 0", began)
	}
	if _, err := e.MaintainCounts(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if began, open := st.counts(); began != 1 || open != 0 {
		t.Errorf("a cleanup that applies its pages began %d runs of writes and left %d open, want 1 and 0", began, open)
	}
}
