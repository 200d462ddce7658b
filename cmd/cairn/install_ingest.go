package main

import (
	"fmt"

	"github.com/cairn-dev/cairn/ingest"
	"github.com/cairn-dev/cairn/install"
)

// offerIngest tells a new user how many of the agent's earlier sessions
// of this project are on disk, and the command that reads them: the
// memory then starts with what those sessions taught.
func offerIngest(m *Main, s *install.Setup) {
	if s.Root == "" {
		return
	}
	kind := ingest.Claude
	if s.Agent == install.Codex {
		kind = ingest.Codex
	}
	srcs, err := ingest.Discover(kind, ingest.Where{Home: s.Home, ClaudeDir: m.Getenv("CLAUDE_CONFIG_DIR"), CodexHome: s.CodexHome}, s.Root)
	if err != nil || len(srcs) == 0 {
		return
	}
	what := fmt.Sprintf("%d earlier %s sessions of this project are", len(srcs), map[string]string{ingest.Claude: "Claude Code", ingest.Codex: "Codex"}[kind])
	if len(srcs) == 1 {
		what = fmt.Sprintf("1 earlier %s session of this project is", map[string]string{ingest.Claude: "Claude Code", ingest.Codex: "Codex"}[kind])
	}
	fmt.Fprintf(m.Stdout, "%s on disk: `cairn ingest %s --all` reads what they teach (fixes, decisions, session summaries), once.\n", what, kind)
}
