package main

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// runVerify confirms that a memory still holds: its verified time becomes
// now, so that a context no longer marks it possibly stale until one of
// its files changes again.
func runVerify(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "verify", "[--json] ID")
	asJSON := fs.Bool("json", false, "print the memory as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("verify: give one memory id")
	}
	s, err := m.open(ctx, g, false)
	if err != nil {
		return err
	}
	defer s.Close()
	old, err := s.eng.FindMemoryByID(ctx, pos[0])
	if err != nil {
		return err
	}
	now := s.eng.Now()
	mem, err := s.eng.UpdateMemory(ctx, old.ID, cairn.MemoryUpdate{VerifiedAt: &now})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.FromMemory(mem))
	}
	fmt.Fprintf(m.Stdout, "verified %s at %s\n", mem.ID, wire.FormatTime(mem.VerifiedAt))
	return nil
}
