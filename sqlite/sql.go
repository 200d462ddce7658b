package sqlite

import (
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

// All SQL of the SQLite backend, apart from the migrations.
//
// A LIMIT takes its bound value as `?+0`, never as a bare parameter:
// SQLite reads a bare parameter's value when it plans a LIMIT, and marks
// the statement to be prepared again whenever that parameter is bound,
// which is every time it runs. Prepared again, the query of a session's
// new memories from other sessions took 40-200 µs instead of 10. The
// planner does not read the value of `?+0`.

const memoryColumns = `id, project, scope, type, key, title, content, content_hash, tags, file_refs,
	confidence, source, created_by_agent, created_by_hat, created_by_task_id, created_by_session_id,
	created_at, updated_at, last_used_at, verified_at, expires_at, use_count, pinned, superseded_by,
	partition, docnum, flag`

// sqlSelectPacked selects a memory as two columns instead of
// sqlSelectMemory's 27, for reads of many rows: the driver takes the
// connection's mutex two or three times per column it reads, and
// database/sql converts each. The first column is the confidence; the
// second holds the row's rowid and its other columns but the partition
// (which the query's WHERE names), as text joined by NUL bytes, integers
// first (packedInts, packedTexts); a NULL key reads as "", as scanMemory
// reads it. See unpackMemory.
const sqlSelectPacked = `SELECT confidence, concat_ws(char(0), rowid, docnum, created_at, updated_at, last_used_at,
	verified_at, expires_at, use_count, pinned, id, project, scope, type, ifnull(key, ''), title, content_hash, tags,
	file_refs, source, created_by_agent, created_by_hat, created_by_task_id, created_by_session_id, superseded_by, flag,
	content) FROM memories`

const (
	sqlSelectMemory = `SELECT ` + memoryColumns + ` FROM memories`

	sqlInsertMemory = `INSERT INTO memories (rowid, ` + memoryColumns + `)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

	memorySet = `project=?, scope=?, type=?, key=?, title=?, content=?,
	content_hash=?, tags=?, file_refs=?, confidence=?, source=?, created_by_agent=?, created_by_hat=?,
	created_by_task_id=?, created_by_session_id=?, created_at=?, updated_at=?, last_used_at=?,
	verified_at=?, expires_at=?, use_count=?, pinned=?, superseded_by=?, partition=?, docnum=?, flag=?`
	sqlUpdateMemory   = `UPDATE memories SET ` + memorySet + ` WHERE id=?`
	sqlUpdateMemoryAt = `UPDATE memories SET ` + memorySet + ` WHERE id=? AND rowid=?`
	sqlMoveMemory     = `UPDATE memories SET rowid=?, ` + memorySet + ` WHERE id=?`

	// Rowids by document (docRowID, newRowID).
	sqlPartitionNum    = `SELECT num FROM memory_partitions WHERE name=?`
	sqlNewPartitionNum = `INSERT INTO memory_partitions(name) VALUES (?)`
	sqlBelowRowIDs     = `SELECT min(ifnull(min(rowid), 0), 0) - 1 FROM memories`
	sqlRowIDTaken      = `SELECT count(*) FROM memories WHERE rowid=?`

	// Store.PlaceRows: the rows not at their place, and the smallest and
	// largest rowids (or 0); then every such row moved below the smallest
	// (keeping their order), then from there to its place.
	sqlNumberPartitions = `INSERT OR IGNORE INTO memory_partitions(name) SELECT DISTINCT partition FROM memories ORDER BY partition`
	rowPlaced           = `EXISTS (SELECT 1 FROM memory_partitions AS p WHERE p.name = memories.partition AND memories.rowid = p.num * 1099511627776 + memories.docnum)`
	sqlUnplacedRows     = `SELECT count(*) FILTER (WHERE NOT ` + rowPlaced + `), min(ifnull(min(rowid), 0), 0), max(ifnull(max(rowid), 0), 0) FROM memories`
	sqlUnplaceRows      = `UPDATE memories SET rowid = rowid + ? WHERE NOT ` + rowPlaced
	sqlPlaceRows        = `UPDATE memories SET rowid = p.num * 1099511627776 + memories.docnum FROM memory_partitions AS p
	WHERE memories.rowid < ? AND p.name = memories.partition AND p.num < 8388608
	AND memories.docnum >= 0 AND memories.docnum < 1099511627776`

	sqlDeleteMemory = `DELETE FROM memories WHERE id=?`

	// The documents expired before a time: all of a partition's from its
	// expiry index alone, or those numbered from a document on (the few
	// written since a search last read them) from idx_memories_doc.
	sqlExpiredDocs     = `SELECT docnum FROM memories INDEXED BY idx_memories_partition_expires WHERE partition=? AND expires_at <> 0 AND expires_at < ? AND docnum >= ?`
	sqlExpiredDocsFrom = `SELECT docnum FROM memories INDEXED BY idx_memories_doc WHERE partition=? AND docnum >= ? AND expires_at <> 0 AND expires_at < ?`

	sqlByID     = sqlSelectMemory + ` WHERE id=?`
	sqlByRowID  = sqlSelectMemory + ` WHERE rowid=?`
	sqlIDPrefix = `SELECT id FROM memories WHERE id >= ?1 AND id < ?2 AND (?3 = '' OR project = ?3 OR scope = 'global') ORDER BY id LIMIT ?4+0`
	sqlByKey    = sqlSelectMemory + ` WHERE project=? AND type=? AND key=?`
	sqlByHash   = sqlSelectMemory + ` INDEXED BY idx_memories_project_hash WHERE project=? AND content_hash=?`

	sqlMemoryKeys  = `SELECT id, project, content_hash FROM memories`
	sqlCountByType = `SELECT type, count(*) FROM memories WHERE project=? GROUP BY type`
	// Periods by integer division of the milliseconds since from.
	sqlCountCreated = `SELECT type, (created_at - ?2) / ?1 AS period, count(*) FROM memories
		WHERE project=?3 AND created_at >= ?4 GROUP BY type, period`
	// Every project's memories, counted from the (project, created_at)
	// index; the latest change or use reads the rows.
	sqlProjects = `SELECT project, count(*), max(max(updated_at), max(last_used_at)) FROM memories GROUP BY project ORDER BY project`

	sqlPartitionDocs   = `SELECT name, docs FROM index_partitions WHERE docs > 0`
	sqlPartition       = `SELECT docs, total_len, next_doc, dead_docs, dead, analyzer FROM index_partitions WHERE name=?`
	sqlPartitionCounts = `SELECT docs, total_len, next_doc, dead_docs, analyzer FROM index_partitions WHERE name=?`
	sqlPutPartition    = `INSERT INTO index_partitions(name, docs, total_len, next_doc, dead_docs, dead, analyzer)
	VALUES (?,?,?,?,?,?,?) ON CONFLICT(name) DO UPDATE SET docs=excluded.docs,
	total_len=excluded.total_len, next_doc=excluded.next_doc, dead_docs=excluded.dead_docs, dead=excluded.dead,
	analyzer=excluded.analyzer`

	sqlAppendPostings = `INSERT INTO index_terms(partition, term, df, postings) VALUES (?,?,?,?)
	ON CONFLICT(partition, term) DO UPDATE SET df = df + excluded.df, postings = CAST(postings || excluded.postings AS BLOB)`
	sqlReplacePostings = `INSERT INTO index_terms(partition, term, df, postings) VALUES (?,?,?,?)
	ON CONFLICT(partition, term) DO UPDATE SET df = excluded.df, postings = excluded.postings`
	sqlDeleteTerm    = `DELETE FROM index_terms WHERE partition=? AND term=?`
	sqlDocFreqSums   = `SELECT term, SUM(df) FROM index_terms WHERE partition IN (SELECT value FROM json_each(?)) AND term IN (SELECT value FROM json_each(?)) GROUP BY term`
	sqlDocFreqOne    = `SELECT df FROM index_terms WHERE partition=? AND term=?`
	sqlPostingsOne   = `SELECT term, df, postings FROM index_terms WHERE partition=? AND term=?`
	sqlScanPostings  = `SELECT term, df, postings FROM index_terms WHERE partition=? AND term>? ORDER BY term LIMIT ?+0`
	sqlUserVersion   = `PRAGMA user_version`
	sqlMigrationsTbl = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`
	sqlRecordMigration = `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?,?,?)`
)

// Lifecycle and activity log (migration 0002).
const (
	// The partial index on superseded_by is used only when the query
	// repeats its condition.
	sqlSupersededBy = sqlSelectMemory + ` WHERE superseded_by=? AND superseded_by <> '' ORDER BY created_at, id`

	sqlLifecycleStates = `SELECT id, type, title, confidence, created_at, last_used_at, expires_at,
	decayed_at, use_count, pinned, source FROM memories WHERE project=? AND (created_at, id) > (?, ?)
	ORDER BY created_at, id LIMIT ?+0`

	// Uses (TouchEach): the row by its id, then its update by rowid, with
	// the confidence computed by the caller; sqlTouchMemory leaves it
	// alone (already at the maximum), so that the confidence index's
	// entry is not rewritten.
	sqlTouchFind          = `SELECT rowid, project, confidence FROM memories WHERE id=?`
	sqlTouchMemory        = `UPDATE memories SET use_count = use_count + ?, last_used_at = ? WHERE rowid=?`
	sqlTouchMemoryBoosted = `UPDATE memories SET use_count = use_count + ?, last_used_at = ?, confidence = ? WHERE rowid=?`

	// The use queue (migration 0019): a use appended (QueueUses), then
	// applied (FoldUses): each queued memory's uses counted, with the time
	// of its last queued use (the bare column beside max(seq)), and its
	// row updated by rowid, in rowid order, as TouchEach does; a last use
	// never goes back.
	sqlQueueProjects = `SELECT id, project FROM memories WHERE id IN (SELECT value FROM json_each(?))`
	sqlQueueUses     = `INSERT INTO use_queue(memory_id, at)
	SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?) ORDER BY key`
	sqlQueuedUses = `SELECT m.rowid, m.confidence, q.n, q.at
	FROM (SELECT memory_id, count(*) AS n, at, max(seq) FROM use_queue WHERE seq <= ? GROUP BY memory_id) AS q
	JOIN memories AS m ON m.id = q.memory_id ORDER BY m.rowid`
	sqlUseQueueCut       = `SELECT seq FROM use_queue ORDER BY seq LIMIT 1 OFFSET ?`
	sqlFoldMemory        = `UPDATE memories SET use_count = use_count + ?, last_used_at = max(last_used_at, ?) WHERE rowid=?`
	sqlFoldMemoryBoosted = `UPDATE memories SET use_count = use_count + ?, last_used_at = max(last_used_at, ?), confidence = ? WHERE rowid=?`
	sqlEmptyUseQueue     = `DELETE FROM use_queue WHERE seq <= ?`

	sqlDecayMemory = `UPDATE memories SET confidence=?, decayed_at=? WHERE id=?`

	sqlInsertActivity = `INSERT INTO activity(at, project, memory_id, action, session_id, detail)
	VALUES (?,?,?,?,?,?)`

	sqlActivityColumns = `SELECT id, at, project, memory_id, action, session_id, detail FROM activity`
)

// activityFilterSQL returns the WHERE clause and arguments of f.
func activityFilterSQL(f cairn.ActivityFilter) (string, []any) {
	conds := []string{`1`}
	var args []any
	if f.Project != "" {
		conds = append(conds, `project=?`)
		args = append(args, f.Project)
	}
	if f.MemoryID != "" {
		conds = append(conds, `memory_id=?`)
		args = append(args, f.MemoryID)
	}
	if f.SessionID != "" {
		// Repeats the partial index's condition so that it is used.
		conds = append(conds, `session_id=? AND session_id <> ''`)
		args = append(args, f.SessionID)
	}
	if len(f.Actions) > 0 {
		conds = append(conds, `action IN (`+placeholders(len(f.Actions))+`)`)
		for _, a := range f.Actions {
			args = append(args, a)
		}
	}
	if !f.After.IsZero() {
		conds = append(conds, `at >= ?`)
		args = append(args, storesql.MS(f.After))
	}
	if !f.Before.IsZero() {
		conds = append(conds, `at < ?`)
		args = append(args, storesql.MS(f.Before))
	}
	if f.AfterID > 0 {
		conds = append(conds, `id > ?`)
		args = append(args, f.AfterID)
	}
	return strings.Join(conds, " AND "), args
}

func sqlCountActivity(where string) string { return `SELECT count(*) FROM activity WHERE ` + where }

func sqlFindActivity(where string, limit bool) string {
	q := sqlActivityColumns + ` WHERE ` + where + ` ORDER BY at DESC, id DESC`
	if limit {
		q += ` LIMIT ?+0`
	}
	return q
}

// activityBatch is how many entries sqlInsertActivityBatch inserts (6
// variables each, far below SQLite's limit of 32,766).
const activityBatch = 128

// sqlInsertActivityBatch inserts activityBatch entries at once: a bulk
// import pays one statement per batch, not per entry.
var sqlInsertActivityBatch = `INSERT OR FAIL INTO activity(at, project, memory_id, action, session_id, detail)
	VALUES ` + strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?),", activityBatch), ",")

