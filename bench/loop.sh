#!/usr/bin/env bash
# bench/loop.sh — iteration memory's budgets: `cairn loop context` with
# 10,000 iterations recorded, whole process with `cairn serve` running,
# beside the start-up floor (`cairn version`) measured in the same run,
# interleaved; and recording in process (Go benchmark).
#
#   bench/loop.sh            # N=10000 RUNS=100 ROUNDS=3
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
RUNS=${RUNS:-100}
ROUNDS=${ROUNDS:-3}
. bench/lib.sh
bench_work loop
bench_build loopgen timeit
step "recording $N iterations"
"$WORK/loopgen" -db "$WORK/loop.db" -n "$N" -project bench
"$WORK/cairn" --db "$WORK/loop.db" --project bench serve >"$WORK/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 50); do [ -S "$WORK/loop.db.sock" ] && break; sleep 0.1; done
echo "# cairn loop context, $N iterations, cairn serve running (medians, ms)"
for r in $(seq "$ROUNDS"); do
  base=$("$WORK/timeit" -runs "$RUNS" -warmup 10 -json -- "$WORK/cairn" version)
  ctx=$("$WORK/timeit" -runs "$RUNS" -warmup 10 -json -- "$WORK/cairn" --db "$WORK/loop.db" --project bench \
    loop context --task 5 --title "make pkg5 tests pass" --files pkg5/file.go)
  b=$(field median_ms "$base"); c=$(field median_ms "$ctx")
  awk -v r="$r" -v b="$b" -v c="$c" -v p99="$(field p99_ms "$ctx")" 'BEGIN {
    d = c - b; printf "round %d: start-up %.2f, loop context %.2f (p99 %.2f): +%.2f over start-up (budget +3): %s\n", r, b, c, p99, d, (d <= 3 ? "PASS" : "FAIL") }'
done
echo "# in process (budget: recording ≤ 5 ms)"
go test -run XXX -bench 'RecordIteration|LoopContext10k' -benchtime 300x ./loop | grep Benchmark
