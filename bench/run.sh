#!/usr/bin/env bash
# bench/run.sh [N] — measure cairn against its performance budgets with N
# generated memories (default 100000) in one project.
#
# Needs Go and bash; python3 only for the optional LoCoMo retrieval eval.
# Prints a report and writes it to bench/out/report.txt. Everything else
# (binaries, corpus, databases) lives in a temporary folder that is removed
# at the end. See bench/README.md for what each figure means.
#
# Every measured run asks a query (or edits a file) that its process and
# the server have not been asked before: each figure has its own slice of
# distinct generated queries, warm-up included, since a long-lived server
# answers a repeated search from the searches it keeps. Each figure is
# measured in turn with `cairn version` (A, floor, floor, A, ...), so that
# its start-up floor is taken under the same load.
#
# Environment: RUNS (measured runs per latency figure, default 200),
# WARMUP (default 10), QUERIES (number of generated queries of the batch
# search, default 200), EVAL_DIR (default ../shared/eval, relative to the
# repository root), KEEP=1 keeps the temporary folder, REUSE_DB=PATH
# copies that database (an import of this corpus of N memories, as an
# earlier run with KEEP=1 left it) instead of importing: for 1,000,000
# memories, whose import takes minutes.
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
# The latency figures' queries: distinct, none of the batch's, a slice of
# WARMUP + RUNS for each figure (slice).
FIGURES=6
PER=$((WARMUP + RUNS))
"$WORK/gen" -queries $((4 * FIGURES * PER + 1000)) -seed 3 -project "$PROJECT" |
	awk -v n=$((FIGURES * PER)) 'NR == FNR { seen[$0] = 1; next } !seen[$0]++ && k < n { print; k++ }' "$WORK/queries.txt" - >"$WORK/distinct.txt"
(($(wc -l <"$WORK/distinct.txt") == FIGURES * PER)) || { echo "bench: fewer than $((FIGURES * PER)) distinct queries" >&2; exit 1; }
SLICE=0
# slice prints the path of the next figure's queries.
slice() {
	local f=$WORK/queries.$SLICE
	sed -n "$((SLICE * PER + 1)),$(((SLICE + 1) * PER))p" "$WORK/distinct.txt" >"$f"
	SLICE=$((SLICE + 1))
	printf '%s\n' "$f"
}

# --- import ----------------------------------------------------------------
DB=$WORK/bench.db
if [[ -n ${REUSE_DB:-} ]]; then
	step "copying $REUSE_DB"
	cp "$REUSE_DB" "$DB"
	IMPORT_S=0 IMPORT_USER=0 IMPORT_SYS=0 IMPORT_RATE=0 IMPORT_CPU=0
	IMPORT_SUMMARY="not imported: a copy of $REUSE_DB"
else
	step "importing"
	TIMEFORMAT='%R %U %S'
	{ time "$CAIRN" --db "$DB" --project "$PROJECT" import "$WORK/corpus.jsonl" >"$WORK/import.out" 2>"$WORK/import.err"; } 2>"$WORK/import.time" ||
		{ cat "$WORK/import.err" >&2; exit 1; }
	read -r IMPORT_S IMPORT_USER IMPORT_SYS <"$WORK/import.time"
	IMPORT_RATE=$(calc "$N / $IMPORT_S")
	IMPORT_CPU=$(calc "$IMPORT_USER + $IMPORT_SYS")
	IMPORT_SUMMARY=$(cat "$WORK/import.out")
fi
DB_BYTES=0
for f in "$DB" "$DB-wal"; do
	[[ -f $f ]] && DB_BYTES=$((DB_BYTES + $(wc -c <"$f")))
done
DB_MB=$(calc "$DB_BYTES / 1048576")

CAIRN_G=("$CAIRN" --db "$DB" --project "$PROJECT" --now "$NOW")

