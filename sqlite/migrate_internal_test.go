package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// A database written by an older cairn is read by a read-only command
// after an upgrade: its schema is brought up to date first, since this
// binary's reads need the newer columns and indexes. Tried for every
// older schema version.
func TestReadOnlyOpenOfAnOlderSchemaMigratesIt(t *testing.T) {
	t.Parallel()
	for v := 1; v < SchemaVersion(); v++ {
		path := filepath.Join(t.TempDir(), "c.db")
		old, err := Open(t.Context(), path, &Options{upTo: v})
		if err != nil {
			t.Fatalf("schema %d: %v", v, err)
		}
		old.Close()
		ro, err := Open(t.Context(), path, &Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("read-only open of schema %d: %v", v, err)
		}
		err = ro.View(t.Context(), func(tx cairn.Tx) error {
			_, _, err := tx.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p", HasFileRefs: true, Sort: cairn.SortUpdatedDesc})
			return err
		})
		ro.Close()
		if err != nil {
			t.Errorf("schema %d, read-only: %v", v, err)
		}
		var got int
		db, err := Open(t.Context(), path, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, err = db.userVersion(t.Context(), db.reader); err != nil || got != SchemaVersion() {
			t.Errorf("schema %d after a read-only open: version %d, %v; want %d", v, got, err, SchemaVersion())
		}
		db.Close()
	}
}

// The lifecycle's last run per project was kept among the transcript
// cursors (source cairn-lifecycle:PROJECT, the run's time as offset): the
// migration to the job state table moves it there, so that an upgraded
// server does not clean up again at once, and leaves real transcripts'
// cursors alone.
func TestJobStateMigrationMovesTheLifecyclesLastRuns(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "c.db")
	old, err := Open(ctx, path, &Options{upTo: 15})
	if err != nil {
		t.Fatal(err)
	}
	ran := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, q := range []struct {
		source string
		offset int64
	}{{"cairn-lifecycle:web-app", ran.UnixMilli()}, {"cairn-lifecycle:a:b", ran.UnixMilli() + 1}, {"/home/u/.claude/projects/x/s.jsonl", 1234}} {
		if _, err := old.writer.ExecContext(ctx, `INSERT INTO ingest_state(source, offset, updated_at) VALUES (?, ?, ?)`, q.source, q.offset, ran.UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var states []cairn.JobState
	var transcript, gone int64
	err = s.View(ctx, func(tx cairn.Tx) error {
		var err error
		if states, err = tx.FindJobStates(ctx, "maintain"); err != nil {
			return err
		}
		if transcript, err = tx.FindIngestOffset(ctx, "/home/u/.claude/projects/x/s.jsonl"); err != nil {
			return err
		}
		gone, err = tx.FindIngestOffset(ctx, "cairn-lifecycle:web-app")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []cairn.JobState{
		{Job: "maintain", Project: "a:b", RanAt: ran.Add(time.Millisecond)},
		{Job: "maintain", Project: "web-app", RanAt: ran},
	}
	if fmt.Sprint(states) != fmt.Sprint(want) {
		t.Errorf("job states after the migration = %+v, want %+v", states, want)
	}
	if transcript != 1234 || gone != 0 {
		t.Errorf("ingest offsets after the migration: transcript %d (want 1234), lifecycle %d (want 0: moved)", transcript, gone)
	}
}

// A database of schema 18, with memories used before the upgrade, gains
// the use queue: a use queued after the upgrade adds to the counts the
// memory had, and a fold applies it.
func TestUseQueueMigrationKeepsTheUsesBefore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "c.db")
	old, err := Open(ctx, path, &Options{upTo: 18})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	if _, err := old.writer.ExecContext(ctx, `INSERT INTO memories(id, project, type, title, content, content_hash, confidence,
		created_at, updated_at, last_used_at, use_count, partition, docnum) VALUES ('m-1', 'p', 'learning', 't', 'c', 'h', 0.5, ?, ?, ?, 4, 'p', 1)`,
		before.UnixMilli(), before.UnixMilli(), before.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	used := before.Add(time.Hour)
	var folded int
	err = s.Update(ctx, func(tx cairn.Tx) error {
		if _, err := tx.QueueUses(ctx, []string{"m-1", "m-1"}, []time.Time{used, used}); err != nil {
			return err
		}
		folded, err = tx.FoldUses(ctx, cairn.UsageBoost, cairn.MaxConfidence)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var m *cairn.Memory
	if err := s.View(ctx, func(tx cairn.Tx) error { m, err = tx.FindMemoryByID(ctx, "m-1"); return err }); err != nil {
		t.Fatal(err)
	}
	if folded != 2 || m.UseCount != 6 || !m.LastUsedAt.Equal(used) || m.Confidence < 0.5399 || m.Confidence > 0.5401 {
		t.Errorf("folded %d; %d uses, last %v, confidence %v; want 2; 6, %v, 0.54", folded, m.UseCount, m.LastUsedAt, m.Confidence, used)
	}
}
