-- What an ingest run leaves pending for the next one: the tests that
-- failed and have not passed yet (with the files edited since), so that a
-- failure and its fix read by two runs (two Stop hooks) still make a fix.
ALTER TABLE ingest_state ADD COLUMN pending TEXT NOT NULL DEFAULT '';
