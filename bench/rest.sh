#!/usr/bin/env bash
# bench/rest.sh [N] — measure the REST API of `cairn serve` with N
# generated memories (default 100000) in one project: bench/load runs
# CLIENTS concurrent keep-alive clients (default 8) from a second process
# over loopback for DURATION (default 20s), each GET .../search?q=QUERY
# over the generated queries in turn, and prints requests per second and
# latency percentiles beside the start-up floor (`cairn version`) and the
# load average before and after.
#
# A long-lived server keeps recent searches (engine: searchcache.go), so
# a second run sends DISTINCT (default 5000) generated queries, most of
# them asked once, to show the cost of searches that read the index.
#
# Budget: at least 5,000 requests/s with p99 ≤ 20 ms.
set -euo pipefail
export LC_ALL=C

N=${1:-100000}
CLIENTS=${CLIENTS:-8}
DURATION=${DURATION:-20s}
QUERIES=${QUERIES:-200}
DISTINCT=${DISTINCT:-5000}
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

step "generating and importing $N memories"
bench_corpus "$N"
"$WORK/gen" -queries "$DISTINCT" -seed 3 -project "$PROJECT" >"$WORK/distinct.txt"
bench_db

export CAIRN_NO_SERVER=1
serve_http "$DB" "$PROJECT" "$PORT"

LOAD_BEFORE=$(loadavg)
step "REST search: $CLIENTS clients for $DURATION"
RESULT=$("$WORK/load" -url "$URL" -queries "$WORK/queries.txt" -c "$CLIENTS" -d "$DURATION")
RSS=$(awk '/VmRSS/ {print $2 / 1024 " MiB"}' "/proc/$SERVER/status" 2>/dev/null || echo "?")
step "REST search, $DISTINCT distinct queries: $CLIENTS clients for $DURATION"
DRESULT=$("$WORK/load" -url "$URL" -queries "$WORK/distinct.txt" -c "$CLIENTS" -d "$DURATION" -warmup 0s)
DRSS=$(awk '/VmRSS/ {print $2 / 1024 " MiB"}' "/proc/$SERVER/status" 2>/dev/null || echo "?")
LOAD_AFTER=$(loadavg)

echo "REST search, $N memories, $(nproc) CPUs, $QUERIES queries in turn: $RESULT"
echo "REST search, $(sort -u "$WORK/distinct.txt" | wc -l) distinct queries in turn: $DRESULT"
echo "start-up floor (cairn version): $FLOOR"
echo "cairn serve RSS after the first run: $RSS; after the distinct queries: $DRSS"
echo "load average before: $LOAD_BEFORE; after: $LOAD_AFTER"
