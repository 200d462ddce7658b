# bench/lib.sh — what the bench scripts share; sourced, not run.
#
#   step TEXT             progress on standard error
#   loadavg               the 1, 5 and 15 minute load averages
#   now_s                 seconds since the epoch, with a fraction
#   calc EXPR             a floating-point expression, by awk
#   field NAME JSON       a number of timeit's one-line JSON
#   verdict V le|ge B     PASS or FAIL
#   bench_work NAME       a temporary folder in WORK, removed at exit (kept
#                         with KEEP=1) after the server SERVER (a pid) when
#                         one was started
#   bench_build TOOL...   cairn and the named bench tools, built into WORK
#   bench_corpus N        WORK/corpus.jsonl, N memories of PROJECT written
#                         up to NOW, and WORK/queries.txt, QUERIES queries
#                         (bench/gen, built by bench_build)
#   bench_db              imports the corpus into DB (WORK/bench.db), or
#                         copies REUSE_DB there when set, and
#                         measures the start-up floor into FLOOR (timeit)
#   serve_http DB PROJECT PORT
#                         starts `cairn serve` on 127.0.0.1:PORT, waits until
#                         it answers; sets SERVER and URL (the project's API)

step() { printf 'bench: %s\n' "$*" >&2; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }
now_s() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		printf '%s\n' "$EPOCHREALTIME"
	else
		date +%s.%N
	fi
}
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
field() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p" <<<"$2"; }
verdict() {
	awk -v v="$1" -v b="$3" -v op="$2" 'BEGIN { ok = (op == "le") ? (v + 0 <= b + 0) : (v + 0 >= b + 0); print (ok ? "PASS" : "FAIL") }'
}

SERVER=
bench_cleanup() {
	if [[ -n $SERVER ]]; then
		kill -INT "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
	fi
	if [[ ${KEEP:-} == 1 ]]; then
		echo "bench: kept $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
bench_work() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/cairn-$1.XXXXXX")
	trap bench_cleanup EXIT
}
bench_build() {
	CGO_ENABLED=0 go build -o "$WORK/cairn" ./cmd/cairn
	local t
	for t in "$@"; do
		go build -o "$WORK/$t" "./bench/$t"
	done
}
bench_corpus() { # N
	"$WORK/gen" -n "$1" -project "$PROJECT" -seed 1 -now "$NOW" >"$WORK/corpus.jsonl"
	"$WORK/gen" -queries "$QUERIES" -seed 2 -project "$PROJECT" >"$WORK/queries.txt"
}
bench_db() {
	DB=$WORK/bench.db
	if [[ -n ${REUSE_DB:-} ]]; then
		cp "$REUSE_DB" "$DB"
	else
		"$WORK/cairn" --db "$DB" --project "$PROJECT" import "$WORK/corpus.jsonl" >/dev/null
	fi
	step "start-up floor: cairn version, 100 runs"
	FLOOR=$("$WORK/timeit" -runs 100 -warmup 5 -- "$WORK/cairn" version)
}
serve_http() { # DB PROJECT PORT
	# The server's clock is the corpus's (NOW), as the hooks' is: on the
	# machine's clock, a corpus dated weeks ago would be aged by the first
	# daily cleanup, a minute after the start, in the middle of the runs.
	"$WORK/cairn" --db "$1" --project "$2" --now "$NOW" serve --addr "127.0.0.1:$3" 2>"$WORK/serve.log" &
	SERVER=$!
	URL="http://127.0.0.1:$3/api/projects/$2"
	for _ in $(seq 100); do
		curl -fsS "$URL/stats" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	curl -fsS "$URL/stats" >/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
}
