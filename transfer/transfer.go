// Package transfer copies a whole cairn database from one backend to
// another (SQLite to PostgreSQL and back): every table as stored —
// memories, the search index (partitions and postings), the activity log
// with its ids (the events' sequence numbers, so subscribers resume where
// they were), ingest cursors, access tokens, and agent-loop iterations
// with their totals, the embeddings' vectors, and the background jobs'
// state.
//
// The source is read in one snapshot; the target is written in batches,
// each committed on its own, as upserts by primary key, so a copy that
// stopped half-way (or one run twice) is finished by running it again. At
// the end the rows of every table are counted on both sides and must be
// equal. Writers should be stopped while it runs: a write made to the
// source after its snapshot is not copied.
package transfer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgurl"
	"github.com/cairn-dev/cairn/sqlite"
)

// column kinds.
const (
	kText    = iota // TEXT NOT NULL
	kNullStr        // TEXT, may be NULL
	kInt            // INTEGER
	kFloat          // REAL
	kBool           // 0/1 in SQLite, BOOLEAN in PostgreSQL
	kBytes          // BLOB / BYTEA
)

type column struct {
	name string
	kind int
}

type table struct {
	name string
	pk   []string
	cols []column
}

func cols(kind int, names ...string) []column {
	out := make([]column, len(names))
	for i, n := range names {
		out[i] = column{n, kind}
	}
	return out
}

func concat(xs ...[]column) []column {
	var out []column
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// tables are cairn's tables, in the order they are copied; made on first
// use, not by every cairn process as it starts.
var tables = sync.OnceValue(func() []table {
	return []table{
		{name: "memories", pk: []string{"id"}, cols: concat(
			cols(kText, "id", "project", "scope", "type"), cols(kNullStr, "key"),
			cols(kText, "title", "content", "content_hash", "tags", "file_refs"), cols(kFloat, "confidence"),
			cols(kText, "source", "created_by_agent", "created_by_hat", "created_by_task_id", "created_by_session_id"),
			cols(kInt, "created_at", "updated_at", "last_used_at", "verified_at", "expires_at", "use_count"),
			cols(kBool, "pinned"), cols(kText, "superseded_by", "partition"), cols(kInt, "docnum", "decayed_at"),
			cols(kText, "flag"))},
		{name: "index_partitions", pk: []string{"name"}, cols: concat(
			cols(kText, "name"), cols(kInt, "docs", "total_len", "next_doc", "dead_docs"), cols(kBytes, "dead"), cols(kInt, "analyzer"))},
		{name: "index_terms", pk: []string{"partition", "term"}, cols: concat(
			cols(kText, "partition", "term"), cols(kInt, "df"), cols(kBytes, "postings"))},
		{name: "activity", pk: []string{"id"}, cols: concat(
			cols(kInt, "id", "at"), cols(kText, "project", "memory_id", "action", "session_id", "detail"))},
		{name: "ingest_state", pk: []string{"source"}, cols: concat(
			cols(kText, "source"), cols(kInt, "offset"), cols(kText, "pending"), cols(kInt, "updated_at"))},
		{name: "api_tokens", pk: []string{"id"}, cols: concat(
			cols(kText, "id", "name", "project"), cols(kBool, "read_only"), cols(kText, "hash"), cols(kInt, "created_at"))},
		{name: "iterations", pk: []string{"project", "run", "task", "iteration"}, cols: concat(
			cols(kText, "project", "run", "task"), cols(kInt, "iteration"), cols(kText, "model", "outcome"), cols(kInt, "duration_ms"),
			cols(kFloat, "cost_usd"), cols(kText, "difficulty", "failure_id", "summary"), cols(kInt, "created_at"))},
		{name: "iteration_totals", pk: []string{"project", "task", "model", "outcome"}, cols: concat(
			cols(kText, "project", "task", "model", "outcome"), cols(kInt, "count", "duration_ms"), cols(kFloat, "cost_usd"),
			cols(kInt, "first_at", "last_at"))},
		{name: "vectors", pk: []string{"model", "hash"}, cols: concat(
			cols(kText, "model", "hash"), cols(kInt, "dims"), cols(kBytes, "data"))},
		{name: "job_state", pk: []string{"job", "project"}, cols: concat(
			cols(kText, "job", "project"), cols(kInt, "ran_at", "cursor"), cols(kText, "data"))},
	}
})

func quoted(t table) []string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = `"` + c.name + `"`
	}
	return out
}

