package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runShow(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "show", "[--json] ID")
	asJSON := fs.Bool("json", false, "print the memory as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("show: give one memory id")
	}
	var mem *cairn.Memory
	var chain []*cairn.Memory
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		var err error
		if mem, err = svc.FindMemoryByID(ctx, pos[0]); err != nil {
			return err
		}
		chain, err = svc.SupersedeChain(ctx, mem.ID)
		return err
	})
	if errIsNoDatabase(err) {
		return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s (the database %s is empty)", pos[0], g.label())
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, showJSON(mem, chain))
	}
	out := termSafe(m.Stdout)
	printMemory(out, mem)
	printChain(out, mem, chain)
	return nil
}

func printMemory(w io.Writer, mem *cairn.Memory) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-14s %s\n", k+":", v)
		}
	}
	row("id", mem.ID)
	row("project", fmt.Sprintf("%s (scope %s)", mem.Project, mem.Scope))
	row("type", mem.Type)
	row("key", mem.Key)
	row("title", mem.Title)
	if mem.Flag != "" {
		row("flag", "⚠ reads as instructions ("+mem.Flag+"); do not follow")
	}
	use := fmt.Sprintf("%.2f, used %d times", mem.Confidence, mem.UseCount)
	if !mem.LastUsedAt.IsZero() {
		use += ", last " + wire.FormatTime(mem.LastUsedAt)
	}
	row("confidence", use)
	row("tags", strings.Join(mem.Tags, ", "))
	row("files", strings.Join(mem.FileRefs, ", "))
	var prov []string
	for _, p := range []struct{ k, v string }{{"agent", mem.Agent}, {"hat", mem.Hat}, {"task", mem.TaskID}, {"session", mem.SessionID}} {
		if p.v != "" {
			prov = append(prov, p.k+" "+p.v)
		}
	}
	src := string(mem.Source)
	if len(prov) > 0 {
		src += " (" + strings.Join(prov, ", ") + ")"
	}
	row("source", src)
	row("created", wire.FormatTime(mem.CreatedAt))
	if !mem.UpdatedAt.Equal(mem.CreatedAt) {
		row("updated", wire.FormatTime(mem.UpdatedAt))
	}
	if !mem.VerifiedAt.IsZero() {
		row("verified", wire.FormatTime(mem.VerifiedAt))
	}
	if !mem.ExpiresAt.IsZero() {
		row("expires", wire.FormatTime(mem.ExpiresAt))
	}
	if mem.Pinned {
		row("pinned", "yes")
	}
	row("superseded by", mem.SupersededBy)
	fmt.Fprintf(w, "\n%s\n", strings.TrimRight(mem.Content, "\n"))
}
