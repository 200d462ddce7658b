#!/usr/bin/env bash
# Measures the daily cleanup (decay, expiry, removal of low-value
# memories: `cairn cleanup --apply`, which `cairn serve` runs once a day)
# of one project of N generated memories (default 100000) while C clients
# (default 4) ask for prompt context blocks that record their use, as a
# session's hooks do: how long the cleanup took, how many requests were
# answered during it, and how long they waited (p50, p99, max), with the
# load average before and after.
#
#	bench/cleanup.sh [N]
#
# REUSE_DB=PATH copies that database (an import of bench/gen's corpus, as
# `KEEP=1 bench/run.sh` leaves it) instead of importing; the copy is
# cleaned up, never PATH itself. C sets the clients; RUNS (default 1) how
# many times to clean up a fresh copy. Run from the repository root.
set -euo pipefail
N=${1:-100000}
C=${C:-4}
RUNS=${RUNS:-1}
QUERIES=200
NOW=2026-11-01T00:00:00Z
PROJECT=bench
. bench/lib.sh
bench_work cleanup
bench_build gen maintload
"$WORK/gen" -queries "$QUERIES" -seed 2 -project "$PROJECT" >"$WORK/queries.txt"
if [[ -n ${REUSE_DB:-} ]]; then
	SRC=$REUSE_DB
else
	step "generating and importing $N memories"
	"$WORK/gen" -n "$N" -project "$PROJECT" -seed 1 -now "$NOW" >"$WORK/corpus.jsonl"
	SRC=$WORK/source.db
	"$WORK/cairn" --db "$SRC" --project "$PROJECT" import "$WORK/corpus.jsonl" >/dev/null
fi
for r in $(seq "$RUNS"); do
	cp "$SRC" "$WORK/run.db"
	rm -f "$WORK/run.db-wal" "$WORK/run.db-shm"
	before=$(loadavg)
	out=$("$WORK/maintload" -db "$WORK/run.db" -project "$PROJECT" -queries "$WORK/queries.txt" -c "$C")
	printf 'run %d (load %s → %s)\n%s\n' "$r" "$before" "$(loadavg)" "$out"
	rm -f "$WORK/run.db" "$WORK/run.db-wal" "$WORK/run.db-shm"
done