// Options tune Copy.
type Options struct {
	// Batch is how many rows are written per transaction (default 5000).
	Batch int
	// Progress receives one line per batch; nil: none.
	Progress io.Writer
}

// Report says what Copy copied, by table.
type Report struct {
	Tables []TableReport
}

// TableReport is one table's count on each side after the copy.
type TableReport struct {
	Name   string
	Source int64
	Target int64
}

// IsSQLite reports whether loc names a SQLite database: "sqlite:PATH" or
// a plain path.
func IsSQLite(loc string) bool { return !pgurl.IsURL(loc) && !strings.Contains(loc, "://") }

// sqlitePath returns the file of a SQLite location.
func sqlitePath(loc string) string {
	return strings.TrimPrefix(strings.TrimPrefix(loc, "sqlite://"), "sqlite:")
}

// Label names a location in messages (without a password).
func Label(loc string) string {
	if pgurl.IsURL(loc) {
		return pgurl.Redact(loc)
	}
	return sqlitePath(loc)
}

// Copy copies every table of the database at from into the one at to
// (each "sqlite:PATH", a path, or a postgres:// URL; the target is
// created or migrated to the current schema). It returns the counts of
// both sides; ECONFLICT when the target holds rows the source has not
// (it was in use before: nothing of it is deleted).
func Copy(ctx context.Context, from, to string, opts *Options) (*Report, error) {
	if opts == nil {
		opts = &Options{}
	}
	if opts.Batch <= 0 {
		opts.Batch = 5000
	}
	if from == to {
		return nil, cairn.Errorf(cairn.EINVALID, "the source and the target are the same database")
	}
	src, err := openSource(ctx, from)
	if err != nil {
		return nil, err
	}
	defer src.close()
	dst, err := openTarget(ctx, to)
	if err != nil {
		return nil, err
	}
	defer dst.close()
	if err := checkTarget(ctx, src, dst, from, to); err != nil {
		return nil, err
	}

	rep := &Report{}
	for _, t := range tables() {
		total, err := src.count(ctx, t)
		if err != nil {
			return nil, err
		}
		var done int64
		batch := make([][]any, 0, opts.Batch)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			if err := dst.write(ctx, t, batch); err != nil {
				return err
			}
			done += int64(len(batch))
			batch = batch[:0]
			if opts.Progress != nil {
				pct := 100.0
				if total > 0 {
					pct = 100 * float64(done) / float64(total)
				}
				fmt.Fprintf(opts.Progress, "cairn: migrate: %-16s %s %3.0f%% (%d/%d)\n", t.name, bar(pct), pct, done, total)
			}
			return nil
		}
		err = src.rows(ctx, t, func(row []any) error {
			batch = append(batch, row)
			if len(batch) >= opts.Batch {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err != nil {
			return nil, err
		}
		if total == 0 && opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "cairn: migrate: %-16s %s 100%% (0/0)\n", t.name, bar(100))
		}
	}
	if err := dst.finish(ctx); err != nil {
		return nil, err
	}
	for _, t := range tables() {
		s, err := src.count(ctx, t)
		if err != nil {
			return nil, err
		}
		d, err := dst.count(ctx, t)
		if err != nil {
			return nil, err
		}
		rep.Tables = append(rep.Tables, TableReport{Name: t.name, Source: s, Target: d})
	}
	for _, tr := range rep.Tables {
		if tr.Source != tr.Target {
			return rep, cairn.Errorf(cairn.ECONFLICT, "after the copy, table %s has %d rows in %s and %d in %s: the target held other data before (nothing of it was deleted); copy into an empty database",
				tr.Name, tr.Source, Label(from), tr.Target, Label(to))
		}
	}
	return rep, nil
}

func bar(pct float64) string {
	n := int(pct / 5)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", 20-n) + "]"
}

