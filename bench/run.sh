#!/usr/bin/env bash
# bench/run.sh [N] — measure cairn against its performance budgets with N
# generated memories (default 100000) in one project.
#
# Needs Go and bash; python3 only for the optional LoCoMo retrieval eval.
# Prints a report and writes it to bench/out/report.txt. Everything else
# (binaries, corpus, databases) lives in a temporary folder that is removed
# at the end. See bench/README.md for what each figure means.
#
# Environment: RUNS (measured runs per latency figure, default 200),
# WARMUP (default 10), QUERIES (number of generated queries, default 200),
# EVAL_DIR (default ../shared/eval, relative to the repository root),
# KEEP=1 keeps the temporary folder.
set -euo pipefail
export LC_ALL=C

N=${1:-100000}
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-10}
QUERIES=${QUERIES:-200}
NOW=2026-11-01T00:00:00Z
PROJECT=bench

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
EVAL_DIR=${EVAL_DIR:-../shared/eval}

case $N in '' | *[!0-9]*)
	echo "usage: bench/run.sh [N]  (N: number of memories, default 100000)" >&2
	exit 2
	;;
esac
if ((RUNS < 100)); then
	echo "bench: RUNS must be at least 100" >&2
	exit 2
fi

if ! command -v go >/dev/null 2>&1; then
	echo "bench: go is not on PATH" >&2
	exit 1
fi

OUT=bench/out
REPORT=$OUT/report.txt
mkdir -p "$OUT"
: >"$REPORT"
. bench/lib.sh
bench_work bench

# say prints a report line and appends it to the report file; progress
# goes to standard error and stays out of the report.
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

START=$(now_s)
LOAD_START=$(loadavg)

# --- build -----------------------------------------------------------------
step "building cairn and the bench tools into $WORK"
CGO_ENABLED=0 go build -o "$WORK/cairn" ./cmd/cairn
go build -o "$WORK/gen" ./bench/gen
go build -o "$WORK/timeit" ./bench/timeit
CAIRN=$WORK/cairn
TIMEIT=$WORK/timeit

# --- corpus and queries ----------------------------------------------------
step "generating $N memories"
t0=$(now_s)
"$WORK/gen" -n "$N" -project "$PROJECT" -seed 1 -now "$NOW" >"$WORK/corpus.jsonl"
t1=$(now_s)
GEN_S=$(calc "$t1 - $t0")
CORPUS_MB=$(calc "$(wc -c <"$WORK/corpus.jsonl") / 1048576")
"$WORK/gen" -queries "$QUERIES" -seed 2 -project "$PROJECT" >"$WORK/queries.txt"
"$WORK/gen" -queries "$QUERIES" -seed 2 -project "$PROJECT" -batch -now "$NOW" -limit 10 >"$WORK/batch.jsonl"

# --- import ----------------------------------------------------------------
DB=$WORK/bench.db
step "importing"
TIMEFORMAT='%R %U %S'
{ time "$CAIRN" --db "$DB" --project "$PROJECT" import "$WORK/corpus.jsonl" >"$WORK/import.out" 2>"$WORK/import.err"; } 2>"$WORK/import.time" ||
	{ cat "$WORK/import.err" >&2; exit 1; }
read -r IMPORT_S IMPORT_USER IMPORT_SYS <"$WORK/import.time"
IMPORT_RATE=$(calc "$N / $IMPORT_S")
IMPORT_CPU=$(calc "$IMPORT_USER + $IMPORT_SYS")
IMPORT_SUMMARY=$(cat "$WORK/import.out")
DB_BYTES=0
for f in "$DB" "$DB-wal"; do
	[[ -f $f ]] && DB_BYTES=$((DB_BYTES + $(wc -c <"$f")))
done
DB_MB=$(calc "$DB_BYTES / 1048576")

CAIRN_G=("$CAIRN" --db "$DB" --project "$PROJECT" --now "$NOW")

