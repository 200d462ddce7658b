-- cairn ingest remembers how many bytes of each transcript it has read,
-- so that a second run reads only the lines added since.
CREATE TABLE ingest_state (
	source     TEXT PRIMARY KEY,
	offset     INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
