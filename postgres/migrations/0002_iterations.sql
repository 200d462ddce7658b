-- Agent-loop iterations (seed 003): one row per run of an agent on a task,
-- with its outcome and metrics. Failure reports and learnings are
-- memories, linked by failure_id.
CREATE TABLE iterations (
    project     TEXT COLLATE "C" NOT NULL,
    run         TEXT COLLATE "C" NOT NULL DEFAULT '',
    task        TEXT COLLATE "C" NOT NULL,
    iteration   INTEGER NOT NULL,
    model       TEXT NOT NULL DEFAULT '',
    outcome     TEXT NOT NULL CHECK (outcome IN ('done', 'failed', 'no-signal')),
    duration_ms BIGINT NOT NULL DEFAULT 0,
    cost_usd    DOUBLE PRECISION NOT NULL DEFAULT 0,
    difficulty  TEXT NOT NULL DEFAULT '',
    failure_id  TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (project, run, task, iteration)
);
CREATE INDEX idx_iterations_task ON iterations(project, task, created_at);
CREATE INDEX idx_iterations_recent ON iterations(project, created_at);

-- Old iterations folded into totals by project, task, model and outcome.
CREATE TABLE iteration_totals (
    project     TEXT COLLATE "C" NOT NULL,
    task        TEXT COLLATE "C" NOT NULL,
    model       TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    count       INTEGER NOT NULL,
    duration_ms BIGINT NOT NULL,
    cost_usd    DOUBLE PRECISION NOT NULL,
    first_at    BIGINT NOT NULL,
    last_at     BIGINT NOT NULL,
    PRIMARY KEY (project, task, model, outcome)
);
