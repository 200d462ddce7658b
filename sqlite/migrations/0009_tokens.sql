-- Access tokens of the HTTP API (cairn token create): the SHA-256 hash of
-- each secret, never the secret, and the one project it opens.
CREATE TABLE api_tokens (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL DEFAULT '',
	project    TEXT NOT NULL,
	read_only  INTEGER NOT NULL DEFAULT 0,
	hash       TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
);
