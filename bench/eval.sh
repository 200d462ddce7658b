#!/usr/bin/env bash
# bench/eval.sh — cairn's retrieval and context quality on the LoCoMo eval
# (../shared/eval, format v2, dev split), end to end through the binary,
# beside the plain-BM25 baselines measured in the same run.
#
#   bench/eval.sh            # EVAL_DIR=../shared/eval by default
#
# It builds cairn, imports the memories into a fresh database, runs every
# question through `cairn search --batch` (the DESIGN contract), scores the
# rankings with the eval's own scorer beside SQLite FTS5 `bm25()` (porter)
# and the other baselines, then measures the context block with
# context_quality.py (answer in block; false fires with --foreign).
# Nothing of the eval is copied into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
EVAL_DIR="${EVAL_DIR:-../shared/eval}"
if [ ! -f "$EVAL_DIR/queries.jsonl" ]; then
  echo "eval.sh: no eval data at $EVAL_DIR (set EVAL_DIR)" >&2
  exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cairn" ./cmd/cairn
export CAIRN_NO_SERVER=1
db="$tmp/eval.db"
"$tmp/cairn" --db "$db" import "$EVAL_DIR/memories.jsonl" >/dev/null
python3 - "$EVAL_DIR/queries.jsonl" > "$tmp/batch.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    q = json.loads(line)
    print(json.dumps({"qid": q["qid"], "project": q["project"], "query": q["question"],
                      "now": q["asked_at"], "limit": 50}))
PY
"$tmp/cairn" --db "$db" search --batch "$tmp/batch.jsonl" > "$tmp/cairn.jsonl"
python3 "$EVAL_DIR/bm25_baseline.py" --data "$EVAL_DIR" --split dev --dump-dir "$tmp/baselines" >/dev/null
echo "# retrieval: LoCoMo v2 dev split, categories 1-4 (and 5 apart)"
python3 "$EVAL_DIR/score.py" "$tmp/cairn.jsonl" "$tmp/baselines/fts5-porter.jsonl" \
  "$tmp/baselines/okapi.jsonl" --data "$EVAL_DIR" --split dev |
  sed -e 's#'"$tmp"'/##g'
echo
echo "# context block: 600 tokens, default markdown"
python3 "$EVAL_DIR/context_quality.py" "$tmp/cairn" "$db" "$EVAL_DIR" --split dev --budget 600
echo
python3 "$EVAL_DIR/context_quality.py" "$tmp/cairn" "$db" "$EVAL_DIR" --split dev --budget 600 --foreign
echo
