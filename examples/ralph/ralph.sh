#!/usr/bin/env bash
# A Ralph-style agent loop with iteration memory (cairn loop; seed 003):
# claim a task, ask cairn which model should run it and what earlier
# iterations left for it, run a fresh agent session, record the result,
# repeat. Runnable as it is:
#
#   examples/ralph/ralph.sh [TASKS_FILE]
#
# TASKS_FILE has one task per line: `ID|FILES|TITLE` (FILES comma-separated).
# Without one, the loop works on the two tasks below. Each task is retried
# until it is done, at most MAX_ATTEMPTS times; a task cairn flags for human
# review is skipped.
#
# The agent is Claude Code in print mode (CLAUDE, default `claude`); any
# agent that prints its answer works. The answer ends the task with a line
# `TASK DONE` or `TASK FAILED`; without either the iteration counts as
# no-signal. The answer's <failure-report>, <learning>,
# <difficulty-estimate> and MEMORY: signals are stored by cairn.
#
# Environment: CAIRN (a cairn binary; else the one on PATH, else built from
# this checkout), CAIRN_DB (default: a temporary database), CAIRN_PROJECT
# (default ralph-demo), CLAUDE, MAX_ATTEMPTS (default 4), MAX_ITERATIONS
# (default 5), WORK (the agent's working folder; default a temporary one).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if [ -z "${CAIRN:-}" ]; then
  if command -v cairn >/dev/null 2>&1; then
    CAIRN=cairn
  else
    (cd "$here/../.." && CGO_ENABLED=0 go build -o "$tmp/cairn" ./cmd/cairn)
    CAIRN="$tmp/cairn"
  fi
fi
export CAIRN_DB="${CAIRN_DB:-$tmp/cairn.db}"
export CAIRN_PROJECT="${CAIRN_PROJECT:-ralph-demo}"
CLAUDE="${CLAUDE:-claude}"
MAX_ATTEMPTS="${MAX_ATTEMPTS:-4}"
MAX_ITERATIONS="${MAX_ITERATIONS:-5}"
WORK="${WORK:-$tmp/work}"
mkdir -p "$WORK"

tasks="$tmp/tasks"
if [ -n "${1:-}" ]; then
  cp "$1" "$tasks"
else
  cat >"$tasks" <<'TASKS'
7|sync/client.go|Make the sync client's retries pass TestSyncRetries
8|sync/client.go,sync/server.go|Add a request timeout to the sync client
TASKS
fi

run="ralph-$$"
iteration=0
while IFS='|' read -r task files title; do
  [ -n "$task" ] || continue
  for attempt in $(seq 1 "$MAX_ATTEMPTS"); do
    [ "$iteration" -lt "$MAX_ITERATIONS" ] || break 2
    if "$CAIRN" loop model --task "$task" --json | grep -q '"flagged": true'; then
      echo "=== task $task is flagged for human review: skipped"
      break
    fi
    iteration=$((iteration + 1))
    model="$("$CAIRN" loop model --task "$task" 2>"$tmp/why")"
    echo "=== iteration $iteration: task $task ($title), attempt $attempt, model $model"
    sed 's/^cairn: /    why: /' "$tmp/why"

    # What earlier iterations left for this task, within 4,000 characters.
    "$CAIRN" loop context --task "$task" --title "$title" --files "$files" --iteration "$iteration" >"$tmp/memory.md"
    {
      cat "$tmp/memory.md"
      echo
      echo "Task $task: $title"
      echo "Files: $files"
      echo "End your answer with TASK DONE or TASK FAILED; when it failed, add a <failure-report> (error:, approach:, avoid:)."
    } >"$tmp/prompt.md"

    start=$(date +%s%3N)
    set +e
    (cd "$WORK" && CAIRN_TASK="$task" "$CLAUDE" -p --model "$model" "$(cat "$tmp/prompt.md")") >"$tmp/result.txt" 2>"$tmp/agent.err"
    status=$?
    set -e
    ms=$(($(date +%s%3N) - start))
    sed 's/^/    agent> /' "$tmp/result.txt"

    outcome=no-signal
    if [ "$status" -eq 0 ] && grep -q '^TASK DONE' "$tmp/result.txt"; then
      outcome=done
    elif grep -q '^TASK FAILED' "$tmp/result.txt"; then
      outcome=failed
    fi
    "$CAIRN" loop record --run "$run" --task "$task" --iteration "$iteration" --model "$model" \
      --outcome "$outcome" --duration-ms "$ms" --agent claude --result "$tmp/result.txt" | sed 's/^/    /'
    [ "$outcome" != done ] || break
  done
done <"$tasks"

echo "=== status"
"$CAIRN" loop status
