package postgres

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
	"github.com/jackc/pgx/v5"
)

var _ cairn.Tx = (*Tx)(nil)

// Tx is one PostgreSQL transaction. In an Update it takes the advisory
// locks of what it touches as it goes (see the package documentation) and
// keeps the activity entries appended until just before commit.
type Tx struct {
	tx    pgx.Tx // syncTx in an Update
	raw   pgx.Tx // the transaction itself
	ctx   context.Context
	store *Store
	write bool
	wrote bool               // a write statement ran
	held  map[int64]struct{} // advisory locks taken
	acts  []cairn.Activity   // appended, not yet inserted

	created     int           // memories created so far
	pending     []byte        // rows of memories created in bulk, not yet sent (see appendMemoryRow)
	pendingRows int           // how many
	stream      *memoryStream // the running COPY of memories, if any
	failed      error         // a bulk insert failed: the transaction is lost
}

// flushMemories inserts the memories kept by CreateMemory.
func (t *Tx) flushMemories(ctx context.Context) error {
	return t.endStream(ctx)
}

// Lock kinds.
const (
	lockProject = "project" // a project's memories and its index partition
	lockGlobal  = "global"  // the index partition of global-scope memories
	lockIngest  = "ingest"  // a transcript source's ingest cursor
	lockEvents  = "events"  // activity ids
)

// lock takes the transaction-scoped advisory lock of (kind, name), once,
// in a write transaction only; several names are taken in byte order.
func (t *Tx) lock(ctx context.Context, kind string, names ...string) error {
	if !t.write {
		return nil
	}
	var keys []int64
	for _, n := range names {
		k := kind
		if kind == lockProject && n == "" {
			k = lockGlobal // the global-scope partition
		}
		key := lockKey(t.store.schema, k, n)
		if _, ok := t.held[key]; !ok && !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	if len(names) > 1 {
		slices.Sort(keys)
	}
	for _, key := range keys {
		if _, err := t.tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", key); err != nil {
			return translate(err, "wait for other writers")
		}
		if t.held == nil {
			t.held = map[int64]struct{}{}
		}
		t.held[key] = struct{}{}
	}
	return nil
}

// lockPartition locks an index partition: a project's is its project's
// lock.
func (t *Tx) lockPartition(ctx context.Context, name string) error {
	return t.lock(ctx, lockProject, name)
}

func (t *Tx) needWrite(op string) error {
	if !t.write {
		return cairn.Errorf(cairn.EINVALID, "%s needs a write transaction", op)
	}
	return nil
}

func (t *Tx) exec(ctx context.Context, op, q string, args ...any) (int64, error) {
	if err := t.needWrite(op); err != nil {
		return 0, err
	}
	tag, err := t.tx.Exec(ctx, q, args...)
	if err != nil {
		return 0, translate(err, op)
	}
	t.wrote = true
	return tag.RowsAffected(), nil
}

func nullKey(k string) any {
	if k == "" {
		return nil
	}
	return k
}

const memoryColumns = `id, project, scope, type, key, title, content, content_hash, tags, file_refs,
	confidence, source, created_by_agent, created_by_hat, created_by_task_id, created_by_session_id,
	created_at, updated_at, last_used_at, verified_at, expires_at, use_count, pinned, superseded_by,
	partition, docnum, flag`

const sqlSelectMemory = `SELECT ` + memoryColumns + ` FROM memories`

func memoryArgs(m *cairn.Memory) []any {
	return []any{m.Project, string(m.Scope), m.Type, nullKey(m.Key), m.Title, m.Content,
		m.ContentHash, storesql.JoinList(m.Tags), storesql.JoinList(m.FileRefs), m.Confidence, string(m.Source),
		m.Agent, m.Hat, m.TaskID, m.SessionID, storesql.MS(m.CreatedAt), storesql.MS(m.UpdatedAt), storesql.MS(m.LastUsedAt),
		storesql.MS(m.VerifiedAt), storesql.MS(m.ExpiresAt), int64(m.UseCount), m.Pinned, m.SupersededBy, m.Partition, m.DocNum, m.Flag}
}

func scanMemory(r pgx.Row) (*cairn.Memory, error) {
	var (
		m                                         cairn.Memory
		key                                       *string
		scope, source, tags, refs                 string
		created, updated, used, verified, expires int64
		uses                                      int64
	)
	err := r.Scan(&m.ID, &m.Project, &scope, &m.Type, &key, &m.Title, &m.Content, &m.ContentHash,
		&tags, &refs, &m.Confidence, &source, &m.Agent, &m.Hat, &m.TaskID, &m.SessionID,
		&created, &updated, &used, &verified, &expires, &uses, &m.Pinned, &m.SupersededBy,
		&m.Partition, &m.DocNum, &m.Flag)
	if err != nil {
		return nil, err
	}
	if key != nil {
		m.Key = *key
	}
	m.UseCount = int(uses)
	m.Scope = cairn.Scope(scope)
	m.Source = cairn.Source(source)
	m.Tags = storesql.SplitList(tags)
	m.FileRefs = storesql.SplitList(refs)
	m.CreatedAt, m.UpdatedAt, m.LastUsedAt = storesql.FromMS(created), storesql.FromMS(updated), storesql.FromMS(used)
	m.VerifiedAt, m.ExpiresAt = storesql.FromMS(verified), storesql.FromMS(expires)
	return &m, nil
}

func (t *Tx) one(ctx context.Context, what, q string, args ...any) (*cairn.Memory, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	m, err := scanMemory(t.tx.QueryRow(ctx, q, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no memory %s", what)
	}
	return m, translate(err, "find memory")
}

func (t *Tx) many(ctx context.Context, q string, args ...any) ([]*cairn.Memory, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, translate(err, "find memories")
	}
	defer rows.Close()
	var out []*cairn.Memory
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, translate(err, "read memory")
		}
		out = append(out, m)
	}
	return out, translate(rows.Err(), "read memories")
}