// source reads one snapshot of a database.
type source interface {
	count(ctx context.Context, t table) (int64, error)
	rows(ctx context.Context, t table, fn func([]any) error) error
	// memories calls fn with the id and project of every memory.
	memories(ctx context.Context, fn func(id, project string) error) error
	close()
}

// target writes batches of rows as upserts.
type target interface {
	write(ctx context.Context, t table, rows [][]any) error
	finish(ctx context.Context) error
	count(ctx context.Context, t table) (int64, error)
	memories(ctx context.Context, fn func(id, project string) error) error
	close()
}

// checkTarget refuses, before anything is written, a target that holds
// memories the source has not: a database other machines already wrote
// to, whose rows a copy would collide with (index positions, event ids)
// or overwrite. A target that holds only memories of the source (a copy
// of it that stopped, or an older copy) is finished or brought up to date.
// The error says how to add the source's memories to such a database.
func checkTarget(ctx context.Context, src source, dst target, from, to string) error {
	theirs := map[string]string{} // id → project, of the target's memories
	if err := dst.memories(ctx, func(id, project string) error {
		theirs[id] = project
		return nil
	}); err != nil {
		return err
	}
	if len(theirs) == 0 {
		return nil
	}
	projects := map[string]bool{}
	if err := src.memories(ctx, func(id, project string) error {
		delete(theirs, id)
		projects[project] = true
		return nil
	}); err != nil {
		return err
	}
	if len(theirs) == 0 {
		return nil
	}
	others := map[string]bool{}
	for _, p := range theirs {
		others[p] = true
	}
	names := slices.Sorted(maps.Keys(projects))
	example := "PROJECT"
	if len(names) > 0 {
		example = names[0]
	}
	return cairn.Errorf(cairn.ECONFLICT, "%s already holds %d memories that %s has not (projects %s): migrate copies a whole database into an empty one, and nothing was written. "+
		"To add this database's memories to it instead, export and import each project (ids are kept, equal content reinforces the memory there): "+
		"cairn --db %s --project %s export --format jsonl | cairn --db %s --project %s import -  (projects here: %s)",
		Label(to), len(theirs), Label(from), strings.Join(slices.Sorted(maps.Keys(others)), ", "),
		Label(from), example, Label(to), example, strings.Join(names, ", "))
}

func openSource(ctx context.Context, loc string) (source, error) {
	if pgurl.IsURL(loc) {
		return openPostgresSource(ctx, loc)
	}
	path := sqlitePath(loc)
	if _, err := os.Stat(path); err != nil {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no database at %s", path)
	}
	// Open brings an older file's schema up to date first.
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(30000)&_pragma=query_only(1)")
	if err != nil {
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "open %s", path)
	}
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		db.Close()
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "read %s", path)
	}
	return &liteSource{db: db, tx: tx}, nil
}

func openTarget(ctx context.Context, loc string) (target, error) {
	if pgurl.IsURL(loc) {
		return openPostgresTarget(ctx, loc)
	}
	path := sqlitePath(loc)
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(30000)&_txlock=immediate")
	if err != nil {
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "open %s", path)
	}
	db.SetMaxOpenConns(1)
	return &liteTarget{db: db, path: path}, nil
}

// scanDest returns pointers to scan one row of t into, by kind.
func scanDest(t table, sqliteSide bool) []any {
	out := make([]any, len(t.cols))
	for i, c := range t.cols {
		switch c.kind {
		case kText:
			out[i] = new(string)
		case kNullStr:
			out[i] = new(*string)
		case kInt:
			out[i] = new(int64)
		case kFloat:
			out[i] = new(float64)
		case kBool:
			if sqliteSide {
				out[i] = new(int64)
			} else {
				out[i] = new(bool)
			}
		case kBytes:
			out[i] = new([]byte)
		}
	}
	return out
}

// values turns scanned pointers into plain values, booleans as bool.
func values(dest []any) []any {
	out := make([]any, len(dest))
	for i, d := range dest {
		switch p := d.(type) {
		case *string:
			out[i] = *p
		case **string:
			if *p == nil {
				out[i] = nil
			} else {
				out[i] = **p
			}
		case *int64:
			out[i] = *p
		case *float64:
			out[i] = *p
		case *bool:
			out[i] = *p
		case *[]byte:
			b := *p
			if b == nil {
				b = []byte{}
			}
			out[i] = b
		}
	}
	return out
}

