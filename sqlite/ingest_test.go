package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

func TestIngestOffset(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	get := func(src string) int64 {
		t.Helper()
		var off int64
		if err := s.View(ctx, func(tx cairn.Tx) error {
			var err error
			off, err = tx.FindIngestOffset(ctx, src)
			return err
		}); err != nil {
			t.Fatalf("FindIngestOffset: %v", err)
		}
		return off
	}
	put := func(src string, off int64) {
		t.Helper()
		if err := s.Update(ctx, func(tx cairn.Tx) error {
			return tx.PutIngestOffset(ctx, src, off, time.Now())
		}); err != nil {
			t.Fatalf("PutIngestOffset: %v", err)
		}
	}
	if off := get("/a.jsonl"); off != 0 {
		t.Errorf("unknown source: offset %d, want 0", off)
	}
	put("/a.jsonl", 120)
	put("/b.jsonl", 7)
	put("/a.jsonl", 300)
	if off := get("/a.jsonl"); off != 300 {
		t.Errorf("offset %d, want 300", off)
	}
	if off := get("/b.jsonl"); off != 7 {
		t.Errorf("offset %d, want 7", off)
	}
	err := s.View(ctx, func(tx cairn.Tx) error {
		return tx.PutIngestOffset(context.Background(), "/c", 1, time.Now())
	})
	if cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("PutIngestOffset in View: %v, want EINVALID", err)
	}
}
