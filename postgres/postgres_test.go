package postgres_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/storetest"
)

// testURL returns the test server's URL, or skips the test when
// CAIRN_TEST_POSTGRES_URL is not set.
func testURL(t testing.TB) string {
	t.Helper()
	return pgtest.URL(t, "the PostgreSQL backend")
}

// newSchema returns a fresh schema name, dropped when the test ends.
func newSchema(t testing.TB) string {
	t.Helper()
	return pgtest.Schema(t, "the PostgreSQL backend")
}

// openStore opens a store in a schema of its own, so tests run in
// parallel on one database.
func openStore(t *testing.T) cairn.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), testURL(t), &postgres.Options{Schema: newSchema(t), MaxConns: 4})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	testURL(t)
	t.Parallel()
	storetest.Run(t, openStore)
}

func TestEngineConformance(t *testing.T) {
	testURL(t)
	t.Parallel()
	storetest.RunEngine(t, openStore)
}

// Processes that open a new schema at the same time all succeed: their
// CREATE SCHEMA IF NOT EXISTS race in the catalog, and the migrations run
// once.
func TestOpeningANewSchemaTogetherSucceeds(t *testing.T) {
	t.Parallel()
	url, schema := testURL(t), newSchema(t)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			s, err := postgres.Open(t.Context(), url, &postgres.Options{Schema: schema, MaxConns: 2})
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Errorf("open: %v", err)
		}
	}
}

func TestVectorConformance(t *testing.T) {
	testURL(t)
	t.Parallel()
	storetest.RunVectors(t, openStore)
}
