// Package sqlite is cairn's embedded storage backend: one SQLite file, in
// WAL mode, through the pure-Go modernc driver (no cgo).
//
// Writes run in BEGIN IMMEDIATE transactions on a single connection per
// process and wait for other processes' writes (busy timeout), so
// concurrent writers are serialised instead of failing with "database is
// locked". Reads run on their own connections and see a snapshot. Schema
// migrations are numbered, forward-only, embedded in the binary and
// recorded in the database (schema_migrations and PRAGMA user_version).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// BusyTimeout is how long a write waits for other writers before failing
// with EUNAVAILABLE.
const BusyTimeout = 30 * time.Second

var _ cairn.Store = (*Store)(nil)

// Store is a cairn.Store on one SQLite database file.
type Store struct {
	path     string
	reader   *sql.DB
	writer   *sql.DB
	readOnly bool
	// immutable: a read-only Open of a file this process may not write,
	// read without locks (readImmutable).
	immutable bool
	upTo      int    // see Options.upTo
	scanDSN   string // a reader without memory map nor large cache, for full scans

	mu       sync.Mutex
	prepStmt map[prepKey]*sql.Stmt

	// partNums: the partitions' numbers reads have found
	// (Tx.partitionNum); a number never changes once committed.
	numMu    sync.RWMutex
	partNums map[string]int64
	// rowsByDoc: the schema places rows by document (migration 20,
	// docRowID); false only for a test's older schema (Options.upTo).
	rowsByDoc bool

	dvMu   sync.Mutex
	dvConn *sql.Conn // kept for DataVersion
	dvStmt *sql.Stmt // PRAGMA data_version on dvConn
	dvRead time.Time // when dvLast was read
	dvLast int64     // PRAGMA data_version then
	// commits counts this store's own commits (DataVersion).
	commits atomic.Int64

	// RowsVersion: rowCommits counts this store's own commits that may
	// have changed memory rows, rowsCommitting those under way; wl is
	// the state of the writer; rv what RowsVersion has seen.
	rowCommits     atomic.Int64
	rowsCommitting atomic.Int64
	wlMu           sync.Mutex
	wl             writerState
	rvMu           sync.Mutex
	rv             rowsVersionState
	// IndexVersion: the same for commits that may have changed the
	// search index; iv what IndexVersion has seen (under rvMu).
	indexCommits    atomic.Int64
	indexCommitting atomic.Int64
	iv              rowsVersionState

	// runs counts the runs of writes under way (WriteRun); the writer's
	// page cache is writerRunCacheKiB while there is one.
	runMu sync.Mutex
	runs  int
}

// writerState is what the writer is doing, for RowsVersion: how many
// uses of its connection are under way (Update, PutVectors, Checkpoint),
// and whether one holds the database's write lock (from its BEGIN
// IMMEDIATE until just before it ends), in which case no other connection
// can commit, and the writer's data_version when it took the lock.
type writerState struct {
	updates int
	held    bool
	heldDV  int64
}

// rowsVersionState is what RowsVersion has seen.
type rowsVersionState struct {
	started       bool
	gen           int64 // the version returned
	dv, rows      int64 // PRAGMA data_version and rowCommits
	writerDV      int64 // PRAGMA data_version on the writer, when writerDVKnown
	writerDVKnown bool
}

type prepKey struct {
	db *sql.DB
	q  string
}

// prepared returns the statement q prepared on the reader pool db,
// preparing it once; database/sql prepares it again, once, on each
// connection that runs it. (Not for the single-connection writer: the
// preparation would wait for the connection its caller holds.)
func (s *Store) prepared(ctx context.Context, db *sql.DB, q string) (*sql.Stmt, error) {
	k := prepKey{db, q}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.prepStmt[k]; ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil, translate(err, "prepare")
	}
	if s.prepStmt == nil {
		s.prepStmt = map[prepKey]*sql.Stmt{}
	}
	s.prepStmt[k] = st
	return st, nil
}

