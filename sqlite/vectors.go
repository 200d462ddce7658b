package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

var _ cairn.VectorStore = (*Store)(nil)

// The SQL of the vector role. "The memories of a project" are its own and
// the global-scope ones, as a search sees them.
const (
	sqlPutVector = `INSERT INTO vectors(model, hash, dims, data) VALUES (?,?,?,?)
	ON CONFLICT(model, hash) DO UPDATE SET dims=excluded.dims, data=excluded.data`
	sqlFindVectors = `SELECT hash, data FROM vectors WHERE model=? AND hash IN (`
	sqlUnembedded  = `SELECT m.content_hash, min(m.content) FROM memories m
	WHERE (?1 = '' OR m.project = ?1 OR m.scope = 'global') AND m.content_hash > ?2
	AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ?3 AND v.hash = m.content_hash)
	GROUP BY m.content_hash ORDER BY m.content_hash LIMIT ?4+0`
	sqlMemoryVectors = `SELECT m.id, m.project, m.scope = 'global', m.content_hash, v.data FROM memories m
	JOIN vectors v ON v.model = ?2 AND v.hash = m.content_hash
	WHERE m.project = ?1 OR m.scope = 'global'`
	sqlCountVectors = `SELECT count(*), count(v.hash) FROM memories m
	LEFT JOIN vectors v ON v.model = ?2 AND v.hash = m.content_hash
	WHERE ?1 = '' OR m.project = ?1 OR m.scope = 'global'`
)

// PutVectors implements cairn.VectorStore.
func (s *Store) PutVectors(ctx context.Context, model string, vs []cairn.HashVector) error {
	if s.readOnly {
		return cairn.Errorf(cairn.EINVALID, "the database %s was opened read-only", s.path)
	}
	if model == "" {
		return cairn.Errorf(cairn.EINVALID, "a vector needs a model")
	}
	for _, v := range vs {
		if v.Hash == "" || len(v.Vector) == 0 {
			return cairn.Errorf(cairn.EINVALID, "a vector needs a hash and at least one number")
		}
	}
	defer s.writing()()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return translate(err, "begin write")
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, sqlPutVector)
	if err != nil {
		return translate(err, "store vectors")
	}
	defer st.Close()
	for _, v := range vs {
		if _, err := st.ExecContext(ctx, model, v.Hash, len(v.Vector), storesql.EncodeVector(v.Vector)); err != nil {
			return translate(err, "store vectors")
		}
	}
	return s.commit(tx, false, false) // vectors are neither memory rows nor the search index
}

// FindVectors implements cairn.VectorStore.
func (s *Store) FindVectors(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	for start := 0; start < len(hashes); start += 500 {
		chunk := hashes[start:min(len(hashes), start+500)]
		args := []any{model}
		for _, h := range chunk {
			args = append(args, h)
		}
		q := sqlFindVectors + strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",") + ")"
		rows, err := s.reader.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, translate(err, "read vectors")
		}
		for rows.Next() {
			var h string
			var data []byte
			if err := rows.Scan(&h, &data); err != nil {
				rows.Close()
				return nil, translate(err, "read vectors")
			}
			v, err := storesql.DecodeVector(data)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[h] = v
		}
		if err := rows.Close(); err != nil {
			return nil, translate(err, "read vectors")
		}
		if err := rows.Err(); err != nil {
			return nil, translate(err, "read vectors")
		}
	}
	return out, nil
}

// scanDB returns a connection for reads that visit every memory or every
// vector. Through the readers' memory map, the pages they touch (and,
// by the kernel's fault-around, the vector pages beside them) would stay
// resident in the process, several times the size of the vector index:
// such reads run on a connection of their own, without a memory map and
// with a small cache, closed by done.
func (s *Store) scanDB() (db *sql.DB, done func(), err error) {
	if s.reader == s.writer { // :memory:
		return s.reader, func() {}, nil
	}
	if db, err = sql.Open("sqlite", s.scanDSN); err != nil {
		return nil, nil, translate(err, "open a reader")
	}
	db.SetMaxOpenConns(1)
	return db, func() { db.Close() }, nil
}

// FindUnembedded implements cairn.VectorStore.
func (s *Store) FindUnembedded(ctx context.Context, model, project, after string, limit int) ([]cairn.HashText, error) {
	db, done, err := s.scanDB()
	if err != nil {
		return nil, err
	}
	defer done()
	rows, err := db.QueryContext(ctx, sqlUnembedded, project, after, model, limit)
	if err != nil {
		return nil, translate(err, "find memories without vectors")
	}
	defer rows.Close()
	var out []cairn.HashText
	for rows.Next() {
		var ht cairn.HashText
		if err := rows.Scan(&ht.Hash, &ht.Text); err != nil {
			return nil, translate(err, "find memories without vectors")
		}
		out = append(out, ht)
	}
	return out, translate(rows.Err(), "find memories without vectors")
}

// ScanMemoryVectors implements cairn.VectorStore.
func (s *Store) ScanMemoryVectors(ctx context.Context, model, project string, fn func(cairn.MemoryVector) error) error {
	db, done, err := s.scanDB()
	if err != nil {
		return err
	}
	defer done()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return translate(err, "begin read")
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, sqlMemoryVectors, project, model)
	if err != nil {
		return translate(err, "read vectors")
	}
	defer rows.Close()
	return storesql.EachVector(rows, translate, fn)
}

// CountVectors implements cairn.VectorStore.
func (s *Store) CountVectors(ctx context.Context, model, project string) (cairn.VectorCount, error) {
	var c cairn.VectorCount
	db, done, err := s.scanDB()
	if err != nil {
		return c, err
	}
	defer done()
	err = db.QueryRowContext(ctx, sqlCountVectors, project, model).Scan(&c.Memories, &c.Embedded)
	return c, translate(err, "count vectors")
}