// projectsOf returns the projects of the stored memories with the given
// ids (a memory's project never changes).
func (t *Tx) projectsOf(ctx context.Context, ids []string) ([]string, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT DISTINCT project FROM memories WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, translate(err, "find projects")
	}
	ps, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ps, translate(err, "find projects")
}

// lockMemories takes the locks of the projects of the memories with ids.
func (t *Tx) lockMemories(ctx context.Context, ids ...string) error {
	if !t.write || len(ids) == 0 {
		return nil
	}
	ps, err := t.projectsOf(ctx, ids)
	if err != nil {
		return err
	}
	return t.lock(ctx, lockProject, ps...)
}

// FindMemoryByID implements cairn.Tx. In an Update it first takes the
// lock of the memory's project, so the memory read is the latest.
func (t *Tx) FindMemoryByID(ctx context.Context, id string) (*cairn.Memory, error) {
	if err := t.lockMemories(ctx, id); err != nil {
		return nil, err
	}
	return t.one(ctx, "with id "+id, sqlSelectMemory+` WHERE id=$1`, id)
}

// FindMemoryIDsByPrefix implements cairn.Tx. It takes no lock.
func (t *Tx) FindMemoryIDsByPrefix(ctx context.Context, project, prefix string, limit int) ([]string, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT id FROM memories WHERE id >= $1 AND id < $2
		AND ($3 = '' OR project = $3 OR scope = 'global') ORDER BY id LIMIT $4`,
		prefix, prefix+"\U0010FFFF", project, limit)
	if err != nil {
		return nil, translate(err, "find ids")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, translate(err, "find ids")
}

// FindMemoryByKey implements cairn.Tx; in an Update it takes project's
// lock first.
func (t *Tx) FindMemoryByKey(ctx context.Context, project, typ, key string) (*cairn.Memory, error) {
	if err := t.lock(ctx, lockProject, project); err != nil {
		return nil, err
	}
	return t.one(ctx, "with key "+key, sqlSelectMemory+` WHERE project=$1 AND type=$2 AND key=$3`, project, typ, key)
}

// FindMemoriesByHash implements cairn.Tx; in an Update it takes project's
// lock first.
func (t *Tx) FindMemoriesByHash(ctx context.Context, project, hash string) ([]*cairn.Memory, error) {
	if err := t.lock(ctx, lockProject, project); err != nil {
		return nil, err
	}
	return t.many(ctx, sqlSelectMemory+` WHERE project=$1 AND content_hash=$2 ORDER BY created_at, id`, project, hash)
}

// FindMemoriesByDoc implements cairn.Tx; in an Update it takes the
// partition's lock first.
func (t *Tx) FindMemoriesByDoc(ctx context.Context, partition string, docs []int64) ([]*cairn.Memory, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	if err := t.lockPartition(ctx, partition); err != nil {
		return nil, err
	}
	return t.many(ctx, sqlSelectMemory+` WHERE partition=$1 AND docnum = ANY($2)`, partition, docs)
}

// ExpiredDocs implements cairn.Tx, from the partition's expiry index
// (idx_memories_partition_expires); in an Update it takes the
// partition's lock first.
func (t *Tx) ExpiredDocs(ctx context.Context, partition string, from int64, before time.Time) ([]int64, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	if err := t.lockPartition(ctx, partition); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT docnum FROM memories WHERE partition=$1 AND expires_at <> 0 AND expires_at < $2 AND docnum >= $3`,
		partition, storesql.MS(before), from)
	if err != nil {
		return nil, translate(err, "read expired documents")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return out, translate(err, "read expired documents")
}

// FindMemories implements cairn.Tx; in an Update it takes the lock of
// f.Project first (of no project for f.GlobalScope).
func (t *Tx) FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, 0, err
	}
	if !f.GlobalScope {
		if err := t.lock(ctx, lockProject, f.Project); err != nil {
			return nil, 0, err
		}
	}
	where, args := filterSQL(f)
	var total int
	if !f.SkipTotal {
		if err := t.tx.QueryRow(ctx, `SELECT count(*) FROM memories WHERE `+where, args...).Scan(&total); err != nil {
			return nil, 0, translate(err, "count memories")
		}
	}
	q := sqlSelectMemory + ` WHERE ` + where + ` ORDER BY ` + orderSQL(f.Sort)
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += ` LIMIT $` + strconv.Itoa(len(args))
	}
	if f.Offset > 0 {
		args = append(args, f.Offset)
		q += ` OFFSET $` + strconv.Itoa(len(args))
	}
	out, err := t.many(ctx, q, args...)
	return out, total, err
}

