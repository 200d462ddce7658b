// Package postgres is cairn's shared storage backend: one PostgreSQL
// database (or one schema of it) that the agents of several machines use
// at once, through pgx v5 and a connection pool.
//
// It stores and fetches exactly what the SQLite backend does (the same
// columns, times as Unix milliseconds), so that the engine, which does all
// ranking, gives the same results on both; package storetest proves it.
//
// # Serialisation
//
// Reads (View) run in REPEATABLE READ READ ONLY transactions: one snapshot,
// and they never wait for a writer. Writes (Update) run in READ COMMITTED
// transactions that take transaction-scoped advisory locks, lazily, on what
// they touch, and never one lock for the whole database:
//
//   - a project's lock, before the first statement that reads a project's
//     memories to decide a write, or writes them (a key or hash lookup, a
//     create, update or delete, a memory read by id or document number), and
//     before any read or write of that project's index partition (whose name
//     is the project's);
//   - the global partition's lock, for the index of global-scope memories;
//   - a transcript source's lock, for its ingest cursor;
//   - the event lock, only from the moment the transaction's activity
//     entries are written (just before commit) to its commit, so that
//     activity ids, the events' sequence numbers, increase in commit order.
//
// So writers of different projects run in parallel, writers of one project
// queue (read-modify-write sequences such as dedup and index statistics
// never lose an update), and a statement run after a lock sees every write
// committed before it. A write that spans projects takes their locks in the
// order it meets them; two such writes meeting them in opposite orders are
// a deadlock, which PostgreSQL breaks by failing one of them: it returns
// EUNAVAILABLE and writes nothing (single-project writes cannot deadlock).
//
// Schema migrations are numbered, forward-only, embedded in the binary,
// recorded in schema_migrations and applied under a session advisory lock,
// so processes starting together migrate once.
package postgres

