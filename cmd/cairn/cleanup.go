package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runCleanup(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "cleanup", "[--dry-run|--apply] [--json]")
	apply := fs.Bool("apply", false, "do it: remove expired and low-value memories and decay unused ones (default: only say what would happen)")
	dryRun := fs.Bool("dry-run", false, "only say what would happen (the default)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *apply && *dryRun {
		return usagef("cleanup: give --dry-run or --apply, not both")
	}
	if len(pos) > 0 {
		return usagef("cleanup: unexpected argument %q (see `cairn help cleanup`)", pos[0])
	}
	// A dry run only reads: with no database there is nothing to clean.
	var rep *cairn.MaintenanceReport
	access := readDB
	if *apply {
		access = writeDB
	}
	err = m.withService(ctx, g, access, func(svc cairn.App) error {
		var err error
		rep, err = svc.Maintain(ctx, g.project, *apply)
		return err
	})
	switch {
	case errIsNoDatabase(err):
		rep = &cairn.MaintenanceReport{Project: g.project, Items: []cairn.MaintenanceItem{}}
		if clock, _ := g.clock(); clock != nil {
			rep.At = clock()
		}
	case err != nil:
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.FromMaintenance(rep))
	}
	printCleanup(m.Stdout, rep)
	return nil
}

// cleanupVerbs are the words for each action: what a dry run would do,
// and what --apply did.
var cleanupVerbs = map[string][2]string{
	cairn.ActionExpired: {"expire", "expired"},
	cairn.ActionDeleted: {"delete", "deleted"},
	cairn.ActionDecayed: {"decay", "decayed"},
}

// printCleanup prints one memory a line with the reason under it, then a
// summary.
func printCleanup(w io.Writer, rep *cairn.MaintenanceReport) {
	tense := 0
	if rep.Applied {
		tense = 1
	}
	for _, it := range rep.Items {
		fmt.Fprintf(w, "%-8s %-20s  %-12s %s\n", cleanupVerbs[it.Action][tense], it.MemoryID, it.Type, clip(it.Title, 70))
		fmt.Fprintf(w, "         %s\n", it.Reason)
	}
	var parts []string
	for _, c := range []struct {
		n      int
		action string
	}{{rep.Expired, cairn.ActionExpired}, {rep.Deleted, cairn.ActionDeleted}, {rep.Decayed, cairn.ActionDecayed}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", cleanupVerbs[c.action][tense], c.n))
		}
	}
	kept := ""
	if rep.Pinned > 0 {
		kept = fmt.Sprintf(" (%s left alone: pinned)", memories(rep.Pinned))
	}
	switch {
	case len(parts) == 0:
		fmt.Fprintf(w, "nothing to clean up in %s%s\n", rep.Project, kept)
	case rep.Applied:
		fmt.Fprintf(w, "%s in %s%s\n", strings.Join(parts, ", "), rep.Project, kept)
	default:
		fmt.Fprintf(w, "dry run: would %s in %s%s; run `cairn cleanup --apply` to do it\n", strings.Join(parts, ", "), rep.Project, kept)
	}
}

func memories(n int) string {
	if n == 1 {
		return "1 memory"
	}
	return fmt.Sprintf("%d memories", n)
}