# --- whole-process latency -------------------------------------------------
step "cairn version (process start-up), 100 runs"
BASE=$("$TIMEIT" -runs 100 -warmup 5 -json -- "$CAIRN" version)
# measure NAME QUERIES [TIMEIT FLAGS] -- CMD...: times CMD over QUERIES in
# turn with `cairn version`, and sets NAME to CMD's figures and NAME_FLOOR
# to the floor's.
measure() {
	local name=$1 queries=$2
	shift 2
	local flags=()
	while [[ $1 != -- ]]; do
		flags+=("$1")
		shift
	done
	shift
	"$TIMEIT" -runs "$RUNS" -warmup "$WARMUP" -each "$queries" "${flags[@]}" -json -- "$@" :: "$CAIRN" version >"$WORK/pair"
	printf -v "$name" '%s' "$(sed -n 1p "$WORK/pair")"
	printf -v "${name}_FLOOR" '%s' "$(sed -n 2p "$WORK/pair")"
}
# Standalone: each process opens the database itself.
export CAIRN_NO_SERVER=1
step "cairn search (standalone), $RUNS runs"
measure SEARCH_ALONE "$(slice)" -- "${CAIRN_G[@]}" search -- '{}'
step "cairn context --prompt (standalone), $RUNS runs"
measure CONTEXT_ALONE "$(slice)" -- "${CAIRN_G[@]}" context --prompt '{}'
unset CAIRN_NO_SERVER

# With a resident server (cairn serve): the processes hand it their reads.
step "starting cairn serve"
# On the corpus's clock, as the hooks are (see serve_http in lib.sh).
"$CAIRN" --db "$DB" --project "$PROJECT" --now "$NOW" serve --addr off >"$WORK/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 600); do [[ -S "$DB.sock" ]] && grep -q serving "$WORK/serve.log" && break; sleep 0.05; done
[[ -S "$DB.sock" ]] || { echo "cairn serve did not start:" >&2; cat "$WORK/serve.log" >&2; exit 1; }
sleep 1
IDLE_RSS_KB=$(awk '/^VmRSS/ {print $2}' "/proc/$SERVE_PID/status" 2>/dev/null || echo 0)
step "cairn search (with cairn serve), $RUNS runs"
measure SEARCH "$(slice)" -- "${CAIRN_G[@]}" search -- '{}'
step "cairn context --prompt (with cairn serve), $RUNS runs"
measure CONTEXT "$(slice)" -- "${CAIRN_G[@]}" context --prompt '{}'
step "cairn hook claude user-prompt-submit (with cairn serve), $RUNS runs"
mkdir -p "$WORK/$PROJECT"
printf '{"session_id":"bench-session","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"{}"}\n' "$WORK" "$WORK/$PROJECT" >"$WORK/hook.json"
measure HOOK "$(slice)" -stdin "$WORK/hook.json" -- "${CAIRN_G[@]}" hook claude user-prompt-submit
step "cairn hook claude pre-tool-use, Bash (with cairn serve), $RUNS runs"
printf '{"session_id":"bench-tools","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"{}","description":"run it"},"tool_use_id":"toolu_bench"}\n' "$WORK" "$WORK/$PROJECT" >"$WORK/pretool.json"
measure PRETOOL "$(slice)" -stdin "$WORK/pretool.json" -- "${CAIRN_G[@]}" hook claude pre-tool-use
step "cairn hook claude post-tool-use-failure (with cairn serve), $RUNS runs"
# A failed command whose error no memory holds: the fixes and the other
# memories that read like it are searched.
printf '{"session_id":"bench-failures","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"toolu_bench","error":"Exit code 2\\npanic: {} failed in the worker","is_interrupt":false}\n' "$WORK" "$WORK/$PROJECT" >"$WORK/failure.json"
measure FAILURE "$(slice)" -stdin "$WORK/failure.json" -- "${CAIRN_G[@]}" hook claude post-tool-use-failure
step "cairn hook claude pre-tool-use, Edit (with cairn serve), $RUNS runs over the files memories refer to"
# The files (not globs) the corpus's memories refer to, in first-seen
# order: each edited once.
grep -o '"file_refs":\[[^]]*\]' "$WORK/corpus.jsonl" | grep -o '"[^"]*"' | grep -v '^"file_refs"$' | tr -d '"' |
	{ grep -v '[][*?]' || true; } | awk -v n="$PER" '!seen[$0]++ && c < n { print; c++ }' >"$WORK/files.txt"
(($(wc -l <"$WORK/files.txt") == PER)) || echo "bench: the corpus refers to fewer than $PER files: some are edited twice" >&2
printf '{"session_id":"bench-edits","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"%s/{}","old_string":"a","new_string":"b"},"tool_use_id":"toolu_bench"}\n' "$WORK" "$WORK/$PROJECT" "$WORK/$PROJECT" >"$WORK/preedit.json"
measure PREEDIT "$WORK/files.txt" -stdin "$WORK/preedit.json" -- "${CAIRN_G[@]}" hook claude pre-tool-use
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

