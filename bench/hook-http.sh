#!/usr/bin/env bash
# bench/hook-http.sh [N] — Claude Code's http hooks against the command
# hooks, in one run over N generated memories (default 100000, generated
# as bench/run.sh does): a warm `cairn serve` answers
#
#   - the http hooks UserPromptSubmit and PreToolUse (a Bash call), timed
#     from clients that keep their connection alive, as Claude Code does
#     (bench/hookload): from 1 session, calls back to back; from 10
#     sessions at once, each sending a call every PACE (50 ms: far more
#     often than an agent, whose hooks come a model turn apart); and from
#     10 sessions back to back, the server kept busy (no budget: on 2
#     cores, 10 calls at once queue);
#   - the machine's paced floor: the same client, paced the same way,
#     against the same route with a call the hooks answer with nothing
#     (PreToolUse of a Read): HTTP, the payload's decoding and the
#     route's checks, no block. A call after idle finds the caches cold
#     (docs/performance.md, "A call after idle"), and this is what the
#     machine charges for that before cairn builds anything. It is
#     information, not a budget: the budget stays p50 ≤ 1 ms;
#   - the same hooks as command hooks, `cairn hook claude EVENT` as a
#     whole process (which hands the event to the server), measured in
#     turn with the start-up floor, `cairn version` (bench/timeit);
#
# every call with a prompt (or command) not asked before, each figure its
# own slice of distinct generated queries. It prints p50 and p99 of each,
# the load average, and the budgets: http hook p50 ≤ 1 ms and p99 ≤ 5 ms
# under 10 sessions; command hook median ≤ the floor + 3 ms. The report
# is also written to bench/out/hook-http.txt.
#
# Environment: RUNS (measured http calls per figure, default 1000), PACE
# (default 50ms),
# CMD_RUNS (measured command hooks per figure, default 200), WARMUP
# (default 100), KEEP=1 keeps the temporary folder.
set -euo pipefail
export LC_ALL=C

N=${1:-100000}
RUNS=${RUNS:-1000}
CMD_RUNS=${CMD_RUNS:-200}
WARMUP=${WARMUP:-100}
PACE=${PACE:-50ms}
NOW=2026-11-01T00:00:00Z
PROJECT=bench

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
case $N in '' | *[!0-9]*)
	echo "usage: bench/hook-http.sh [N]  (N: number of memories, default 100000)" >&2
	exit 2
	;;
esac
. bench/lib.sh
bench_work hook-http
OUT=bench/out
REPORT=$OUT/hook-http.txt
mkdir -p "$OUT"
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
LOAD_START=$(loadavg)

step "building cairn, gen, timeit and hookload into $WORK"
bench_build gen timeit hookload
CAIRN=$WORK/cairn

# Seven http figures and two command figures, each with its own slice of
# distinct queries.
HTTP_SLICE=$((RUNS + WARMUP))
CMD_SLICE=$((CMD_RUNS + 5))
QUERIES=$((7 * HTTP_SLICE + 2 * CMD_SLICE))
step "generating $N memories and $QUERIES distinct queries"
"$WORK/gen" -n "$N" -project "$PROJECT" -seed 1 -now "$NOW" >"$WORK/corpus.jsonl"
"$WORK/gen" -queries $((QUERIES * 3)) -seed 2 -project "$PROJECT" >"$WORK/generated.txt"
awk -v n="$QUERIES" '!seen[$0]++ { print; if (++k == n) exit }' "$WORK/generated.txt" >"$WORK/queries.txt"
(($(wc -l <"$WORK/queries.txt") == QUERIES)) || { echo "bench: fewer than $QUERIES distinct queries" >&2; exit 1; }
at=0
slice() { # NAME COUNT: the next COUNT queries
	sed -n "$((at + 1)),$((at + $2))p" "$WORK/queries.txt" >"$WORK/$1.txt"
	at=$((at + $2))
}
for f in prompt-1 prompt-10 prompt-busy bash-1 bash-10 bash-busy floor-10; do slice "$f" "$HTTP_SLICE"; done
slice cmd-prompt "$CMD_SLICE"
slice cmd-bash "$CMD_SLICE"

DB=$WORK/bench.db
step "importing"
"$CAIRN" --db "$DB" --project "$PROJECT" import "$WORK/corpus.jsonl" >/dev/null

step "starting cairn serve"
"$CAIRN" --db "$DB" --project "$PROJECT" --now "$NOW" serve --addr 127.0.0.1:0 --log "$WORK/serve.log" &
SERVER=$!
URL=
for _ in $(seq 300); do
	URL=$("$CAIRN" --db "$DB" serve status --json 2>/dev/null | sed -n 's/.*"url": *"\([^"]*\)".*/\1/p') && [[ -n $URL ]] && break
	sleep 0.1
