-- Each project's settings (its policy: type lifecycles and tiers, context
-- defaults, scoring weights, modes and keywords), written by the command
-- that owns the project's folder from its cairn.toml and read by every
-- process that answers for the project. The document is the settings as
-- JSON; the store does not read it.
CREATE TABLE project_settings (
	project     TEXT PRIMARY KEY,
	document    TEXT NOT NULL,
	source      TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	folder      TEXT NOT NULL,
	updated_at  INTEGER NOT NULL
);
