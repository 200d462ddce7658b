package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

func openStore(t *testing.T) cairn.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, openStore)
}

func TestEngineConformance(t *testing.T) {
	t.Parallel()
	storetest.RunEngine(t, openStore)
}

// rawDB opens the database file directly, bypassing the Store.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func open(t testing.TB, path string, opts *sqlite.Options) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return s
}

// storesOnOneFile opens two Stores on one new database file, standing
// for two processes; both are closed when the test ends.
func storesOnOneFile(t *testing.T) (a, b *sqlite.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.db")
	a, b = open(t, path, nil), open(t, path, nil)
	t.Cleanup(func() {
		a.Close()
		b.Close()
	})
	return a, b
}

type migrationRow struct {
	version   int
	name      string
	appliedAt int64
}

func migrationRows(t *testing.T, path string) []migrationRow {
	t.Helper()
	db := rawDB(t, path)
	rows, err := db.QueryContext(t.Context(), "SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []migrationRow
	for rows.Next() {
		var r migrationRow
		if err := rows.Scan(&r.version, &r.name, &r.appliedAt); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return out
}

func userVersion(t *testing.T, path string) int {
	t.Helper()
	db := rawDB(t, path)
	defer db.Close()
	var v int
	if err := db.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpenRecordsMigrations(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	if err := open(t, path, nil).Close(); err != nil {
		t.Fatal(err)
	}
	if sqlite.SchemaVersion() < 1 {
		t.Fatalf("SchemaVersion() = %d", sqlite.SchemaVersion())
	}
	rows := migrationRows(t, path)
	if len(rows) == 0 {
		t.Fatal("schema_migrations is empty")
	}
	if last := rows[len(rows)-1]; last.version != sqlite.SchemaVersion() {
		t.Errorf("last recorded migration %d, want %d", last.version, sqlite.SchemaVersion())
	}
	// Versions rise; numbers may be skipped (one reserved by a branch
	// not merged yet).
	for i, r := range rows {
		if i > 0 && r.version <= rows[i-1].version || r.version < 1 || !strings.HasPrefix(r.name, fmt.Sprintf("%04d_", r.version)) || r.appliedAt <= 0 {
			t.Errorf("migration row %+v", r)
		}
	}
	if v := userVersion(t, path); v != sqlite.SchemaVersion() {
		t.Errorf("user_version = %d, want %d", v, sqlite.SchemaVersion())
	}
}

func TestReopenDoesNotRerunMigrations(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	s := open(t, path, nil)
	eng := engine.New(s, nil)
	res, err := eng.AddMemory(t.Context(), &cairn.Memory{Project: "p", Content: "kept across reopen"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := migrationRows(t, path)
	time.Sleep(5 * time.Millisecond) // a re-run would record a later applied_at

	for i := 0; i < 2; i++ {
		s = open(t, path, nil)
		if _, err := engine.New(s, nil).FindMemoryByID(t.Context(), res.Memory.ID); err != nil {
			t.Errorf("reopen %d lost the memory: %v", i, err)
		}
		s.Close()
	}
	after := migrationRows(t, path)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("schema_migrations changed on reopen: %v -> %v", before, after)
	}
}

func TestNewerSchemaIsRefusedWithClearMessage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	open(t, path, nil).Close()
	db := rawDB(t, path)
	if _, err := db.ExecContext(t.Context(), "PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, opts := range []*sqlite.Options{{ReadOnly: true}, nil} {
		s, err := sqlite.Open(t.Context(), path, opts)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%+v) of a schema 999 database succeeded", opts)
		}
		if cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("Open(%+v): code %q, want %q (%v)", opts, cairn.ErrorCode(err), cairn.EINVALID, err)
		}
		msg := cairn.ErrorMessage(err)
		for _, want := range []string{"newer", "999", "upgrade"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Open(%+v): message %q does not mention %q", opts, msg, want)
			}
		}
	}
	if v := userVersion(t, path); v != 999 {
		t.Errorf("user_version changed to %d by a refused open", v)
	}
}

func TestReadOnlyOpenReadsAndRefusesWrites(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	s := open(t, path, nil)
	res, err := engine.New(s, nil).AddMemory(t.Context(), &cairn.Memory{Project: "p", Content: "written before"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	ro := open(t, path, &sqlite.Options{ReadOnly: true})
	defer ro.Close()
	eng := engine.New(ro, nil)
	if _, err := eng.FindMemoryByID(t.Context(), res.Memory.ID); err != nil {
		t.Errorf("read-only store cannot read: %v", err)
	}
	hits, err := eng.Search(t.Context(), cairn.Query{Project: "p", Text: "written"})
	if err != nil || len(hits) != 1 {
		t.Errorf("read-only search = %d hits, %v", len(hits), err)
	}
	_, err = eng.AddMemory(t.Context(), &cairn.Memory{Project: "p", Content: "written through a read-only store"})
	if err == nil {
		t.Error("AddMemory through a read-only store succeeded")
	}
	if _, n, _ := eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p"}); n != 1 {
		t.Errorf("project has %d memories, want 1", n)
	}
}

func TestWALModeIsOn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	s := open(t, path, nil)
	defer s.Close()
	db := rawDB(t, path)
	var mode string
	if err := db.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
}

func TestOpenCreatesMissingFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "c.db")
	open(t, path, nil).Close()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", fi.Mode().Perm())
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file: %v", err)
	}
}

func TestOpenPathWithSpecialCharactersUsesThatFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "my dir #1", "c?x=1&y%20.db")
	s := open(t, path, nil)
	if _, err := engine.New(s, nil).AddMemory(t.Context(), &cairn.Memory{Project: "p", Content: "special path"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database is not at %q: %v", path, err)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q", s.Path())
	}
}

func TestInMemoryDatabaseIsUsable(t *testing.T) {
	t.Parallel()
	s, err := sqlite.Open(t.Context(), ":memory:", nil)
	if err != nil {
		t.Fatalf("Open(:memory:): %v", err)
	}
	defer s.Close()
	eng := engine.New(s, nil)
	res, err := eng.AddMemory(t.Context(), &cairn.Memory{Project: "p", Content: "kept in memory"})
	if err != nil {
		t.Fatalf("AddMemory: %v", err)
	}
	if _, err := eng.FindMemoryByID(t.Context(), res.Memory.ID); err != nil {
		t.Errorf("FindMemoryByID after AddMemory: %v", err)
	}
}

func TestOpenWithoutPathIsInvalid(t *testing.T) {
	t.Parallel()
	_, err := sqlite.Open(t.Context(), "", nil)
	if cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("Open(\"\") = %v, want EINVALID", err)
	}
}

func TestOpenOfNonDatabaseFileIsUnavailable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("this is not a database\n", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(t.Context(), path, nil)
	if err == nil {
		s.Close()
		t.Fatal("Open of a text file succeeded")
	}
	if code := cairn.ErrorCode(err); code == cairn.EINTERNAL {
		t.Errorf("Open of a text file: code %q (%v), want a code a user can act on", code, err)
	}
}

func TestPanicInUpdateDoesNotWedgeTheWriter(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	defer s.Close()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not reach the caller")
			}
		}()
		s.Update(t.Context(), func(tx cairn.Tx) error {
			if err := tx.PutPartition(t.Context(), &cairn.PartitionStats{Name: "p", Docs: 1}); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err := s.Update(ctx, func(tx cairn.Tx) error {
		ps, err := tx.Partition(ctx, "p")
		if err == nil && ps.Docs != 0 {
			t.Errorf("the panicking transaction was committed: %+v", ps)
		}
		return err
	})
	if err != nil {
		t.Errorf("Update after a panicking Update: %v", err)
	}
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	t.Parallel()
	const writers, each = 8, 50
	s := openStore(t)
	defer s.Close()
	eng := engine.New(s, nil)
	addConcurrently(t, []*engine.Engine{eng}, writers, each)
	checkAll(t, eng, writers*each)
}

func TestWritersThroughTwoStoresOnOneFileLoseNothing(t *testing.T) {
	t.Parallel()
	a, b := storesOnOneFile(t)
	ea, eb := engine.New(a, nil), engine.New(b, nil)
	addConcurrently(t, []*engine.Engine{ea, eb}, 6, 30)
	checkAll(t, ea, 6*30)
	checkAll(t, eb, 6*30)
}

func addConcurrently(t *testing.T, engs []*engine.Engine, writers, each int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		eng := engs[w%len(engs)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				res, err := eng.AddMemory(t.Context(), &cairn.Memory{
					Project: "p",
					Content: fmt.Sprintf("concurrent writer w%d wrote item%d", w, i),
				})
				if err == nil && res.Status != cairn.StatusCreated {
					err = fmt.Errorf("w%d item%d: status %s", w, i, res.Status)
				}
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("AddMemory: %v", err)
		}
	}
}

