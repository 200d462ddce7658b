package postgres

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

// QueueUses implements cairn.Tx: the projects of the memories are read
// in one statement, and the uses appended to the use queue (migration
// 0008) in another, in their order. It takes no project lock: a queued
// use changes no memory until FoldUses applies it under its project's
// lock, and the uses of a memory deleted meanwhile are dropped then.
func (t *Tx) QueueUses(ctx context.Context, ids []string, at []time.Time) (map[string]string, error) {
	if err := t.needWrite("queue uses"); err != nil {
		return nil, err
	}
	if len(at) != len(ids) {
		return nil, cairn.Errorf(cairn.EINTERNAL, "queue uses: %d times for %d ids", len(at), len(ids))
	}
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	uniq := slices.Compact(slices.Sorted(slices.Values(ids)))
	rows, err := t.tx.Query(ctx, `SELECT id, project FROM memories WHERE id = ANY($1)`, uniq)
	if err != nil {
		return nil, translate(err, "queue uses")
	}
	out, err := storesql.Pairs[string](rows, translate, "queue uses")
	rows.Close()
	if err != nil {
		return nil, err
	}
	qids := make([]string, 0, len(ids))
	qat := make([]int64, 0, len(ids))
	for i, id := range ids {
		if _, ok := out[id]; ok {
			qids = append(qids, id)
			qat = append(qat, storesql.MS(at[i]))
		}
	}
	if len(qids) == 0 {
		return out, nil
	}
	// The rows are numbered in the order the ordered SELECT yields them.
	if _, err := t.exec(ctx, "queue uses", `INSERT INTO use_queue(memory_id, at)
	SELECT u.id, u.at FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS u(id, at, i) ORDER BY u.i`, qids, qat); err != nil {
		return nil, err
	}
	return out, nil
}

// FoldUses implements cairn.Tx. The queue is read first without a lock,
// to learn the projects of its memories; their locks are taken, as any
// write of a memory takes them; then the rows read are deleted, locked
// in queue order, and only those this transaction deleted are applied:
// a row another process folded meanwhile is skipped (the delete waits
// for that process to end, and finds the row gone), and a row queued
// after the read is left for the next fold. Each memory's row is then
// read and written once, its boosts applied one by one.
func (t *Tx) FoldUses(ctx context.Context, boost, max float64) (int, error) {
	n, _, err := t.foldUses(ctx, boost, max, 0)
	return n, err
}

// FoldOldestUses implements cairn.Tx: FoldUses over the queue's oldest
// limit rows (by seq, the order they were queued in).
func (t *Tx) FoldOldestUses(ctx context.Context, boost, max float64, limit int) (int, bool, error) {
	if limit < 1 {
		return 0, false, cairn.Errorf(cairn.EINVALID, "fold uses: a limit of %d", limit)
	}
	return t.foldUses(ctx, boost, max, limit)
}

// foldUses is FoldUses (limit 0) and FoldOldestUses.
func (t *Tx) foldUses(ctx context.Context, boost, max float64, limit int) (int, bool, error) {
	if err := t.needWrite("fold uses"); err != nil {
		return 0, false, err
	}
	if err := t.flushMemories(ctx); err != nil {
		return 0, false, err
	}
	// LIMIT NULL: every row.
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := t.tx.Query(ctx, `SELECT seq, memory_id FROM use_queue ORDER BY seq LIMIT $1`, lim)
	if err != nil {
		return 0, false, translate(err, "read queued uses")
	}
	var seqs []int64
	var ids []string
	for rows.Next() {
		var seq int64
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			rows.Close()
			return 0, false, translate(err, "read queued uses")
		}
		seqs = append(seqs, seq)
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, translate(err, "read queued uses")
	}
	more := limit > 0 && len(seqs) == limit
	if len(seqs) == 0 {
		return 0, more, nil
	}
	slices.Sort(ids)
	if err := t.lockMemories(ctx, slices.Compact(ids)...); err != nil {
		return 0, false, err
	}
	rows, err = t.tx.Query(ctx, `DELETE FROM use_queue WHERE seq IN
	(SELECT seq FROM use_queue WHERE seq = ANY($1) ORDER BY seq FOR UPDATE)
	RETURNING seq, memory_id, at`, seqs)
	if err != nil {
		return 0, false, translate(err, "take queued uses")
	}
	type fold struct {
		seq, uses, last int64
		conf            float64
	}
	byID := map[string]*fold{}
	for rows.Next() {
		var seq, at int64
		var id string
		if err := rows.Scan(&seq, &id, &at); err != nil {
			rows.Close()
			return 0, false, translate(err, "take queued uses")
		}
		f := byID[id]
		if f == nil {
			f = &fold{}
			byID[id] = f
		}
		f.uses++
		if seq > f.seq {
			f.seq, f.last = seq, at
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, translate(err, "take queued uses")
	}
	t.wrote = true
	if len(byID) == 0 {
		return 0, more, nil
	}
	uniq := slices.Sorted(maps.Keys(byID))
	rows, err = t.tx.Query(ctx, `SELECT id, confidence FROM memories WHERE id = ANY($1)`, uniq)
	if err != nil {
		return 0, false, translate(err, "read used memories")
	}
	var (
		uids       []string
		uses, last []int64
		confs      []float64
		n          int
	)
	for rows.Next() {
		var id string
		var conf float64
		if err := rows.Scan(&id, &conf); err != nil {
			rows.Close()
			return 0, false, translate(err, "read used memories")
		}
		f := byID[id]
		conf = cairn.Boosted(conf, f.uses, boost, max)
		uids, uses, last, confs = append(uids, id), append(uses, f.uses), append(last, f.last), append(confs, conf)
		n += int(f.uses)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, translate(err, "read used memories")
	}
	if len(uids) == 0 {
		return 0, more, nil
	}
	if _, err := t.exec(ctx, "apply queued uses", `UPDATE memories AS m SET use_count = m.use_count + u.n,
	last_used_at = greatest(m.last_used_at, u.at), confidence = u.conf
	FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::float8[]) AS u(id, n, at, conf) WHERE m.id = u.id`,
		uids, uses, last, confs); err != nil {
		return 0, false, err
	}
	return n, more, nil
}