// Page cache sizes, in KiB. The SQLite of modernc.org/sqlite is built with
// SQLITE_ENABLE_MEMORY_MANAGEMENT, so a process has one page cache shared
// by all its connections: it holds up to the sum of the open connections'
// cache_size, and any connection may fill all of it. A page of 4 KiB takes
// an 8 KiB block of the driver's allocator, so the cache's resident size
// is about twice its nominal size. A long-lived server (one writer, up to
// a few readers per concurrent request) keeps it small: pages it does not
// hold come from the operating system's file cache. Only a bulk write
// (Tx.Bulk: an import) and a run of writes (WriteRun: the cleanup)
// raise the writer's share, until they end.
//
// A reader's cache holds the b-trees' upper pages between the reads of a
// request; the rows a search reads lie on pages spread over the whole
// table, which no small cache keeps. With 8 idle readers of 1 MiB each a
// server at 1,000,000 memories held about 18 MiB more after its load
// than with 128 KiB each, for the same CPU per request
// (docs/performance.md).
//
// The writer's share counts towards the process's one page cache as the
// readers' do, and a server's readers fill it with the pages of their
// searches: its 4 MiB took 6-9 MiB of a server's resident size at 1,000,000
// memories (docs/performance.md). It keeps writerCacheKiB, and
// writerRunCacheKiB during a run of writes (WriteRun: the daily cleanup,
// whose pages read the same rows and index entries one transaction
// after another, measured 9% more CPU with 1 MiB than with 4).
const (
	writerCacheKiB    = 1024
	writerRunCacheKiB = 4096
	readerCacheKiB    = 128
	bulkCacheKiB      = 65536
)

// rowsByDocVersion is the migration that places memory rows by
// document (docRowID).
const rowsByDocVersion = 20

// readerIdle is how many reader connections a store keeps open between
// reads.
const readerIdle = 8

// cacheSize is the pragma that sets a connection's page cache to kib KiB.
func cacheSize(kib int) string { return "cache_size(-" + strconv.Itoa(kib) + ")" }

// Options tune Open. A nil *Options means defaults.
type Options struct {
	// ReadOnly opens for reading: Update fails with EINVALID. Commands
	// that only read use it, so that they never wait for a writer. A
	// database whose schema does not exist yet gives ErrNotInitialized;
	// one whose schema is older than this binary's is migrated first (once
	// per upgrade), since this binary's reads need its columns.
	ReadOnly bool

	// upTo, when positive, stops migrations after that version: tests make
	// a database as an older cairn left it.
	upTo int
}

