#!/usr/bin/env bash
# bench/client.sh [REV] [N] — whole-process search, context and hook
# latency with `cairn serve` running, for the current tree and for the
# cairn of git revision REV (default: the last revision whose CLI forwarded
# its arguments to the server, 1a35301), each against its own server over
# its own import of one corpus of N generated memories (default 100000).
# Each binary also runs its server, as in use: a binary that another
# process runs starts faster.
# The binaries run in turn on each query (timeit's "::"), so that
# all see the same inputs and the same machine load, and every measured
# call asks a query its server has not been asked before (a prompt seldom
# comes twice): each figure of each round has its own slice of distinct
# generated queries. `cairn version` of each is measured in every round:
# the start-up floor the figures stand beside. Before the rounds the
# servers answer WARM other queries (default 300), as a server that has
# run beside an agent for a while has. Each server's first cleanup check
# comes a minute after it starts, on every side alike.
#
# Environment: RUNS (measured runs per figure and round, default 100),
# ROUNDS (default 3), WARM (default 300), KEEP=1 keeps the temporary
# folder. Prints medians
# and p99 per binary, over all rounds.
set -euo pipefail
export LC_ALL=C

REV=${1:-1a35301}
N=${2:-100000}
RUNS=${RUNS:-100}
ROUNDS=${ROUNDS:-3}
WARMUP=5
FIGURES=4 # search, context, hook, pretool: each takes its own queries
WARM=${WARM:-300}
QUERIES=$((ROUNDS * FIGURES * (RUNS + WARMUP)))
NOW=2026-11-01T00:00:00Z
PROJECT=bench

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cairn-client.XXXXXX")
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [[ ${KEEP:-} == 1 ]]; then echo "bench: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
. bench/lib.sh # step

step "building the current cairn and that of $REV"
CGO_ENABLED=0 go build -o "$WORK/new" ./cmd/cairn
mkdir -p "$WORK/old-src"
git archive "$REV" | tar -x -C "$WORK/old-src"
(cd "$WORK/old-src" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -o "$WORK/old" ./cmd/cairn)
go build -o "$WORK/gen" ./bench/gen
go build -o "$WORK/timeit" ./bench/timeit

step "generating and importing $N memories"
"$WORK/gen" -n "$N" -project "$PROJECT" -seed 1 -now "$NOW" >"$WORK/corpus.jsonl"
# Distinct queries: the generator repeats some, so ask for more and keep
# the first occurrence of each.
"$WORK/gen" -queries $((QUERIES * 2)) -seed 2 -project "$PROJECT" >"$WORK/generated.txt"
awk -v n="$QUERIES" '!seen[$0]++ { print; if (++k == n) exit }' "$WORK/generated.txt" >"$WORK/queries.txt"
(($(wc -l <"$WORK/queries.txt") == QUERIES)) || { echo "bench: fewer than $QUERIES distinct queries" >&2; exit 1; }
# Each binary imports the corpus itself: an older cairn cannot open a
# database whose schema a newer one migrated.
for b in old new; do
	"$WORK/$b" --db "$WORK/$b.db" --project "$PROJECT" import "$WORK/corpus.jsonl" >/dev/null
done

for b in old new; do
	"$WORK/$b" --db "$WORK/$b.db" --project "$PROJECT" serve --addr off >"$WORK/$b.serve.log" 2>&1 &
	PIDS+=($!)
done
for b in old new; do
	for _ in $(seq 200); do [[ -S "$WORK/$b.db.sock" ]] && break; sleep 0.05; done
	[[ -S "$WORK/$b.db.sock" ]] || { cat "$WORK/$b.serve.log" >&2; exit 1; }
done
mkdir -p "$WORK/$PROJECT"
printf '{"session_id":"bench-session","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"{}"}\n' "$WORK" "$WORK/$PROJECT" >"$WORK/hook.json"
printf '{"session_id":"bench-tools","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"{}","description":"run it"},"tool_use_id":"toolu_bench"}\n' "$WORK" "$WORK/$PROJECT" >"$WORK/pretool.json"