# over MEDIAN FLOOR_JSON: what a command adds to the start-up floor
# measured in turn with it (median minus the floor's).
over() { printf '%+.2f' "$(calc "$1 - $(field median_ms "$2")")"; }
# line NAME: a figure's line, its floor and its verdict against floor + 3 ms.
line() {
	local fig=${!1} floor=${1}_FLOOR
	local med
	med=$(field median_ms "$fig")
	say "                   $(fmt_lat "$fig")"
	say "                   floor in turn $(printf '%.2f' "$(field median_ms "${!floor}")") ms; over it: $(over "$med" "${!floor}") ms  $(verdict "$(calc "$med - $(field median_ms "${!floor}")")" le 3)"
}
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
say "queries   generated (2-8 words; common words and rare identifiers): $((WARMUP + RUNS)) distinct ones for each latency figure, each asked once; $QUERIES for the batch"
say ""
if [[ -n ${REUSE_DB:-} ]]; then
	say "import    not measured: $IMPORT_SUMMARY"
else
	say "import    $(printf '%.2f' "$IMPORT_S") s  =  $(printf '%.0f' "$IMPORT_RATE") memories/s      budget >= 20000/s   $(verdict "$IMPORT_RATE" ge 20000)"
	say "          $(printf '%.2f' "$IMPORT_CPU") s CPU (user $IMPORT_USER s + system $IMPORT_SYS s)"
	say "          $IMPORT_SUMMARY"
fi
say "          database $(printf '%.1f' "$DB_MB") MiB after import"
say ""
say "whole-process latency (fork+exec+open+query+exit, $RUNS runs after $WARMUP warm-up, each run a query not asked before;"
say "cpu = median user+system CPU time of the process):"
say "  cairn version    $(fmt_lat "$BASE")   (start-up floor)"
say "  with cairn serve running (the budgets' setting):"
say "  (budget: the median at most 3 ms over the start-up floor measured in turn with it)"
say "  cairn search"
line SEARCH
say "  cairn context --prompt"
line CONTEXT
say "  cairn hook claude user-prompt-submit (payload on stdin)"
line HOOK
say "  cairn hook claude pre-tool-use (a Bash call; payload on stdin)"
line PRETOOL
say "  cairn hook claude post-tool-use-failure (a failed command; payload on stdin)"
line FAILURE
say "  cairn hook claude pre-tool-use (an Edit of a file memories refer to; payload on stdin)"
line PREEDIT
say "  standalone (CAIRN_NO_SERVER=1, each process opens the database):"
say "  cairn search     $(fmt_lat "$SEARCH_ALONE")"
say "  cairn context    $(fmt_lat "$CONTEXT_ALONE")"
# The budgets are 60 and 150 MB (10^6 bytes): 57 and 143 MiB. The idle
# budget is set at 100,000 memories only; above, the idle size is shown
# without a verdict.
IDLE_VERDICT="budget <= 60 MB: $(verdict "$(calc "$IDLE_RSS_KB * 1024 / 1000000")" le 60)"
((N <= 100000)) || IDLE_VERDICT="no idle budget at $N memories"
say "  cairn serve resident memory: idle $(calc "$IDLE_RSS_KB / 1024" | xargs printf '%.0f') MiB ($IDLE_VERDICT); after the runs $(calc "$SERVE_RSS_KB / 1024" | xargs printf '%.0f') MiB (budget <= 150 MB: $(verdict "$(calc "$SERVE_RSS_KB * 1024 / 1000000")" le 150))"
say ""
say "search --batch   $QUERIES queries (limit 10) in one process: $(printf '%.1f' "$B_MED") ms total (median of 5), $(calc "$B_MED / $QUERIES" | xargs printf '%.3f') ms per query"
say "                 $BATCH_LINES result lines, $BATCH_EMPTY with no hit, $BATCH_HITS ids per query on average"
say ""
say "LoCoMo retrieval eval:"
for l in "${EVAL_LINES[@]}"; do say "  $l"; done
say ""
say "total bench time $(printf '%.0f' "$(calc "$END - $START")") s; report written to $REPORT"
[[ ${HOOK_HTTP:-1} == 0 ]] || bench/hook-http.sh "$N" # http hooks beside the command hooks and the floor (HOOK_HTTP=0 skips them)