# --- whole-process latency -------------------------------------------------
step "cairn version (process start-up), 100 runs"
BASE=$("$TIMEIT" -runs 100 -warmup 5 -json -- "$CAIRN" version)
# Standalone: each process opens the database itself.
export CAIRN_NO_SERVER=1
step "cairn search (standalone), $RUNS runs over $QUERIES queries"
SEARCH_ALONE=$("$TIMEIT" -runs "$RUNS" -warmup "$WARMUP" -each "$WORK/queries.txt" -json -- "${CAIRN_G[@]}" search -- '{}')
step "cairn context --prompt (standalone), $RUNS runs"
CONTEXT_ALONE=$("$TIMEIT" -runs "$RUNS" -warmup "$WARMUP" -each "$WORK/queries.txt" -json -- "${CAIRN_G[@]}" context --prompt '{}')
unset CAIRN_NO_SERVER

# With a resident server (cairn serve): the processes hand it their reads.
step "starting cairn serve"
"$CAIRN" --db "$DB" --project "$PROJECT" serve --addr off >"$WORK/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 100); do [[ -S "$DB.sock" ]] && break; sleep 0.05; done
[[ -S "$DB.sock" ]] || { echo "cairn serve did not start:" >&2; cat "$WORK/serve.log" >&2; exit 1; }
step "cairn search (with cairn serve), $RUNS runs over $QUERIES queries"
SEARCH=$("$TIMEIT" -runs "$RUNS" -warmup "$WARMUP" -each "$WORK/queries.txt" -json -- "${CAIRN_G[@]}" search -- '{}')
step "cairn context --prompt (with cairn serve), $RUNS runs"
CONTEXT=$("$TIMEIT" -runs "$RUNS" -warmup "$WARMUP" -each "$WORK/queries.txt" -json -- "${CAIRN_G[@]}" context --prompt '{}')
step "cairn hook claude user-prompt-submit (with cairn serve), $RUNS runs"
mkdir -p "$WORK/$PROJECT"
printf '{"session_id":"bench-session","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"{}"}\n' "$WORK" "$WORK/$PROJECT" >"$WORK/hook.json"
HOOK=$("$TIMEIT" -runs "$RUNS" -warmup "$WARMUP" -each "$WORK/queries.txt" -stdin "$WORK/hook.json" -json -- "${CAIRN_G[@]}" hook claude user-prompt-submit)
step "cairn hook claude pre-tool-use, Bash (with cairn serve), $RUNS runs"
printf '{"session_id":"bench-tools","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"{}","description":"run it"},"tool_use_id":"toolu_bench"}\n' "$WORK" "$WORK/$PROJECT" >"$WORK/pretool.json"
PRETOOL=$("$TIMEIT" -runs "$RUNS" -warmup "$WARMUP" -each "$WORK/queries.txt" -stdin "$WORK/pretool.json" -json -- "${CAIRN_G[@]}" hook claude pre-tool-use)
step "cairn hook claude pre-tool-use, Edit (with cairn serve), $RUNS runs over the files memories refer to"
# The files (not globs) the corpus's memories refer to, in first-seen order.
grep -o '"file_refs":\[[^]]*\]' "$WORK/corpus.jsonl" | grep -o '"[^"]*"' | grep -v '^"file_refs"$' | tr -d '"' |
	{ grep -v '[][*?]' || true; } | awk -v n="$QUERIES" '!seen[$0]++ && c < n { print; c++ }' >"$WORK/files.txt"
printf '{"session_id":"bench-edits","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"%s/{}","old_string":"a","new_string":"b"},"tool_use_id":"toolu_bench"}\n' "$WORK" "$WORK/$PROJECT" "$WORK/$PROJECT" >"$WORK/preedit.json"
PREEDIT=$("$TIMEIT" -runs "$RUNS" -warmup "$WARMUP" -each "$WORK/files.txt" -stdin "$WORK/preedit.json" -json -- "${CAIRN_G[@]}" hook claude pre-tool-use)
SERVE_RSS_KB=$(awk '/^VmRSS/ {print $2}' "/proc/$SERVE_PID/status" 2>/dev/null || echo 0)
kill "$SERVE_PID" 2>/dev/null || true
wait "$SERVE_PID" 2>/dev/null || true

