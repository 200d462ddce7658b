-- Agent-loop iterations (seed 003): one row per run of an agent on a task,
-- with its outcome and metrics (seed 003's iteration outcomes and strategy
-- metrics). Failure reports and learnings are memories, linked by
-- failure_id, so that other agents find them too.
CREATE TABLE iterations (
	project     TEXT NOT NULL,
	run         TEXT NOT NULL DEFAULT '',
	task        TEXT NOT NULL,
	iteration   INTEGER NOT NULL,
	model       TEXT NOT NULL DEFAULT '',
	outcome     TEXT NOT NULL CHECK (outcome IN ('done', 'failed', 'no-signal')),
	duration_ms INTEGER NOT NULL DEFAULT 0,
	cost_usd    REAL NOT NULL DEFAULT 0,
	difficulty  TEXT NOT NULL DEFAULT '',
	failure_id  TEXT NOT NULL DEFAULT '',
	summary     TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	PRIMARY KEY (project, run, task, iteration)
);
-- Attempts at one task, newest first (Previous Attempts, escalation).
CREATE INDEX idx_iterations_task ON iterations(project, task, created_at);
-- Recent iterations of a project (success rate, loop status).
CREATE INDEX idx_iterations_recent ON iterations(project, created_at);

-- Old iterations folded into totals by project, task, model and outcome
-- (cairn loop prune): what model choice still needs of them.
CREATE TABLE iteration_totals (
	project     TEXT NOT NULL,
	task        TEXT NOT NULL,
	model       TEXT NOT NULL,
	outcome     TEXT NOT NULL,
	count       INTEGER NOT NULL,
	duration_ms INTEGER NOT NULL,
	cost_usd    REAL NOT NULL,
	first_at    INTEGER NOT NULL,
	last_at     INTEGER NOT NULL,
	PRIMARY KEY (project, task, model, outcome)
);
