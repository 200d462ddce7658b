package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/postgres"
)

// Two processes (two stores on one schema) queue uses and fold the queue
// at the same time, each from several goroutines: every use is applied
// once, none twice and none lost, and the folds' counts add up to the
// uses queued.
func TestConcurrentFoldsApplyEachQueuedUseOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url, schema := testURL(t), newSchema(t)
	var stores [2]cairn.Store
	for i := range stores {
		s, err := postgres.Open(ctx, url, &postgres.Options{Schema: schema, MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	const memories = 12
	ids := make([]string, memories)
	err := stores[0].Update(ctx, func(tx cairn.Tx) error {
		for i := range ids {
			ids[i] = fmt.Sprintf("m-%04d", i)
			p := []string{"a", "b", "c"}[i%3]
			at := time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC)
			if err := tx.CreateMemory(ctx, &cairn.Memory{ID: ids[i], Project: p, Scope: cairn.ScopeProject,
				Type: "note", Title: ids[i], Content: "content of " + ids[i], Confidence: 0.5,
				Source: cairn.SourceExplicit, CreatedAt: at, UpdatedAt: at, ContentHash: ids[i],
				Partition: p, DocNum: int64(i + 1)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const queuers, batches, perBatch = 4, 30, 7
	want := make([]int, memories)
	var (
		mu     sync.Mutex
		folded int
		errs   = make(chan error, 64)
		wg     sync.WaitGroup
		done   = make(chan struct{})
	)
	fold := func(s cairn.Store) error {
		return s.Update(ctx, func(tx cairn.Tx) error {
			n, err := tx.FoldUses(ctx, cairn.UsageBoost, cairn.MaxConfidence)
			if err == nil {
				mu.Lock()
				folded += n
				mu.Unlock()
			}
			return err
		})
	}
	var queued sync.WaitGroup
	for q := range queuers {
		queued.Add(1)
		go func() {
			defer queued.Done()
			for b := range batches {
				var batch []string
				var at []time.Time
				for k := range perBatch {
					batch = append(batch, ids[(q*31+b*7+k*k)%memories])
					at = append(at, time.Date(2025, 2, 1, 0, q, b, k, time.UTC))
				}
				err := stores[q%2].Update(ctx, func(tx cairn.Tx) error {
					_, err := tx.QueueUses(ctx, batch, at)
					return err
				})
				if err != nil {
					errs <- fmt.Errorf("queue: %w", err)
					return
				}
				mu.Lock()
				for _, id := range batch {
					var i int
					fmt.Sscanf(id, "m-%04d", &i)
					want[i]++
				}
				mu.Unlock()
			}
		}()
	}
	for f := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := fold(stores[f%2]); err != nil {
					errs <- fmt.Errorf("fold: %w", err)
					return
				}
			}
		}()
	}
	queued.Wait()
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := fold(stores[1]); err != nil {
		t.Fatal(err)
	}
	total := queuers * batches * perBatch
	if folded != total {
		t.Errorf("the folds applied %d uses, want %d", folded, total)
	}
	err = stores[0].View(ctx, func(tx cairn.Tx) error {
		for i, id := range ids {
			m, err := tx.FindMemoryByID(ctx, id)
			if err != nil {
				return err
			}
			if m.UseCount != want[i] {
				t.Errorf("%s: %d uses, want %d", id, m.UseCount, want[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
