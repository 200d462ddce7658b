package main

// The PostgreSQL backend through the real binary: several cairn processes,
// as on several machines, sharing one database.

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/pgtest"
)

// pgTestURL returns the test server's URL with a fresh schema as its
// search_path (dropped when the test ends), or skips the test.
func pgTestURL(t testing.TB) string {
	t.Helper()
	return pgtest.SchemaURL(t, "cairn on PostgreSQL")
}

// Two `cairn serve` processes on one PostgreSQL database, each in a home
// of its own (as on two machines): a memory written through either
// reaches the SSE clients of both, in the same order with the same seqs,
// and a stream of one server resumed after writes made through the other
// gets exactly what it missed.
func TestTwoServersOnOnePostgresDeliverEachOthersEvents(t *testing.T) {
	db := pgTestURL(t)
	t.Parallel()
	a := startHTTPServeDB(t, serveDir(t), db, "shop")
	b := startHTTPServeDB(t, serveDir(t), db, "shop")
	streamA, streamB := openEvents(t, a, "shop", ""), openEvents(t, b, "shop", "")
	from := streamA.start(t)
	if fromB := streamB.start(t); fromB != from {
		t.Errorf("the servers start at seqs %d and %d", from, fromB)
	}

	idA := addAs(t, a, "shop", "agent-a", "The checkout total must be computed in cents, never floats.")
	gotB := streamB.events(t, 1)[0]
	if gotB.MemoryID != idA || gotB.SessionID != "agent-a" || gotB.Action != "created" || gotB.Seq <= from {
		t.Errorf("server B's client saw %+v, want agent-a's creation of %s", gotB, idA)
	}
	idB := addAs(t, b, "shop", "agent-b", "The payment mock needs a fresh idempotency key per test.")
	evsA := streamA.events(t, 2)
	if evsA[0] != gotB || evsA[1].MemoryID != idB || evsA[1].SessionID != "agent-b" {
		t.Errorf("server A's client saw %+v, want %s then %s", evsA, idA, idB)
	}
	if got := streamB.events(t, 1)[0]; got != evsA[1] {
		t.Errorf("server B's client saw %+v, want %+v", got, evsA[1])
	}

	// B's client goes away; two writes through A; it comes back with the
	// last id it had and gets both, nothing else.
	last := evsA[1].Seq
	streamB.resp.Body.Close()
	id3 := addAs(t, a, "shop", "agent-a", "Run the migrations before the seed script.")
	id4 := addAs(t, a, "shop", "agent-a", "The staging database is reset every night.")
	again := openEvents(t, b, "shop", "", "Last-Event-ID", strconv.FormatInt(last, 10))
	if n := again.start(t); n != last {
		t.Errorf("the resumed stream starts at %d, want %d", n, last)
	}
	missed := again.events(t, 2)
	if missed[0].MemoryID != id3 || missed[1].MemoryID != id4 || missed[0].Seq <= last || missed[1].Seq <= missed[0].Seq {
		t.Errorf("the resumed stream gave %+v, want %s then %s after %d", missed, id3, id4, last)
	}
}

// cairn migrate through the command line: bad flags are usage errors that
// touch nothing; a copy from SQLite to PostgreSQL and back keeps what
// `search` prints, and says how many rows each table has.
func TestMigrateCommandCopiesBothWays(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"migrate"},
		{"migrate", "--from", c.db},
		{"migrate", "--from", "mysql://u:hunter2@h/db", "--to", c.db + ".2"},
		{"migrate", "--from", c.db, "--to", c.db + ".2", "--batch", "0"},
		{"migrate", "--from", c.db, "--to", c.db + ".2", "extra"},
	} {
		if r := c.raw("", args...); r.code != 2 || strings.Contains(r.stderr, "hunter2") {
			t.Errorf("%v: want a usage error (exit 2), got %v", args, r)
		}
	}
	if r := c.raw("", "migrate", "--from", "sqlite:"+c.db, "--to", c.db+".2"); r.code != 1 || !strings.Contains(r.stderr, "no database") {
		t.Errorf("migrate from a missing file: %v", r)
	}
	if _, err := os.Stat(c.db); err == nil {
		t.Error("migrate from a missing file created it")
	}

	db := pgTestURL(t)
	c.add("--type", "decision", "Deploys go through the staging cluster first.")
	c.add("The retry budget of the payment client is three attempts.")
	want := c.ok("search", "retry budget").stdout
	r := c.raw("", "migrate", "--from", "sqlite:"+c.db, "--to", db)
	if r.code != 0 || !strings.Contains(r.stdout, "memories") || !strings.Contains(r.stderr, "100%") {
		t.Fatalf("migrate to PostgreSQL: %v", r)
	}
	if got := c.raw("", "--db", db, "--project", c.project, "search", "retry budget"); got.code != 0 || got.stdout != want {
		t.Errorf("search on the copy printed %q, want %q", got.stdout, want)
	}
	back := c.db + ".back"
	if r := c.raw("", "migrate", "--from", db, "--to", "sqlite:"+back, "--quiet"); r.code != 0 || strings.Contains(r.stderr, "%") {
		t.Fatalf("migrate back: %v", r)
	}
	if got := c.raw("", "--db", back, "--project", c.project, "search", "retry budget"); got.stdout != want {
		t.Errorf("search after the round trip printed %q, want %q", got.stdout, want)
	}
}

// Eight writer processes adding to one project of a PostgreSQL database,
// with two searching: nothing lost, no lock or serialisation error shown.
func TestBinaryConcurrentWritersOnPostgresLoseNothing(t *testing.T) {
	needBinary(t)
	db := pgTestURL(t)
	t.Parallel()
	concurrentWriters(t, t.TempDir(), db)
}
