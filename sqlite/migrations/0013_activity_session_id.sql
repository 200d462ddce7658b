-- What a session was shown is read incrementally, past the last activity
-- id seen (ids grow in commit order): session and id make that a range.
CREATE INDEX idx_activity_session_id ON activity(session_id, id) WHERE session_id <> '';
