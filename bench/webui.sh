#!/usr/bin/env bash
# bench/webui.sh [N] — measure the web page of `cairn serve` with N
# generated memories (default 100000) in one project:
#   - the page's assets, as sent gzipped (budget ≤ 300 KB);
#   - search as you type, from the server (bench/typing: every prefix of
#     the generated queries, one request at a time; budget p95 ≤ 50 ms);
#   - the first page to interactive in headless Chromium, when
#     CAIRN_TEST_CHROMIUM and CAIRN_TEST_PLAYWRIGHT are set as for the
#     browser test (budget ≤ 300 ms).
# Figures are printed beside the start-up floor (`cairn version`) and the
# load average before and after.
set -euo pipefail
export LC_ALL=C

N=${1:-100000}
QUERIES=${QUERIES:-100}
NOW=2026-11-01T00:00:00Z
PROJECT=bench
PORT=${PORT:-7441}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
case $N in '' | *[!0-9]*)
	echo "usage: bench/webui.sh [N]  (N: number of memories, default 100000)" >&2
	exit 2
	;;
esac
. bench/lib.sh
bench_work webui

step "building"
bench_build gen timeit typing

step "generating and importing $N memories"
bench_corpus "$N"
bench_db

export CAIRN_NO_SERVER=1
serve_http "$DB" "$PROJECT" "$PORT"
BASE="http://127.0.0.1:$PORT"

LOAD_BEFORE=$(loadavg)
SIZE=0
for f in / /ui/app.js /ui/api.js /ui/style.css; do
	SIZE=$((SIZE + $(curl -fsS -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$BASE$f")))
done
step "first page requests, from the server"
FIRST=$("$WORK/timeit" -runs 100 -warmup 5 -- curl -fsS -o /dev/null "$URL/memories?sort=created&global=false&limit=51&offset=0&skip_total=true")
COUNT=$("$WORK/timeit" -runs 100 -warmup 5 -- curl -fsS -o /dev/null "$URL/memories?sort=created&global=false&limit=1")
STATS=$("$WORK/timeit" -runs 100 -warmup 5 -- curl -fsS -o /dev/null "$URL/stats")
step "search as you type"
TYPING=$("$WORK/typing" -url "$URL" -queries "$WORK/queries.txt")
PAGE="(not measured: set CAIRN_TEST_CHROMIUM and CAIRN_TEST_PLAYWRIGHT)"
if [[ -n ${CAIRN_TEST_CHROMIUM:-} && -n ${CAIRN_TEST_PLAYWRIGHT:-} ]]; then
	step "the first page in Chromium"
	PAGE=$(CAIRN_UI_URL="$BASE/" node bench/webui-load.mjs)
fi
LOAD_AFTER=$(loadavg)

echo "web page, $N memories, $(nproc) CPUs"
echo "assets sent gzipped: $SIZE bytes"
echo "$PAGE"
echo "GET /memories, the first page as the page preloads it (whole curl process): $FIRST"
echo "GET /memories, the count that follows it (whole curl process): $COUNT"
echo "GET /stats (whole curl process): $STATS"
echo "$TYPING"
echo "start-up floor (cairn version): $FLOOR"
echo "load average before: $LOAD_BEFORE; after: $LOAD_AFTER"
