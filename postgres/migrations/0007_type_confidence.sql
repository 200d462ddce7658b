-- The static tier of a context block reads each static type's most
-- trusted memories (by confidence, then the newest): the index holds that
-- order within a project's type, so a read stops at its limit instead of
-- sorting every memory of the type.
CREATE INDEX IF NOT EXISTS idx_memories_project_type_confidence ON memories(project, type, confidence DESC, created_at DESC, id DESC);
