-- Context for files reads the project's most recently changed memories
-- that have file references: a partial index keeps that a short walk,
-- not a scan and sort of the project.
CREATE INDEX idx_memories_file_refs ON memories(project, updated_at) WHERE file_refs <> '';
