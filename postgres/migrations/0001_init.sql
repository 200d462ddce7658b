-- cairn's schema on PostgreSQL: the same tables and columns as the SQLite
-- backend's after its migration 0010, so that both store the same values
-- (times as Unix milliseconds, lists newline-separated) and
-- `cairn migrate` copies rows as they are. Text that is compared or
-- ordered (ids, terms, names) uses the "C" collation: byte order, as in
-- SQLite, whatever the database's locale.
CREATE TABLE memories (
    id                    TEXT COLLATE "C" PRIMARY KEY,
    project               TEXT COLLATE "C" NOT NULL,
    scope                 TEXT COLLATE "C" NOT NULL DEFAULT 'project',
    type                  TEXT COLLATE "C" NOT NULL,
    key                   TEXT COLLATE "C",
    title                 TEXT NOT NULL,
    content               TEXT NOT NULL,
    content_hash          TEXT COLLATE "C" NOT NULL,
    tags                  TEXT NOT NULL DEFAULT '',
    file_refs             TEXT NOT NULL DEFAULT '',
    confidence            DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    source                TEXT NOT NULL DEFAULT 'automatic',
    created_by_agent      TEXT NOT NULL DEFAULT '',
    created_by_hat        TEXT NOT NULL DEFAULT '',
    created_by_task_id    TEXT NOT NULL DEFAULT '',
    created_by_session_id TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL,
    last_used_at          BIGINT NOT NULL DEFAULT 0,
    verified_at           BIGINT NOT NULL DEFAULT 0,
    expires_at            BIGINT NOT NULL DEFAULT 0,
    use_count             BIGINT NOT NULL DEFAULT 0,
    pinned                BOOLEAN NOT NULL DEFAULT false,
    superseded_by         TEXT COLLATE "C" NOT NULL DEFAULT '',
    partition             TEXT COLLATE "C" NOT NULL,
    docnum                BIGINT NOT NULL,
    decayed_at            BIGINT NOT NULL DEFAULT 0,
    flag                  TEXT NOT NULL DEFAULT ''
);

CREATE INDEX idx_memories_project_type ON memories(project, type, created_at);
CREATE INDEX idx_memories_project_confidence ON memories(project, confidence DESC);
CREATE INDEX idx_memories_last_used ON memories(last_used_at DESC);
CREATE INDEX idx_memories_project_created ON memories(project, created_at);
CREATE INDEX idx_memories_project_hash ON memories(project, content_hash);
CREATE UNIQUE INDEX idx_memories_project_key ON memories(project, type, key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX idx_memories_doc ON memories(partition, docnum);
CREATE INDEX idx_memories_scope ON memories(created_at) WHERE scope = 'global';
CREATE INDEX idx_memories_superseded_by ON memories(superseded_by) WHERE superseded_by <> '';
CREATE INDEX idx_memories_pinned ON memories(project, created_at) WHERE pinned;
CREATE INDEX idx_memories_file_refs ON memories(project, updated_at) WHERE file_refs <> '';

-- Search index statistics per partition.
CREATE TABLE index_partitions (
    name      TEXT COLLATE "C" PRIMARY KEY,
    docs      BIGINT NOT NULL,
    total_len BIGINT NOT NULL,
    next_doc  BIGINT NOT NULL,
    dead_docs BIGINT NOT NULL,
    dead      BYTEA NOT NULL,
    analyzer  INTEGER NOT NULL DEFAULT 1
);

-- Postings per partition and term.
CREATE TABLE index_terms (
    partition TEXT COLLATE "C" NOT NULL,
    term      TEXT COLLATE "C" NOT NULL,
    df        BIGINT NOT NULL,
    postings  BYTEA NOT NULL,
    PRIMARY KEY (partition, term)
);

-- The activity log, whose ids are the events' sequence numbers. Ids are
-- taken from the sequence only under the store's event lock, held until
-- commit, so that they increase in commit order (see package postgres).
CREATE TABLE activity (
    id         BIGSERIAL PRIMARY KEY,
    at         BIGINT NOT NULL,
    project    TEXT COLLATE "C" NOT NULL,
    memory_id  TEXT COLLATE "C" NOT NULL,
    action     TEXT COLLATE "C" NOT NULL,
    session_id TEXT COLLATE "C" NOT NULL DEFAULT '',
    detail     TEXT NOT NULL DEFAULT ''
);

CREATE INDEX idx_activity_project_at ON activity(project, at);
CREATE INDEX idx_activity_memory_at ON activity(memory_id, at);
CREATE INDEX idx_activity_session_at ON activity(session_id, at) WHERE session_id <> '';
CREATE INDEX idx_activity_project_id ON activity(project, id);

-- How many bytes of each transcript cairn ingest has read, and what it
-- left pending for the next run.
CREATE TABLE ingest_state (
    source     TEXT COLLATE "C" PRIMARY KEY,
    "offset"   BIGINT NOT NULL,
    pending    TEXT NOT NULL DEFAULT '',
    updated_at BIGINT NOT NULL
);

-- Access tokens of the HTTP API: the SHA-256 hash of each secret only.
CREATE TABLE api_tokens (
    id         TEXT COLLATE "C" PRIMARY KEY,
    name       TEXT NOT NULL DEFAULT '',
    project    TEXT COLLATE "C" NOT NULL,
    read_only  BOOLEAN NOT NULL DEFAULT false,
    hash       TEXT COLLATE "C" NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