func checkAll(t *testing.T, eng *engine.Engine, n int) {
	t.Helper()
	ctx := t.Context()
	if _, total, err := eng.FindMemories(ctx, cairn.MemoryFilter{Project: "p"}); err != nil || total != n {
		t.Errorf("FindMemories total = %d, %v; want %d", total, err, n)
	}
	st, err := eng.Stats(ctx, "p")
	if err != nil || st.IndexDocs != int64(n) || st.Total != n {
		t.Errorf("Stats = %+v, %v; want %d documents", st, err, n)
	}
	hits, err := eng.Search(ctx, cairn.Query{Project: "p", Text: "concurrent writer", Limit: cairn.MaxLimit})
	if err != nil || len(hits) != n {
		t.Errorf("Search = %d hits, %v; want %d", len(hits), err, n)
	}
	seen := map[int64]bool{}
	for _, h := range hits {
		if seen[h.Memory.DocNum] {
			t.Errorf("document number %d given twice", h.Memory.DocNum)
		}
		seen[h.Memory.DocNum] = true
	}
	for _, q := range []string{"w0 item0", "w3 item17"} {
		if hits, err := eng.Search(ctx, cairn.Query{Project: "p", Text: q, Limit: 1}); err != nil || len(hits) != 1 ||
			!strings.Contains(hits[0].Memory.Content, strings.ReplaceAll(q, " ", " wrote ")) {
			t.Errorf("Search(%q) = %v, %v", q, hits, err)
		}
	}
}

func TestVectorConformance(t *testing.T) {
	t.Parallel()
	storetest.RunVectors(t, openStore)
}

// TestDataVersionSeesOwnWritesAtOnceAndOthersWithinAMillisecond: a
// write through the store changes DataVersion in the very next call,
// even one within the millisecond its last reading is reused; a write by
// another store on the file (another process) changes it once that
// millisecond has passed; a read changes nothing.
func TestDataVersionSeesOwnWritesAtOnceAndOthersWithinAMillisecond(t *testing.T) {
	t.Parallel()
	a, b := storesOnOneFile(t)
	ea, eb := engine.New(a, nil), engine.New(b, nil)
	ctx := t.Context()
	version := func() int64 {
		t.Helper()
		v, err := a.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := version()
	if _, err := ea.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "written through a"}); err != nil {
		t.Fatal(err)
	}
	v1 := version()
	if v1 <= v0 {
		t.Fatalf("own write: data version %d, then %d; want it to grow at once", v0, v1)
	}
	if _, err := ea.Search(ctx, cairn.Query{Project: "p", Text: "written"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	v2 := version()
	if v2 < v1 {
		t.Fatalf("data version went back from %d to %d", v1, v2)
	}
	time.Sleep(2 * time.Millisecond)
	if v := version(); v != v2 {
		t.Fatalf("no write: data version %d, then %d", v2, v)
	}
	if _, err := eb.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "written through b"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	if v := version(); v <= v2 {
		t.Fatalf("another store's write: data version %d, then %d; want it to grow within a millisecond", v2, v)
	}
}

// TestRowsVersion: the rows version stays the same over the store's own
// writes of queued uses and activity entries, and changes with its
// writes of memories (a fold of the queued uses, an add), with another
// store's writes (within a millisecond), and with another store's write
// between two of its own queued uses; it is read while a write holds the
// writer, and never goes back.
func TestRowsVersion(t *testing.T) {
	t.Parallel()
	a, b := storesOnOneFile(t)
	ea, eb := engine.New(a, nil), engine.New(b, nil)
	ctx := t.Context()
	last := int64(0)
	version := func() int64 {
		t.Helper()
		time.Sleep(2 * time.Millisecond) // others' commits are seen within a millisecond
		v, ok, err := a.RowsVersion(ctx)
		if err != nil || !ok {
			t.Fatalf("rows version: %d, %v, %v", v, ok, err)
		}
		if v < last {
			t.Fatalf("rows version went back from %d to %d", last, v)
		}
		last = v
		return v
	}
	var ids []string
	for i := range 3 {
		res, err := ea.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("memory %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	queue := func(session string) {
		t.Helper()
		if _, err := ea.QueueUses(ctx, []engine.Use{{IDs: ids[:2], Session: session}}); err != nil {
			t.Fatal(err)
		}
	}
	version()
	queue("s0") // the first commit seen after the first reading changes it
	v := version()
	queue("s1")
	queue("s2")
	if got := version(); got != v {
		t.Fatalf("own queued uses: rows version %d, then %d; want it unchanged", v, got)
	}
	changes(t, version, "a fold of the queued uses left the rows version as it was", func() error {
		_, err := ea.FoldUses(ctx)
		return err
	})
	changes(t, version, "an add left the rows version as it was", func() error {
		_, err := ea.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "one more"})
		return err
	})
	changes(t, version, "another store's add left the rows version as it was", func() error {
		_, err := eb.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "written through b"})
		return err
	})
	v = version()
	queue("s3")
	if err := eb.RecordUse(ctx, ids[2:], "s4"); err != nil {
		t.Fatal(err)
	}
	queue("s5")
	if got := version(); got == v {
		t.Fatal("another store's write between two of the own queued uses left the rows version as it was")
	}
	// While a write holds the writer, the version is read all the same:
	// the write lets the writer go only once the reading has returned, so
	// a reading that waited for the writer would not return.
	v = version()
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- a.Update(ctx, func(cairn.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	type reading struct {
		v   int64
		ok  bool
		err error
	}
	read := make(chan reading, 1)
	go func() {
		got, ok, err := a.RowsVersion(ctx)
		read <- reading{got, ok, err}
	}()
	select {
	case r := <-read:
		close(release)
		if r.err != nil || !r.ok || r.v != v {
			t.Fatalf("while a write holds the writer: rows version %d, %v, %v; want %d", r.v, r.ok, r.err, v)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("the rows version waited for the write that holds the writer")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestIndexVersion: the index version stays the same over the store's
// own writes of queued uses and activity entries and over a fold of the
// queued uses into their memories (which changes the rows version), and
// changes with its adds and removals and with another store's writes,
// at once as IndexVersionNow reads it (no wait: a search must not miss
// another process's removal).
func TestIndexVersion(t *testing.T) {
	t.Parallel()
	a, b := storesOnOneFile(t)
	ea, eb := engine.New(a, nil), engine.New(b, nil)
	ctx := t.Context()
	version := func() int64 {
		t.Helper()
		v, ok, err := a.IndexVersionNow(ctx)
		if err != nil || !ok {
			t.Fatalf("index version: %d, %v, %v", v, ok, err)
		}
		return v
	}
	res, err := ea.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "a memory used often"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{res.Memory.ID}
	version()
	if _, err := ea.QueueUses(ctx, []engine.Use{{IDs: ids, Session: "s0"}}); err != nil { // the first commit seen
		t.Fatal(err)
	}
	v := version()
	rows, _, _ := a.RowsVersion(ctx)
	if _, err := ea.QueueUses(ctx, []engine.Use{{IDs: ids, Session: "s1"}}); err != nil {
		t.Fatal(err)
	}
	if err := ea.RecordUse(ctx, ids, "s2"); err != nil {
		t.Fatal(err)
	}
	if _, err := ea.FoldUses(ctx); err != nil {
		t.Fatal(err)
	}
	if got := version(); got != v {
		t.Fatalf("own uses, recorded and folded: index version %d, then %d; want it unchanged", v, got)
	}
	if r, _, _ := a.RowsVersion(ctx); r == rows {
		t.Fatal("the uses recorded and folded left the rows version as it was")
	}
	changes(t, version, "an add left the index version as it was", func() error {
		_, err := ea.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "one more"})
		return err
	})
	changes(t, version, "a removal left the index version as it was", func() error {
		return ea.DeleteMemory(ctx, ids[0])
	})
	changes(t, version, "another store's add left the index version as it was", func() error {
		_, err := eb.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "written through b"})
		return err
	})
}