// Open opens (creating if needed) the database at path and brings its
// schema up to date. The directory is created with mode 0700 when missing.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	if path == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "no database path given")
	}
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot create the database folder %s", filepath.Dir(path))
		}
	}
	s := &Store{path: path}
	base := "file:" + (&url.URL{Path: path}).EscapedPath()
	// The driver runs the _pragma values sorted by their text, not in
	// the order given: a pragma given twice takes whichever value sorts
	// last. Each DSN names cache_size once.
	pragmas := "?_pragma=busy_timeout(" + strconv.Itoa(int(BusyTimeout/time.Millisecond)) + ")" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(OFF)"
	s.scanDSN = base + "?_pragma=busy_timeout(" + strconv.Itoa(int(BusyTimeout/time.Millisecond)) + ")" +
		"&_pragma=query_only(1)&_pragma=" + cacheSize(readerCacheKiB) + "&_pragma=mmap_size(0)"
	var err error
	if s.writer, err = sql.Open("sqlite", base+pragmas+"&_pragma="+cacheSize(writerCacheKiB)+"&_txlock=immediate"); err != nil {
		return nil, s.openErr(err)
	}
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
	if path == ":memory:" {
		// Every connection to :memory: is a database of its own: read
		// through the one writer connection.
		s.reader = s.writer
	} else {
		// Readers neither map the file nor keep a large page cache: a
		// server runs several at once (a memory map counts once per
		// connection in the process's resident size, and every reader's
		// cache_size adds to the process's page cache, see
		// writerCacheKiB). The operating system's file cache holds the
		// pages; searches of a long-lived process read little beyond the
		// postings cache.
		if s.reader, err = sql.Open("sqlite", base+pragmas+"&_pragma=query_only(1)&_pragma=mmap_size(0)&_pragma="+cacheSize(readerCacheKiB)); err != nil {
			s.writer.Close()
			return nil, s.openErr(err)
		}
		// A server answers concurrent requests on as many readers. One
		// that finds no idle reader opens a new connection, and one
		// returned beyond the idle limit is closed: at 8 concurrent
		// searches with 4 kept, 5-10% of the CPU of a request went to
		// opening and closing connections, preparing their statements
		// again, and reading pages their fresh caches lacked. An idle
		// reader holds at most its cache_size of pages.
		s.reader.SetMaxIdleConns(readerIdle)
	}
	s.readOnly = opts.ReadOnly
	s.upTo = opts.upTo
	s.rowsByDoc = opts.upTo <= 0 || opts.upTo >= rowsByDocVersion
	if !opts.ReadOnly {
		if err := s.migrate(ctx); err != nil {
			s.Close()
			return nil, err
		}
	} else if err := s.checkVersion(ctx); err != nil && !(isReadOnly(err) && s.readImmutable(ctx, base) == nil) {
		s.Close()
		return nil, err
	} else if s.immutable {
		// A file this process may not write: read as it is.
	} else if v, err := s.userVersion(ctx, s.reader); err == nil && v < SchemaVersion() {
		if err := s.migrate(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// isReadOnly reports whether err is SQLite's refusal to write, which a
// read of a database in WAL mode meets when it may not create the shared
// memory file beside it (a read-only folder, another user's database).
func isReadOnly(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY
}

// readImmutable reopens the reader of a read-only Open for a database this
// process may not write: as an immutable file, without the locks and the
// shared memory file that WAL mode needs (what a writer leaves in the
// write-ahead log is not seen; a closed cairn leaves none). It fails when
// the schema is missing or newer than this binary's, or older (it cannot be
// migrated).
func (s *Store) readImmutable(ctx context.Context, base string) error {
	r, err := sql.Open("sqlite", base+"?mode=ro&immutable=1&_pragma=query_only(1)&_pragma=mmap_size(0)&_pragma="+cacheSize(readerCacheKiB))
	if err != nil {
		return err
	}
	old := s.reader
	s.reader, s.immutable = r, true
	v, err := s.userVersion(ctx, r)
	if err == nil && v != SchemaVersion() {
		err = cairn.Errorf(cairn.EUNAVAILABLE, "the database %s is read-only for this user and its schema (%d) is not this cairn's (%d)", s.path, v, SchemaVersion())
	}
	if err != nil {
		r.Close()
		s.reader, s.immutable = old, false
		return err
	}
	old.Close()
	s.scanDSN = base + "?mode=ro&immutable=1&_pragma=query_only(1)&_pragma=" + cacheSize(readerCacheKiB) + "&_pragma=mmap_size(0)"
	return nil
}

func (s *Store) openErr(err error) error {
	return cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot open the database %s", s.path)
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close checkpoints the write-ahead log (so that the next open is cheap)
// and closes the database.
func (s *Store) Close() error {
	var errs []error
	s.dvMu.Lock()
	if s.dvStmt != nil {
		errs = append(errs, s.dvStmt.Close())
		s.dvStmt = nil
	}
	if s.dvConn != nil {
		errs = append(errs, s.dvConn.Close())
		s.dvConn = nil
	}
	s.dvMu.Unlock()
	s.mu.Lock()
	for _, st := range s.prepStmt {
		st.Close()
	}
	s.prepStmt = nil
	s.mu.Unlock()
	if s.reader != nil && s.reader != s.writer {
		errs = append(errs, s.reader.Close())
	}
	if s.writer != nil {
		errs = append(errs, s.writer.Close())
	}
	return errors.Join(errs...)
}

// dataVersionReuse is how long a reading of PRAGMA data_version is
// reused: reading it takes the database's shared lock, and a busy server
// asks for the version on every search.
const dataVersionReuse = time.Millisecond

// DataVersion returns a number that changes whenever any connection, in
// this process or another, commits a change to the database. Caches of a
// long-lived process compare it to know they are still valid. The
// store's own commits change it at once, so that a read after a write
// through the store sees the write; those of other stores and processes
// within dataVersionReuse (a millisecond): SQLite's PRAGMA data_version,
// read on one connection kept for it, is read again once that old. The
// number never decreases.
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	own := s.commits.Load()
	if s.reader == s.writer {
		// :memory: is this store's alone, and its one connection must not
		// be held for the pragma.
		return own, nil
	}
	v, err := s.pragmaDataVersion(ctx, false)
	return v + own, err
}

// pragmaDataVersion is PRAGMA data_version on the connection kept for it,
// read again once dataVersionReuse old, or always when fresh: it changes
// when any other connection (this store's writer included) commits.
func (s *Store) pragmaDataVersion(ctx context.Context, fresh bool) (int64, error) {
	s.dvMu.Lock()
	defer s.dvMu.Unlock()
	if !fresh && s.dvConn != nil && time.Since(s.dvRead) < dataVersionReuse {
		return s.dvLast, nil
	}
	if s.dvConn == nil {
		c, err := s.reader.Conn(ctx)
		if err != nil {
			return 0, translate(err, "read the data version")
		}
		st, err := c.PrepareContext(ctx, "PRAGMA data_version")
		if err != nil {
			c.Close()
			return 0, translate(err, "read the data version")
		}
		s.dvConn, s.dvStmt = c, st
	}
	var v int64
	if err := s.dvStmt.QueryRowContext(ctx).Scan(&v); err != nil {
		return 0, translate(err, "read the data version")
	}
	s.dvRead, s.dvLast = time.Now(), v
	return v, nil
}

// RowsVersion returns a number that changes whenever a commit may have
// changed a memory's row: every commit of another store or process, and
// this store's own commits but those that only queued uses and appended
// activity entries (Tx.QueueUses, Tx.AppendActivity: what a server writes
// after each context it answers). ok is false while that cannot be told
// yet (one of its own commits under way): nothing read then may be kept
// under the number. A long-lived engine keeps the rows it reads while it
// stays the same (see engine's row cache); like DataVersion, it tells of
// other processes' commits within dataVersionReuse, and of this store's
// at once. The number never decreases.
func (s *Store) RowsVersion(ctx context.Context) (v int64, ok bool, err error) {
	return s.ownVersion(ctx, &s.rv, &s.rowCommits, &s.rowsCommitting, false)
}

// IndexVersion is RowsVersion for the search index: a number that
// changes whenever a commit may have changed the index (its partitions'
// statistics, postings and dead sets): every commit of another store or
// process, and this store's own commits but those that only queued
// uses, appended activity entries and applied queued uses to their
// memories (Tx.FoldUses: a use changes a memory's row, never the index).
// A long-lived engine keeps the partitions' statistics while it stays
// the same. Like RowsVersion, it tells of other processes' commits
// within dataVersionReuse, and of this store's at once; ok is false
// while one of its own commits that may change the index is under way.
func (s *Store) IndexVersion(ctx context.Context) (v int64, ok bool, err error) {
	return s.ownVersion(ctx, &s.iv, &s.indexCommits, &s.indexCommitting, false)
}

// IndexVersionNow is IndexVersion that tells of every commit made before
// the call, other processes' too: it reads the pragma anew. A search
// that used statistics kept at an IndexVersion reads it after its
// transaction began, so that a removal by another process just before
// is never scored from statistics kept before it.
func (s *Store) IndexVersionNow(ctx context.Context) (v int64, ok bool, err error) {
	return s.ownVersion(ctx, &s.iv, &s.indexCommits, &s.indexCommitting, true)
}

// ownVersion is RowsVersion or IndexVersion: st is what it has seen,
// commits and committing count this store's commits of that kind done
// and under way; fresh reads the pragma anew.
func (s *Store) ownVersion(ctx context.Context, st *rowsVersionState, commits, committing *atomic.Int64, fresh bool) (v int64, ok bool, err error) {
	if s.reader == s.writer {
		// :memory: is this store's alone.
		return commits.Load(), committing.Load() == 0, nil
	}
	dv, err := s.pragmaDataVersion(ctx, fresh)
	if err != nil {
		return 0, false, err
	}
	// After the pragma: an own commit it tells of is counted by now, or
	// still under way.
	rows := commits.Load()
	ok = committing.Load() == 0
	s.rvMu.Lock()
	defer s.rvMu.Unlock()
	switch {
	case !st.started:
		// The writer's data_version is not known yet: the first commit
		// seen changes the number.
		st.started, st.gen, st.dv, st.rows = true, 1, dv, rows
	case rows != st.rows:
		st.gen++
		st.dv, st.rows = dv, rows
	case dv != st.dv:
		// Some connection committed: this store's writer, which changed
		// no rows (or its count would have changed), or another. The
		// writer's own data_version changes only with others' commits:
		// read when it took the lock, if it holds the lock now (no other
		// commit since), else now, if no write is under way; else the
		// answer waits for a later call.
		w, wok := s.writerVersion(ctx)
		if !wok {
			return st.gen, false, nil
		}
		if !st.writerDVKnown || w != st.writerDV {
			st.gen++
		}
		st.writerDV, st.writerDVKnown, st.dv = w, true, dv
	}
	return st.gen, ok, nil
}

// writerVersion is PRAGMA data_version on the writer's connection, which
// only other connections' commits change: as it was when the write under
// way took the lock, if one holds it (no other connection has committed
// since), else read now if no write is under way; ok is false when a
// write is under way without the lock (before it or after its commit).
func (s *Store) writerVersion(ctx context.Context) (v int64, ok bool) {
	s.wlMu.Lock()
	wl := s.wl
	s.wlMu.Unlock()
	switch {
	case wl.held:
		return wl.heldDV, true
	case wl.updates > 0:
		return 0, false
	}
	if err := s.writer.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return 0, false
	}
	return v, true
}

// Checkpoint copies the write-ahead log into the database and truncates
// it. Opening a database with a large log is slow; bulk writers call this.
func (s *Store) Checkpoint(ctx context.Context) error {
	defer s.writing()()
	_, err := s.writer.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return translate(err, "checkpoint")
}

func migrations() ([]storesql.Migration, error) {
	return storesql.Migrations(migrationFiles, "migrations")
}

// SchemaVersion is the newest migration this binary knows.
func SchemaVersion() int {
	ms, _ := migrations()
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

func (s *Store) userVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, sqlUserVersion).Scan(&v)
	return v, err
}

