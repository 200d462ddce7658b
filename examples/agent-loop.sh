#!/usr/bin/env bash
# The two-call integration of cairn into any agent loop, runnable as it is:
#
#   before each agent call:  cairn context --prompt "$TASK"  → into the prompt
#   after each agent call:   cairn capture  < the agent's output
#
# The agent here is a stand-in shell function, so the script needs no real
# agent: replace `agent` with your own (claude -p, codex exec, a script
# calling an API …). It uses its own temporary database; nothing of yours
# is touched. Set CAIRN to a cairn binary, else it uses the one on PATH,
# else it builds one from this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -z "${CAIRN:-}" ]; then
  if command -v cairn >/dev/null 2>&1; then
    CAIRN=cairn
  else
    CGO_ENABLED=0 go build -o "$work/cairn" ./cmd/cairn
    CAIRN="$work/cairn"
  fi
fi
db="$work/cairn.db"
cairn() { "$CAIRN" --db "$db" --project agent-loop-demo "$@"; }

# agent PROMPT_FILE TASK: the stand-in. Like a real agent it reads its
# prompt and prints its work; it ends with the signals cairn captures
# (MEMORY:type:content lines and <learning> tags; see capture/doc.go).
agent() {
  local prompt="$1" task="$2"
  echo "Working on: $task"
  if grep -q "vendored protobuf" "$prompt"; then
    echo "The memory says to regenerate with 'make proto'; doing that first. Tests pass."
  else
    echo "go test ./... fails: the vendored protobuf code is stale."
    echo "MEMORY:pitfall:The vendored protobuf code in internal/pb goes stale; run make proto before go test."
    echo '<learning category="convention" tags="build">Generated files live in internal/pb and are never edited by hand.</learning>'
  fi
}

run="run-$$"
tasks=("fix the failing tests in internal/api" "add a field to the user message in internal/pb and make go test pass")
for i in "${!tasks[@]}"; do
  task="${tasks[$i]}"
  n=$((i + 1))
  session="$run-$n" # one agent session per iteration: it sees what earlier ones stored
  echo "=== iteration $n: $task"

  # 1. Before the agent runs: the memories that matter for this task.
  cairn context --prompt "$task" --session "$session" >"$work/memory.md"
  echo "--- context"
  cat "$work/memory.md"
  [ -s "$work/memory.md" ] || echo "(empty: nothing stored yet)"

  # The prompt: cairn's block, then the task.
  { cat "$work/memory.md"; echo; echo "Task: $task"; } >"$work/prompt.md"
  agent "$work/prompt.md" "$task" | tee "$work/output.txt" | sed 's/^/agent> /'

  # 2. After the agent ran: store what its output signals.
  echo "--- capture"
  cairn capture --session "$session" --task "task-$n" --agent stand-in "$work/output.txt"
done
echo "=== done"
