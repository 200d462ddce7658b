-- The memories of every project. Times are Unix milliseconds (UTC); list
-- fields are newline-separated. partition/docnum place the memory in the
-- search index (see package index).
CREATE TABLE memories (
    id                    TEXT PRIMARY KEY,
    project               TEXT NOT NULL,
    scope                 TEXT NOT NULL DEFAULT 'project',
    type                  TEXT NOT NULL,
    key                   TEXT,
    title                 TEXT NOT NULL,
    content               TEXT NOT NULL,
    content_hash          TEXT NOT NULL,
    tags                  TEXT NOT NULL DEFAULT '',
    file_refs             TEXT NOT NULL DEFAULT '',
    confidence            REAL NOT NULL DEFAULT 0.5,
    source                TEXT NOT NULL DEFAULT 'automatic',
    created_by_agent      TEXT NOT NULL DEFAULT '',
    created_by_hat        TEXT NOT NULL DEFAULT '',
    created_by_task_id    TEXT NOT NULL DEFAULT '',
    created_by_session_id TEXT NOT NULL DEFAULT '',
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    last_used_at          INTEGER NOT NULL DEFAULT 0,
    verified_at           INTEGER NOT NULL DEFAULT 0,
    expires_at            INTEGER NOT NULL DEFAULT 0,
    use_count             INTEGER NOT NULL DEFAULT 0,
    pinned                INTEGER NOT NULL DEFAULT 0,
    superseded_by         TEXT NOT NULL DEFAULT '',
    partition             TEXT NOT NULL,
    docnum                INTEGER NOT NULL
);

-- Seed 000's indexes (its project-only index is the prefix of the
-- project/type one), plus those dedup, key upsert and search need.
CREATE INDEX idx_memories_project_type ON memories(project, type);
CREATE INDEX idx_memories_project_confidence ON memories(project, confidence DESC);
CREATE INDEX idx_memories_last_used ON memories(last_used_at DESC);
CREATE INDEX idx_memories_project_created ON memories(project, created_at);
CREATE INDEX idx_memories_project_hash ON memories(project, content_hash);
CREATE UNIQUE INDEX idx_memories_project_key ON memories(project, type, key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX idx_memories_doc ON memories(partition, docnum);
CREATE INDEX idx_memories_scope ON memories(scope) WHERE scope <> 'project';

-- Search index statistics per partition.
CREATE TABLE index_partitions (
    name      TEXT PRIMARY KEY,
    docs      INTEGER NOT NULL,
    total_len INTEGER NOT NULL,
    next_doc  INTEGER NOT NULL,
    dead_docs INTEGER NOT NULL,
    dead      BLOB NOT NULL
);

-- Postings per partition and term.
CREATE TABLE index_terms (
    partition TEXT NOT NULL,
    term      TEXT NOT NULL,
    df        INTEGER NOT NULL,
    postings  BLOB NOT NULL,
    PRIMARY KEY (partition, term)
);
