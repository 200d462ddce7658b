package main

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn/internal/pgurl"
	"github.com/cairn-dev/cairn/transfer"
)

// runMigrate copies a whole database to another backend. It opens both
// databases itself, never through a server: it administers the files
// (every table, every project), which no project's service offers.
func runMigrate(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "migrate", "--from sqlite:PATH|postgres://… --to postgres://…|sqlite:PATH")
	from := fs.String("from", "", "the database to copy: `sqlite:PATH` (or a path) or a postgres:// URL")
	to := fs.String("to", "", "the database to copy into, created when missing: a postgres:// `URL` or sqlite:PATH")
	fromFile := fs.String("from-file", "", "a `file` whose first line is --from (a URL with its password stays off the command line)")
	toFile := fs.String("to-file", "", "a `file` whose first line is --to")
	batch := fs.Int("batch", 5000, "rows written per transaction")
	quiet := fs.Bool("quiet", false, "print no progress")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		loc  *string
		file string
		name string
	}{{from, *fromFile, "from"}, {to, *toFile, "to"}} {
		if f.file == "" {
			continue
		}
		if *f.loc != "" {
			return usagef("migrate: give --%s or --%s-file, not both", f.name, f.name)
		}
		loc, err := readDBFile(f.file, "--"+f.name+"-file")
		if err != nil {
			return err
		}
		*f.loc = loc
	}
	switch {
	case len(pos) > 0:
		return usagef("migrate: unexpected argument %q (give --from and --to)", pos[0])
	case *from == "" || *to == "":
		return usagef("migrate: give both --from and --to (e.g. --from sqlite:~/.local/share/cairn/cairn.db --to postgres://user@host/db)")
	case *batch <= 0:
		return usagef("migrate: --batch must be positive")
	}
	for _, loc := range []string{*from, *to} {
		if !transfer.IsSQLite(loc) && !pgurl.IsURL(loc) {
			return usagef("migrate: %s is neither sqlite:PATH nor a postgres:// URL", redactURL(loc))
		}
	}
	opts := &transfer.Options{Batch: *batch}
	if !*quiet {
		opts.Progress = m.Stderr
	}
	fmt.Fprintf(m.Stderr, "cairn: migrate: copying %s to %s\n", transfer.Label(*from), transfer.Label(*to))
	rep, err := transfer.Copy(ctx, *from, *to, opts)
	if err != nil {
		return err
	}
	for _, t := range rep.Tables {
		fmt.Fprintf(m.Stdout, "%-16s %d rows (checked: %d in the target)\n", t.Name, t.Source, t.Target)
	}
	return nil
}
