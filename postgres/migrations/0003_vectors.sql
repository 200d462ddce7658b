-- Embeddings: one vector per model and content hash, shared by every
-- memory with that content (memories.content_hash), as in the SQLite
-- backend's migration 0012. data is the vector as little-endian float32s.
CREATE TABLE vectors (
    model TEXT COLLATE "C" NOT NULL,
    hash  TEXT COLLATE "C" NOT NULL,
    dims  INTEGER NOT NULL,
    data  BYTEA NOT NULL,
    PRIMARY KEY (model, hash)
);
-- Vectors and postings do not compress: store them out of line as they
-- are, rather than spend a write's time trying.
ALTER TABLE vectors ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER TABLE index_terms ALTER COLUMN postings SET STORAGE EXTERNAL;