// filterSQL returns the WHERE clause and arguments of f.
func filterSQL(f cairn.MemoryFilter) (string, []any) {
	var conds []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	switch {
	case f.GlobalScope:
		conds = append(conds, `scope='global'`)
	case f.IncludeGlobal:
		conds = append(conds, `(project=`+arg(f.Project)+` OR scope='global')`)
	default:
		conds = append(conds, `project=`+arg(f.Project))
	}
	if f.Pinned {
		conds = append(conds, `pinned`)
	}
	if f.HasFileRefs {
		conds = append(conds, `file_refs <> ''`)
	}
	if len(f.IDs) > 0 {
		conds = append(conds, `id = ANY(`+arg(f.IDs)+`)`)
	}
	if len(f.Types) > 0 {
		conds = append(conds, `type = ANY(`+arg(f.Types)+`)`)
	}
	for _, tag := range f.Tags {
		conds = append(conds, `strpos(E'\n' || tags || E'\n', `+arg("\n"+tag+"\n")+`) > 0`)
	}
	if f.MinConfidence > 0 {
		conds = append(conds, `confidence >= `+arg(f.MinConfidence))
	}
	if !f.After.IsZero() {
		conds = append(conds, `created_at >= `+arg(storesql.MS(f.After)))
	}
	if !f.Before.IsZero() {
		conds = append(conds, `created_at < `+arg(storesql.MS(f.Before)))
	}
	if f.Session != "" {
		conds = append(conds, `created_by_session_id = `+arg(f.Session))
	}
	if f.Agent != "" {
		conds = append(conds, `created_by_agent = `+arg(f.Agent))
	}
	if f.Task != "" {
		conds = append(conds, `created_by_task_id = `+arg(f.Task))
	}
	if f.Hat != "" {
		conds = append(conds, `created_by_hat = `+arg(f.Hat))
	}
	if f.Source != "" {
		conds = append(conds, `source = `+arg(string(f.Source)))
	}
	if f.NeverUsed {
		conds = append(conds, `use_count = 0`)
	}
	if !f.ExpiresAfter.IsZero() {
		conds = append(conds, `expires_at >= `+arg(max(storesql.MS(f.ExpiresAfter), 1)))
	}
	if !f.ExpiresBefore.IsZero() {
		conds = append(conds, `expires_at <> 0 AND expires_at < `+arg(storesql.MS(f.ExpiresBefore)))
	}
	return strings.Join(conds, " AND "), args
}

func orderSQL(sort string) string {
	switch sort {
	case cairn.SortCreatedAsc:
		return `created_at, id`
	case cairn.SortUpdatedDesc:
		return `updated_at DESC, id DESC`
	case cairn.SortConfidenceDesc:
		return `confidence DESC, created_at DESC, id DESC`
	case cairn.SortUsedDesc:
		return `use_count DESC, created_at DESC, id DESC`
	case cairn.SortLastUsedDesc:
		return `last_used_at DESC, created_at DESC, id DESC`
	case cairn.SortValueDesc:
		return `confidence * (use_count + 1) DESC, created_at DESC, id DESC`
	default:
		return `created_at DESC, id DESC`
	}
}

// ScanMemoryKeys implements cairn.Tx. It takes no lock: bulk writers use
// it as a hint, and look a memory up (under its project's lock) before
// writing it.
func (t *Tx) ScanMemoryKeys(ctx context.Context, fn func(id, project, hash string)) error {
	if err := t.flushMemories(ctx); err != nil {
		return err
	}
	rows, err := t.tx.Query(ctx, `SELECT id, project, content_hash FROM memories`)
	if err != nil {
		return translate(err, "scan memories")
	}
	defer rows.Close()
	var id, project, hash string
	for rows.Next() {
		if err := rows.Scan(&id, &project, &hash); err != nil {
			return translate(err, "scan memories")
		}
		fn(id, project, hash)
	}
	return translate(rows.Err(), "scan memories")
}

// CountByType implements cairn.Tx. It takes no lock.
func (t *Tx) CountByType(ctx context.Context, project string) (map[string]int, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT type, count(*) FROM memories WHERE project=$1 GROUP BY type`, project)
	if err != nil {
		return nil, translate(err, "count memories")
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var typ string
		var n int64
		if err := rows.Scan(&typ, &n); err != nil {
			return nil, translate(err, "count memories")
		}
		out[typ] = int(n)
	}
	return out, translate(rows.Err(), "count memories")
}

// CountCreated implements cairn.Tx. It takes no lock.
func (t *Tx) CountCreated(ctx context.Context, project string, from time.Time, step time.Duration) ([]cairn.CreatedCount, error) {
	if step <= 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "count created: the period must be positive, not %v", step)
	}
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT type, (created_at - $2) / $1 AS period, count(*) FROM memories
		WHERE project=$3 AND created_at >= $2 GROUP BY type, period`, step.Milliseconds(), storesql.MS(from), project)
	if err != nil {
		return nil, translate(err, "count created memories")
	}
	defer rows.Close()
	var out []cairn.CreatedCount
	for rows.Next() {
		var typ string
		var period, n int64
		if err := rows.Scan(&typ, &period, &n); err != nil {
			return nil, translate(err, "count created memories")
		}
		out = append(out, cairn.CreatedCount{Type: typ, Period: int(period), Count: int(n)})
	}
	return out, translate(rows.Err(), "count created memories")
}

