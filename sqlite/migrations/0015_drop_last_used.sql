-- Every use of a memory rewrites its entry in each index on its use
-- count, last use or confidence. The global last-use index of 0001
-- serves no query any more: the list orders by last use read
-- idx_memories_project_recent (0014), a whole list with other projects'
-- global memories reads and sorts them as fast without it, and the
-- lifecycle reads a project's memories by date. Dropping it spares each
-- use one index (about a tenth of its cost).
DROP INDEX idx_memories_last_used;
