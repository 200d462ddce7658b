-- Uses written but not yet applied to their memories (Tx.QueueUses): a
-- long-lived process appends each use here, a row at the end of a narrow
-- table, and applies the queue to the memories' use counts, last uses and
-- confidences every few seconds (Tx.FoldUses), a memory's row and its
-- index entries once for all its uses since. Applied one by one, a use
-- rewrote a page of the memories and about eight pages of their indexes
-- on use count, last use and confidence, nearly all of them distinct
-- within a batch at 100,000 memories.
CREATE TABLE use_queue (
    seq       INTEGER PRIMARY KEY,
    memory_id TEXT NOT NULL,
    at        INTEGER NOT NULL
);