// FindProjects implements cairn.Tx. It takes no lock.
func (t *Tx) FindProjects(ctx context.Context) ([]cairn.ProjectSummary, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT project, count(*), greatest(max(updated_at), max(last_used_at))
		FROM memories GROUP BY project ORDER BY project`)
	if err != nil {
		return nil, translate(err, "list projects")
	}
	defer rows.Close()
	var out []cairn.ProjectSummary
	for rows.Next() {
		var p cairn.ProjectSummary
		var n, last int64
		if err := rows.Scan(&p.Name, &n, &last); err != nil {
			return nil, translate(err, "list projects")
		}
		p.Memories, p.LastActivity = int(n), storesql.FromMS(last)
		out = append(out, p)
	}
	return out, translate(rows.Err(), "list projects")
}

// CreateMemory implements cairn.Tx under the lock of m.Project. The
// first bulkAfter creates of a transaction are inserted at once (ECONFLICT
// at the call); later ones (an import) go to one COPY that runs while the
// caller goes on, ended before the transaction's next statement and at
// commit: a conflict found then fails the whole transaction with
// ECONFLICT, and nothing is written.
func (t *Tx) CreateMemory(ctx context.Context, m *cairn.Memory) error {
	if err := t.needWrite("store memory " + m.ID); err != nil {
		return err
	}
	if err := t.lock(ctx, lockProject, m.Project); err != nil {
		return err
	}
	if t.failed != nil {
		return t.failed
	}
	if t.created++; t.created > bulkAfter {
		return t.streamMemory(ctx, m)
	}
	args := append([]any{m.ID}, memoryArgs(m)...)
	// ON CONFLICT DO NOTHING rather than a unique violation, which would
	// abort the whole transaction: the engine may go on after ECONFLICT.
	n, err := t.exec(ctx, "store memory "+m.ID, `INSERT INTO memories (`+memoryColumns+`)
	VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27)
	ON CONFLICT DO NOTHING`, args...)
	if err == nil && n == 0 {
		return cairn.Errorf(cairn.ECONFLICT, "store memory %s conflicts with a stored memory (same id, or same project, type and key)", m.ID)
	}
	return err
}

// UpdateMemory implements cairn.Tx under the lock of m.Project.
func (t *Tx) UpdateMemory(ctx context.Context, m *cairn.Memory) error {
	if err := t.flushMemories(ctx); err != nil {
		return err
	}
	if err := t.needWrite("update memory " + m.ID); err != nil {
		return err
	}
	if err := t.lock(ctx, lockProject, m.Project); err != nil {
		return err
	}
	args := append(memoryArgs(m), m.ID)
	n, err := t.exec(ctx, "update memory "+m.ID, `UPDATE memories SET project=$1, scope=$2, type=$3, key=$4, title=$5, content=$6,
	content_hash=$7, tags=$8, file_refs=$9, confidence=$10, source=$11, created_by_agent=$12, created_by_hat=$13,
	created_by_task_id=$14, created_by_session_id=$15, created_at=$16, updated_at=$17, last_used_at=$18,
	verified_at=$19, expires_at=$20, use_count=$21, pinned=$22, superseded_by=$23, partition=$24, docnum=$25, flag=$26
	WHERE id=$27 AND ($4::text IS NULL OR NOT EXISTS (
		SELECT 1 FROM memories o WHERE o.project=$1 AND o.type=$3 AND o.key=$4 AND o.id<>$27))`, args...)
	if err != nil || n > 0 {
		return err
	}
	// Not updated: a missing memory, or a key taken (checked rather than
	// violated, since a violation aborts the transaction).
	var exists bool
	if err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE id=$1)`, m.ID).Scan(&exists); err != nil {
		return translate(err, "update memory "+m.ID)
	}
	if exists {
		return cairn.Errorf(cairn.ECONFLICT, "update memory %s conflicts with a stored memory of the same project, type and key", m.ID)
	}
	return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", m.ID)
}

// DeleteMemory implements cairn.Tx under the lock of the memory's project.
func (t *Tx) DeleteMemory(ctx context.Context, id string) error {
	if err := t.flushMemories(ctx); err != nil {
		return err
	}
	if err := t.needWrite("delete memory " + id); err != nil {
		return err
	}
	if err := t.lockMemories(ctx, id); err != nil {
		return err
	}
	n, err := t.exec(ctx, "delete memory "+id, `DELETE FROM memories WHERE id=$1`, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", id)
	}
	return nil
}

// Partition implements cairn.Tx; in an Update it takes the partition's
// lock first, so a read-modify-write of the statistics loses nothing.
func (t *Tx) Partition(ctx context.Context, name string) (*cairn.PartitionStats, error) {
	if err := t.lockPartition(ctx, name); err != nil {
		return nil, err
	}
	ps := &cairn.PartitionStats{Name: name}
	var analyzer int32
	err := t.tx.QueryRow(ctx, `SELECT docs, total_len, next_doc, dead_docs, dead, analyzer FROM index_partitions WHERE name=$1`, name).
		Scan(&ps.Docs, &ps.TotalLen, &ps.NextDoc, &ps.DeadDocs, &ps.Dead, &analyzer)
	if errors.Is(err, pgx.ErrNoRows) {
		return ps, nil
	}
	ps.Analyzer = int(analyzer)
	return ps, translate(err, "read index statistics")
}

// PartitionCounts implements cairn.Tx; in an Update it takes the
// partition's lock first, as Partition does.
func (t *Tx) PartitionCounts(ctx context.Context, name string) (*cairn.PartitionStats, error) {
	if err := t.lockPartition(ctx, name); err != nil {
		return nil, err
	}
	ps := &cairn.PartitionStats{Name: name}
	var analyzer int32
	err := t.tx.QueryRow(ctx, `SELECT docs, total_len, next_doc, dead_docs, analyzer FROM index_partitions WHERE name=$1`, name).
		Scan(&ps.Docs, &ps.TotalLen, &ps.NextDoc, &ps.DeadDocs, &analyzer)
	if errors.Is(err, pgx.ErrNoRows) {
		return ps, nil
	}
	ps.Analyzer = int(analyzer)
	return ps, translate(err, "read index statistics")
}

// PartitionDocs implements cairn.Tx, in one statement; it takes no
// partition's lock (callers use it to weigh words, not to write).
func (t *Tx) PartitionDocs(ctx context.Context) (map[string]int64, error) {
	rows, err := t.tx.Query(ctx, `SELECT name, docs FROM index_partitions WHERE docs > 0`)
	if err != nil {
		return nil, translate(err, "read index statistics")
	}
	defer rows.Close()
	return storesql.Counts(rows, translate, "read index statistics")
}

