-- Embeddings: one vector per model and content hash, shared by every
-- memory with that content (memories.content_hash). A memory whose content
-- changes has no vector until it is embedded again; vectors of a former
-- model stay apart. data is the vector as little-endian float32s.
--
-- The key is indexed apart from the data, so that counting and finding
-- what is not embedded read the small index, not every vector.
CREATE TABLE vectors (
    id    INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    hash  TEXT NOT NULL,
    dims  INTEGER NOT NULL,
    data  BLOB NOT NULL
);
CREATE UNIQUE INDEX idx_vectors_model_hash ON vectors(model, hash);