# --- batch -----------------------------------------------------------------
step "cairn search --batch over $QUERIES queries"
"${CAIRN_G[@]}" search --batch "$WORK/batch.jsonl" >"$WORK/batch.out"
BATCH_LINES=$(wc -l <"$WORK/batch.out")
BATCH_EMPTY=$(grep -c '"ids":\[\]' "$WORK/batch.out" || true)
BATCH_HITS=$(awk -F'"ids":\\[' '{ n = 0; s = $2; sub(/\].*/, "", s); if (s != "") n = split(s, a, ","); t += n } END { printf "%.1f", (NR ? t / NR : 0) }' "$WORK/batch.out")
BATCH=$("$TIMEIT" -runs 5 -warmup 1 -json -- "${CAIRN_G[@]}" search --batch "$WORK/batch.jsonl")

# --- LoCoMo retrieval eval (optional) --------------------------------------
EVAL_LINES=()
if ! command -v python3 >/dev/null 2>&1; then
	EVAL_LINES+=("skipped: python3 not found")
elif [[ ! -f $EVAL_DIR/memories.jsonl || ! -f $EVAL_DIR/queries.jsonl || ! -f $EVAL_DIR/score.py ]]; then
	EVAL_LINES+=("skipped: no eval data in $EVAL_DIR")
else
	step "LoCoMo eval from $EVAL_DIR"
	EW=$WORK/eval
	mkdir -p "$EW"
	# A failure here is reported, not fatal: the figures above still count.
	set +e
	(
		set -euo pipefail
		"$CAIRN" --db "$EW/eval.db" --project locomo import "$EVAL_DIR/memories.jsonl" >"$EW/import.out"
		python3 - "$EVAL_DIR/queries.jsonl" >"$EW/batch.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if not line.strip():
            continue
        q = json.loads(line)
        print(json.dumps({"qid": q["qid"], "project": q["project"], "query": q["question"],
                          "now": q.get("asked_at") or "", "limit": 50}))
PY
		t0=$(now_s)
		"$CAIRN" --db "$EW/eval.db" --project locomo search --batch "$EW/batch.jsonl" >"$EW/cairn.jsonl"
		t1=$(now_s)
		python3 "$EVAL_DIR/score.py" "$EW/cairn.jsonl" --data "$EVAL_DIR" --json "$EW/score.json" >"$EW/score.txt"
		R10=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["cairn"]["groups"]["overall"]["R@10"])' "$EW/score.json")
		{
			head -n1 "$EW/import.out"
			echo "$(wc -l <"$EW/batch.jsonl" | tr -d ' ') questions answered in $(printf '%.0f' "$(calc "($t1 - $t0) * 1000")") ms (one batch process, limit 50)"
			grep -E '^group' "$EW/score.txt"
			grep -E '^overall' "$EW/score.txt"
			echo "R@10 (categories 1-4): $R10   (BM25 baselines 0.569-0.631; see $EVAL_DIR/README.md)"
		} >"$EW/lines.txt"
	) 2>"$EW/err.txt"
	rc=$?
	set -e
	if ((rc == 0)); then
		mapfile -t EVAL_LINES <"$EW/lines.txt"
	else
		EVAL_LINES+=("failed (exit status $rc): $(tail -n 3 "$EW/err.txt" | tr '\n' ' ')")
	fi
fi

END=$(now_s)
LOAD_END=$(loadavg)

# --- report ----------------------------------------------------------------
fmt_lat() { # JSON
	printf 'median %7.2f ms   p90 %7.2f   p99 %7.2f   min %6.2f   max %7.2f   cpu %6.2f' \
		"$(field median_ms "$1")" "$(field p90_ms "$1")" "$(field p99_ms "$1")" "$(field min_ms "$1")" "$(field max_ms "$1")" "$(field cpu_median_ms "$1")"
}

S_MED=$(field median_ms "$SEARCH")
S_P99=$(field p99_ms "$SEARCH")
C_MED=$(field median_ms "$CONTEXT")
C_P99=$(field p99_ms "$CONTEXT")
H_MED=$(field median_ms "$HOOK")
V_MED=$(field median_ms "$BASE")
# over PAIR: what a command adds to start-up (median minus the floor's).
over() { printf '%+.2f' "$(calc "$1 - $V_MED")"; }
H_P99=$(field p99_ms "$HOOK")
P_MED=$(field median_ms "$PRETOOL")
E_MED=$(field median_ms "$PREEDIT")
B_MED=$(field median_ms "$BATCH")
CPU=$(grep -m1 -E '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
MEM=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || true)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo "?")
if [[ -n $(git status --porcelain 2>/dev/null | head -n1) ]]; then COMMIT="$COMMIT (with uncommitted changes)"; fi