// PutPartition implements cairn.Tx under the partition's lock.
func (t *Tx) PutPartition(ctx context.Context, ps *cairn.PartitionStats) error {
	if err := t.needWrite("store index statistics"); err != nil {
		return err
	}
	if err := t.lockPartition(ctx, ps.Name); err != nil {
		return err
	}
	dead := ps.Dead
	if dead == nil {
		dead = []byte{}
	}
	_, err := t.exec(ctx, "store index statistics", `INSERT INTO index_partitions(name, docs, total_len, next_doc, dead_docs, dead, analyzer)
	VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT(name) DO UPDATE SET docs=excluded.docs,
	total_len=excluded.total_len, next_doc=excluded.next_doc, dead_docs=excluded.dead_docs, dead=excluded.dead,
	analyzer=excluded.analyzer`, ps.Name, ps.Docs, ps.TotalLen, ps.NextDoc, ps.DeadDocs, dead, int32(ps.Analyzer))
	return err
}

func termsOf(tps []cairn.TermPostings) (terms []string, dfs []int64, data [][]byte) {
	terms = make([]string, len(tps))
	dfs = make([]int64, len(tps))
	data = make([][]byte, len(tps))
	for i, tp := range tps {
		terms[i], dfs[i], data[i] = tp.Term, tp.DF, tp.Data
		if data[i] == nil {
			data[i] = []byte{}
		}
	}
	return terms, dfs, data
}

// Postings implements cairn.Tx, in one statement; in an Update it takes
// the partition's lock first.
func (t *Tx) Postings(ctx context.Context, partition string, terms []string) ([]cairn.TermPostings, error) {
	if len(terms) == 0 {
		return []cairn.TermPostings{}, nil
	}
	if err := t.lockPartition(ctx, partition); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT term, df, postings FROM index_terms WHERE partition=$1 AND term = ANY($2)`, partition, terms)
	if err != nil {
		return nil, translate(err, "read postings")
	}
	defer rows.Close()
	byTerm := make(map[string]cairn.TermPostings, len(terms))
	for rows.Next() {
		var tp cairn.TermPostings
		if err := rows.Scan(&tp.Term, &tp.DF, &tp.Data); err != nil {
			return nil, translate(err, "read postings")
		}
		byTerm[tp.Term] = tp
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "read postings")
	}
	// In the order asked, as the SQLite backend returns them.
	out := make([]cairn.TermPostings, 0, len(byTerm))
	for _, term := range terms {
		if tp, ok := byTerm[term]; ok {
			out = append(out, tp)
			delete(byTerm, term)
		}
	}
	return out, nil
}

// DocFreqs implements cairn.Tx, in one statement that reads no postings.
func (t *Tx) DocFreqs(ctx context.Context, partition string, terms []string) (map[string]int64, error) {
	if len(terms) == 0 {
		return map[string]int64{}, nil
	}
	if err := t.lockPartition(ctx, partition); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT term, df FROM index_terms WHERE partition=$1 AND term = ANY($2)`, partition, terms)
	if err != nil {
		return nil, translate(err, "read document frequencies")
	}
	defer rows.Close()
	return storesql.Counts(rows, translate, "read document frequencies")
}

// DocFreqSums implements cairn.Tx, in one statement that reads no
// postings and takes no partition's lock (callers use it to weigh words,
// not to write).
func (t *Tx) DocFreqSums(ctx context.Context, partitions, terms []string) (map[string]int64, error) {
	if len(partitions) == 0 || len(terms) == 0 {
		return map[string]int64{}, nil
	}
	rows, err := t.tx.Query(ctx, `SELECT term, SUM(df)::bigint FROM index_terms WHERE partition = ANY($1) AND term = ANY($2) GROUP BY term`, partitions, terms)
	if err != nil {
		return nil, translate(err, "read document frequencies")
	}
	defer rows.Close()
	return storesql.Counts(rows, translate, "read document frequencies")
}

// AppendPostings implements cairn.Tx in one statement, under the
// partition's lock: an upsert, or a COPY of many terms into a partition
// that has none yet.
func (t *Tx) AppendPostings(ctx context.Context, partition string, tps []cairn.TermPostings) error {
	if err := t.needWrite("write postings"); err != nil {
		return err
	}
	if len(tps) == 0 {
		return nil
	}
	if err := t.lockPartition(ctx, partition); err != nil {
		return err
	}
	if len(tps) >= copyThreshold {
		// Many terms (an import's): into a partition without postings
		// yet, COPY them, which costs the server less than an upsert.
		var exists bool
		if err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM index_terms WHERE partition=$1)`, partition).Scan(&exists); err != nil {
			return translate(err, "write postings")
		}
		if !exists {
			_, err := t.tx.CopyFrom(ctx, pgx.Identifier{"index_terms"}, []string{"partition", "term", "df", "postings"},
				pgx.CopyFromSlice(len(tps), func(i int) ([]any, error) {
					d := tps[i].Data
					if d == nil {
						d = []byte{}
					}
					return []any{partition, tps[i].Term, tps[i].DF, d}, nil
				}))
			t.wrote = true
			return translate(err, "write postings")
		}
	}
	terms, dfs, data := termsOf(tps)
	_, err := t.exec(ctx, "write postings", `INSERT INTO index_terms(partition, term, df, postings)
	SELECT $1, u.term, u.df, u.data FROM unnest($2::text[], $3::bigint[], $4::bytea[]) AS u(term, df, data)
	ON CONFLICT(partition, term) DO UPDATE SET df = index_terms.df + excluded.df,
	postings = index_terms.postings || excluded.postings`, partition, terms, dfs, data)
	return err
}

// ReplacePostings implements cairn.Tx under the partition's lock.
func (t *Tx) ReplacePostings(ctx context.Context, partition string, tps []cairn.TermPostings) error {
	if err := t.needWrite("write postings"); err != nil {
		return err
	}
	if len(tps) == 0 {
		return nil
	}
	if err := t.lockPartition(ctx, partition); err != nil {
		return err
	}
	var gone []string
	var keep []cairn.TermPostings
	for _, tp := range tps {
		if len(tp.Data) == 0 {
			gone = append(gone, tp.Term)
		} else {
			keep = append(keep, tp)
		}
	}
	if len(gone) > 0 {
		if _, err := t.exec(ctx, "delete postings", `DELETE FROM index_terms WHERE partition=$1 AND term = ANY($2)`, partition, gone); err != nil {
			return err
		}
	}
	if len(keep) == 0 {
		return nil
	}
	terms, dfs, data := termsOf(keep)
	_, err := t.exec(ctx, "write postings", `INSERT INTO index_terms(partition, term, df, postings)
	SELECT $1, u.term, u.df, u.data FROM unnest($2::text[], $3::bigint[], $4::bytea[]) AS u(term, df, data)
	ON CONFLICT(partition, term) DO UPDATE SET df = excluded.df, postings = excluded.postings`, partition, terms, dfs, data)
	return err
}

// ScanPostings implements cairn.Tx; in an Update it takes the
// partition's lock first.
func (t *Tx) ScanPostings(ctx context.Context, partition, after string, limit int) ([]cairn.TermPostings, error) {
	if err := t.lockPartition(ctx, partition); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT term, df, postings FROM index_terms WHERE partition=$1 AND term>$2 ORDER BY term LIMIT $3`, partition, after, limit)
	if err != nil {
		return nil, translate(err, "scan postings")
	}
	defer rows.Close()
	var out []cairn.TermPostings
	for rows.Next() {
		var tp cairn.TermPostings
		if err := rows.Scan(&tp.Term, &tp.DF, &tp.Data); err != nil {
			return nil, translate(err, "scan postings")
		}
		out = append(out, tp)
	}
	return out, translate(rows.Err(), "scan postings")
}

