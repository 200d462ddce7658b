package main

import (
	"context"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runList(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "list", "[flags]")
	var types, tags listFlag
	var after, before timeFlag
	fs.Var(&types, "type", "only these `types` (comma-separated)")
	fs.Var(&tags, "tag", "only memories with all these `tags` (comma-separated)")
	fs.Var(&tags, "tags", "the same as --tag, as add takes it")
	fs.Var(&after, "after", "only memories created at or after this `time` (RFC 3339 or YYYY-MM-DD)")
	fs.Var(&before, "before", "only memories created before this `time`")
	minConf := fs.Float64("min-confidence", 0, "only memories with at least this confidence")
	session := fs.String("session", "", "only memories written in this `session`")
	agent := fs.String("agent", "", "only memories written by this `agent`")
	limit := fs.Int("limit", 50, "show at most `N` memories (0: all)")
	offset := fs.Int("offset", 0, "skip the first `N`")
	sortBy := fs.String("sort", cairn.SortCreatedDesc, "order: created (newest first), oldest, updated, confidence, used, recent, value (confidence × (uses + 1))")
	global := fs.Bool("global", true, "include global-scope memories of other projects")
	asJSON := fs.Bool("json", false, "print the memories as a JSON array")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkTypeNames("list", types.vals...); err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("list: unexpected argument %q (to search, use `cairn search`)", pos[0])
	}
	switch *sortBy {
	case cairn.SortCreatedDesc, cairn.SortCreatedAsc, cairn.SortUpdatedDesc, cairn.SortConfidenceDesc, cairn.SortUsedDesc, cairn.SortLastUsedDesc, cairn.SortValueDesc:
	default:
		return usagef("list: --sort %q is not one of created, oldest, updated, confidence, used, recent, value", *sortBy)
	}
	if *limit < 0 || *offset < 0 {
		return usagef("list: --limit and --offset cannot be negative")
	}
	var mems []*cairn.Memory
	total := 0
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		var err error
		mems, total, err = svc.FindMemories(ctx, cairn.MemoryFilter{
			Project: g.project, IncludeGlobal: *global, Types: types.vals, Tags: tags.vals,
			MinConfidence: *minConf, After: after.t, Before: before.t, Session: *session, Agent: *agent,
			Sort: *sortBy, Limit: *limit, Offset: *offset,
		})
		return err
	})
	if err != nil && !errIsNoDatabase(err) {
		return err
	}
	if *asJSON {
		out := make([]*wire.Memory, 0, len(mems))
		for _, mem := range mems {
			out = append(out, wire.FromMemory(mem))
		}
		return writeJSON(m.Stdout, out)
	}
	printTable(termSafe(m.Stdout), mems)
	if total > len(mems)+*offset {
		fmt.Fprintf(m.Stderr, "cairn: showing %d of %d; use --limit and --offset for more\n", len(mems), total)
	}
	return nil
}

// printTable prints one memory a line: id, type, confidence, title, and
// its marks (see marks).
func printTable(w io.Writer, mems []*cairn.Memory) {
	for _, mem := range mems {
		fmt.Fprintf(w, "%-20s  %-12s %.2f  %s%s\n", mem.ID, mem.Type, mem.Confidence, clip(mem.Title, 90), marks(mem))
	}
}

// marks is what a line of list or search says of a memory beside its
// title: "  [pinned]" and "  [superseded by ID]", or "" for neither.
func marks(m *cairn.Memory) string {
	var s string
	if m.Pinned {
		s += "  [pinned]"
	}
	if m.SupersededBy != "" {
		s += "  [superseded by " + m.SupersededBy + "]"
	}
	return s
}

// clip shortens s to at most n runes (n ≥ 1) on one line: runs of white
// space become one space, leading and trailing space go, and a longer
// text ends with "…" as its nth rune. It reads no more of s than it
// keeps: a memory's content may be long.
func clip(s string, n int) string {
	out := make([]byte, 0, min(len(s), 4*n))
	runes, cut := 0, 0
	space := false
	// put appends one rune's bytes; false when s has more than n runes.
	put := func(p string) bool {
		if runes == n {
			return false
		}
		if runes == n-1 {
			cut = len(out)
		}
		out = append(out, p...)
		runes++
		return true
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && runes < n-1 && !asciiSpace[c] {
			// A plain ASCII character with room for it and one more.
			if space {
				out = append(out, ' ')
				runes++
				space = false
				if runes == n-1 {
					continue // the character may be the last one kept
				}
			}
			out = append(out, c)
			runes++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		p := s[i : i+size]
		i += size
		if unicode.IsSpace(r) {
			space = runes > 0
			continue
		}
		if space && !put(" ") || !put(p) {
			return string(out[:cut]) + "…"
		}
		space = false
	}
	return string(out)
}

// asciiSpace are the ASCII characters unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
