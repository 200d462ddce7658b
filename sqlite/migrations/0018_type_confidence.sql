-- The static tier of a context block reads each static type's most
-- trusted memories (by confidence, then the newest): without this index
-- each read went through every memory of the type and sorted them (about
-- 16,000 page reads for a block at 100,000 memories, 40 ms for a process
-- that opens the database itself). The index holds the whole order, ties
-- included, so a read stops at its limit.
CREATE INDEX idx_memories_project_type_confidence ON memories(project, type, confidence, created_at, id);
