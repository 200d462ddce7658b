#!/usr/bin/env bash
# bench/rest.sh [N] — measure the REST API of `cairn serve` with N
# generated memories (default 100000) in one project: bench/load runs
# CLIENTS concurrent keep-alive clients (default 8) from a second process
# over loopback for DURATION (default 20s), each GET .../search?q=QUERY,
# and prints requests per second and latency percentiles beside the
# start-up floor (`cairn version`), `cairn serve`'s resident size and the
# load average.
#
# A long-lived server keeps the searches it answered recently (engine:
# searchcache.go), so the figure sends each of DISTINCT (default 300000)
# generated queries at most once (fewer are distinct): every request
# reads the index. Then 10,000 mixed requests (searches, prompts' context
# blocks, and the lookups before a command and after a failure, all of
# queries not asked before) and the server's resident size after them;
# last, QUERIES (default 200) queries in turn, which the server answers
# from the searches it keeps: a repeated query's figure, printed on its
# own line, never the search's.
#
# REUSE_DB=PATH copies that database (an import of this corpus of N
# memories: bench/run.sh's with KEEP=1, or bench/gen's search-N.db with
# CAIRN_BENCH_KEEP) instead of generating and importing the corpus: for
# 1,000,000 memories, whose import takes minutes. SLOW=DURATION (such as
# 200ms) prints each mixed request slower than that, its kind and when it
# was sent, to standard error.
#
# Budgets: at least 5,000 requests/s with p99 ≤ 20 ms at 100,000
# memories (2,000 requests/s, p99 ≤ 20 ms at 1,000,000); `cairn serve`
# resident size ≤ 60 MB idle, ≤ 150 MB after the load.
set -euo pipefail
export LC_ALL=C

N=${1:-100000}
CLIENTS=${CLIENTS:-8}
DURATION=${DURATION:-20s}
QUERIES=${QUERIES:-200}
DISTINCT=${DISTINCT:-300000}
MIXED=${MIXED:-10000}
NOW=2026-11-01T00:00:00Z
PROJECT=bench
PORT=${PORT:-7439}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
case $N in '' | *[!0-9]*)
	echo "usage: bench/rest.sh [N]  (N: number of memories, default 100000)" >&2
	exit 2
	;;
esac
. bench/lib.sh
bench_work rest

step "building"
bench_build gen timeit load

if [[ -n ${REUSE_DB:-} ]]; then
	step "copying $REUSE_DB"
	"$WORK/gen" -queries "$QUERIES" -seed 2 -project "$PROJECT" >"$WORK/queries.txt"
else
	step "generating and importing $N memories"
	bench_corpus "$N"
fi
# Distinct queries, none of the QUERIES in turn: the figure's, then the
# mixed requests'.
"$WORK/gen" -queries "$DISTINCT" -seed 3 -project "$PROJECT" |
	awk 'NR == FNR { seen[$0] = 1; next } !seen[$0]++' "$WORK/queries.txt" - >"$WORK/distinct.all"
head -n "$MIXED" "$WORK/distinct.all" >"$WORK/mixed.txt"
tail -n +"$((MIXED + 1))" "$WORK/distinct.all" >"$WORK/distinct.txt"
bench_db

export CAIRN_NO_SERVER=1
serve_http "$DB" "$PROJECT" "$PORT"
rss() { awk '/VmRSS/ { printf "%.0f MiB", $2 / 1024 }' "/proc/$SERVER/status" 2>/dev/null || echo "?"; }
sleep 1
IDLE_RSS=$(rss)

LOAD_BEFORE=$(loadavg)
step "REST search, queries not asked before: $CLIENTS clients for $DURATION"
FRESH=$("$WORK/load" -url "$URL" -queries "$WORK/distinct.txt" -once -c "$CLIENTS" -d "$DURATION")
FRESH_RSS=$(rss)
step "$MIXED mixed requests, queries not asked before"
MIX=$("$WORK/load" -url "$URL" -queries "$WORK/mixed.txt" -once -mix -n "$MIXED" -warmup 0s ${SLOW:+-slow "$SLOW"} -c "$CLIENTS" -d 10m)
MIX_RSS=$(rss)
step "REST search, $QUERIES queries in turn (repeated): $CLIENTS clients for $DURATION"
REPEATED=$("$WORK/load" -url "$URL" -queries "$WORK/queries.txt" -c "$CLIENTS" -d "$DURATION")
LOAD_AFTER=$(loadavg)

echo "REST search, $N memories, $(nproc) CPUs, each query asked once: $FRESH"
echo "  (budget at 100,000 memories: >= 5000 req/s, p99 <= 20 ms; at 1,000,000: >= 2000 req/s, p99 <= 20 ms)"
echo "$MIXED mixed requests (search, context, the lookups before a command and after a failure), each query asked once: $MIX"
echo "repeated queries ($QUERIES in turn, answered from the searches the server keeps; not the search's figure): $REPEATED"
echo "start-up floor (cairn version): $FLOOR"
# The idle budget is set at 100,000 memories only, as in bench/run.sh.
IDLE_BUDGET="budget <= 60 MB"
((N <= 100000)) || IDLE_BUDGET="no idle budget at $N memories"
echo "cairn serve RSS: idle $IDLE_RSS ($IDLE_BUDGET); after the searches $FRESH_RSS; after the mixed requests $MIX_RSS (budget <= 150 MB)"
echo "load average before: $LOAD_BEFORE; after: $LOAD_AFTER"
