package main

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// runConflicts lists the memories that contradict each other, for a
// person to resolve with `cairn supersede`.
func runConflicts(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "conflicts", "[--json]")
	asJSON := fs.Bool("json", false, "print the conflicts as a JSON array of {old, new}")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("conflicts: unexpected argument %q", pos[0])
	}
	var cs []cairn.Conflict
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		cs, err = svc.FindConflicts(ctx)
		return err
	})
	if err != nil && !errIsNoDatabase(err) {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.ConflictsOf(cs))
	}
	if len(cs) == 0 {
		fmt.Fprintln(m.Stderr, "cairn: no conflicts")
		return nil
	}
	for _, c := range cs {
		fmt.Fprintf(termSafe(m.Stdout), "%s  %-10s %s  %s\n", c.Old.ID, c.Old.Type, c.Old.CreatedAt.UTC().Format("2006-01-02"), clip(c.Old.Content, 100))
		fmt.Fprintf(termSafe(m.Stdout), "%s  %-10s %s  %s\n", c.New.ID, c.New.Type, c.New.CreatedAt.UTC().Format("2006-01-02"), clip(c.New.Content, 100))
		fmt.Fprintf(m.Stdout, "  keep the newer: cairn supersede %s %s   keep the older: cairn supersede %s %s\n\n", c.Old.ID, c.New.ID, c.New.ID, c.Old.ID)
	}
	return nil
}