done
[[ -n $URL ]] || { cat "$WORK/serve.log" >&2; exit 1; }
CWD=$WORK/$PROJECT
mkdir -p "$CWD"

# http FIGURE EVENT SESSIONS PACE: the http hook from SESSIONS kept-alive
# clients over the figure's queries.
http() {
	local name=UserPromptSubmit
	[[ $2 != prompt ]] && name=PreToolUse
	step "http hook $name, $3 session(s), a call every ${4} each, $RUNS calls"
	"$WORK/hookload" -url "${URL}hooks/claude/$name" -event "$2" -cwd "$CWD" -each "$WORK/$1.txt" \
		-sessions "$3" -pace "$4" -runs "$RUNS" -warmup "$WARMUP" -json -label "$1"
}
H_P1=$(http prompt-1 prompt 1 0s)
H_P10=$(http prompt-10 prompt 10 "$PACE")
H_PB=$(http prompt-busy prompt 10 0s)
H_B1=$(http bash-1 bash 1 0s)
H_B10=$(http bash-10 bash 10 "$PACE")
H_BB=$(http bash-busy bash 10 0s)
H_F10=$(http floor-10 read 10 "$PACE")

printf '{"session_id":"bench-session","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"{}"}\n' "$WORK" "$CWD" >"$WORK/hook.json"
printf '{"session_id":"bench-tools","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"{}","description":"run it"},"tool_use_id":"toolu_bench"}\n' "$WORK" "$CWD" >"$WORK/pretool.json"
# cmd FIGURE PAYLOAD EVENT: the command hook and the floor, in turn.
cmd() {
	step "command hook $3 and cairn version in turn, $CMD_RUNS runs"
	"$WORK/timeit" -runs "$CMD_RUNS" -warmup 5 -json -each "$WORK/$1.txt" -stdin "$WORK/$2" -- \
		"$CAIRN" --db "$DB" --now "$NOW" hook claude "$3" :: "$CAIRN" version
}
cmd cmd-prompt hook.json user-prompt-submit >"$WORK/cmd-prompt.json"
cmd cmd-bash pretool.json pre-tool-use >"$WORK/cmd-bash.json"
C_P=$(sed -n 1p "$WORK/cmd-prompt.json")
F_P=$(sed -n 2p "$WORK/cmd-prompt.json")
C_B=$(sed -n 1p "$WORK/cmd-bash.json")
F_B=$(sed -n 2p "$WORK/cmd-bash.json")
LOAD_END=$(loadavg)

say "cairn http hooks against command hooks, $N memories, $(nproc 2>/dev/null || echo ?) CPUs"
say "load average at start $LOAD_START, at end $LOAD_END"
say ""
say "http hook (keep-alive clients, fresh prompts)                  p50 ms    p99 ms   budget"
row() { # LABEL JSON BUDGETED
	local p50 p99 v=""
	p50=$(field median_ms "$2")
	p99=$(field p99_ms "$2")
	if [[ $3 == 1 ]]; then
		v="p50 ≤ 1: $(verdict "$p50" le 1), p99 ≤ 5: $(verdict "$p99" le 5)"
	fi
	say "$(printf '  %-62s %8.3f  %8.3f   %s' "$1" "$p50" "$p99" "$v")"
}
row "UserPromptSubmit, 1 session, back to back" "$H_P1" 0
row "UserPromptSubmit, 10 sessions, a call every $PACE each" "$H_P10" 1
row "UserPromptSubmit, 10 sessions, back to back" "$H_PB" 0
row "PreToolUse (Bash), 1 session, back to back" "$H_B1" 0
row "PreToolUse (Bash), 10 sessions, a call every $PACE each" "$H_B10" 1
row "PreToolUse (Bash), 10 sessions, back to back" "$H_BB" 0
row "floor: a Read, answered empty, 10 sessions, a call every $PACE" "$H_F10" 0
say ""
say "command hook (whole process, cairn serve running)                median    p99      budget: median ≤ floor + 3 ms"
crow() { # LABEL JSON FLOOR
	local med p99 floor
	med=$(field median_ms "$2")
	p99=$(field p99_ms "$2")
	floor=$(field median_ms "$3")
	say "$(printf '  %-62s %8.3f  %8.3f   floor %.3f, +%.3f: %s' "$1" "$med" "$p99" "$floor" "$(calc "$med - $floor")" "$(verdict "$med" le "$(calc "$floor + 3")")")"
}
crow "cairn hook claude user-prompt-submit" "$C_P" "$F_P"
crow "cairn hook claude pre-tool-use (Bash)" "$C_B" "$F_B"
say "$(printf '  %-62s %8.3f  %8.3f   (measured in turn with each)' "start-up floor: cairn version" "$(field median_ms "$F_P")" "$(field p99_ms "$F_P")")"
