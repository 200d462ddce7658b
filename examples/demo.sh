#!/usr/bin/env bash
# Builds cairn, stores a small project's memories in a fresh embedded
# database, and shows what an agent would get back. Safe to run anywhere:
# it touches only a temporary folder (or $CAIRN_DB if you set it).
set -euo pipefail
cd "$(dirname "$0")/.."
CGO_ENABLED=0 go build -o bin/cairn ./cmd/cairn
export CAIRN_DB="${CAIRN_DB:-$(mktemp -d)/cairn.db}" CAIRN_PROJECT=demo CAIRN_NOW=2026-11-01T12:00:00Z
run() { echo; echo "\$ cairn $*"; bin/cairn "$@"; }
run import examples/memories.jsonl
run add --type pitfall --tags auth,testing --files internal/auth/session_test.go \
  "TestSessionExpiry needs the fake clock advanced past the 15-minute TTL, not just to it."
run search "flaky auth test"
run search "database is locked" --json --limit 1
run context --prompt "fix the flaky auth test in internal/auth/session_test.go"
run stats
echo
echo "database: $CAIRN_DB"
