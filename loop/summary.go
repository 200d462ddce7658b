package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Summaries (seed 003's summarization): when the live learnings of the
// loop about one file (those tagged file:PATH), or of one task when they
// name no file, of one type, grow beyond a threshold, they are merged into
// one memory that lists each source's gist and id, and the sources are
// superseded by it: later contexts show the summary, `cairn show` and the
// supersede chain keep every source. The merge needs no model: each
// source's first line, within a size cap.

// DefaultSummarizeAfter is how many live learnings of one group are kept
// apart; one more, and they are summarised.
const DefaultSummarizeAfter = 5

// maxSummaryChars bounds a summary's content.
const maxSummaryChars = 2000

// maxGistChars bounds each source's line in a summary.
const maxGistChars = 200

// summaryTag marks a summary.
const summaryTag = "summary"

// summarize merges the group of learnings that m belongs to when it has
// more than after members (after <= 0: DefaultSummarizeAfter); it returns
// the summary written, or nil.
func summarize(ctx context.Context, svc Service, m *cairn.Memory, after int, now time.Time) (*cairn.WriteResult, error) {
	if after <= 0 {
		after = DefaultSummarizeAfter
	}
	filter := cairn.MemoryFilter{Project: m.Project, Types: []string{m.Type}, Tags: []string{"loop"},
		Sort: cairn.SortCreatedDesc, Limit: 200, SkipTotal: true}
	about := ""
	for _, t := range m.Tags {
		if f, ok := strings.CutPrefix(t, "file:"); ok {
			filter.Tags, about = append(filter.Tags, t), f
			break
		}
	}
	if about == "" {
		if m.TaskID == "" {
			return nil, nil
		}
		filter.Task, about = m.TaskID, "task "+m.TaskID
	}
	found, _, err := svc.FindMemories(ctx, filter)
	if err != nil {
		return nil, err
	}
	var group []*cairn.Memory
	for _, g := range found {
		if g.SupersededBy == "" && g.Live(now) && !g.Pinned {
			group = append(group, g)
		}
	}
	if len(group) <= after {
		return nil, nil
	}
	s := summaryOf(group, about, now)
	res, err := svc.AddMemory(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, g := range group {
		if g.ID == res.Memory.ID {
			continue
		}
		id := res.Memory.ID
		if _, err := svc.UpdateMemory(ctx, g.ID, cairn.MemoryUpdate{SupersededBy: &id}); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// summaryOf is the memory that merges group (newest first): one line per
// source with its id, the union of their tags and files, their highest
// confidence.
func summaryOf(group []*cairn.Memory, about string, now time.Time) *cairn.Memory {
	first := group[0]
	s := &cairn.Memory{Project: first.Project, Type: first.Type, Source: cairn.SourceAutomatic, CreatedAt: now,
		Title: fmt.Sprintf("Summary of %d learnings about %s", len(group), about)}
	if strings.HasPrefix(about, "task ") {
		s.TaskID = first.TaskID
	}
	var b strings.Builder
	for i, g := range group {
		line := fmt.Sprintf("- %s (%s)\n", gist(g), g.ID)
		if b.Len()+len(line) > maxSummaryChars {
			fmt.Fprintf(&b, "- … and %d more, superseded by this summary (cairn show ID)\n", len(group)-i)
			break
		}
		b.WriteString(line)
	}
	s.Content = strings.TrimRight(b.String(), "\n")
	s.Confidence = 0
	for _, g := range group {
		s.Confidence = max(s.Confidence, g.Confidence)
		for _, t := range g.Tags {
			if !slices.Contains(s.Tags, t) && !strings.HasPrefix(t, cairn.ConflictTagPrefix) && t != cairn.TagConflict && len(s.Tags) < cairn.MaxTags-1 {
				s.Tags = append(s.Tags, t)
			}
		}
		for _, f := range g.FileRefs {
			if !slices.Contains(s.FileRefs, f) && len(s.FileRefs) < cairn.MaxFileRefs {
				s.FileRefs = append(s.FileRefs, f)
			}
		}
	}
	if !slices.Contains(s.Tags, summaryTag) {
		s.Tags = append(s.Tags, summaryTag)
	}
	return s
}

// gist is a memory's title, or its content's first line, on one line and
// at most maxGistChars long.
func gist(m *cairn.Memory) string {
	t := m.Title // a summary's says how many it merged; its sources are its chain
	if t == "" {
		t = m.Content
		if i := strings.IndexByte(t, '\n'); i >= 0 {
			t = t[:i]
		}
	}
	t = strings.Join(strings.Fields(t), " ")
	if len(t) > maxGistChars {
		t = cairn.CutBytes(t, maxGistChars) + "…"
	}
	return t
}
