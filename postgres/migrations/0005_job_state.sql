-- What the background jobs of a long-running process (package jobs) keep
-- between runs and across restarts: for each job and project, when it
-- last ran, how far it read and a text of its own. The lifecycle's last
-- run per project was kept among the transcript cursors, under a source
-- named cairn-lifecycle:PROJECT with the run's time as its offset; it
-- moves here.
CREATE TABLE job_state (
    job     TEXT COLLATE "C" NOT NULL,
    project TEXT COLLATE "C" NOT NULL,
    ran_at  BIGINT NOT NULL,
    cursor  BIGINT NOT NULL,
    data    TEXT NOT NULL,
    PRIMARY KEY (job, project)
);
INSERT INTO job_state(job, project, ran_at, cursor, data)
SELECT 'maintain', substr(source, 17), "offset", 0, ''
FROM ingest_state WHERE source LIKE 'cairn-lifecycle:%';
DELETE FROM ingest_state WHERE source LIKE 'cairn-lifecycle:%';
