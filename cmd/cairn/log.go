package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runLog(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "log", "[flags]")
	var actions listFlag
	var after, before timeFlag
	memory := fs.String("memory", "", "only the entries of this memory `id` (deleted memories too)")
	session := fs.String("session", "", "only the entries of this agent `session`")
	fs.Var(&actions, "action", "only these `actions` (comma-separated): "+strings.Join(cairn.Actions(), ", "))
	fs.Var(&after, "after", "only entries at or after this `time` (RFC 3339 or YYYY-MM-DD)")
	fs.Var(&before, "before", "only entries before this `time`")
	limit := fs.Int("limit", 50, "show at most `N` entries, newest first (0: all)")
	asJSON := fs.Bool("json", false, "print the entries as a JSON array")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("log: unexpected argument %q (to see one memory's log, use --memory ID)", pos[0])
	}
	if err := checkActions("log", actions.vals); err != nil {
		return err
	}
	if *limit < 0 {
		return usagef("log: --limit cannot be negative")
	}
	var acts []cairn.Activity
	total := 0
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		id := *memory
		if id != "" {
			// A prefix names a stored memory; the id of a deleted memory
			// is taken as given.
			mem, err := svc.FindMemoryByID(ctx, id)
			switch {
			case err == nil:
				id = mem.ID
			case cairn.ErrorCode(err) != cairn.ENOTFOUND:
				return err
			}
		}
		var err error
		acts, total, err = svc.FindActivity(ctx, cairn.ActivityFilter{
			Project: g.project, MemoryID: id, SessionID: *session, Actions: actions.vals,
			After: after.t, Before: before.t, Limit: *limit,
		})
		return err
	})
	if err != nil && !errIsNoDatabase(err) {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.FromActivity(acts))
	}
	printLog(termSafe(m.Stdout), acts)
	if total > len(acts) {
		fmt.Fprintf(m.Stderr, "cairn: showing the newest %d of %d; use --limit for more\n", len(acts), total)
	}
	return nil
}

// checkActions refuses (usage error) an --action of cmd that is not an
// activity action.
func checkActions(cmd string, actions []string) error {
	for _, a := range actions {
		if !slices.Contains(cairn.Actions(), a) {
			return usagef("%s: --action %q is not one of %s", cmd, a, strings.Join(cairn.Actions(), ", "))
		}
	}
	return nil
}

// printLog prints one entry a line: time, action, memory, session, detail.
func printLog(w io.Writer, acts []cairn.Activity) {
	for _, a := range acts {
		rest := a.Detail
		if a.SessionID != "" {
			rest = strings.TrimSpace("[" + a.SessionID + "] " + rest)
		}
		line := fmt.Sprintf("%-24s  %-10s  %-20s  %s", wire.FormatTime(a.At), a.Action, a.MemoryID, clip(rest, 100))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}
