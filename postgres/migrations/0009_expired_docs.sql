-- A long-lived search skips the documents of memories that had expired
-- by the start of its day (Tx.ExpiredDocs) instead of loading them as
-- candidates and asking for more: this index holds each partition's
-- expiring documents in the order of their expiry, so that those expired
-- before a time are read from it alone.
CREATE INDEX IF NOT EXISTS idx_memories_partition_expires ON memories(partition, expires_at, docnum) WHERE expires_at <> 0;
