-- The version of the text analysis (package lexical) a partition's
-- postings were made with. Partitions written before this column were
-- made with version 1; the engine rebuilds a partition whose version is
-- not its own before it writes to or searches it.
ALTER TABLE index_partitions ADD COLUMN analyzer INTEGER NOT NULL DEFAULT 1;