# measure WHAT QUERIES [TIMEIT FLAGS] -- ARGS...: runs `old ARGS` and
# `new ARGS` in turn over the QUERIES file and appends each one's summary
# to WORK/old.WHAT and WORK/new.WHAT.
measure() {
	local what=$1 queries=$2
	shift 2
	local flags=()
	while [[ $1 != -- ]]; do
		flags+=("$1")
		shift
	done
	shift
	local old=() new=()
	for a in "$@"; do
		old+=("${a//@BIN@/old}")
		new+=("${a//@BIN@/new}")
	done
	"$WORK/timeit" -runs "$RUNS" -warmup "$WARMUP" -json -each "$queries" "${flags[@]}" -- "${old[@]}" :: "${new[@]}" >"$WORK/pair"
	sed -n 1p "$WORK/pair" >>"$WORK/old.$what"
	sed -n 2p "$WORK/pair" >>"$WORK/new.$what"
}
# The servers answer WARM queries (search and context) of their own
# before the rounds: a server that has run for a while, as one next to an
# agent has, keeps the postings it read in memory.
step "warming the servers with $WARM other queries"
"$WORK/gen" -queries $((WARM * 2)) -seed 3 -project "$PROJECT" >"$WORK/warm-generated.txt"
awk -v n="$WARM" 'NR == FNR { seen[$0] = 1; next } !seen[$0]++ { print; if (++k == n) exit }' \
	"$WORK/queries.txt" "$WORK/warm-generated.txt" >"$WORK/warm.txt"
for b in old new; do
	for what in "search --" "context --prompt"; do
		# shellcheck disable=SC2086 # what is two words on purpose
		"$WORK/timeit" -runs "$WARM" -warmup 0 -each "$WORK/warm.txt" -- "$WORK/$b" --db "$WORK/$b.db" --project "$PROJECT" --now "$NOW" $what '{}' >/dev/null
	done
done
slice=0
for r in $(seq "$ROUNDS"); do
	step "round $r of $ROUNDS"
	G=("$WORK/@BIN@" --db "$WORK/@BIN@.db" --project "$PROJECT" --now "$NOW")
	measure version "$WORK/queries.txt" -- "$WORK/@BIN@" version
	for what in search context hook pretool; do
		q=$WORK/queries.$what.$r
		sed -n "$((slice * (RUNS + WARMUP) + 1)),$(((slice + 1) * (RUNS + WARMUP)))p" "$WORK/queries.txt" >"$q"
		slice=$((slice + 1))
		case $what in
		search) measure search "$q" -- "${G[@]}" search -- '{}' ;;
		context) measure context "$q" -- "${G[@]}" context --prompt '{}' ;;
		hook) measure hook "$q" -stdin "$WORK/hook.json" -- "${G[@]}" hook claude user-prompt-submit ;;
		pretool) measure pretool "$q" -stdin "$WORK/pretool.json" -- "${G[@]}" hook claude pre-tool-use ;;
		esac
	done
done

# The median over rounds of each round's median (and p99).
median_field() { # NAME FILE: the median of a figure over the rounds in FILE
	sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p" "$2" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf 'load average %s; %d rounds of %d runs; N=%d\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$ROUNDS" "$RUNS" "$N"
printf '%-34s %-24s %-24s\n' "median (p99), ms" "forwarding ($REV)" "client (this tree)"
for what in version search context hook pretool; do
	case $what in
	version) label="cairn version (start-up floor)" ;;
	search) label="cairn search" ;;
	context) label="cairn context --prompt" ;;
	hook) label="hook user-prompt-submit" ;;
	pretool) label="hook pre-tool-use (Bash)" ;;
	esac
	row=()
	for b in old new; do
		f=$WORK/$b.$what
		row+=("$(printf '%.2f (%.1f)' "$(median_field median_ms "$f")" "$(median_field p99_ms "$f")")")
	done
	printf '%-34s %-24s %-24s\n' "$label" "${row[0]}" "${row[1]}"
done