type liteSource struct {
	db *sql.DB
	tx *sql.Tx
}

func (s *liteSource) count(ctx context.Context, t table) (int64, error) {
	var n int64
	err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM `+t.name).Scan(&n)
	return n, wrap(err, "count "+t.name)
}

func (s *liteSource) rows(ctx context.Context, t table, fn func([]any) error) error {
	rows, err := s.tx.QueryContext(ctx, `SELECT `+strings.Join(quoted(t), ", ")+` FROM `+t.name)
	if err != nil {
		return wrap(err, "read "+t.name)
	}
	defer rows.Close()
	for rows.Next() {
		dest := scanDest(t, true)
		if err := rows.Scan(dest...); err != nil {
			return wrap(err, "read "+t.name)
		}
		row := values(dest)
		for i, c := range t.cols {
			if c.kind == kBool {
				row[i] = row[i].(int64) != 0
			}
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return wrap(rows.Err(), "read "+t.name)
}

func (s *liteSource) memories(ctx context.Context, fn func(id, project string) error) error {
	return scanMemories(s.tx.QueryContext(ctx, `SELECT id, project FROM memories`))(fn)
}

func (d *liteTarget) memories(ctx context.Context, fn func(id, project string) error) error {
	return scanMemories(d.db.QueryContext(ctx, `SELECT id, project FROM memories`))(fn)
}

// scanMemories reads the rows of a query of ids and projects.
func scanMemories(rows *sql.Rows, err error) func(fn func(id, project string) error) error {
	return func(fn func(id, project string) error) error {
		if err != nil {
			return wrap(err, "read memories")
		}
		defer rows.Close()
		for rows.Next() {
			var id, project string
			if err := rows.Scan(&id, &project); err != nil {
				return wrap(err, "read memories")
			}
			if err := fn(id, project); err != nil {
				return err
			}
		}
		return wrap(rows.Err(), "read memories")
	}
}

func (s *liteSource) close() {
	s.tx.Rollback()
	s.db.Close()
}

func upsertSet(t table) string {
	var set []string
	for _, c := range quoted(t) {
		set = append(set, c+" = excluded."+c)
	}
	return strings.Join(set, ", ")
}

type liteTarget struct {
	db   *sql.DB
	path string
}

func (d *liteTarget) write(ctx context.Context, t table, rows [][]any) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return wrap(err, "write "+t.name)
	}
	defer tx.Rollback()
	q := `INSERT INTO ` + t.name + ` (` + strings.Join(quoted(t), ", ") + `) VALUES (` +
		strings.TrimSuffix(strings.Repeat("?,", len(t.cols)), ",") + `) ON CONFLICT(` + strings.Join(t.pk, ", ") + `) DO UPDATE SET ` + upsertSet(t)
	st, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return wrap(err, "write "+t.name)
	}
	defer st.Close()
	for _, r := range rows {
		if _, err := st.ExecContext(ctx, r...); err != nil {
			return wrap(err, "write "+t.name)
		}
	}
	return wrap(tx.Commit(), "write "+t.name)
}

// finish places the memories' rows, copied without their rowids, where
// SQLite's reads by document look for them (sqlite.Store.PlaceRows).
func (d *liteTarget) finish(ctx context.Context) error {
	st, err := sqlite.Open(ctx, d.path, nil)
	if err != nil {
		return err
	}
	err = st.PlaceRows(ctx)
	st.Close()
	if err != nil {
		return wrap(err, "place the memories' rows")
	}
	_, err = d.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return wrap(err, "checkpoint")
}

func (d *liteTarget) count(ctx context.Context, t table) (int64, error) {
	var n int64
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM `+t.name).Scan(&n)
	return n, wrap(err, "count "+t.name)
}

func (d *liteTarget) close() { d.db.Close() }

func wrap(err error, op string) error {
	if err == nil {
		return nil
	}
	var ce *cairn.Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s was cancelled; run the same migrate again to finish", op)
	}
	return cairn.WrapError(cairn.EUNAVAILABLE, err, "%s failed; run the same migrate again to finish", op)
}