// FindMemoriesSupersededBy implements cairn.Tx. It takes no lock.
func (t *Tx) FindMemoriesSupersededBy(ctx context.Context, id string) ([]*cairn.Memory, error) {
	if id == "" {
		return nil, nil
	}
	return t.many(ctx, sqlSelectMemory+` WHERE superseded_by=$1 ORDER BY created_at, id`, id)
}

// FindLifecycleStates implements cairn.Tx; in an Update it takes
// project's lock first.
func (t *Tx) FindLifecycleStates(ctx context.Context, project string, page cairn.LifecyclePage) ([]cairn.LifecycleState, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	if err := t.lock(ctx, lockProject, project); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `SELECT id, type, title, confidence, created_at, last_used_at, expires_at,
	decayed_at, use_count, pinned, source FROM memories WHERE project=$1 AND created_at >= $2 AND (created_at, id) > ($2, $3)
	ORDER BY created_at, id LIMIT $4`, project, storesql.LifecycleAfter(page), page.AfterID, lifecycleLimit(page))
	if err != nil {
		return nil, translate(err, "read lifecycle states")
	}
	defer rows.Close()
	var out []cairn.LifecycleState
	for rows.Next() {
		var (
			s                                       cairn.LifecycleState
			created, used, expires, decayedAt, uses int64
		)
		if err := rows.Scan(&s.ID, &s.Type, &s.Title, &s.Confidence, &created, &used, &expires,
			&decayedAt, &uses, &s.Pinned, &s.Source); err != nil {
			return nil, translate(err, "read lifecycle states")
		}
		s.UseCount = int(uses)
		s.CreatedAt, s.LastUsedAt, s.ExpiresAt, s.DecayedAt = storesql.FromMS(created), storesql.FromMS(used), storesql.FromMS(expires), storesql.FromMS(decayedAt)
		out = append(out, s)
	}
	return out, translate(rows.Err(), "read lifecycle states")
}

// lifecycleLimit is a lifecycle page's LIMIT: NULL (all) for none.
func lifecycleLimit(page cairn.LifecyclePage) *int64 {
	if page.Limit <= 0 {
		return nil
	}
	n := int64(page.Limit)
	return &n
}

// TouchMemories implements cairn.Tx in one statement, under the locks of
// the memories' projects (taken in byte order).
func (t *Tx) TouchMemories(ctx context.Context, ids []string, now time.Time, boost, max float64) (map[string]string, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	if err := t.needWrite("record use"); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	uniq := slices.Clone(ids)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	if err := t.lockMemories(ctx, uniq...); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, `UPDATE memories SET use_count = use_count + 1, last_used_at = $1,
	confidence = CASE WHEN confidence >= $2 THEN confidence ELSE least($2, confidence + $3) END
	WHERE id = ANY($4) RETURNING id, project`, storesql.MS(now), max, boost, uniq)
	if err != nil {
		return nil, translate(err, "record use")
	}
	defer rows.Close()
	for rows.Next() {
		var id, project string
		if err := rows.Scan(&id, &project); err != nil {
			return nil, translate(err, "record use")
		}
		out[id] = project
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "record use")
	}
	t.wrote = true
	return out, nil
}

// DecayMemories implements cairn.Tx under the locks of the memories'
// projects.
func (t *Tx) DecayMemories(ctx context.Context, ds []cairn.Decay) error {
	if err := t.flushMemories(ctx); err != nil {
		return err
	}
	if err := t.needWrite("decay memories"); err != nil {
		return err
	}
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	if err := t.lockMemories(ctx, ids...); err != nil {
		return err
	}
	for _, d := range ds {
		n, err := t.exec(ctx, "decay memory "+d.ID, `UPDATE memories SET confidence=$1, decayed_at=$2 WHERE id=$3`, d.Confidence, storesql.MS(d.DecayedAt), d.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", d.ID)
		}
	}
	return nil
}

