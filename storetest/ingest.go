package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// The ingest part of the suite: how far each transcript has been read.

var ingestStoreTests = []struct {
	name string
	fn   func(t *testing.T, s cairn.Store)
}{
	{"IngestOffsetsRoundTripPerSource", testIngestOffsets},
	{"IngestPendingTravelsWithTheOffset", testIngestPending},
}

func testIngestPending(t *testing.T, s cairn.Store) {
	ctx := t.Context()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	read := func(src string) (int64, string) {
		t.Helper()
		var off int64
		var p string
		if err := s.View(ctx, func(tx cairn.Tx) (err error) {
			if off, err = tx.FindIngestOffset(ctx, src); err != nil {
				return err
			}
			p, err = tx.FindIngestPending(ctx, src)
			return err
		}); err != nil {
			t.Fatalf("reading %s: %v", src, err)
		}
		return off, p
	}
	if off, p := read("/t/p.jsonl"); off != 0 || p != "" {
		t.Errorf("unknown source: %d %q", off, p)
	}
	put := func(f func(tx cairn.Tx) error) {
		t.Helper()
		if err := s.Update(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	put(func(tx cairn.Tx) error { return tx.PutIngestState(ctx, "/t/p.jsonl", 100, `{"failing":1}`, at) })
	if off, p := read("/t/p.jsonl"); off != 100 || p != `{"failing":1}` {
		t.Errorf("after PutIngestState: %d %q", off, p)
	}
	// PutIngestOffset moves the offset and keeps what is pending.
	put(func(tx cairn.Tx) error { return tx.PutIngestOffset(ctx, "/t/p.jsonl", 150, at) })
	if off, p := read("/t/p.jsonl"); off != 150 || p != `{"failing":1}` {
		t.Errorf("after PutIngestOffset: %d %q", off, p)
	}
	put(func(tx cairn.Tx) error { return tx.PutIngestState(ctx, "/t/p.jsonl", 200, "", at) })
	if off, p := read("/t/p.jsonl"); off != 200 || p != "" {
		t.Errorf("after clearing: %d %q", off, p)
	}
}

func testIngestOffsets(t *testing.T, s cairn.Store) {
	ctx := t.Context()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	offset := func(src string) int64 {
		t.Helper()
		var off int64
		if err := s.View(ctx, func(tx cairn.Tx) error {
			var err error
			off, err = tx.FindIngestOffset(ctx, src)
			return err
		}); err != nil {
			t.Fatalf("FindIngestOffset(%s): %v", src, err)
		}
		return off
	}
	put := func(src string, off int64) error {
		return s.Update(ctx, func(tx cairn.Tx) error { return tx.PutIngestOffset(ctx, src, off, at) })
	}
	if got := offset("/t/a.jsonl"); got != 0 {
		t.Errorf("unknown source: offset %d, want 0", got)
	}
	if err := put("/t/a.jsonl", 1234); err != nil {
		t.Fatal(err)
	}
	if err := put("/t/b.jsonl", 99); err != nil {
		t.Fatal(err)
	}
	if err := put("/t/a.jsonl", 5678); err != nil { // moves on
		t.Fatal(err)
	}
	if err := put("/t/b.jsonl", 10); err != nil { // a rewritten, shorter file starts over
		t.Fatal(err)
	}
	if a, b := offset("/t/a.jsonl"), offset("/t/b.jsonl"); a != 5678 || b != 10 {
		t.Errorf("offsets a=%d b=%d, want 5678 and 10", a, b)
	}
	err := s.View(ctx, func(tx cairn.Tx) error { return tx.PutIngestOffset(context.Background(), "/t/c", 1, at) })
	wantCode(t, err, cairn.EINVALID, "PutIngestOffset in a read transaction")
}
