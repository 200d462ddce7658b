-- The web page lists a project's memories by last change, last use and
-- use count, and counts those that expire: without these indexes each of
-- those pages sorts every memory of the project. Each index holds the
-- whole order, ties included, so a page reads only its rows.
CREATE INDEX idx_memories_project_updated ON memories(project, updated_at, id);
CREATE INDEX idx_memories_project_recent ON memories(project, last_used_at, created_at, id);
CREATE INDEX idx_memories_project_used ON memories(project, use_count, created_at, id);
CREATE INDEX idx_memories_project_expires ON memories(project, expires_at) WHERE expires_at <> 0;
