-- Embeddings: one vector per model and content hash, shared by every
-- memory with that content (memories.content_hash). A memory whose content
-- changes has no vector until it is embedded again; vectors of a former
-- model stay apart. data is the vector as little-endian float32s.
CREATE TABLE vectors (
    model TEXT NOT NULL,
    hash  TEXT NOT NULL,
    dims  INTEGER NOT NULL,
    data  BLOB NOT NULL,
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;
