package recall_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/conversation"
	"github.com/cairn-dev/cairn/recall"
)

func TestTheMemoryIndexIsSeed001sTree(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return time.Date(2026, 2, 5, 0, 0, 0, 0, time.UTC) })
	for i, c := range []string{"Chose dayjs over moment.js for bundle size", "API uses REST not GraphQL", "Monorepo with pnpm workspaces"} {
		if _, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "decision", Content: c, Agent: []string{"Alice", "", "Bob"}[i]}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	l := conversation.Log{Dir: dir, Project: "p"}
	if err := os.MkdirAll(l.Path(), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"2026-01.jsonl", "2026-02.jsonl", "notes.txt", "2026-13.jsonl"} {
		if err := os.WriteFile(filepath.Join(l.Path(), f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	months := conversation.MonthsNewestFirst(dir, "p")
	if !slices.Equal(months, []string{"2026-02", "2026-01"}) {
		t.Fatalf("months = %v", months)
	}
	b, err := recall.Build(t.Context(), e, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Index: true, Conversations: months})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"├── decision (3)\n│   └ Monorepo with pnpm workspaces by Bob [2026-02-05]\n",
		"│   … 1 more\n",
		"├── (empty: context, issue, preference, task_input, task_result)\n",
		"└── conversations/ (2 months)\n    └ 2026-02\n    └ 2026-01\n",
	} {
		if !strings.Contains(b.Text, want) {
			t.Errorf("the index lacks %q:\n%s", want, b.Text)
		}
	}
	// The session-start block has it when the configuration says so.
	c := cairn.DefaultSettings()
	c.Context.Index = true
	sb, err := recall.Build(t.Context(), e, c, cairn.ContextRequest{Project: "p", Tiers: []string{cairn.ContextStatic}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.Text, "### Memory Index") {
		t.Errorf("session start with context.index:\n%s", sb.Text)
	}
	// Bad months tried: not a month, month 13, too many.
	for _, ms := range [][]string{{"2026-2"}, {"2026-13"}, make([]string, 1201)} {
		if err := recall.CheckMonths(ms); err == nil {
			t.Errorf("%v accepted", ms[:min(len(ms), 2)])
		}
	}
}