// ErrNotInitialized is returned by a read-only Open of a database whose
// schema has not been created yet (a new file, or one being created by
// another process right now): there is nothing to read.
var ErrNotInitialized = cairn.Errorf(cairn.ENOTFOUND, "the database has no memories yet")

func (s *Store) checkVersion(ctx context.Context) error {
	v, err := s.userVersion(ctx, s.reader)
	if err != nil {
		return s.openErr(translate(err, "read schema version"))
	}
	if v == 0 {
		return ErrNotInitialized
	}
	if v > SchemaVersion() {
		return cairn.Errorf(cairn.EINVALID, "the database %s was written by a newer cairn (schema %d, this binary knows %d); upgrade cairn", s.path, v, SchemaVersion())
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return cairn.WrapError(cairn.EINTERNAL, err, "read migrations")
	}
	if s.upTo > 0 {
		for len(ms) > 1 && ms[len(ms)-1].Version > s.upTo {
			ms = ms[:len(ms)-1]
		}
	}
	latest := ms[len(ms)-1].Version
	v, err := s.userVersion(ctx, s.writer)
	if err != nil {
		return s.openErr(translate(err, "read schema version"))
	}
	if v == latest {
		return nil
	}
	if v > latest {
		return s.checkVersion(ctx)
	}
	// WAL must be set outside a transaction; it persists in the file.
	if _, err := s.writer.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return s.openErr(translate(err, "enable WAL"))
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return s.openErr(translate(err, "begin migration"))
	}
	defer tx.Rollback()
	// Re-read inside the write lock: another process may have migrated.
	if v, err = s.userVersion(ctx, tx); err != nil {
		return translate(err, "read schema version")
	}
	if _, err := tx.ExecContext(ctx, sqlMigrationsTbl); err != nil {
		return translate(err, "create schema_migrations")
	}
	for _, m := range ms {
		if m.Version <= v {
			continue
		}
		if err := runMigration(ctx, tx, m); err != nil {
			return cairn.WrapError(cairn.EINTERNAL, err, "migration %s failed", m.Name)
		}
		if _, err := tx.ExecContext(ctx, sqlRecordMigration, m.Version, m.Name, time.Now().UnixMilli()); err != nil {
			return translate(err, "record migration")
		}
		if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.Version)); err != nil {
			return translate(err, "set schema version")
		}
	}
	return translate(tx.Commit(), "commit migration")
}

