-- Context injection reads the newest memories of a type, the pinned ones
-- and the global-scope ones: (project, type, created_at) serves the first
-- without a sort, and partial indexes find the few others without a scan.
DROP INDEX idx_memories_project_type;
CREATE INDEX idx_memories_project_type ON memories(project, type, created_at);
CREATE INDEX idx_memories_pinned ON memories(project, created_at) WHERE pinned = 1;
DROP INDEX idx_memories_scope;
CREATE INDEX idx_memories_scope ON memories(created_at) WHERE scope = 'global';
