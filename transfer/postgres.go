package transfer

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/jackc/pgx/v5"
)

// The PostgreSQL side of a copy.

func openPostgresSource(ctx context.Context, loc string) (source, error) {
	st, err := postgres.Open(ctx, loc, &postgres.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	tx, err := st.Pool().BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		st.Close()
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "read %s", st.Label())
	}
	return &pgSource{st: st, tx: tx}, nil
}

func openPostgresTarget(ctx context.Context, loc string) (target, error) {
	st, err := postgres.Open(ctx, loc, nil)
	if err != nil {
		return nil, err
	}
	c, err := st.Pool().Acquire(ctx)
	if err != nil {
		st.Close()
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "connect to %s", st.Label())
	}
	return &pgTarget{st: st, conn: c.Hijack()}, nil
}

type pgSource struct {
	st *postgres.Store
	tx pgx.Tx
}

func (s *pgSource) count(ctx context.Context, t table) (int64, error) {
	var n int64
	err := s.tx.QueryRow(ctx, `SELECT count(*) FROM `+t.name).Scan(&n)
	return n, wrap(err, "count "+t.name)
}

func (s *pgSource) rows(ctx context.Context, t table, fn func([]any) error) error {
	rows, err := s.tx.Query(ctx, `SELECT `+strings.Join(quoted(t), ", ")+` FROM `+t.name)
	if err != nil {
		return wrap(err, "read "+t.name)
	}
	defer rows.Close()
	for rows.Next() {
		dest := scanDest(t, false)
		if err := rows.Scan(dest...); err != nil {
			return wrap(err, "read "+t.name)
		}
		if err := fn(values(dest)); err != nil {
			return err
		}
	}
	return wrap(rows.Err(), "read "+t.name)
}

func (s *pgSource) memories(ctx context.Context, fn func(id, project string) error) error {
	return pgMemories(s.tx.Query(ctx, `SELECT id, project FROM memories`))(fn)
}

func (d *pgTarget) memories(ctx context.Context, fn func(id, project string) error) error {
	return pgMemories(d.conn.Query(ctx, `SELECT id, project FROM memories`))(fn)
}

// pgMemories reads the rows of a query of ids and projects.
func pgMemories(rows pgx.Rows, err error) func(fn func(id, project string) error) error {
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

func (s *pgSource) close() {
	s.tx.Rollback(context.Background())
	s.st.Close()
}

type pgTarget struct {
	st   *postgres.Store
	conn *pgx.Conn
}

// write copies rows into a temporary table with COPY, then upserts them
// into t in one statement, in one transaction.
func (d *pgTarget) write(ctx context.Context, t table, rows [][]any) error {
	tmp := "cairn_transfer_" + t.name
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	err := pgx.BeginFunc(ctx, d.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS `+tmp+` (LIKE `+t.name+`) ON COMMIT DELETE ROWS`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{tmp}, names, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		cs := strings.Join(quoted(t), ", ")
		_, err := tx.Exec(ctx, `INSERT INTO `+t.name+` (`+cs+`) SELECT `+cs+` FROM `+tmp+
			` ON CONFLICT (`+strings.Join(t.pk, ", ")+`) DO UPDATE SET `+upsertSet(t))
		return err
	})
	return wrap(err, "write "+t.name)
}

// finish moves the activity id sequence past the ids copied, so that new
// events come after them.
func (d *pgTarget) finish(ctx context.Context) error {
	_, err := d.conn.Exec(ctx, `SELECT setval(pg_get_serial_sequence('activity', 'id'), max(id)) FROM activity HAVING max(id) IS NOT NULL`)
	return wrap(err, "set the event sequence")
}

func (d *pgTarget) count(ctx context.Context, t table) (int64, error) {
	var n int64
	err := d.conn.QueryRow(ctx, `SELECT count(*) FROM `+t.name).Scan(&n)
	return n, wrap(err, "count "+t.name)
}

func (d *pgTarget) close() {
	d.conn.Close(context.Background())
	d.st.Close()
}