// AppendActivity implements cairn.Tx. The entries are inserted just
// before the transaction commits (or before it next reads the activity
// log), under the event lock: their ids, the events' sequence numbers,
// then increase in commit order across every process.
func (t *Tx) AppendActivity(ctx context.Context, as []cairn.Activity) error {
	if len(as) == 0 {
		return nil
	}
	if err := t.needWrite("append activity"); err != nil {
		return err
	}
	t.acts = append(t.acts, as...)
	return nil
}

// copyThreshold is how many entries are inserted through COPY rather
// than one INSERT of arrays.
const copyThreshold = 2000

// flushActivity inserts the entries appended so far, in order, holding
// the event lock until commit.
func (t *Tx) flushActivity(ctx context.Context) error {
	if len(t.acts) == 0 {
		return nil
	}
	if err := t.lock(ctx, lockEvents, ""); err != nil {
		return err
	}
	as := t.acts
	t.acts = nil
	t.wrote = true
	if len(as) >= copyThreshold {
		_, err := t.tx.CopyFrom(ctx, pgx.Identifier{"activity"}, []string{"at", "project", "memory_id", "action", "session_id", "detail"},
			pgx.CopyFromSlice(len(as), func(i int) ([]any, error) {
				a := as[i]
				return []any{storesql.MS(a.At), a.Project, a.MemoryID, a.Action, a.SessionID, a.Detail}, nil
			}))
		return translate(err, "append activity")
	}
	at := make([]int64, len(as))
	cols := [5][]string{}
	for i := range cols {
		cols[i] = make([]string, len(as))
	}
	for i, a := range as {
		at[i] = storesql.MS(a.At)
		cols[0][i], cols[1][i], cols[2][i], cols[3][i], cols[4][i] = a.Project, a.MemoryID, a.Action, a.SessionID, a.Detail
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO activity(at, project, memory_id, action, session_id, detail)
	SELECT u.at, u.project, u.memory_id, u.action, u.session_id, u.detail
	FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
	WITH ORDINALITY AS u(at, project, memory_id, action, session_id, detail, n) ORDER BY u.n`,
		at, cols[0], cols[1], cols[2], cols[3], cols[4])
	return translate(err, "append activity")
}

// activityFilterSQL returns the WHERE clause and arguments of f.
func activityFilterSQL(f cairn.ActivityFilter) (string, []any) {
	conds := []string{`true`}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Project != "" {
		conds = append(conds, `project=`+arg(f.Project))
	}
	if f.MemoryID != "" {
		conds = append(conds, `memory_id=`+arg(f.MemoryID))
	}
	if f.SessionID != "" {
		conds = append(conds, `session_id=`+arg(f.SessionID)+` AND session_id <> ''`)
	}
	if len(f.Actions) > 0 {
		conds = append(conds, `action = ANY(`+arg(f.Actions)+`)`)
	}
	if f.AfterID > 0 {
		conds = append(conds, `id > `+arg(f.AfterID))
	}
	if !f.After.IsZero() {
		conds = append(conds, `at >= `+arg(storesql.MS(f.After)))
	}
	if !f.Before.IsZero() {
		conds = append(conds, `at < `+arg(storesql.MS(f.Before)))
	}
	return strings.Join(conds, " AND "), args
}

// FindActivity implements cairn.Tx. In an Update, the entries appended
// so far are inserted first, so the transaction reads its own.
func (t *Tx) FindActivity(ctx context.Context, f cairn.ActivityFilter) ([]cairn.Activity, int, error) {
	if err := t.flushActivity(ctx); err != nil {
		return nil, 0, err
	}
	where, args := activityFilterSQL(f)
	var total int64
	if !f.SkipTotal {
		if err := t.tx.QueryRow(ctx, `SELECT count(*) FROM activity WHERE `+where, args...).Scan(&total); err != nil {
			return nil, 0, translate(err, "count activity")
		}
	}
	q := `SELECT id, at, project, memory_id, action, session_id, detail FROM activity WHERE ` + where + ` ORDER BY at DESC, id DESC`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += ` LIMIT $` + strconv.Itoa(len(args))
	}
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, 0, translate(err, "find activity")
	}
	defer rows.Close()
	var out []cairn.Activity
	for rows.Next() {
		var a cairn.Activity
		var at int64
		if err := rows.Scan(&a.ID, &at, &a.Project, &a.MemoryID, &a.Action, &a.SessionID, &a.Detail); err != nil {
			return nil, 0, translate(err, "read activity")
		}
		a.At = storesql.FromMS(at)
		out = append(out, a)
	}
	return out, int(total), translate(rows.Err(), "read activity")
}

const sqlEventColumns = `SELECT a.id, a.at, a.project, a.memory_id, a.action, a.session_id, a.detail,
	coalesce(m.type, ''), coalesce(m.title, '')
	FROM activity a LEFT JOIN memories m ON m.id = a.memory_id`

// FindEvents implements cairn.Tx. Activity ids are taken from a sequence
// only under the event lock, which the writer holds until it commits, so
// they increase in commit order and are never reused.
func (t *Tx) FindEvents(ctx context.Context, f cairn.EventFilter) ([]cairn.Event, error) {
	if err := t.flushMemories(ctx); err != nil {
		return nil, err
	}
	if err := t.flushActivity(ctx); err != nil {
		return nil, err
	}
	var limit any // NULL: no limit
	if f.Limit > 0 {
		limit = int64(f.Limit)
	}
	var rows pgx.Rows
	var err error
	if f.Project == "" {
		rows, err = t.tx.Query(ctx, sqlEventColumns+` WHERE a.id > $1 ORDER BY a.id LIMIT $2`, f.After, limit)
	} else {
		rows, err = t.tx.Query(ctx, sqlEventColumns+` WHERE a.project = $1 AND a.id > $2 ORDER BY a.id LIMIT $3`, f.Project, f.After, limit)
	}
	if err != nil {
		return nil, translate(err, "find events")
	}
	defer rows.Close()
	var out []cairn.Event
	for rows.Next() {
		var e cairn.Event
		var at int64
		if err := rows.Scan(&e.Seq, &at, &e.Project, &e.MemoryID, &e.Action, &e.SessionID, &e.Detail, &e.Type, &e.Title); err != nil {
			return nil, translate(err, "read events")
		}
		e.At = storesql.FromMS(at)
		out = append(out, e)
	}
	return out, translate(rows.Err(), "read events")
}

// LastEventSeq implements cairn.Tx.
func (t *Tx) LastEventSeq(ctx context.Context) (int64, error) {
	if err := t.flushActivity(ctx); err != nil {
		return 0, err
	}
	var seq int64
	err := t.tx.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM activity`).Scan(&seq)
	return seq, translate(err, "read the last event")
}

