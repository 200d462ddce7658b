package main

import (
	"context"
	"fmt"
	"io"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// runSupersede marks OLD as replaced by NEW: OLD stays stored and
// searchable, but context injection leaves it out.
func runSupersede(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "supersede", "[--json] OLD NEW")
	asJSON := fs.Bool("json", false, "print the superseded memory as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("supersede: give the id of the old memory, then the id of the one that replaces it")
	}
	var old, nw, mem *cairn.Memory
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		var err error
		if old, err = svc.FindMemoryByID(ctx, pos[0]); err != nil {
			return err
		}
		if nw, err = svc.FindMemoryByID(ctx, pos[1]); err != nil {
			return err
		}
		mem, err = svc.UpdateMemory(ctx, old.ID, cairn.MemoryUpdate{SupersededBy: &nw.ID})
		return err
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.FromMemory(mem))
	}
	switch old.SupersededBy {
	case nw.ID:
		fmt.Fprintf(m.Stdout, "%s was already superseded by %s\n", old.ID, nw.ID)
	case "":
		fmt.Fprintf(m.Stdout, "%s is now superseded by %s\n", old.ID, nw.ID)
	default:
		fmt.Fprintf(m.Stdout, "%s is now superseded by %s (was by %s)\n", old.ID, nw.ID, old.SupersededBy)
	}
	return nil
}

// chainLink is one memory of a supersede chain in `show --json`.
type chainLink struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	Title        string    `json:"title"`
	CreatedAt    wire.Time `json:"created_at"`
	SupersededBy string    `json:"superseded_by,omitempty"`
}

// shownMemory is `show --json`: the memory, what it directly supersedes,
// and its whole supersede chain when it has one.
type shownMemory struct {
	*wire.Memory
	Supersedes []string    `json:"supersedes,omitempty"`
	Chain      []chainLink `json:"chain,omitempty"`
}

func showJSON(mem *cairn.Memory, chain []*cairn.Memory) shownMemory {
	out := shownMemory{Memory: wire.FromMemory(mem)}
	out.Supersedes = supersededBy(mem.ID, chain)
	if len(chain) > 1 {
		for _, c := range chain {
			out.Chain = append(out.Chain, chainLink{ID: c.ID, Type: c.Type, Title: c.Title,
				CreatedAt: wire.Time(c.CreatedAt), SupersededBy: c.SupersededBy})
		}
	}
	return out
}

// supersededBy returns the ids in chain that id directly supersedes.
func supersededBy(id string, chain []*cairn.Memory) []string {
	var out []string
	for _, c := range chain {
		if c.SupersededBy == id {
			out = append(out, c.ID)
		}
	}
	return out
}

// printChain prints mem's supersede chain, replaced memories first,
// marking mem; a memory outside any chain prints nothing.
func printChain(w io.Writer, mem *cairn.Memory, chain []*cairn.Memory) {
	if len(chain) < 2 {
		return
	}
	fmt.Fprintf(w, "\nsupersede chain (replaced first):\n")
	for _, c := range chain {
		mark := " "
		if c.ID == mem.ID {
			mark = "*"
		}
		next := ""
		if c.SupersededBy != "" {
			next = "  → " + c.SupersededBy
		}
		fmt.Fprintf(w, "%s %-20s  %s  %s%s\n", mark, c.ID, c.CreatedAt.Format("2006-01-02"), clip(c.Title, 60), next)
	}
}
