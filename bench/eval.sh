#!/usr/bin/env bash
# bench/eval.sh — cairn's retrieval and context block on every retrieval set
# of the eval folder, beside the plain-BM25 baselines measured in the same
# run, as one table.
#
#   bench/eval.sh                 # every set: ../shared/eval itself (LoCoMo) and each
#                                 # folder in it with memories.jsonl and queries.jsonl (beam)
#   bench/eval.sh beam            # some sets only ("locomo" names the top folder)
#   bench/eval.sh --no-block      # rankings only, no context block (quicker)
#   CAIRN_BIN=/path/cairn bench/eval.sh   # measure a given binary instead of this tree's
#   KEEP=DIR bench/eval.sh        # keep the rankings, scores and databases in DIR
#
# For each set it imports the memories into a fresh database, runs every
# question through `cairn search --batch` (the DESIGN contract), writes the
# Okapi BM25 and SQLite FTS5-porter rankings with the set's
# bm25_baseline.py, scores all three with its score.py (dev split), and
# measures the 600-token context block with context_quality.py: the share
# of questions whose block holds an evidence memory, and with --foreign the
# share of blocks that are not empty for a question put to another project
# (false fires). bench/evaltable.py prints the table and the targets of
# DESIGN's quality budgets. It measures the defaults: cairn runs in the
# temporary folder with an empty configuration folder, so that no user's
# or project's configuration applies. Nothing of the eval is copied into
# the repository; everything it writes goes to a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
EVAL_DIR="${EVAL_DIR:-../shared/eval}"
BUDGET="${BUDGET:-600}"
block=1
want=()
for a in "$@"; do
  case "$a" in
    --no-block) block=0 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "eval.sh: unknown flag $a (see bench/eval.sh --help)" >&2; exit 2 ;;
    *) want+=("$a") ;;
  esac
done
if [ ! -f "$EVAL_DIR/score.py" ]; then
  echo "eval.sh: no eval data at $EVAL_DIR (set EVAL_DIR)" >&2
  exit 2
fi
EVAL_DIR="$(cd "$EVAL_DIR" && pwd)"
# The sets: the eval folder itself (LoCoMo), then each folder in it that
# holds a retrieval set.
sets=()
[ -f "$EVAL_DIR/queries.jsonl" ] && sets+=("locomo")
for d in "$EVAL_DIR"/*/; do
  d="${d%/}"
  [ -f "$d/queries.jsonl" ] && [ -f "$d/memories.jsonl" ] && sets+=("$(basename "$d")")
done
if [ ${#want[@]} -gt 0 ]; then
  for w in "${want[@]}"; do
    found=0
    for s in "${sets[@]}"; do [ "$s" = "$w" ] && found=1; done
    if [ $found = 0 ]; then
      echo "eval.sh: no set $w in $EVAL_DIR (sets: ${sets[*]})" >&2
      exit 2
    fi
  done
  sets=("${want[@]}")
fi
setdir() { if [ "$1" = locomo ]; then echo "$EVAL_DIR"; else echo "$EVAL_DIR/$1"; fi; }

if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"
  tmp="$(cd "$KEEP" && pwd)"
else
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
fi
cairn="${CAIRN_BIN:-}"
if [ -z "$cairn" ]; then
  cairn="$tmp/cairn"
  CGO_ENABLED=0 go build -o "$cairn" ./cmd/cairn
fi
cairn="$(cd "$(dirname "$cairn")" && pwd)/$(basename "$cairn")"
repo="$(pwd)"
export CAIRN_NO_SERVER=1
# Measure the defaults: no user's or project's configuration applies.
mkdir -p "$tmp/config"
export XDG_CONFIG_HOME="$tmp/config"
cd "$tmp"
start=$SECONDS
for s in "${sets[@]}"; do
  dir="$(setdir "$s")"
  out="$tmp/$s"
  rm -rf "$out"
  mkdir -p "$out"
  echo "# $s: import, search, baselines$([ $block = 1 ] && echo ", block") ..." >&2
  "$cairn" --db "$out/eval.db" import "$dir/memories.jsonl" >/dev/null
  python3 - "$dir/queries.jsonl" > "$out/batch.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    q = json.loads(line)
    print(json.dumps({"qid": q["qid"], "project": q["project"], "query": q["question"],
                      "now": q["asked_at"], "limit": 50}))
PY
  "$cairn" --db "$out/eval.db" search --batch "$out/batch.jsonl" > "$out/cairn.jsonl"
  python3 "$EVAL_DIR/bm25_baseline.py" --data "$dir" --split dev --engines okapi,fts5-porter \
    --dump-dir "$out" >/dev/null
  python3 "$EVAL_DIR/score.py" "$out/cairn.jsonl" "$out/okapi.jsonl" "$out/fts5-porter.jsonl" \
    --data "$dir" --split dev --json "$out/score.json" >/dev/null
  if [ $block = 1 ]; then
    # The two runs read the database only: side by side.
    python3 "$EVAL_DIR/context_quality.py" "$cairn" "$out/eval.db" "$dir" --split dev \
      --budget "$BUDGET" > "$out/block.json" &
    python3 "$EVAL_DIR/context_quality.py" "$cairn" "$out/eval.db" "$dir" --split dev \
      --budget "$BUDGET" --foreign > "$out/foreign.json"
    wait $!
  fi
done
echo "# $(( SECONDS - start )) s; cairn $("$cairn" version 2>/dev/null | head -1)" >&2
args=()
for s in "${sets[@]}"; do args+=("$s=$(setdir "$s")"); done
python3 "$repo/bench/evaltable.py" --budget "$BUDGET" "$tmp" "${args[@]}"
