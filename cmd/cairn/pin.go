package main

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runPin(ctx context.Context, m *Main, g *globals, args []string) error {
	return setPinned(ctx, m, g, "pin", args, true)
}

func runUnpin(ctx context.Context, m *Main, g *globals, args []string) error {
	return setPinned(ctx, m, g, "unpin", args, false)
}

// setPinned pins or unpins one memory: a pinned memory is always injected
// into context, and cleanup never decays nor removes it.
func setPinned(ctx context.Context, m *Main, g *globals, name string, args []string, pin bool) error {
	fs := newFlags(m, g, name, "[--json] ID")
	asJSON := fs.Bool("json", false, "print the memory as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s: give one memory id", name)
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
	mem, err := s.eng.UpdateMemory(ctx, old.ID, cairn.MemoryUpdate{Pinned: &pin})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.FromMemory(mem))
	}
	state := name + "ned" // pinned, unpinned
	if old.Pinned == pin {
		fmt.Fprintf(m.Stdout, "%s was already %s\n", mem.ID, state)
		return nil
	}
	fmt.Fprintf(m.Stdout, "%s %s\n", state, mem.ID)
	return nil
}