// FindIngestOffset implements cairn.Tx; in an Update it takes the
// source's lock first.
func (t *Tx) FindIngestOffset(ctx context.Context, source string) (int64, error) {
	if err := t.lock(ctx, lockIngest, source); err != nil {
		return 0, err
	}
	var off int64
	err := t.tx.QueryRow(ctx, `SELECT "offset" FROM ingest_state WHERE source=$1`, source).Scan(&off)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return off, translate(err, "read ingest offset")
}

// PutIngestOffset implements cairn.Tx under the source's lock.
func (t *Tx) PutIngestOffset(ctx context.Context, source string, offset int64, at time.Time) error {
	if err := t.needWrite("put ingest offset"); err != nil {
		return err
	}
	if err := t.lock(ctx, lockIngest, source); err != nil {
		return err
	}
	_, err := t.exec(ctx, "put ingest offset", `INSERT INTO ingest_state(source, "offset", updated_at) VALUES ($1,$2,$3)
	ON CONFLICT(source) DO UPDATE SET "offset"=excluded."offset", updated_at=excluded.updated_at`, source, offset, storesql.MS(at))
	return err
}

// FindIngestPending implements cairn.Tx; in an Update it takes the
// source's lock first.
func (t *Tx) FindIngestPending(ctx context.Context, source string) (string, error) {
	if err := t.lock(ctx, lockIngest, source); err != nil {
		return "", err
	}
	var p string
	err := t.tx.QueryRow(ctx, `SELECT pending FROM ingest_state WHERE source=$1`, source).Scan(&p)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return p, translate(err, "read ingest pending")
}

// PutIngestState implements cairn.Tx under the source's lock.
func (t *Tx) PutIngestState(ctx context.Context, source string, offset int64, pending string, at time.Time) error {
	if err := t.needWrite("put ingest state"); err != nil {
		return err
	}
	if err := t.lock(ctx, lockIngest, source); err != nil {
		return err
	}
	_, err := t.exec(ctx, "put ingest state", `INSERT INTO ingest_state(source, "offset", pending, updated_at) VALUES ($1,$2,$3,$4)
	ON CONFLICT(source) DO UPDATE SET "offset"=excluded."offset", pending=excluded.pending, updated_at=excluded.updated_at`,
		source, offset, pending, storesql.MS(at))
	return err
}

// CreateToken implements cairn.Tx; the unique id and hash serialise it.
func (t *Tx) CreateToken(ctx context.Context, tok *cairn.Token) error {
	n, err := t.exec(ctx, "create token", `INSERT INTO api_tokens(id, name, project, read_only, hash, created_at) VALUES ($1,$2,$3,$4,$5,$6)
	ON CONFLICT DO NOTHING`, tok.ID, tok.Name, tok.Project, tok.ReadOnly, tok.Hash, storesql.MS(tok.CreatedAt))
	if err == nil && n == 0 {
		return cairn.Errorf(cairn.ECONFLICT, "a token with id %s or the same secret exists", tok.ID)
	}
	return err
}

// FindTokenByHash implements cairn.Tx.
func (t *Tx) FindTokenByHash(ctx context.Context, hash string) (*cairn.Token, error) {
	toks, err := t.findTokens(ctx, `SELECT id, name, project, read_only, hash, created_at FROM api_tokens WHERE hash=$1`, hash)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no such token")
	}
	return toks[0], nil
}

// FindTokens implements cairn.Tx.
func (t *Tx) FindTokens(ctx context.Context) ([]*cairn.Token, error) {
	return t.findTokens(ctx, `SELECT id, name, project, read_only, hash, created_at FROM api_tokens ORDER BY created_at, id`)
}

func (t *Tx) findTokens(ctx context.Context, q string, args ...any) ([]*cairn.Token, error) {
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, translate(err, "find tokens")
	}
	defer rows.Close()
	var out []*cairn.Token
	for rows.Next() {
		var tok cairn.Token
		var created int64
		if err := rows.Scan(&tok.ID, &tok.Name, &tok.Project, &tok.ReadOnly, &tok.Hash, &created); err != nil {
			return nil, translate(err, "read token")
		}
		tok.CreatedAt = storesql.FromMS(created)
		out = append(out, &tok)
	}
	return out, translate(rows.Err(), "read tokens")
}

// DeleteToken implements cairn.Tx.
func (t *Tx) DeleteToken(ctx context.Context, id string) error {
	n, err := t.exec(ctx, "delete token", `DELETE FROM api_tokens WHERE id=$1`, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "no token with id %q", id)
	}
	return nil
}