// changes fails the test, saying unchanged, unless write changes the
// number version reads.
func changes(t *testing.T, version func() int64, unchanged string, write func() error) {
	t.Helper()
	v := version()
	if err := write(); err != nil {
		t.Fatal(err)
	}
	if version() == v {
		t.Fatal(unchanged)
	}
}

// An in-memory store's data version follows its writes, and reading it
// does not hold the one connection writes need.
func TestDataVersionOfAnInMemoryStore(t *testing.T) {
	t.Parallel()
	s := open(t, ":memory:", nil)
	defer s.Close()
	e := engine.New(s, &engine.Options{CacheBytes: 1 << 20})
	ctx := t.Context()
	v0, err := s.DataVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "kept in memory"}); err != nil {
		t.Fatal(err)
	}
	if hits, err := e.Search(ctx, cairn.Query{Project: "p", Text: "memory"}); err != nil || len(hits) != 1 {
		t.Fatalf("search: %v, %v", hits, err)
	}
	if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "also in memory"}); err != nil {
		t.Fatal(err)
	}
	if v, err := s.DataVersion(ctx); err != nil || v <= v0 {
		t.Fatalf("data version %d after writes, %d before (%v)", v, v0, err)
	}
	if hits, err := e.Search(ctx, cairn.Query{Project: "p", Text: "memory"}); err != nil || len(hits) != 2 {
		t.Fatalf("search after a second write: %v, %v", hits, err)
	}
}

// BenchmarkVersions: what a search that used kept statistics pays for
// the index version read after it (IndexVersionNow, PRAGMA data_version
// read on every call), against one that reuses a reading for a
// millisecond (IndexVersion).
func BenchmarkVersions(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "c.db"), nil)
	defer s.Close()
	e := engine.New(s, nil)
	if _, err := e.AddMemory(b.Context(), &cairn.Memory{Project: "p", Content: "a memory"}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		read func(context.Context) (int64, bool, error)
	}{{"now", s.IndexVersionNow}, {"reused", s.IndexVersion}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := c.read(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