import (
	"context"
	"embed"
	"errors"
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgurl"
	"github.com/cairn-dev/cairn/internal/storesql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// LockTimeout is how long a statement waits for a lock (another writer of
// the same project) before the write fails with EUNAVAILABLE.
const LockTimeout = 30 * time.Second

var _ cairn.Store = (*Store)(nil)

// Store is a cairn.Store on a PostgreSQL database.
type Store struct {
	pool     *pgxpool.Pool
	label    string // the URL without its password, for messages
	schema   string // the schema holding the tables
	readOnly bool
	channel  string // the NOTIFY channel of this schema

	listenOnce sync.Once
	version    atomic.Int64 // see DataVersion
	stopListen context.CancelFunc
	listenDone chan struct{}
}

// Options tune Open. A nil *Options means defaults.
type Options struct {
	// ReadOnly opens for reading: Update fails with EINVALID. A database
	// without cairn's tables gives ErrNotInitialized.
	ReadOnly bool
	// Schema is the schema that holds cairn's tables, created when
	// missing; "" uses the connection's search_path (normally public).
	// Several cairn stores can share one database in separate schemas.
	Schema string
	// MaxConns bounds the pool (default: pgxpool's, at least 4).
	MaxConns int32
}

// ErrNotInitialized is returned by a read-only Open of a database whose
// schema has not been created yet: there is nothing to read.
var ErrNotInitialized = cairn.Errorf(cairn.ENOTFOUND, "the database has no memories yet")

// IsURL reports whether s names a PostgreSQL database: a postgres:// or
// postgresql:// URL.
func IsURL(s string) bool { return pgurl.IsURL(s) }

// Redact returns the connection string without its password, for
// messages. Every message of this package names the database this way.
func Redact(conn string) string { return pgurl.Redact(conn) }

// Open connects to the database named by conn (a postgres:// URL; TLS and
// other libpq options such as sslmode, sslrootcert, sslcert pass through,
// and a password may come from PGPASSWORD or ~/.pgpass) and brings its
// schema up to date. Messages never contain the password.
func Open(ctx context.Context, conn string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	s := &Store{label: Redact(conn), readOnly: opts.ReadOnly}
	cfg, err := pgxpool.ParseConfig(conn)
	if err != nil {
		// pgx's parse errors may quote the connection string.
		return nil, cairn.Errorf(cairn.EINVALID, "cannot read the database URL %s: %s", s.label, parseProblem(err))
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	} else if cfg.MaxConns < 4 {
		cfg.MaxConns = 4
	}
	rp := cfg.ConnConfig.RuntimeParams
	rp["lock_timeout"] = strconv.Itoa(int(LockTimeout / time.Millisecond))
	if opts.Schema != "" {
		rp["search_path"] = pgx.Identifier{opts.Schema}.Sanitize()
	}
	if rp["application_name"] == "" {
		rp["application_name"] = "cairn"
	}
	s.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.openErr(err)
	}
	if opts.Schema != "" && !opts.ReadOnly {
		if err := createSchema(ctx, s.pool, opts.Schema); err != nil {
			s.pool.Close()
			return nil, s.openErr(err)
		}
	}
	if err := s.pool.QueryRow(ctx, "SELECT coalesce(current_schema(), '')").Scan(&s.schema); err != nil {
		s.pool.Close()
		return nil, s.openErr(err)
	}
	if s.schema == "" && !opts.ReadOnly {
		// A search_path (say ?search_path=team in the URL) whose schema
		// does not exist yet: create it.
		if name := firstSearchPath(ctx, s.pool); name != "" {
			if err := createSchema(ctx, s.pool, name); err != nil {
				s.pool.Close()
				return nil, s.openErr(err)
			}
			s.schema = name
		}
	}
	if s.schema == "" && opts.ReadOnly {
		s.pool.Close()
		return nil, ErrNotInitialized
	}
	if s.schema == "" {
		s.pool.Close()
		return nil, cairn.Errorf(cairn.EINVALID, "the database %s has no schema on its search_path to hold cairn's tables; set search_path or give a schema", s.label)
	}
	s.channel = "cairn_events_" + strconv.FormatUint(hashKey(s.schema), 36)
	if opts.ReadOnly {
		err = s.checkVersion(ctx)
		if err == nil {
			var v int
			if v, err = s.schemaVersion(ctx); err == nil && v < SchemaVersion() {
				err = s.migrate(ctx)
			}
		}
	} else {
		err = s.migrate(ctx)
	}
	if err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// firstSearchPath returns the first schema of the connection's
// search_path, "" when it is "$user" or cannot be read.
func firstSearchPath(ctx context.Context, q querier) string {
	var sp string
	if err := q.QueryRow(ctx, "SHOW search_path").Scan(&sp); err != nil {
		return ""
	}
	first, _, _ := strings.Cut(sp, ",")
	first = strings.TrimSpace(first)
	if strings.HasPrefix(first, `"`) && strings.HasSuffix(first, `"`) && len(first) >= 2 {
		first = strings.ReplaceAll(first[1:len(first)-1], `""`, `"`)
	}
	if first == "$user" {
		return ""
	}
	return first
}

// parseProblem returns what is wrong with a connection string, without
// the string itself.
func parseProblem(err error) string {
	// A *url.Error quotes the URL; its cause does not.
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return "not a valid connection string (postgres://user@host:port/database?sslmode=…)"
}

func (s *Store) openErr(err error) error {
	return translate(err, "cannot open the database "+s.label)
}

// Label is the database's URL without its password.
func (s *Store) Label() string { return s.label }

// Schema is the schema that holds cairn's tables.
func (s *Store) Schema() string { return s.schema }

// Pool is the store's connection pool, for tools that copy whole tables
// (cairn migrate); it must not be closed by them.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close stops listening for other processes' writes and closes the pool.
func (s *Store) Close() error {
	if s.stopListen != nil {
		s.stopListen()
		<-s.listenDone
	}
	s.pool.Close()
	return nil
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

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// schemaVersionOn returns the newest migration applied, 0 when none.
func schemaVersionOn(ctx context.Context, q querier) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var v int
	err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

func (s *Store) schemaVersion(ctx context.Context) (int, error) {
	v, err := schemaVersionOn(ctx, s.pool)
	if err != nil {
		return 0, s.openErr(err)
	}
	return v, nil
}

func (s *Store) checkVersion(ctx context.Context) error {
	v, err := s.schemaVersion(ctx)
	if err != nil {
		return err
	}
	if v == 0 {
		return ErrNotInitialized
	}
	if v > SchemaVersion() {
		return cairn.Errorf(cairn.EINVALID, "the database %s was written by a newer cairn (schema %d, this binary knows %d); upgrade cairn", s.label, v, SchemaVersion())
	}
	return nil
}

// createSchema creates the schema unless it exists. Processes that open
// a new schema together race in CREATE SCHEMA IF NOT EXISTS: all but one
// may fail with a unique violation in the catalog (or duplicate_schema),
// which only says that another one created it.
func createSchema(ctx context.Context, pool *pgxpool.Pool, name string) error {
	_, err := pool.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{name}.Sanitize())
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P06") {
		return nil
	}
	return err
}

