package postgres

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
	"github.com/jackc/pgx/v5"
)

var _ cairn.VectorStore = (*Store)(nil)

// The SQL of the vector role, as the SQLite backend's. "The memories of a
// project" are its own and the global-scope ones, as a search sees them.
const (
	sqlPutVectors = `INSERT INTO vectors(model, hash, dims, data)
	SELECT $1, u.hash, u.dims, u.data FROM unnest($2::text[], $3::int[], $4::bytea[]) AS u(hash, dims, data)
	ON CONFLICT(model, hash) DO UPDATE SET dims=excluded.dims, data=excluded.data`
	sqlUnembedded = `SELECT m.content_hash, min(m.content COLLATE "C") FROM memories m
	WHERE ($1 = '' OR m.project = $1 OR m.scope = 'global') AND m.content_hash > $2
	AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = $3 AND v.hash = m.content_hash)
	GROUP BY m.content_hash ORDER BY m.content_hash LIMIT $4`
	sqlMemoryVectors = `SELECT m.id, m.project, m.scope = 'global', m.content_hash, v.data FROM memories m
	JOIN vectors v ON v.model = $2 AND v.hash = m.content_hash
	WHERE m.project = $1 OR m.scope = 'global'`
	sqlCountVectors = `SELECT count(*), count(v.hash) FROM memories m
	LEFT JOIN vectors v ON v.model = $2 AND v.hash = m.content_hash
	WHERE $1 = '' OR m.project = $1 OR m.scope = 'global'`
)

// PutVectors implements cairn.VectorStore in one statement. Vectors are
// keyed by model and hash, not by project: it takes no project's lock,
// and of two writers of one vector the later wins.
func (s *Store) PutVectors(ctx context.Context, model string, vs []cairn.HashVector) error {
	if s.readOnly {
		return cairn.Errorf(cairn.EINVALID, "the database %s was opened read-only", s.label)
	}
	if model == "" {
		return cairn.Errorf(cairn.EINVALID, "a vector needs a model")
	}
	hashes := make([]string, len(vs))
	dims := make([]int32, len(vs))
	data := make([][]byte, len(vs))
	for i, v := range vs {
		if v.Hash == "" || len(v.Vector) == 0 {
			return cairn.Errorf(cairn.EINVALID, "a vector needs a hash and at least one number")
		}
		hashes[i], dims[i], data[i] = v.Hash, int32(len(v.Vector)), storesql.EncodeVector(v.Vector)
	}
	if len(vs) == 0 {
		return nil
	}
	// Two vectors of one hash in one call: the last one is kept, as
	// SQLite's statement-by-statement upsert keeps it.
	last := make(map[string]int, len(vs))
	for i, h := range hashes {
		last[h] = i
	}
	if len(last) < len(vs) {
		var h2 []string
		var d2 []int32
		var b2 [][]byte
		for i, h := range hashes {
			if last[h] == i {
				h2, d2, b2 = append(h2, h), append(d2, dims[i]), append(b2, data[i])
			}
		}
		hashes, dims, data = h2, d2, b2
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlPutVectors, model, hashes, dims, data); err != nil {
			return err
		}
		// Like every write, it changes DataVersion of every process.
		_, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", s.channel)
		return err
	})
	return translate(err, "store vectors")
}

// FindVectors implements cairn.VectorStore in one statement.
func (s *Store) FindVectors(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	if len(hashes) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT hash, data FROM vectors WHERE model=$1 AND hash = ANY($2)`, model, hashes)
	if err != nil {
		return nil, translate(err, "read vectors")
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		var data []byte
		if err := rows.Scan(&h, &data); err != nil {
			return nil, translate(err, "read vectors")
		}
		v, err := storesql.DecodeVector(data)
		if err != nil {
			return nil, err
		}
		out[h] = v
	}
	return out, translate(rows.Err(), "read vectors")
}

// FindUnembedded implements cairn.VectorStore.
func (s *Store) FindUnembedded(ctx context.Context, model, project, after string, limit int) ([]cairn.HashText, error) {
	rows, err := s.pool.Query(ctx, sqlUnembedded, project, after, model, limit)
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

// ScanMemoryVectors implements cairn.VectorStore over one snapshot.
func (s *Store) ScanMemoryVectors(ctx context.Context, model, project string, fn func(cairn.MemoryVector) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return translate(err, "begin read")
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	rows, err := tx.Query(ctx, sqlMemoryVectors, project, model)
	if err != nil {
		return translate(err, "read vectors")
	}
	defer rows.Close()
	return storesql.EachVector(rows, translate, fn)
}

// CountVectors implements cairn.VectorStore.
func (s *Store) CountVectors(ctx context.Context, model, project string) (cairn.VectorCount, error) {
	var c cairn.VectorCount
	var mems, embedded int64
	err := s.pool.QueryRow(ctx, sqlCountVectors, project, model).Scan(&mems, &embedded)
	c.Memories, c.Embedded = int(mems), int(embedded)
	return c, translate(err, "count vectors")
}