// runMigration runs m in tx. Migration 20 changes the rowid of every
// memory, and so every entry of each index on memories: it runs without
// those indexes (withoutMemoryIndexes), which at 1,000,000 memories took
// 22 s of CPU instead of 48.
func runMigration(ctx context.Context, tx *sql.Tx, m storesql.Migration) error {
	run := func() error {
		_, err := tx.ExecContext(ctx, m.SQL)
		return err
	}
	if m.Version == rowsByDocVersion {
		return withoutMemoryIndexes(ctx, tx, run)
	}
	return run()
}

// withoutMemoryIndexes runs fn in tx with the indexes on memories
// dropped, and makes them again from their definitions after it.
func withoutMemoryIndexes(ctx context.Context, tx *sql.Tx, fn func() error) error {
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_schema WHERE type='index' AND tbl_name='memories' AND sql IS NOT NULL`)
	if err != nil {
		return err
	}
	var names, remake []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return err
		}
		names, remake = append(names, name), append(remake, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, name := range names {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
			return err
		}
	}
	if err := fn(); err != nil {
		return err
	}
	for _, def := range remake {
		if _, err := tx.ExecContext(ctx, def); err != nil {
			return err
		}
	}
	return nil
}

// PlaceRows moves every memory row that is not at the rowid of its place
// in the search index there, as migration 20 does, for a database whose
// rows were written otherwise than through a Tx (package transfer copies
// rows without their rowids): its searches then read them by rowid. It
// does nothing to rows already placed; a row whose place is out of range
// ends at a rowid below 0.
func (s *Store) PlaceRows(ctx context.Context) error {
	if s.readOnly || !s.rowsByDoc {
		return cairn.Errorf(cairn.EINVALID, "the database %s cannot be written", s.path)
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return translate(err, "begin write")
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, sqlNumberPartitions); err != nil {
		return translate(err, "number the partitions")
	}
	var unplaced, lo, hi int64
	if err := tx.QueryRowContext(ctx, sqlUnplacedRows).Scan(&unplaced, &lo, &hi); err != nil {
		return translate(err, "count the rows to place")
	}
	if unplaced == 0 {
		return nil
	}
	if hi-lo >= 1<<61 {
		// Rowids too far apart to move below the smallest: the rows
		// stay, and reads find them through idx_memories_doc.
		return nil
	}
	err = withoutMemoryIndexes(ctx, tx, func() error {
		// Below every rowid first, then to their places: no row moves
		// onto a rowid another row holds.
		if _, err := tx.ExecContext(ctx, sqlUnplaceRows, lo-1-hi); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, sqlPlaceRows, lo)
		return err
	})
	if err != nil {
		return translate(err, "place the rows")
	}
	return s.commit(tx, true, true)
}

// View implements cairn.Store.
func (s *Store) View(ctx context.Context, fn func(cairn.Tx) error) error {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return translate(err, "begin read")
	}
	t := &Tx{tx: tx, db: s.reader, store: s}
	defer t.close()
	defer tx.Rollback()
	return fn(t)
}

// Update implements cairn.Store.
func (s *Store) Update(ctx context.Context, fn func(cairn.Tx) error) error {
	if s.readOnly {
		return cairn.Errorf(cairn.EINVALID, "the database %s was opened read-only", s.path)
	}
	defer s.writing()()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return translate(err, "begin write")
	}
	t := &Tx{tx: tx, db: s.writer, store: s, write: true}
	// After the transaction has ended (deferred calls run last first).
	defer t.endBulk(ctx)
	// Rolls back when fn fails or panics; a no-op after Commit.
	defer tx.Rollback()
	defer s.unheld() // before the rollback lets other connections write
	defer t.close()
	// BEGIN IMMEDIATE took the write lock: no other connection commits
	// until this one ends (RowsVersion).
	var dv int64
	if tx.QueryRowContext(ctx, "PRAGMA data_version").Scan(&dv) == nil {
		s.wlMu.Lock()
		s.wl.held, s.wl.heldDV = true, dv
		s.wlMu.Unlock()
	}
	if err := fn(t); err != nil {
		return err
	}
	s.unheld() // before the commit lets other connections write
	return s.commit(tx, t.rowsMayChange, t.indexMayChange)
}

// writing records that a use of the writer's connection begins, for
// RowsVersion, which does not wait for it; the function it returns
// records its end.
func (s *Store) writing() func() {
	s.wlMu.Lock()
	s.wl.updates++
	s.wlMu.Unlock()
	return func() {
		s.wlMu.Lock()
		s.wl.updates--
		s.wlMu.Unlock()
	}
}

// unheld records that the writer is about to let go of the write lock
// (RowsVersion).
func (s *Store) unheld() {
	s.wlMu.Lock()
	s.wl.held = false
	s.wlMu.Unlock()
}

// commit commits tx, a write, and counts it (DataVersion); rows says it
// may have changed memory rows (RowsVersion).
func (s *Store) commit(tx *sql.Tx, rows, index bool) error {
	if rows {
		s.rowsCommitting.Add(1)
		defer s.rowsCommitting.Add(-1) // after rowCommits counts it
	}
	if index {
		s.indexCommitting.Add(1)
		defer s.indexCommitting.Add(-1) // after indexCommits counts it
	}
	if err := tx.Commit(); err != nil {
		return translate(err, "commit")
	}
	s.commits.Add(1)
	if rows {
		s.rowCommits.Add(1)
	}
	if index {
		s.indexCommits.Add(1)
	}
	return nil
}

// translate turns a driver error into a cairn error by SQLite's result
// code, never by message text.
func translate(err error, op string) error {
	if err == nil {
		return nil
	}
	var ce *cairn.Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s was cancelled", op)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CONSTRAINT:
			return cairn.WrapError(cairn.ECONFLICT, err, "%s conflicts with a stored memory", op)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the database stayed busy for %s", op, BusyTimeout)
		case sqlite3.SQLITE_READONLY:
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the database is read-only", op)
		case sqlite3.SQLITE_FULL:
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the disk is full", op)
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: cannot open the database file", op)
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the file is not a cairn database or is damaged", op)
		}
	}
	return cairn.WrapError(cairn.EINTERNAL, err, "%s", op)
}
