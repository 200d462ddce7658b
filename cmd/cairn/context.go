package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

func runContext(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "context", "[flags]")
	prompt := fs.String("prompt", "", "the task or prompt `text` to find relevant memories for")
	limit := fs.Int("limit", 8, "at most `N` relevant memories")
	session := fs.String("session", "", "the current `session`: its own memories are left out")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if strings.TrimSpace(*prompt) == "" {
		return nil
	}
	s, err := m.open(ctx, g, true)
	if err == errNoDatabase {
		return nil
	}
	if err != nil {
		return err
	}
	defer s.Close()
	hits, err := s.eng.Search(ctx, cairn.Query{Project: g.project, Text: *prompt, Limit: *limit, ExcludeSession: *session, ExcludeSuperseded: true})
	if err != nil || len(hits) == 0 {
		return err
	}
	var b strings.Builder
	b.WriteString("## Project Knowledge\n\nLearnings from previous work on this project:\n\n")
	for _, h := range hits {
		fmt.Fprintf(&b, "- [%s] **%s**: %s (id %s)\n", h.Memory.Type, clip(h.Memory.Title, 100), clip(h.Memory.Content, 400), h.Memory.ID)
	}
	_, err = fmt.Fprint(m.Stdout, b.String())
	return err
}
