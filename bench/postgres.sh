#!/usr/bin/env bash
# bench/postgres.sh [N] [PROJECTS] — the budgets of a team's shared memory,
# on PostgreSQL and on SQLite in the same run: N generated memories
# (default 1000000) across PROJECTS projects (default 100), each project
# its own corpus (bench/gen, its own ids and seed).
#
#   - import: one import of the whole corpus through the engine into an
#     empty database (open, import, close), memories/s;
#   - search: p50 and p99 of single searches through the engine, limit 10,
#     each in one project, with the postings cache `cairn serve` keeps
#     (resident) and without it (uncached);
#   - 8 writer processes on one project lose nothing, and cairn processes
#     or their server connections killed mid-write lose nothing committed
#     (the tests of cmd/cairn that prove it, run here against the server).
#
# The PostgreSQL server is CAIRN_BENCH_POSTGRES_URL, else
# CAIRN_TEST_POSTGRES_URL; the tables go to schema cairn_bench (dropped
# first). Environment: RUNS (measured searches per figure, default 2000),
# KEEP=1 keeps the temporary folder. Every measured search asks a query
# not asked before (RUNS + 200 distinct generated queries).
#
# Budgets of a team's database: search p50 ≤ 5 ms, p99 ≤ 20
# ms; import ≥ 20,000 memories/s; nothing lost. Whole-process figures are
# not part of this run: see bench/run.sh, whose start-up floor (`cairn
# version`) they stand beside.
set -euo pipefail
export LC_ALL=C

N=${1:-1000000}
PROJECTS=${2:-100}
RUNS=${RUNS:-2000}
PG=${CAIRN_BENCH_POSTGRES_URL:-${CAIRN_TEST_POSTGRES_URL:-}}
if [[ -z $PG ]]; then
	echo "bench/postgres.sh: set CAIRN_BENCH_POSTGRES_URL (or CAIRN_TEST_POSTGRES_URL) to a PostgreSQL database" >&2
	exit 2
fi
if ((N % PROJECTS != 0)); then
	echo "bench/postgres.sh: N ($N) must be a multiple of PROJECTS ($PROJECTS)" >&2
	exit 2
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
. bench/lib.sh
bench_work pgbench
export GOFLAGS=${GOFLAGS:--buildvcs=false}

step "building"
go build -o "$WORK/gen" ./bench/gen
go build -o "$WORK/team" ./bench/team

step "generating $N memories across $PROJECTS projects"
per=$((N / PROJECTS))
for ((i = 0; i < PROJECTS; i++)); do
	p=$(printf 'p%02d' "$i")
	"$WORK/gen" -n "$per" -project "$p" -id-prefix "$p" -seed $((i + 1))
done >"$WORK/corpus.jsonl"
# Distinct queries, 200 to warm up and one for each measured search: a
# query asked again is answered from the searches the engine keeps.
"$WORK/gen" -queries $((2 * (RUNS + 200))) -seed 1000 | awk -v n=$((RUNS + 200)) '!seen[$0]++ && k < n { print; k++ }' >"$WORK/queries.txt"

load0=$(cut -d' ' -f1-3 /proc/loadavg)
step "importing and searching (load average $load0)"
"$WORK/team" -corpus "$WORK/corpus.jsonl" -queries "$WORK/queries.txt" -projects "$PROJECTS" \
	-runs "$RUNS" -sqlite "$WORK/team.db" -postgres "$PG" -schema cairn_bench | tee "$WORK/figures.txt"
load1=$(cut -d' ' -f1-3 /proc/loadavg)

step "writers and crashes"
tests=()
for t in TestBinaryConcurrentWritersOnPostgresLoseNothing TestKilledWritersOnPostgresLoseNothingCommitted; do
	if CAIRN_TEST_POSTGRES_URL=$PG go test -count=1 -run "^$t\$" ./cmd/cairn >"$WORK/$t.log" 2>&1 &&
		! grep -q -- '--- SKIP' "$WORK/$t.log"; then
		tests+=("$t ok")
	else
		tests+=("$t FAILED (see $WORK/$t.log; KEEP=1 keeps it)")
	fi
done

echo
echo "cairn on PostgreSQL and SQLite: $N memories across $PROJECTS projects"
echo "load average: $load0 at the start, $load1 after the measures ($(nproc) CPUs)"
echo
cat "$WORK/figures.txt"
echo
awk '
	$1 == "sqlite" || $1 == "postgres" {
		printf "%-9s import %8s memories/s (budget >= 20000): %s\n", $1, $4, ($4 >= 20000 ? "ok" : "OVER")
		printf "%-9s search resident p50 %.2f ms, p99 %.2f ms (budget 5 / 20): %s\n", $1, $5, $6, ($5 <= 5 && $6 <= 20 ? "ok" : "OVER")
		printf "%-9s search uncached p50 %.2f ms, p99 %.2f ms (budget 5 / 20): %s\n", $1, $7, $8, ($7 <= 5 && $8 <= 20 ? "ok" : "OVER")
		printf "%-9s search repeated (a query asked before, answered from the kept searches) p50 %.2f ms, p99 %.2f ms\n", $1, $11, $12
	}
' "$WORK/figures.txt"
for t in "${tests[@]}"; do echo "$t"; done
