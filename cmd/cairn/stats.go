package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runStats(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "stats", "[--json]")
	asJSON := fs.Bool("json", false, "print as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	var st *cairn.Stats
	var vec *vectorCount
	err := m.withService(ctx, g, readDB, func(svc cairn.App) error {
		var err error
		if st, err = svc.Stats(ctx, g.project); err != nil {
			return err
		}
		vec, err = vectorCoverage(ctx, svc, g.project)
		return err
	})
	switch {
	case errIsNoDatabase(err):
		st = &cairn.Stats{Project: g.project, ByType: map[string]int{}}
	case err != nil:
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, struct {
			wire.Stats
			Database string       `json:"database"`
			Vectors  *vectorCount `json:"vectors,omitempty"`
		}{wire.FromStats(st), g.label(), vec})
	}
	fmt.Fprintf(m.Stdout, "project %s: %s (%s of global scope also visible)\ndatabase %s\n", st.Project, memories(st.Total), memories(st.GlobalTotal), g.label())
	types := make([]string, 0, len(st.ByType))
	for t := range st.ByType {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool {
		if st.ByType[types[i]] != st.ByType[types[j]] {
			return st.ByType[types[i]] > st.ByType[types[j]]
		}
		return types[i] < types[j]
	})
	for _, t := range types {
		fmt.Fprintf(m.Stdout, "  %-16s %d\n", t, st.ByType[t])
	}
	if vec != nil {
		fmt.Fprintf(m.Stdout, "vectors: %d of %d memories embedded with %s (%.0f%%)\n", vec.Embedded, vec.Memories, vec.Model, vec.Percent)
	}
	return nil
}

func runTypes(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "types", "[--json]")
	asJSON := fs.Bool("json", false, "print as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	ps := cairn.DefaultTypes()
	if *asJSON {
		var out []map[string]any
		for _, n := range ps.Names() {
			p := ps[n]
			out = append(out, map[string]any{"name": n, "tier": p.Tier, "ttl_days": int(p.TTL.Hours() / 24),
				"initial_confidence": p.Confidence, "weight": p.Weight, "description": p.Description})
		}
		return writeJSON(m.Stdout, out)
	}
	fmt.Fprintf(m.Stdout, "%-16s %-9s %-8s %s\n", "TYPE", "TIER", "TTL", "DESCRIPTION")
	for _, n := range ps.Names() {
		p := ps[n]
		ttl := "-"
		if p.TTL > 0 {
			ttl = fmt.Sprintf("%dd", int(p.TTL.Hours()/24))
		}
		fmt.Fprintf(m.Stdout, "%-16s %-9s %-8s %s\n", n, p.Tier, ttl, p.Description)
	}
	fmt.Fprintln(m.Stdout, "\nOther type names are allowed (lowercase letters, digits, _ - : . /); they are searched like note.")
	return nil
}

func runVersion(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "version", "")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintf(m.Stdout, "cairn %s\n", versionOf(bi))
	return nil
}

// versionOf describes a build: the module version ("(devel)" for a build
// from a checkout), then the commit it was built from and whether the
// work tree had changes, when the build recorded them (vcs.revision,
// vcs.modified): "(devel) 1310e87c3a2b, modified".
func versionOf(bi *debug.BuildInfo) string {
	v := "(devel)"
	if bi == nil {
		return v
	}
	if bi.Main.Version != "" {
		v = bi.Main.Version
	}
	var rev string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	v += " " + rev[:min(len(rev), 12)]
	if modified {
		v += ", modified"
	}
	return v
}
