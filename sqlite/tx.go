package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

var _ cairn.Tx = (*Tx)(nil)

// Tx is one SQLite transaction. Its statements come from the store's
// cache of prepared statements, so a statement is parsed once per
// connection, not once per use or per transaction.
type Tx struct {
	tx    *sql.Tx
	db    *sql.DB
	store *Store
	write bool
	bulk  bool // see Bulk
	stmts map[string]*sql.Stmt
	// partNums: the partitions' numbers a write has read or given
	// (partitionNum).
	partNums map[string]int64
	// rowsMayChange: the write ran a statement that may change memory
	// rows: any but reads and those that queue uses and append activity
	// entries (leavesRows, Store.RowsVersion).
	rowsMayChange bool
	// indexMayChange: the write ran a statement that may change the
	// search index: any but those rowsMayChange leaves out and those that
	// apply uses to memories (leavesIndex, Store.IndexVersion).
	indexMayChange bool
}

// Bulk prepares this write transaction for a large write (an import):
// until the transaction ends, the writer's page cache may hold
// bulkCacheKiB, so that fewer changed pages are written to the log before
// the commit and written again after. When the transaction ends, the
// writer's cache returns to its usual size and the pages go back to the
// allocator. On a read transaction it does nothing.
func (t *Tx) Bulk(ctx context.Context) error {
	if !t.write || t.bulk {
		return nil
	}
	if _, err := t.tx.ExecContext(ctx, "PRAGMA "+cacheSize(bulkCacheKiB)); err != nil {
		return translate(err, "enlarge the page cache")
	}
	t.bulk = true
	return nil
}

// endBulk returns the writer's page cache to its usual size once a
// transaction that called Bulk has ended, on the writer's one connection,
// free again. A failure leaves a larger cache, not a wrong answer.
func (t *Tx) endBulk(ctx context.Context) {
	if t.bulk {
		t.store.runMu.Lock()
		defer t.store.runMu.Unlock()
		t.store.writer.ExecContext(context.WithoutCancel(ctx), "PRAGMA "+cacheSize(t.store.writerKiB()))
	}
}

func (t *Tx) close() {
	for _, s := range t.stmts {
		s.Close()
	}
}