say "cairn benchmark — $N memories in one project"
say "================================================================"
say "date      $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "machine   $(nproc) CPUs, ${CPU:-unknown CPU}, ${MEM:-? memory}, $(uname -sr)"
say "go        $(go version | sed 's/^go version //')"
say "commit    $COMMIT"
say "load avg  $LOAD_START at start, $LOAD_END at end (1/5/15 min; above $(nproc) the figures are inflated)"
say ""
say "corpus    $N memories, $(printf '%.1f' "$CORPUS_MB") MiB JSON Lines, generated in $(printf '%.2f' "$GEN_S") s"
say "queries   $QUERIES generated queries (2-8 words; common words and rare identifiers)"
say ""
say "import    $(printf '%.2f' "$IMPORT_S") s  =  $(printf '%.0f' "$IMPORT_RATE") memories/s      budget >= 20000/s   $(verdict "$IMPORT_RATE" ge 20000)"
say "          $(printf '%.2f' "$IMPORT_CPU") s CPU (user $IMPORT_USER s + system $IMPORT_SYS s)"
say "          $IMPORT_SUMMARY"
say "          database $(printf '%.1f' "$DB_MB") MiB after import"
say ""
say "whole-process latency (fork+exec+open+query+exit, $RUNS runs after $WARMUP warm-up, each run a different query;"
say "cpu = median user+system CPU time of the process):"
say "  cairn version    $(fmt_lat "$BASE")   (start-up floor)"
say "  with cairn serve running (the budgets' setting):"
say "  (budget: the median at most 3 ms over the start-up floor measured in this run)"
say "  cairn search     $(fmt_lat "$SEARCH")"
say "                   over start-up: $(over "$S_MED") ms  $(verdict "$(calc "$S_MED - $V_MED")" le 3)"
say "  cairn context    $(fmt_lat "$CONTEXT")"
say "                   over start-up: $(over "$C_MED") ms  $(verdict "$(calc "$C_MED - $V_MED")" le 3)"
say "  cairn hook claude user-prompt-submit (payload on stdin)"
say "                   $(fmt_lat "$HOOK")"
say "                   over start-up: $(over "$H_MED") ms  $(verdict "$(calc "$H_MED - $V_MED")" le 3)"
say "  cairn hook claude pre-tool-use (a Bash call; payload on stdin)"
say "                   $(fmt_lat "$PRETOOL")"
say "                   over start-up: $(over "$P_MED") ms  $(verdict "$(calc "$P_MED - $V_MED")" le 3)"
say "  cairn hook claude pre-tool-use (an Edit of a file memories refer to; payload on stdin)"
say "                   $(fmt_lat "$PREEDIT")"
say "                   over start-up: $(over "$E_MED") ms  $(verdict "$(calc "$E_MED - $V_MED")" le 3)"
say "  standalone (CAIRN_NO_SERVER=1, each process opens the database):"
say "  cairn search     $(fmt_lat "$SEARCH_ALONE")"
say "  cairn context    $(fmt_lat "$CONTEXT_ALONE")"
# The budget is 150 MB (10^6 bytes): 143 MiB.
say "  cairn serve resident memory after the runs: $(calc "$SERVE_RSS_KB / 1024" | xargs printf '%.0f') MiB RSS   budget <= 150 MB (143 MiB): $(verdict "$(calc "$SERVE_RSS_KB * 1024 / 1000000")" le 150)"
say ""
say "search --batch   $QUERIES queries (limit 10) in one process: $(printf '%.1f' "$B_MED") ms total (median of 5), $(calc "$B_MED / $QUERIES" | xargs printf '%.3f') ms per query"
say "                 $BATCH_LINES result lines, $BATCH_EMPTY with no hit, $BATCH_HITS ids per query on average"
say ""
say "LoCoMo retrieval eval:"
for l in "${EVAL_LINES[@]}"; do say "  $l"; done
say ""
say "total bench time $(printf '%.0f' "$(calc "$END - $START")") s; report written to $REPORT"