// Events: the activity log read forward from a seq (migration 0010).
// LIMIT -1 is no limit.
const (
	sqlEventColumns = `SELECT a.id, a.at, a.project, a.memory_id, a.action, a.session_id, a.detail,
	coalesce(m.type, ''), coalesce(m.title, '')
	FROM activity a LEFT JOIN memories m ON m.id = a.memory_id`
	sqlFindEvents        = sqlEventColumns + ` WHERE a.id > ? ORDER BY a.id LIMIT ?+0`
	sqlFindProjectEvents = sqlEventColumns + ` WHERE a.project = ? AND a.id > ? ORDER BY a.project, a.id LIMIT ?+0`
	sqlLastEventSeq      = `SELECT coalesce(max(id), 0) FROM activity`
)

const (
	sqlFindIngestOffset = `SELECT offset FROM ingest_state WHERE source=?`
	sqlPutIngestOffset  = `INSERT INTO ingest_state(source, offset, updated_at) VALUES (?,?,?)
	ON CONFLICT(source) DO UPDATE SET offset=excluded.offset, updated_at=excluded.updated_at`
	sqlFindIngestPending = `SELECT pending FROM ingest_state WHERE source=?`
	sqlPutIngestState    = `INSERT INTO ingest_state(source, offset, pending, updated_at) VALUES (?,?,?,?)
	ON CONFLICT(source) DO UPDATE SET offset=excluded.offset, pending=excluded.pending, updated_at=excluded.updated_at`
)

// Access tokens of the HTTP API (migration 0009).
const (
	tokenColumns       = `id, name, project, read_only, hash, created_at`
	sqlInsertToken     = `INSERT INTO api_tokens(` + tokenColumns + `) VALUES (?,?,?,?,?,?)`
	sqlFindTokenByHash = `SELECT ` + tokenColumns + ` FROM api_tokens WHERE hash=?`
	sqlFindTokens      = `SELECT ` + tokenColumns + ` FROM api_tokens ORDER BY created_at, id`
	sqlDeleteToken     = `DELETE FROM api_tokens WHERE id=?`
)
