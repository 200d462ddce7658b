package postgres_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"
)

// The lifecycle's last run per project was kept among the transcript
// cursors (source cairn-lifecycle:PROJECT, the run's time as offset): the
// migration to the job state table moves it there and leaves real
// transcripts' cursors alone. The database is put back as the schema
// before that migration left it, with such rows, and opened again.
func TestJobStateMigrationMovesTheLifecyclesLastRuns(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := pgtest.SchemaURL(t, "the PostgreSQL backend")
	s, err := postgres.Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	ran := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`DROP TABLE job_state`,
		`DROP TABLE project_settings`, // a later migration, applied again after this one
		`DELETE FROM schema_migrations WHERE version >= 5`,
		fmt.Sprintf(`INSERT INTO ingest_state(source, "offset", updated_at) VALUES ('cairn-lifecycle:web-app', %d, 0), ('cairn-lifecycle:a:b', %d, 0), ('/home/u/s.jsonl', 1234, 0)`, ran.UnixMilli(), ran.UnixMilli()+1),
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s, err = postgres.Open(ctx, url, nil)
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
		if transcript, err = tx.FindIngestOffset(ctx, "/home/u/s.jsonl"); err != nil {
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

// A database from before the use queue opens with one: uses queued after
// the migration are applied to the memories stored before it.
func TestUseQueueMigrationQueuesUsesOfExistingMemories(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := pgtest.SchemaURL(t, "the PostgreSQL backend")
	s, err := postgres.Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	err = s.Update(ctx, func(tx cairn.Tx) error {
		return tx.CreateMemory(ctx, &cairn.Memory{ID: "m-0001", Project: "p", Scope: cairn.ScopeProject,
			Type: "note", Title: "a memory", Content: "its content", Confidence: 0.5,
			Source: cairn.SourceExplicit, CreatedAt: at, UpdatedAt: at, ContentHash: "h1", Partition: "p", DocNum: 1})
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{`DROP TABLE use_queue`, `DELETE FROM schema_migrations WHERE version >= 8`} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s, err = postgres.Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	used := at.Add(time.Hour)
	var n int
	err = s.Update(ctx, func(tx cairn.Tx) error {
		if !tx.SupportsUseQueue() {
			return fmt.Errorf("no use queue after the migration")
		}
		_, err := tx.QueueUses(ctx, []string{"m-0001", "m-0001"}, []time.Time{used, used})
		return err
	})
	if err == nil {
		err = s.Update(ctx, func(tx cairn.Tx) error {
			n, err = tx.FoldUses(ctx, cairn.UsageBoost, cairn.MaxConfidence)
			return err
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	var m *cairn.Memory
	err = s.View(ctx, func(tx cairn.Tx) error {
		m, err = tx.FindMemoryByID(ctx, "m-0001")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || m.UseCount != 2 || !m.LastUsedAt.Equal(used) {
		t.Errorf("after the migration: fold applied %d, memory has %d uses last at %v; want 2, 2, %v", n, m.UseCount, m.LastUsedAt, used)
	}
}
