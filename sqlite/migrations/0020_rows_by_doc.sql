-- A memory's rowid is its place in the search index: the number of its
-- partition (memory_partitions) times 2^40 plus its document number. A
-- search reads its candidates' rows by rowid, one descent of the table's
-- b-tree each, instead of a descent of idx_memories_doc and then one of
-- the table. A partition's number is given once and never changes; a row
-- whose document number is outside 0 to 2^40-1, or whose partition's
-- number is 2^23 or more, keeps a rowid of its own
-- (cairn's reads find it through idx_memories_doc). cairn runs this
-- migration with the indexes on memories dropped, and remakes them after.
CREATE TABLE memory_partitions (
    num  INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
INSERT INTO memory_partitions(name) SELECT DISTINCT partition FROM memories ORDER BY partition;
UPDATE memories SET rowid = p.num * 1099511627776 + memories.docnum FROM memory_partitions AS p
WHERE p.name = memories.partition AND p.num < 8388608 AND memories.docnum >= 0 AND memories.docnum < 1099511627776;
