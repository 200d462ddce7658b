package postgres_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// bulkMemory is memory i of TestBulkCreatedMemoriesReadBackAsInserted,
// every field set, most in more than one way.
func bulkMemory(i int) *cairn.Memory {
	at := time.Date(2025, 3, 4, 5, 6, 7, 8_000_000, time.UTC).Add(time.Duration(i) * time.Minute)
	m := &cairn.Memory{
		ID: fmt.Sprintf("bulk-%04d", i), Project: "p", Scope: cairn.ScopeProject, Type: "fact",
		Title:       fmt.Sprintf("title %d é中", i),
		Content:     fmt.Sprintf("content %d\nwith lines\tand tabs, quotes \" ' \\ and é 中 😀", i) + strings.Repeat("x", i%7*300),
		ContentHash: fmt.Sprintf("%032x", i), Confidence: float64(i%100) / 99, Source: cairn.SourceImported,
		Agent: "agent", Hat: "hat", TaskID: "task", SessionID: "session",
		CreatedAt: at, UpdatedAt: at.Add(time.Hour), UseCount: i * 1000, Partition: "p", DocNum: int64(i),
	}
	switch i % 4 {
	case 0:
		m.Key = fmt.Sprintf("key-%d", i)
		m.Tags, m.FileRefs = []string{"a", "b:c"}, []string{"x/y.go", "z.md"}
	case 1:
		m.Tags = []string{"only"}
		m.LastUsedAt, m.VerifiedAt, m.ExpiresAt = at.Add(2*time.Hour), at.Add(3*time.Hour), at.Add(-time.Hour)
	case 2:
		m.Scope, m.Partition, m.Pinned, m.SupersededBy, m.Flag = cairn.ScopeGlobal, "", true, "bulk-0000", "override,role-syntax"
		m.Confidence = 1
	case 3:
		m.Confidence, m.UseCount = 0.1234567890123, 0
	}
	return m
}

// Memories created in bulk (past the first 64 of a transaction, which go
// through COPY's binary format in batches) read back exactly as the same
// memories inserted one to a transaction. Tried: a NULL key and keys,
// empty and several tags and file refs, zero and set times, times with
// milliseconds, fractional confidences, pinned, global scope (empty
// partition), non-ASCII text, long content, large counts; 600 memories,
// so that several batches and a partial last one are sent.
func TestBulkCreatedMemoriesReadBackAsInserted(t *testing.T) {
	testURL(t)
	t.Parallel()
	ctx := t.Context()
	const n = 600
	bulk, single := openStore(t), openStore(t)
	defer bulk.Close()
	defer single.Close()
	if err := bulk.Update(ctx, func(tx cairn.Tx) error {
		for i := range n {
			if err := tx.CreateMemory(ctx, bulkMemory(i)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("bulk create: %v", err)
	}
	for i := range n {
		if i%4 != 0 && i > 20 {
			continue // enough of them one by one
		}
		if err := single.Update(ctx, func(tx cairn.Tx) error { return tx.CreateMemory(ctx, bulkMemory(i)) }); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	read := func(s cairn.Store, id string) *cairn.Memory {
		var m *cairn.Memory
		if err := s.View(ctx, func(tx cairn.Tx) (err error) {
			m, err = tx.FindMemoryByID(ctx, id)
			return err
		}); err != nil {
			t.Fatalf("read %s: %v", id, err)
		}
		return m
	}
	for i := range n {
		id := bulkMemory(i).ID
		got := read(bulk, id)
		if i%4 != 0 && i > 20 {
			if got.Content != bulkMemory(i).Content || got.DocNum != int64(i) {
				t.Errorf("%s read back as %+v", id, got)
			}
			continue
		}
		if want := read(single, id); !reflect.DeepEqual(got, want) {
			t.Errorf("%s in bulk:\n%+v\none by one:\n%+v", id, got, want)
		}
	}
	// A bulk create that conflicts fails the transaction, and nothing of
	// it is kept.
	err := bulk.Update(ctx, func(tx cairn.Tx) error {
		for i := range 100 {
			m := bulkMemory(n + i)
			if i == 90 {
				m.ID = bulkMemory(3).ID
			}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
		}
		_, err := tx.FindMemoryByID(ctx, bulkMemory(n).ID) // ends the COPY
		return err
	})
	if cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Errorf("a conflicting bulk create: %v, want ECONFLICT", err)
	}
	if err := bulk.View(ctx, func(tx cairn.Tx) error {
		_, err := tx.FindMemoryByID(ctx, bulkMemory(n).ID)
		return err
	}); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("a memory of the failed transaction: %v, want ENOTFOUND", err)
	}
}