func (t *Tx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if t.write && !t.rowsMayChange && !leavesRows(q) {
		t.rowsMayChange = true
	}
	if t.write && !t.indexMayChange && !leavesIndex(q) {
		t.indexMayChange = true
	}
	if s, ok := t.stmts[q]; ok {
		return s, nil
	}
	var s *sql.Stmt
	if t.db == t.store.writer {
		// The writer has one connection, held by this transaction: a
		// statement can only be prepared on the transaction itself.
		var err error
		if s, err = t.tx.PrepareContext(ctx, q); err != nil {
			return nil, translate(err, "prepare")
		}
	} else {
		ps, err := t.store.prepared(ctx, t.db, q)
		if err != nil {
			return nil, err
		}
		s = t.tx.StmtContext(ctx, ps)
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[q] = s
	return s, nil
}

func (t *Tx) exec(ctx context.Context, op, q string, args ...any) (sql.Result, error) {
	if !t.write {
		return nil, cairn.Errorf(cairn.EINVALID, "%s needs a write transaction", op)
	}
	s, err := t.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	r, err := s.ExecContext(ctx, args...)
	return r, translate(err, op)
}

func (t *Tx) query(ctx context.Context, op, q string, args ...any) (*sql.Rows, error) {
	s, err := t.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := s.QueryContext(ctx, args...)
	return rows, translate(err, op)
}

// leavesRows reports whether the statement q leaves memory rows as they
// are: a SELECT, or a write of queued uses or activity entries
// (Store.RowsVersion). Every statement of a transaction is prepared
// through Tx.stmt, which asks.
func leavesRows(q string) bool {
	switch q {
	case sqlQueueUses, sqlInsertActivity, sqlInsertActivityBatch:
		return true
	}
	q = strings.TrimLeft(q, " \t\n")
	return len(q) >= 6 && strings.EqualFold(q[:6], "SELECT")
}

// leavesIndex reports whether the statement q leaves the search index as
// it is: one that leaves memory rows as they are (leavesRows), or one
// that applies uses to memories (their use count, last use and
// confidence, which the index does not hold) or empties the use queue
// (Store.IndexVersion).
func leavesIndex(q string) bool {
	switch q {
	case sqlTouchMemory, sqlTouchMemoryBoosted, sqlFoldMemory, sqlFoldMemoryBoosted, sqlEmptyUseQueue:
		return true
	}
	return leavesRows(q)
}

func nullKey(k string) any {
	if k == "" {
		return nil
	}
	return k
}

func memoryArgs(m *cairn.Memory) []any {
	return []any{m.Project, string(m.Scope), m.Type, nullKey(m.Key), m.Title, m.Content,
		m.ContentHash, storesql.JoinList(m.Tags), storesql.JoinList(m.FileRefs), m.Confidence, string(m.Source),
		m.Agent, m.Hat, m.TaskID, m.SessionID, storesql.MS(m.CreatedAt), storesql.MS(m.UpdatedAt), storesql.MS(m.LastUsedAt),
		storesql.MS(m.VerifiedAt), storesql.MS(m.ExpiresAt), m.UseCount, m.Pinned, m.SupersededBy, m.Partition, m.DocNum, m.Flag}
}

type scanner interface{ Scan(dest ...any) error }

func scanMemory(r scanner) (*cairn.Memory, error) {
	var (
		m                                         cairn.Memory
		key                                       sql.NullString
		scope, source, tags, refs                 string
		created, updated, used, verified, expires int64
	)
	err := r.Scan(&m.ID, &m.Project, &scope, &m.Type, &key, &m.Title, &m.Content, &m.ContentHash,
		&tags, &refs, &m.Confidence, &source, &m.Agent, &m.Hat, &m.TaskID, &m.SessionID,
		&created, &updated, &used, &verified, &expires, &m.UseCount, &m.Pinned, &m.SupersededBy,
		&m.Partition, &m.DocNum, &m.Flag)
	if err != nil {
		return nil, err
	}
	m.Key = key.String
	m.Scope = cairn.Scope(scope)
	m.Source = cairn.Source(source)
	m.Tags = storesql.SplitList(tags)
	m.FileRefs = storesql.SplitList(refs)
	m.CreatedAt, m.UpdatedAt, m.LastUsedAt = storesql.FromMS(created), storesql.FromMS(updated), storesql.FromMS(used)
	m.VerifiedAt, m.ExpiresAt = storesql.FromMS(verified), storesql.FromMS(expires)
	return &m, nil
}

func (t *Tx) one(ctx context.Context, op, q string, args ...any) (*cairn.Memory, error) {
	s, err := t.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	m, err := scanMemory(s.QueryRowContext(ctx, args...))
	if err == sql.ErrNoRows {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no memory %s", op)
	}
	return m, translate(err, "find memory")
}

func (t *Tx) many(ctx context.Context, q string, args ...any) ([]*cairn.Memory, error) {
	rows, err := t.query(ctx, "find memories", q, args...)
	if err != nil {
		return nil, err
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

// FindMemoryByID implements cairn.Tx.
func (t *Tx) FindMemoryByID(ctx context.Context, id string) (*cairn.Memory, error) {
	return t.one(ctx, "with id "+id, sqlByID, id)
}

// FindMemoryIDsByPrefix implements cairn.Tx.
func (t *Tx) FindMemoryIDsByPrefix(ctx context.Context, project, prefix string, limit int) ([]string, error) {
	rows, err := t.query(ctx, "find ids", sqlIDPrefix, prefix, prefix+"\U0010FFFF", project, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return storesql.Column[string](rows, translate, "find ids")
}

// FindMemoryByKey implements cairn.Tx.
func (t *Tx) FindMemoryByKey(ctx context.Context, project, typ, key string) (*cairn.Memory, error) {
	return t.one(ctx, "with key "+key, sqlByKey, project, typ, key)
}

// FindMemoriesByHash implements cairn.Tx.
func (t *Tx) FindMemoriesByHash(ctx context.Context, project, hash string) ([]*cairn.Memory, error) {
	ms, err := t.many(ctx, sqlByHash, project, hash)
	// Sorted here: ORDER BY would tempt the planner into the
	// (project, created_at) index and a scan of the whole project.
	sort.Slice(ms, func(i, j int) bool {
		if !ms[i].CreatedAt.Equal(ms[j].CreatedAt) {
			return ms[i].CreatedAt.Before(ms[j].CreatedAt)
		}
		return ms[i].ID < ms[j].ID
	})
	return ms, err
}

// ExpiredDocs implements cairn.Tx: from document 0, by the partition's
// expiry index alone (idx_memories_partition_expires); from a later
// document, by idx_memories_doc, which reads the rows of the documents
// from there on only.
func (t *Tx) ExpiredDocs(ctx context.Context, partition string, from int64, before time.Time) ([]int64, error) {
	q, args := sqlExpiredDocs, []any{partition, storesql.MS(before), from}
	if from > 0 {
		q, args = sqlExpiredDocsFrom, []any{partition, from, storesql.MS(before)}
	}
	rows, err := t.query(ctx, "read expired documents", q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return storesql.Column[int64](rows, translate, "read expired documents")
}

// FindMemoriesByDoc implements cairn.Tx. A memory's rowid is its
// partition's number and its document number (docRowID), so the rows
// are read by rowid; a number whose row is not there is looked up in
// idx_memories_doc (byDocIndex), so that a row whose rowid is another
// (a document number out of docRowID's range, a table whose rows were
// renumbered by a VACUUM) is still found. Each statement's list of
// numbers is padded to one of a few sizes (repeating the last number),
// so that it is prepared once and reused. The rows are read as two
// columns (sqlSelectPacked); the strings of a memory share one
// allocation.
func (t *Tx) FindMemoriesByDoc(ctx context.Context, partition string, docs []int64) ([]*cairn.Memory, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	num, ok, err := t.partitionNum(ctx, partition, false)
	if err != nil {
		return nil, err
	}
	if !ok {
		return t.byDocIndex(ctx, nil, partition, docs)
	}
	base, _ := docRowID(num, 0)
	var (
		out            []*cairn.Memory
		args           []any
		missing, batch []int64
	)
	for len(docs) > 0 {
		n := min(len(docs), docBatchSizes[len(docBatchSizes)-1])
		batch = batch[:0]
		for _, d := range docs[:n] {
			if _, ok := docRowID(num, d); ok {
				batch = append(batch, d)
			} else {
				missing = append(missing, d)
			}
		}
		docs = docs[n:]
		if len(batch) == 0 {
			continue
		}
		size := batchSize(len(batch))
		args = slices.Grow(args[:0], size+1) // the documents and the partition
		for i := 0; i < size; i++ {
			args = append(args, base+batch[min(i, len(batch)-1)])
		}
		args = append(args, partition)
		start := len(out)
		out, err = t.manyPacked(ctx, out, partition, base, sqlSelectPacked+` NOT INDEXED WHERE rowid IN (`+placeholders(size)+`) AND partition=?`, args...)
		if err != nil {
			return nil, err
		}
		if len(out)-start < len(batch) {
			found := make(map[int64]bool, len(out)-start)
			for _, m := range out[start:] {
				found[m.DocNum] = true
			}
			for _, d := range batch {
				if !found[d] {
					found[d] = true // once, if asked twice
					missing = append(missing, d)
				}
			}
		}
	}
	if len(missing) > 0 {
		return t.byDocIndex(ctx, out, partition, missing)
	}
	return out, nil
}

// byDocIndex appends to out the memories of partition with the given
// document numbers, read through idx_memories_doc.
func (t *Tx) byDocIndex(ctx context.Context, out []*cairn.Memory, partition string, docs []int64) ([]*cairn.Memory, error) {
	var args []any
	for len(docs) > 0 {
		n := min(len(docs), docBatchSizes[len(docBatchSizes)-1])
		size := batchSize(n)
		args = append(args[:0], partition)
		for i := 0; i < size; i++ {
			args = append(args, docs[min(i, n-1)])
		}
		var err error
		out, err = t.manyPacked(ctx, out, partition, -1, sqlSelectPacked+` WHERE partition=? AND docnum IN (`+placeholders(size)+`)`, args...)
		if err != nil {
			return nil, err
		}
		docs = docs[n:]
	}
	return out, nil
}

// batchSize is the smallest of docBatchSizes that holds n numbers.
func batchSize(n int) int {
	for _, sz := range docBatchSizes {
		if sz >= n {
			return sz
		}
	}
	return docBatchSizes[len(docBatchSizes)-1]
}

// Rowids by document: a memory of the partition numbered num (in
// memory_partitions, from 1) with document number doc is at rowid
// num<<docRowBits | doc, when num < 1<<(63-docRowBits) and doc is in
// [0, 1<<docRowBits). Another memory has a negative rowid (newRowID).
const docRowBits = 40

// docRowID returns the rowid of document doc of the partition numbered
// num, and whether the pair has one.
func docRowID(num, doc int64) (int64, bool) {
	if num < 1 || num >= 1<<(63-docRowBits) || doc < 0 || doc >= 1<<docRowBits {
		return 0, false
	}
	return num<<docRowBits | doc, true
}

// partitionNum returns the number of partition in memory_partitions,
// and whether it has one; with create, a write transaction gives it the
// next number when it has none. A read keeps the numbers it reads in
// the store (they never change once committed); a write reads them in
// its own transaction.
func (t *Tx) partitionNum(ctx context.Context, partition string, create bool) (int64, bool, error) {
	if !t.store.rowsByDoc {
		return 0, false, nil
	}
	if !t.write {
		t.store.numMu.RLock()
		num, ok := t.store.partNums[partition]
		t.store.numMu.RUnlock()
		if ok {
			return num, true, nil
		}
	} else if num, ok := t.partNums[partition]; ok {
		return num, true, nil
	}
	s, err := t.stmt(ctx, sqlPartitionNum)
	if err != nil {
		return 0, false, err
	}
	var num int64
	switch err := s.QueryRowContext(ctx, partition).Scan(&num); {
	case err == sql.ErrNoRows:
		if !create || !t.write {
			return 0, false, nil
		}
		r, err := t.exec(ctx, "number a partition", sqlNewPartitionNum, partition)
		if err != nil {
			return 0, false, err
		}
		if num, err = r.LastInsertId(); err != nil {
			return 0, false, translate(err, "number a partition")
		}
	case err != nil:
		return 0, false, translate(err, "read a partition's number")
	case !t.write:
		t.store.numMu.Lock()
		if t.store.partNums == nil {
			t.store.partNums = map[string]int64{}
		}
		t.store.partNums[partition] = num
		t.store.numMu.Unlock()
	}
	if t.write {
		if t.partNums == nil {
			t.partNums = map[string]int64{}
		}
		t.partNums[partition] = num
	}
	return num, true, nil
}

// newRowID returns the rowid of a memory of partition with document
// number doc: docRowID's when the pair has one, else one below the
// table's smallest rowid and below 0 (no docRowID is negative). placed
// reports which.
func (t *Tx) newRowID(ctx context.Context, partition string, doc int64) (rowid int64, placed bool, err error) {
	num, ok, err := t.partitionNum(ctx, partition, true)
	if err != nil || !ok {
		return 0, false, err // !ok: a schema older than 20, UpdateMemory only
	}
	if rowid, ok := docRowID(num, doc); ok {
		return rowid, true, nil
	}
	rowid, err = t.belowRowIDs(ctx)
	return rowid, false, err
}

// belowRowIDs returns a rowid below the table's smallest and below 0.
func (t *Tx) belowRowIDs(ctx context.Context) (int64, error) {
	s, err := t.stmt(ctx, sqlBelowRowIDs)
	if err != nil {
		return 0, err
	}
	var rowid int64
	if err := s.QueryRowContext(ctx).Scan(&rowid); err != nil {
		return 0, translate(err, "find a free rowid")
	}
	return rowid, nil
}

// manyPacked appends to out the memories that q, a query on
// sqlSelectPacked that selects rows of partition only, selects, in its
// order. A row unpackMemory cannot read is read again by its rowid
// through scanMemory, after the query. With base >= 0, a row is kept
// only if its rowid is base plus its document number.
func (t *Tx) manyPacked(ctx context.Context, out []*cairn.Memory, partition string, base int64, q string, args ...any) ([]*cairn.Memory, error) {
	rows, err := t.query(ctx, "find memories", q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type reread struct {
		i     int
		rowid int64
	}
	var again []reread
	var (
		conf float64
		row  string
	)
	for rows.Next() {
		if err := rows.Scan(&conf, &row); err != nil {
			return nil, translate(err, "read memory")
		}
		m, rowid, err := unpackMemory(partition, conf, row)
		if err != nil {
			return nil, err
		}
		if m == nil {
			again = append(again, reread{len(out), rowid})
		} else if base >= 0 && rowid != base+m.DocNum {
			continue
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "read memories")
	}
	rows.Close()
	dropped := false
	for _, r := range again {
		if out[r.i], err = t.one(ctx, "at row "+strconv.FormatInt(r.rowid, 10), sqlByRowID, r.rowid); err != nil {
			return nil, err
		}
		if base >= 0 && r.rowid != base+out[r.i].DocNum {
			out[r.i], dropped = nil, true
		}
	}
	if dropped {
		out = slices.DeleteFunc(out, func(m *cairn.Memory) bool { return m == nil })
	}
	return out, nil
}

// The fields of a row of sqlSelectPacked after the confidence: first
// packedInts integers, then packedTexts texts.
const (
	packedInts   = 9  // rowid, docnum, created_at … use_count, pinned
	packedTexts  = 17 // id … flag, content
	packedFields = packedInts + packedTexts
)

// unpackMemory reads a memory of partition from its confidence and the
// text of a row of sqlSelectPacked, and returns its rowid. It returns a
// nil memory, and no error, for a row it cannot read exactly as
// scanMemory would: a text that holds a NUL byte (cairn's own writes
// store none), or a column that does not hold the type scanMemory reads
// (an integer column that holds a real or text, a pinned flag other than
// 0 or 1); the caller reads such a row by its rowid with scanMemory, which
// fails as it would have.
func unpackMemory(partition string, conf float64, row string) (*cairn.Memory, int64, error) {
	var f [packedFields]string
	rest, seps := row, 0
	for ; seps < packedFields-1; seps++ {
		j := strings.IndexByte(rest, 0)
		if j < 0 {
			break
		}
		f[seps], rest = rest[:j], rest[j+1:]
	}
	f[seps] = rest
	rowid, ok := atoi(f[0])
	if !ok {
		return nil, 0, cairn.Errorf(cairn.EINTERNAL, "read memory: a row's rowid %q is not a number", f[0])
	}
	// Exactly packedFields-1 NUL bytes, the separators: no text holds one.
	if seps < packedFields-1 || strings.IndexByte(rest, 0) >= 0 {
		return nil, rowid, nil
	}
	var n [packedInts]int64
	for i := range n {
		if n[i], ok = atoi(f[i]); !ok {
			return nil, rowid, nil
		}
	}
	if n[8] != 0 && n[8] != 1 {
		return nil, rowid, nil
	}
	s := f[packedInts:]
	m := &cairn.Memory{
		ID: s[0], Project: s[1], Scope: cairn.Scope(s[2]), Type: s[3], Key: s[4], Title: s[5], Content: s[16],
		ContentHash: s[6], Tags: storesql.SplitList(s[7]), FileRefs: storesql.SplitList(s[8]), Confidence: conf,
		Source: cairn.Source(s[9]), Agent: s[10], Hat: s[11], TaskID: s[12], SessionID: s[13],
		CreatedAt: storesql.FromMS(n[2]), UpdatedAt: storesql.FromMS(n[3]), LastUsedAt: storesql.FromMS(n[4]),
		VerifiedAt: storesql.FromMS(n[5]), ExpiresAt: storesql.FromMS(n[6]), UseCount: int(n[7]), Pinned: n[8] == 1,
		SupersededBy: s[14], Flag: s[15], Partition: partition, DocNum: n[1],
	}
	return m, rowid, nil
}

// atoi reads s as SQLite writes an integer as text: an optional minus
// sign and decimal digits, within int64; ok is false for anything else.
// strconv.ParseInt, which reads the same numbers, took more than half of
// unpackMemory's time.
func atoi(s string) (n int64, ok bool) {
	neg := s != "" && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 19 { // 19 digits fit in a uint64
		return 0, false
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		u = u*10 + uint64(d)
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= 1<<63:
		return -int64(u), true // -(1<<63) wraps to itself, math.MinInt64
	}
	return 0, false
}

var docBatchSizes = [...]int{1, 4, 16, 32, 64, 128, 256, 500}

// FindMemories implements cairn.Tx.
func (t *Tx) FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	if f.IncludeGlobal && !f.GlobalScope && len(f.IDs) == 0 && f.Limit > 0 {
		return t.findWithGlobal(ctx, f)
	}
	where, args := filterSQL(f)
	var total int
	if !f.SkipTotal {
		if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE `+where, args...).Scan(&total); err != nil {
			return nil, 0, translate(err, "count memories")
		}
	}
	q := sqlSelectMemory + indexHint(f) + ` WHERE ` + where + ` ORDER BY ` + orderSQL(f.Sort)
	if f.Limit > 0 {
		q += ` LIMIT ?+0 OFFSET ?`
		args = append(args, f.Limit, f.Offset)
	} else if f.Offset > 0 {
		q += ` LIMIT -1 OFFSET ?`
		args = append(args, f.Offset)
	}
	// Through the statement cache: a filter's SQL depends only on which
	// fields are set, so context injection's queries are prepared once.
	out, err := t.many(ctx, q, args...)
	return out, total, err
}

// findWithGlobal is FindMemories for a page of a project's memories with
// the global-scope memories of other projects: as two queries that each
// read their own index in order and stop at the page's end (the
// project's, and the other projects' global ones), merged, instead of one
// on "project = ? OR scope = 'global'", which no index orders: SQLite
// read and sorted the whole project for every page (0.2-0.4 s at
// 100,000 memories).
func (t *Tx) findWithGlobal(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	own := f
	own.IncludeGlobal = false
	ownWhere, ownArgs := filterSQL(own)
	others := f
	others.IncludeGlobal, others.GlobalScope = false, true
	othersWhere, othersArgs := filterSQL(others)
	othersWhere += ` AND project<>?`
	othersArgs = append(othersArgs, f.Project)
	var total int
	if !f.SkipTotal {
		for _, part := range []struct {
			where string
			args  []any
		}{{ownWhere, ownArgs}, {othersWhere, othersArgs}} {
			var n int
			if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE `+part.where, part.args...).Scan(&n); err != nil {
				return nil, 0, translate(err, "count memories")
			}
			total += n
		}
	}
	order, end := orderSQL(f.Sort), f.Limit+f.Offset
	q := `SELECT * FROM (SELECT * FROM (` + sqlSelectMemory + indexHint(own) + ` WHERE ` + ownWhere + ` ORDER BY ` + order + ` LIMIT ?+0)` +
		` UNION ALL SELECT * FROM (` + sqlSelectMemory + indexHint(others) + ` WHERE ` + othersWhere + ` ORDER BY ` + order + ` LIMIT ?+0))` +
		` ORDER BY ` + order + ` LIMIT ?+0 OFFSET ?`
	args := append(append(append(ownArgs, end), othersArgs...), end, f.Limit, f.Offset)
	out, err := t.many(ctx, q, args...)
	return out, total, err
}

func filterSQL(f cairn.MemoryFilter) (string, []any) {
	var conds []string
	var args []any
	switch {
	case f.GlobalScope:
		conds = append(conds, `scope='global'`)
	case f.IncludeGlobal:
		conds = append(conds, `(project=? OR scope='global')`)
		args = append(args, f.Project)
	case len(f.IDs) > 0:
		// "+": the ids' primary key finds the rows; without statistics
		// the planner would walk the project's index in date order.
		conds = append(conds, `+project=?`)
		args = append(args, f.Project)
	default:
		conds = append(conds, `project=?`)
		args = append(args, f.Project)
	}
	if f.Pinned {
		conds = append(conds, `pinned=1`)
	}
	if f.HasFileRefs {
		conds = append(conds, `file_refs <> ''`)
	}
	if len(f.IDs) > 0 {
		conds = append(conds, `id IN (`+placeholders(len(f.IDs))+`)`)
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	if len(f.Types) > 0 {
		conds = append(conds, `type IN (`+placeholders(len(f.Types))+`)`)
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	for _, tag := range f.Tags {
		conds = append(conds, `instr(char(10)||tags||char(10), ?) > 0`)
		args = append(args, "\n"+tag+"\n")
	}
	if f.MinConfidence > 0 {
		conds = append(conds, `confidence >= ?`)
		args = append(args, f.MinConfidence)
	}
	if !f.After.IsZero() {
		conds = append(conds, `created_at >= ?`)
		args = append(args, storesql.MS(f.After))
	}
	if !f.Before.IsZero() {
		conds = append(conds, `created_at < ?`)
		args = append(args, storesql.MS(f.Before))
	}
	if f.Session != "" {
		conds = append(conds, `created_by_session_id = ?`)
		args = append(args, f.Session)
	}
	if f.Agent != "" {
		conds = append(conds, `created_by_agent = ?`)
		args = append(args, f.Agent)
	}
	if f.Task != "" {
		conds = append(conds, `created_by_task_id = ?`)
		args = append(args, f.Task)
	}
	if f.Hat != "" {
		conds = append(conds, `created_by_hat = ?`)
		args = append(args, f.Hat)
	}
	if f.Source != "" {
		conds = append(conds, `source = ?`)
		args = append(args, string(f.Source))
	}
	if f.NeverUsed {
		conds = append(conds, `use_count = 0`)
	}
	if !f.ExpiresAfter.IsZero() {
		conds = append(conds, `expires_at >= ?`)
		args = append(args, max(storesql.MS(f.ExpiresAfter), 1))
	}
	if !f.ExpiresBefore.IsZero() {
		conds = append(conds, `expires_at <> 0 AND expires_at < ?`)
		args = append(args, storesql.MS(f.ExpiresBefore))
	}
	return strings.Join(conds, " AND "), args
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// indexHint names the index for the filters that context injection runs
// on every prompt. Without statistics SQLite's planner would rather walk a
// project's rows in date order and filter them, which for a rare type or
// the few pinned memories means reading the whole project.
func indexHint(f cairn.MemoryFilter) string {
	created := f.Sort == "" || f.Sort == cairn.SortCreatedDesc || f.Sort == cairn.SortCreatedAsc
	switch {
	case f.GlobalScope && !f.Pinned:
		return ` INDEXED BY idx_memories_scope`
	case f.Pinned && !f.GlobalScope && !f.IncludeGlobal:
		return ` INDEXED BY idx_memories_pinned`
	case len(f.Types) == 1 && created && !f.IncludeGlobal && !f.GlobalScope:
		return ` INDEXED BY idx_memories_project_type`
	}
	return ""
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

// ScanMemoryKeys implements cairn.Tx.
func (t *Tx) ScanMemoryKeys(ctx context.Context, fn func(id, project, hash string)) error {
	rows, err := t.query(ctx, "scan memories", sqlMemoryKeys)
	if err != nil {
		return err
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

// CountByType implements cairn.Tx.
func (t *Tx) CountByType(ctx context.Context, project string) (map[string]int, error) {
	rows, err := t.query(ctx, "count memories", sqlCountByType, project)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var typ string
		var n int
		if err := rows.Scan(&typ, &n); err != nil {
			return nil, translate(err, "count memories")
		}
		out[typ] = n
	}
	return out, translate(rows.Err(), "count memories")
}

// CountCreated implements cairn.Tx.
func (t *Tx) CountCreated(ctx context.Context, project string, from time.Time, step time.Duration) ([]cairn.CreatedCount, error) {
	if step <= 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "count created: the period must be positive, not %v", step)
	}
	start, width := storesql.MS(from), step.Milliseconds()
	rows, err := t.query(ctx, "count created memories", sqlCountCreated, width, start, project, start)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cairn.CreatedCount
	for rows.Next() {
		var c cairn.CreatedCount
		if err := rows.Scan(&c.Type, &c.Period, &c.Count); err != nil {
			return nil, translate(err, "count created memories")
		}
		out = append(out, c)
	}
	return out, translate(rows.Err(), "count created memories")
}

// FindProjects implements cairn.Tx.
func (t *Tx) FindProjects(ctx context.Context) ([]cairn.ProjectSummary, error) {
	rows, err := t.query(ctx, "list projects", sqlProjects)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cairn.ProjectSummary
	for rows.Next() {
		var p cairn.ProjectSummary
		var last int64
		if err := rows.Scan(&p.Name, &p.Memories, &last); err != nil {
			return nil, translate(err, "list projects")
		}
		p.LastActivity = storesql.FromMS(last)
		out = append(out, p)
	}
	return out, translate(rows.Err(), "list projects")
}

// CreateMemory implements cairn.Tx.
// The row's rowid is its place in the search index (docRowID), unless a
// row written otherwise holds that rowid (rowidTaken).
func (t *Tx) CreateMemory(ctx context.Context, m *cairn.Memory) error {
	var rowid any // SQLite's choice, in a schema older than 20 (tests)
	placed := false
	if t.store.rowsByDoc {
		var err error
		if rowid, placed, err = t.newRowID(ctx, m.Partition, m.DocNum); err != nil {
			return err
		}
	}
	args := append([]any{rowid, m.ID}, memoryArgs(m)...)
	_, err := t.exec(ctx, "store memory "+m.ID, sqlInsertMemory, args...)
	if placed && cairn.ErrorCode(err) == cairn.ECONFLICT {
		if taken, terr := t.rowidTaken(ctx, rowid.(int64)); terr != nil || !taken {
			return err
		}
		var below int64
		if below, err = t.belowRowIDs(ctx); err != nil {
			return err
		}
		args[0] = below
		_, err = t.exec(ctx, "store memory "+m.ID, sqlInsertMemory, args...)
	}
	return err
}

// rowidTaken reports whether a row of memories has rowid: one that a
// write other than cairn's own placed (a copy of a database by package
// transfer writes rows without their rowids, and SQLite gives the next
// after the largest).
func (t *Tx) rowidTaken(ctx context.Context, rowid int64) (bool, error) {
	s, err := t.stmt(ctx, sqlRowIDTaken)
	if err != nil {
		return false, err
	}
	var n int
	if err := s.QueryRowContext(ctx, rowid).Scan(&n); err != nil {
		return false, translate(err, "read a rowid")
	}
	return n > 0, nil
}

// UpdateMemory implements cairn.Tx.
// A memory whose place in the search index changed moves to the rowid
// of its new place (docRowID); one outside it, or whose new place
// another row holds (rowidTaken), keeps its rowid.
func (t *Tx) UpdateMemory(ctx context.Context, m *cairn.Memory) error {
	args := append(memoryArgs(m), m.ID)
	rowid, placed, err := t.newRowID(ctx, m.Partition, m.DocNum)
	if err != nil {
		return err
	}
	if placed {
		// Where it is already, most updates: found by its rowid.
		r, err := t.exec(ctx, "update memory "+m.ID, sqlUpdateMemoryAt, append(args, rowid)...)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n == 1 {
			return nil
		}
		r, err = t.exec(ctx, "update memory "+m.ID, sqlMoveMemory, append([]any{rowid}, args...)...)
		if err == nil {
			if n, _ := r.RowsAffected(); n == 0 {
				return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", m.ID)
			}
			return nil
		}
		if cairn.ErrorCode(err) != cairn.ECONFLICT {
			return err
		}
		if taken, terr := t.rowidTaken(ctx, rowid); terr != nil || !taken {
			return err
		}
		// Its place is held by another row: it stays where it is.
	}
	r, err := t.exec(ctx, "update memory "+m.ID, sqlUpdateMemory, args...)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", m.ID)
	}
	return nil
}

// DeleteMemory implements cairn.Tx.
func (t *Tx) DeleteMemory(ctx context.Context, id string) error {
	r, err := t.exec(ctx, "delete memory "+id, sqlDeleteMemory, id)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", id)
	}
	return nil
}

// Partition implements cairn.Tx.
func (t *Tx) Partition(ctx context.Context, name string) (*cairn.PartitionStats, error) {
	s, err := t.stmt(ctx, sqlPartition)
	if err != nil {
		return nil, err
	}
	ps := &cairn.PartitionStats{Name: name}
	err = s.QueryRowContext(ctx, name).Scan(&ps.Docs, &ps.TotalLen, &ps.NextDoc, &ps.DeadDocs, &ps.Dead, &ps.Analyzer)
	if err == sql.ErrNoRows {
		return ps, nil
	}
	return ps, translate(err, "read index statistics")
}

// PartitionCounts implements cairn.Tx.
func (t *Tx) PartitionCounts(ctx context.Context, name string) (*cairn.PartitionStats, error) {
	s, err := t.stmt(ctx, sqlPartitionCounts)
	if err != nil {
		return nil, err
	}
	ps := &cairn.PartitionStats{Name: name}
	err = s.QueryRowContext(ctx, name).Scan(&ps.Docs, &ps.TotalLen, &ps.NextDoc, &ps.DeadDocs, &ps.Analyzer)
	if err == sql.ErrNoRows {
		return ps, nil
	}
	return ps, translate(err, "read index statistics")
}

// PartitionDocs implements cairn.Tx.
func (t *Tx) PartitionDocs(ctx context.Context) (map[string]int64, error) {
	s, err := t.stmt(ctx, sqlPartitionDocs)
	if err != nil {
		return nil, err
	}
	rows, err := s.QueryContext(ctx)
	if err != nil {
		return nil, translate(err, "read index statistics")
	}
	defer rows.Close()
	return storesql.Counts(rows, translate, "read index statistics")
}

// PutPartition implements cairn.Tx.
func (t *Tx) PutPartition(ctx context.Context, ps *cairn.PartitionStats) error {
	dead := ps.Dead
	if dead == nil {
		dead = []byte{}
	}
	_, err := t.exec(ctx, "store index statistics", sqlPutPartition, ps.Name, ps.Docs, ps.TotalLen, ps.NextDoc, ps.DeadDocs, dead, ps.Analyzer)
	return err
}

// Postings implements cairn.Tx. A term's postings are the driver's own
// copy of the blob (postingsRow).
func (t *Tx) Postings(ctx context.Context, partition string, terms []string) ([]cairn.TermPostings, error) {
	s, err := t.stmt(ctx, sqlPostingsOne)
	if err != nil {
		return nil, err
	}
	out := make([]cairn.TermPostings, 0, len(terms))
	for _, term := range terms {
		rows, err := s.QueryContext(ctx, partition, term)
		if err != nil {
			return nil, translate(err, "read postings")
		}
		var tp cairn.TermPostings
		found := rows.Next()
		if found {
			err = postingsRow(rows, &tp)
		}
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			return nil, translate(err, "read postings")
		}
		if found {
			out = append(out, tp)
		}
	}
	return out, nil
}

// postingsRow scans a row of term, df and postings into tp, keeping the
// postings as the driver read them. modernc.org/sqlite copies a blob out
// of SQLite into a slice of its own for every row (conn.columnBlob), and
// database/sql copies that again into a []byte destination; a RawBytes
// destination is given the driver's slice, which no later row reuses, so
// it is kept instead of copied (TestPostingsOwnTheirBytes checks that the
// driver still hands each row a slice of its own). At 1,000,000 memories
// the second copy was a tenth of the bytes the failure hook's block
// allocated: the postings of the terms the cache does not hold.
func postingsRow(rows *sql.Rows, tp *cairn.TermPostings) error {
	var data sql.RawBytes
	if err := rows.Scan(&tp.Term, &tp.DF, &data); err != nil {
		return err
	}
	tp.Data = []byte(data)
	return nil
}

// DocFreqs implements cairn.Tx. It reads only the df column, which SQLite
// keeps in the row's first page, so the postings' overflow pages are not
// touched.
func (t *Tx) DocFreqs(ctx context.Context, partition string, terms []string) (map[string]int64, error) {
	s, err := t.stmt(ctx, sqlDocFreqOne)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(terms))
	for _, term := range terms {
		var df int64
		err := s.QueryRowContext(ctx, partition, term).Scan(&df)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, translate(err, "read document frequencies")
		}
		out[term] = df
	}
	return out, nil
}

// DocFreqSums implements cairn.Tx, in one statement: a lookup of each
// partition and term in the index_terms key, reading the df column only.
func (t *Tx) DocFreqSums(ctx context.Context, partitions, terms []string) (map[string]int64, error) {
	if len(partitions) == 0 || len(terms) == 0 {
		return map[string]int64{}, nil
	}
	ps, err := json.Marshal(partitions)
	if err != nil {
		return nil, translate(err, "read document frequencies")
	}
	ts, err := json.Marshal(terms)
	if err != nil {
		return nil, translate(err, "read document frequencies")
	}
	s, err := t.stmt(ctx, sqlDocFreqSums)
	if err != nil {
		return nil, err
	}
	rows, err := s.QueryContext(ctx, string(ps), string(ts))
	if err != nil {
		return nil, translate(err, "read document frequencies")
	}
	defer rows.Close()
	return storesql.Counts(rows, translate, "read document frequencies")
}

// AppendPostings implements cairn.Tx.
func (t *Tx) AppendPostings(ctx context.Context, partition string, tps []cairn.TermPostings) error {
	for _, tp := range tps {
		if _, err := t.exec(ctx, "write postings", sqlAppendPostings, partition, tp.Term, tp.DF, tp.Data); err != nil {
			return err
		}
	}
	return nil
}

// ReplacePostings implements cairn.Tx.
func (t *Tx) ReplacePostings(ctx context.Context, partition string, tps []cairn.TermPostings) error {
	for _, tp := range tps {
		var err error
		if len(tp.Data) == 0 {
			_, err = t.exec(ctx, "delete postings", sqlDeleteTerm, partition, tp.Term)
		} else {
			_, err = t.exec(ctx, "write postings", sqlReplacePostings, partition, tp.Term, tp.DF, tp.Data)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ScanPostings implements cairn.Tx.
func (t *Tx) ScanPostings(ctx context.Context, partition, after string, limit int) ([]cairn.TermPostings, error) {
	rows, err := t.query(ctx, "scan postings", sqlScanPostings, partition, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cairn.TermPostings
	for rows.Next() {
		var tp cairn.TermPostings
		if err := postingsRow(rows, &tp); err != nil {
			return nil, translate(err, "scan postings")
		}
		out = append(out, tp)
	}
	return out, translate(rows.Err(), "scan postings")
}

// FindMemoriesSupersededBy implements cairn.Tx.
func (t *Tx) FindMemoriesSupersededBy(ctx context.Context, id string) ([]*cairn.Memory, error) {
	if id == "" {
		return nil, nil
	}
	return t.many(ctx, sqlSupersededBy, id)
}

// FindLifecycleStates implements cairn.Tx.
func (t *Tx) FindLifecycleStates(ctx context.Context, project string, page cairn.LifecyclePage) ([]cairn.LifecycleState, error) {
	limit := int64(-1)
	if page.Limit > 0 {
		limit = int64(page.Limit)
	}
	rows, err := t.query(ctx, "read lifecycle states", sqlLifecycleStates, project, storesql.LifecycleAfter(page), page.AfterID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cairn.LifecycleState
	for rows.Next() {
		var (
			s                                 cairn.LifecycleState
			created, used, expires, decayedAt int64
		)
		if err := rows.Scan(&s.ID, &s.Type, &s.Title, &s.Confidence, &created, &used, &expires,
			&decayedAt, &s.UseCount, &s.Pinned, &s.Source); err != nil {
			return nil, translate(err, "read lifecycle states")
		}
		s.CreatedAt, s.LastUsedAt, s.ExpiresAt, s.DecayedAt = storesql.FromMS(created), storesql.FromMS(used), storesql.FromMS(expires), storesql.FromMS(decayedAt)
		out = append(out, s)
	}
	return out, translate(rows.Err(), "read lifecycle states")
}

// TouchMemories implements cairn.Tx, as TouchEach with each id once.
func (t *Tx) TouchMemories(ctx context.Context, ids []string, now time.Time, boost, max float64) (map[string]string, error) {
	uniq := make([]string, 0, len(ids))
	at := make([]time.Time, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(uniq, id) {
			uniq = append(uniq, id)
			at = append(at, now)
		}
	}
	return t.TouchEach(ctx, uniq, at, boost, max)
}

// TouchEach records a use of each memory in ids, the i-th at at[i], as
// TouchMemories called once per id in that order would: an id given n
// times gains n uses (and n boosts, up to max), and its last use is the
// last of its times. It returns the project of each memory touched, by
// id; ids not stored are left out.
//
// Each memory's row is written once, and the rows in rowid order, so
// that a batch of many uses reads and writes each page of the table and
// of its indexes about once (a memory's rowid, its id and its creation
// time grow together: the indexes on use count and last use order the
// memories of a count or time by creation). Its statements set only what
// changes: the confidence of a memory already at max is left alone, and
// so is its entry in the confidence index. (An UPDATE … RETURNING per id
// made SQLite keep a statement journal, copying every page it changed
// first.)
func (t *Tx) TouchEach(ctx context.Context, ids []string, at []time.Time, boost, max float64) (map[string]string, error) {
	if !t.write {
		return nil, cairn.Errorf(cairn.EINVALID, "record use needs a write transaction")
	}
	if len(at) != len(ids) {
		return nil, cairn.Errorf(cairn.EINTERNAL, "record use: %d times for %d ids", len(at), len(ids))
	}
	type touch struct {
		rowid   int64
		project string
		conf    float64
		uses    int64
		last    time.Time
	}
	byID := make(map[string]*touch, len(ids))
	for i, id := range ids {
		if tc := byID[id]; tc != nil {
			tc.uses++
			tc.last = at[i]
		} else {
			byID[id] = &touch{uses: 1, last: at[i]}
		}
	}
	find, err := t.stmt(ctx, sqlTouchFind)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(byID))
	found := make([]*touch, 0, len(byID))
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		tc := byID[id]
		err := find.QueryRowContext(ctx, id).Scan(&tc.rowid, &tc.project, &tc.conf)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, translate(err, "record use of "+id)
		}
		out[id] = tc.project
		found = append(found, tc)
	}
	slices.SortFunc(found, func(a, b *touch) int { return cmp.Compare(a.rowid, b.rowid) })
	for _, tc := range found {
		conf := cairn.Boosted(tc.conf, tc.uses, boost, max)
		if conf == tc.conf {
			_, err = t.exec(ctx, "record use", sqlTouchMemory, tc.uses, storesql.MS(tc.last), tc.rowid)
		} else {
			_, err = t.exec(ctx, "record use", sqlTouchMemoryBoosted, tc.uses, storesql.MS(tc.last), conf, tc.rowid)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// QueueUses implements cairn.Tx: the projects of the memories are read
// in one statement, and the uses appended to the use queue in another.
func (t *Tx) QueueUses(ctx context.Context, ids []string, at []time.Time) (map[string]string, error) {
	if !t.write {
		return nil, cairn.Errorf(cairn.EINVALID, "queue uses needs a write transaction")
	}
	if len(at) != len(ids) {
		return nil, cairn.Errorf(cairn.EINTERNAL, "queue uses: %d times for %d ids", len(at), len(ids))
	}
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	uniq := slices.Sorted(slices.Values(ids))
	list, err := json.Marshal(slices.Compact(uniq))
	if err != nil {
		return nil, cairn.WrapError(cairn.EINTERNAL, err, "queue uses")
	}
	rows, err := t.query(ctx, "queue uses", sqlQueueProjects, string(list))
	if err != nil {
		return nil, err
	}
	out, err := storesql.Pairs[string](rows, translate, "queue uses")
	rows.Close()
	if err != nil {
		return nil, err
	}
	queue := make([][2]any, 0, len(ids))
	for i, id := range ids {
		if _, ok := out[id]; ok {
			queue = append(queue, [2]any{id, storesql.MS(at[i])})
		}
	}
	if len(queue) == 0 {
		return out, nil
	}
	if list, err = json.Marshal(queue); err != nil {
		return nil, cairn.WrapError(cairn.EINTERNAL, err, "queue uses")
	}
	if _, err := t.exec(ctx, "queue uses", sqlQueueUses, string(list)); err != nil {
		return nil, err
	}
	return out, nil
}

// FoldUses implements cairn.Tx: the queue is read grouped by memory, each
// memory's row updated once, in rowid order (as TouchEach writes a
// batch), and the queue emptied.
func (t *Tx) FoldUses(ctx context.Context, boost, max float64) (int, error) {
	n, _, err := t.foldUses(ctx, boost, max, 0)
	return n, err
}

// FoldOldestUses implements cairn.Tx: FoldUses over the queue's entries
// up to the limit-th (by its rowid, the order they were queued in).
func (t *Tx) FoldOldestUses(ctx context.Context, boost, max float64, limit int) (int, bool, error) {
	if limit < 1 {
		return 0, false, cairn.Errorf(cairn.EINVALID, "fold uses: a limit of %d", limit)
	}
	return t.foldUses(ctx, boost, max, limit)
}

// foldUses is FoldUses (limit 0) and FoldOldestUses.
func (t *Tx) foldUses(ctx context.Context, boost, max float64, limit int) (int, bool, error) {
	if !t.write {
		return 0, false, cairn.Errorf(cairn.EINVALID, "fold uses needs a write transaction")
	}
	type fold struct {
		rowid, uses, last int64
		conf              float64
	}
	// The entries folded: those up to cut, the limit-th (every one when
	// there are no more).
	cut, more := int64(math.MaxInt64), false
	if limit > 0 {
		err := t.tx.QueryRowContext(ctx, sqlUseQueueCut, limit-1).Scan(&cut)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			cut = math.MaxInt64
		case err != nil:
			return 0, false, translate(err, "read queued uses")
		default:
			more = true
		}
	}
	rows, err := t.query(ctx, "read queued uses", sqlQueuedUses, cut)
	if err != nil {
		return 0, false, err
	}
	var folds []fold
	for rows.Next() {
		var f fold
		if err := rows.Scan(&f.rowid, &f.conf, &f.uses, &f.last); err != nil {
			rows.Close()
			return 0, false, translate(err, "read queued uses")
		}
		folds = append(folds, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, translate(err, "read queued uses")
	}
	n := 0
	for _, f := range folds {
		conf := cairn.Boosted(f.conf, f.uses, boost, max)
		if conf == f.conf {
			_, err = t.exec(ctx, "apply queued uses", sqlFoldMemory, f.uses, f.last, f.rowid)
		} else {
			_, err = t.exec(ctx, "apply queued uses", sqlFoldMemoryBoosted, f.uses, f.last, conf, f.rowid)
		}
		if err != nil {
			return 0, false, err
		}
		n += int(f.uses)
	}
	if _, err := t.exec(ctx, "empty the use queue", sqlEmptyUseQueue, cut); err != nil {
		return 0, false, err
	}
	return n, more, nil
}

// DecayMemories implements cairn.Tx.
func (t *Tx) DecayMemories(ctx context.Context, ds []cairn.Decay) error {
	for _, d := range ds {
		r, err := t.exec(ctx, "decay memory "+d.ID, sqlDecayMemory, d.Confidence, storesql.MS(d.DecayedAt), d.ID)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", d.ID)
		}
	}
	return nil
}

// AppendActivity implements cairn.Tx: whole batches of entries through
// one prepared multi-row INSERT, the rest one by one, all inside the
// caller's transaction, so that a bulk import adds little.
func (t *Tx) AppendActivity(ctx context.Context, as []cairn.Activity) error {
	if len(as) == 0 {
		return nil
	}
	if !t.write {
		return cairn.Errorf(cairn.EINVALID, "append activity needs a write transaction")
	}
	if len(as) >= activityBatch {
		s, err := t.stmt(ctx, sqlInsertActivityBatch)
		if err != nil {
			return err
		}
		args := make([]any, 0, 6*activityBatch)
		for len(as) >= activityBatch {
			args = args[:0]
			for _, a := range as[:activityBatch] {
				args = append(args, storesql.MS(a.At), a.Project, a.MemoryID, a.Action, a.SessionID, a.Detail)
			}
			if _, err := s.ExecContext(ctx, args...); err != nil {
				return translate(err, "append activity")
			}
			as = as[activityBatch:]
		}
	}
	if len(as) == 0 {
		return nil
	}
	s, err := t.stmt(ctx, sqlInsertActivity)
	if err != nil {
		return err
	}
	for _, a := range as {
		if _, err := s.ExecContext(ctx, storesql.MS(a.At), a.Project, a.MemoryID, a.Action, a.SessionID, a.Detail); err != nil {
			return translate(err, "append activity")
		}
	}
	return nil
}

// FindActivity implements cairn.Tx.
func (t *Tx) FindActivity(ctx context.Context, f cairn.ActivityFilter) ([]cairn.Activity, int, error) {
	where, args := activityFilterSQL(f)
	var total int
	if !f.SkipTotal {
		if err := t.tx.QueryRowContext(ctx, sqlCountActivity(where), args...).Scan(&total); err != nil {
			return nil, 0, translate(err, "count activity")
		}
	}
	if f.Limit > 0 {
		args = append(args, f.Limit)
	}
	// Through the statement cache, as FindMemories: a filter's SQL
	// depends only on which fields are set (and how many actions), and
	// every context block reads the same few (what a session was shown,
	// what other sessions learned since). Compiling one cost a tenth of
	// a block's time.
	rows, err := t.query(ctx, "find activity", sqlFindActivity(where, f.Limit > 0), args...)
	if err != nil {
		return nil, 0, err
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
	return out, total, translate(rows.Err(), "read activity")
}

// FindEvents implements cairn.Tx. Activity ids are SQLite rowids: a
// write transaction holds the database's only write lock from its first
// insert to its commit, and activity rows are never deleted, so ids
// increase in commit order and are never reused.
func (t *Tx) FindEvents(ctx context.Context, f cairn.EventFilter) ([]cairn.Event, error) {
	limit := int64(f.Limit)
	if limit <= 0 {
		limit = -1
	}
	var rows *sql.Rows
	var err error
	if f.Project == "" {
		rows, err = t.query(ctx, "find events", sqlFindEvents, f.After, limit)
	} else {
		rows, err = t.query(ctx, "find events", sqlFindProjectEvents, f.Project, f.After, limit)
	}
	if err != nil {
		return nil, err
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
	rows, err := t.query(ctx, "read the last event", sqlLastEventSeq)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var seq int64
	if rows.Next() {
		if err := rows.Scan(&seq); err != nil {
			return 0, translate(err, "read the last event")
		}
	}
	return seq, translate(rows.Err(), "read the last event")
}

// FindIngestOffset implements cairn.Tx.
func (t *Tx) FindIngestOffset(ctx context.Context, source string) (int64, error) {
	rows, err := t.query(ctx, "find ingest offset", sqlFindIngestOffset, source)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var off int64
	if rows.Next() {
		if err := rows.Scan(&off); err != nil {
			return 0, translate(err, "read ingest offset")
		}
	}
	return off, translate(rows.Err(), "read ingest offset")
}

// PutIngestOffset implements cairn.Tx.
func (t *Tx) PutIngestOffset(ctx context.Context, source string, offset int64, at time.Time) error {
	_, err := t.exec(ctx, "put ingest offset", sqlPutIngestOffset, source, offset, storesql.MS(at))
	return err
}

// FindIngestPending implements cairn.Tx.
func (t *Tx) FindIngestPending(ctx context.Context, source string) (string, error) {
	rows, err := t.query(ctx, "find ingest pending", sqlFindIngestPending, source)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var p string
	if rows.Next() {
		if err := rows.Scan(&p); err != nil {
			return "", translate(err, "read ingest pending")
		}
	}
	return p, translate(rows.Err(), "read ingest pending")
}

// PutIngestState implements cairn.Tx.
func (t *Tx) PutIngestState(ctx context.Context, source string, offset int64, pending string, at time.Time) error {
	_, err := t.exec(ctx, "put ingest state", sqlPutIngestState, source, offset, pending, storesql.MS(at))
	return err
}