// migrate applies the migrations not applied yet, each in its own
// transaction, holding a session advisory lock of the schema so that
// processes starting together migrate once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return cairn.WrapError(cairn.EINTERNAL, err, "read migrations")
	}
	if v, err := s.schemaVersion(ctx); err != nil {
		return err
	} else if v == ms[len(ms)-1].Version {
		return nil
	}
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.openErr(err)
	}
	defer c.Release()
	key := lockKey(s.schema, "migrate", "")
	if _, err := c.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		return s.openErr(err)
	}
	defer c.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", key)
	if _, err := c.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return translate(err, "create schema_migrations")
	}
	// Read again under the lock: another process may have migrated.
	v, err := schemaVersionOn(ctx, c)
	if err != nil {
		return translate(err, "read the schema version")
	}
	if v > ms[len(ms)-1].Version {
		return cairn.Errorf(cairn.EINVALID, "the database %s was written by a newer cairn (schema %d, this binary knows %d); upgrade cairn", s.label, v, SchemaVersion())
	}
	for _, m := range ms {
		if m.Version <= v {
			continue
		}
		err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return cairn.WrapError(cairn.EINTERNAL, err, "migration %s failed", m.Name)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES ($1, $2, $3)`,
				m.Version, m.Name, time.Now().UnixMilli())
			return err
		})
		if err != nil {
			return translate(err, "migrate the database "+s.label)
		}
	}
	return nil
}

// View implements cairn.Store: fn sees one snapshot (REPEATABLE READ) and
// never waits for writers.
func (s *Store) View(ctx context.Context, fn func(cairn.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return translate(err, "begin read")
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	t := &Tx{tx: tx, raw: tx, ctx: ctx, store: s}
	if err := fn(t); err != nil {
		return err
	}
	return translate(tx.Commit(ctx), "end read")
}

// Update implements cairn.Store. Its writes are serialised per project,
// partition and transcript source (see the package documentation), not
// globally; it waits up to LockTimeout for another writer, and a write
// that PostgreSQL fails to break a deadlock returns EUNAVAILABLE with
// nothing written.
func (s *Store) Update(ctx context.Context, fn func(cairn.Tx) error) error {
	if s.readOnly {
		return cairn.Errorf(cairn.EINVALID, "the database %s was opened read-only", s.label)
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return translate(err, "begin write")
	}
	t := &Tx{raw: tx, ctx: ctx, store: s, write: true}
	t.tx = syncTx{Tx: tx, t: t}
	defer func() {
		t.abortStream()
		tx.Rollback(context.WithoutCancel(ctx))
	}()
	if err := fn(t); err != nil {
		return err
	}
	if err := t.flushMemories(ctx); err != nil {
		return err
	}
	if err := t.flushActivity(ctx); err != nil {
		return err
	}
	if t.wrote {
		// Delivered at commit to every process listening (DataVersion).
		if _, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", s.channel); err != nil {
			return translate(err, "notify")
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return translate(err, "commit")
	}
	if t.wrote {
		// This process's own writes change the version at once, without
		// waiting for the notification: a search right after a write
		// sees it.
		s.version.Add(1)
	}
	return nil
}

// hashKey is FNV-1a of s.
func hashKey(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// lockKey is the advisory lock key of a thing of a kind in a schema.
func lockKey(schema, kind, name string) int64 {
	return int64(hashKey(schema + "\x00" + kind + "\x00" + name))
}

// translate turns a driver error into a cairn error by SQLSTATE, never by
// message text.
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
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		code := pe.Code
		switch {
		case code == "23505" || code == "23P01":
			return cairn.WrapError(cairn.ECONFLICT, err, "%s conflicts with a stored memory", op)
		case code == "40P01":
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: another write of the same projects ran at the same time; nothing was written, try again", op)
		case code == "40001":
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: a concurrent write interfered; nothing was written, try again", op)
		case code == "55P03" || code == "57014":
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: another write held the project for %s", op, LockTimeout)
		case code == "22021" || code == "22P05":
			return cairn.WrapError(cairn.EINVALID, err, "%s: the text contains a character PostgreSQL cannot store (a NUL byte, or not UTF-8)", op)
		case strings.HasPrefix(code, "22"), strings.HasPrefix(code, "23"):
			return cairn.WrapError(cairn.EINVALID, err, "%s: a value does not fit the database", op)
		case code == "28000" || code == "28P01":
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the server refused the user name or password", op)
		case code == "42501":
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the database user lacks a privilege", op)
		case code == "3D000":
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the database does not exist", op)
		case code == "25006":
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the server is read-only (a standby?)", op)
		case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "57"), strings.HasPrefix(code, "58"):
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: the database server is unavailable", op)
		}
		return cairn.WrapError(cairn.EINTERNAL, err, "%s", op)
	}
	var ce2 *pgconn.ConnectError
	if errors.As(err, &ce2) || pgconn.SafeToRetry(err) || errors.Is(err, pgx.ErrTxClosed) {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: cannot reach the database server", op)
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s: cannot reach the database server", op)
	}
	return cairn.WrapError(cairn.EINTERNAL, err, "%s", op)
}
