-- The activity log: what happened to which memory, when, and in which
-- agent session. Rows outlive their memory (no foreign key), so the log
-- still tells what a deleted memory was. Times are Unix milliseconds.
CREATE TABLE activity (
    id         INTEGER PRIMARY KEY,
    at         INTEGER NOT NULL,
    project    TEXT NOT NULL,
    memory_id  TEXT NOT NULL,
    action     TEXT NOT NULL,
    session_id TEXT NOT NULL DEFAULT '',
    detail     TEXT NOT NULL DEFAULT ''
);

CREATE INDEX idx_activity_project_at ON activity(project, at);
CREATE INDEX idx_activity_memory_at ON activity(memory_id, at);
-- Imports and cleanup act outside any session: leaving their rows out of
-- this index keeps it small and bulk imports cheap.
CREATE INDEX idx_activity_session_at ON activity(session_id, at) WHERE session_id <> '';

-- The decay clock (seed 000's weekly decay): the end of the last week
-- whose decay was applied, so that cleanup run twice in a week decays once.
ALTER TABLE memories ADD COLUMN decayed_at INTEGER NOT NULL DEFAULT 0;

-- `cairn show` follows supersede links backwards.
CREATE INDEX idx_memories_superseded_by ON memories(superseded_by) WHERE superseded_by <> '';
