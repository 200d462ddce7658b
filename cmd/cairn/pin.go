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
	return updateOne(ctx, m, g, name, args, func(*cairn.Memory, cairn.App) cairn.MemoryUpdate {
		return cairn.MemoryUpdate{Pinned: &pin}
	}, func(old, mem *cairn.Memory) string {
		state := name + "ned" // pinned, unpinned
		if old.Pinned == pin {
			return fmt.Sprintf("%s was already %s", mem.ID, state)
		}
		return fmt.Sprintf("%s %s", state, mem.ID)
	})
}

// updateOne is a command that changes one memory, given by id: it finds
// the memory in the project, applies the update that change makes of it,
// and prints the changed memory as JSON (--json) or the line that say
// makes of it.
func updateOne(ctx context.Context, m *Main, g *globals, name string, args []string,
	change func(old *cairn.Memory, svc cairn.App) cairn.MemoryUpdate, say func(old, mem *cairn.Memory) string) error {
	fs := newFlags(m, g, name, "[--json] ID")
	asJSON := fs.Bool("json", false, "print the memory as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s: give one memory id", name)
	}
	var old, mem *cairn.Memory
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		var err error
		if old, err = svc.FindMemoryByID(ctx, pos[0]); err != nil {
			return err
		}
		mem, err = svc.UpdateMemory(ctx, old.ID, change(old, svc))
		return err
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.FromMemory(mem))
	}
	fmt.Fprintln(m.Stdout, say(old, mem))
	return nil
}
