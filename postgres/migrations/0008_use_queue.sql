-- Uses written but not yet applied to their memories (Tx.QueueUses): a
-- long-lived process appends each use here, a row that takes no lock on
-- its memory or its project, and applies the queue to the memories' use
-- counts, last uses and confidences every few seconds (Tx.FoldUses), a
-- memory's row and its index entries once for all its uses since. The
-- fold deletes the rows it applies, so two processes folding at once
-- apply each use once.
CREATE TABLE IF NOT EXISTS use_queue (
    seq       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    memory_id TEXT COLLATE "C" NOT NULL,
    at        BIGINT NOT NULL
);
