package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
)

// bulkRecorder counts the write transactions told they are bulk writes.
type bulkRecorder struct {
	cairn.Store
	bulk, writes int
}

func (s *bulkRecorder) Update(ctx context.Context, fn func(cairn.Tx) error) error {
	return s.Store.Update(ctx, func(tx cairn.Tx) error {
		s.writes++
		return fn(bulkTxOf{tx, s})
	})
}

type bulkTxOf struct {
	cairn.Tx
	s *bulkRecorder
}

func (tx bulkTxOf) Bulk(ctx context.Context) error {
	tx.s.bulk++
	return tx.Tx.Bulk(ctx)
}

// An import tells its transaction it is a bulk write (SQLite gives it a
// larger page cache until it commits); a single write does not.
func TestImportIsABulkWrite(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := &bulkRecorder{Store: openStore(t)}
	e := New(st, nil)
	if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "one memory written on its own"}); err != nil {
		t.Fatal(err)
	}
	if st.bulk != 0 {
		t.Fatalf("AddMemory: %d bulk transactions, want 0", st.bulk)
	}
	var recs []cairn.ImportRecord
	for i := range 50 {
		recs = append(recs, cairn.ImportRecord{Line: i + 1, Memory: &cairn.Memory{Content: fmt.Sprintf("imported memory number %d", i)}})
	}
	rep, err := e.Import(ctx, slices.Values(recs), cairn.ImportOptions{Project: "p"})
	if err != nil || rep.Created != 50 {
		t.Fatalf("Import = %+v, %v", rep, err)
	}
	if st.bulk != 1 {
		t.Fatalf("Import: %d bulk transactions, want 1 (of %d writes)", st.bulk, st.writes)
	}
}
