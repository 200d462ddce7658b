package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// runPromote is seed 004's manual promotion: a learning that proved
// lasting becomes a pattern (and stops expiring), a project insight
// becomes a global preference.
func runPromote(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "promote", "ID --type TYPE | --scope global")
	var typ, scope optString
	fs.Var(&typ, "type", "the new `type`, e.g. pattern for a learning that proved lasting (expiry follows the type)")
	fs.Var(&scope, "scope", "global: share the memory with every project")
	asJSON := fs.Bool("json", false, "print the promoted memory as JSON")
	newType := fs.Bool("new-type", false, "take --type as a new type even when it is one letter away from a known one")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("promote: give one memory id, then --type TYPE or --scope global")
	}
	if !typ.set && !scope.set {
		return usagef("promote: say what to promote to: --type TYPE, --scope global, or both")
	}
	if scope.set && scope.v != string(cairn.ScopeGlobal) {
		return usagef("promote: --scope can only be global (to narrow a memory's scope, use `cairn edit --scope project`)")
	}
	if typ.set {
		if err := checkTypeNames("promote", typ.v); err != nil {
			return err
		}
	}
	var upd cairn.MemoryUpdate
	if typ.set {
		upd.Type = &typ.v
	}
	if scope.set {
		sc := cairn.ScopeGlobal
		upd.Scope = &sc
	}
	var old, mem *cairn.Memory
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		if err := checkNewType(ctx, svc, g, "promote", typ, *newType); err != nil {
			return err
		}
		var err error
		if old, err = svc.FindMemoryByID(ctx, pos[0]); err != nil {
			return err
		}
		mem, err = svc.UpdateMemory(ctx, old.ID, upd)
		return err
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.FromMemory(mem))
	}
	var changes []string
	if mem.Type != old.Type {
		changes = append(changes, fmt.Sprintf("type %s → %s", old.Type, mem.Type))
	}
	if mem.Scope != old.Scope {
		changes = append(changes, fmt.Sprintf("scope %s → %s", old.Scope, mem.Scope))
	}
	if !mem.ExpiresAt.Equal(old.ExpiresAt) {
		if mem.ExpiresAt.IsZero() {
			changes = append(changes, "no longer expires")
		} else {
			changes = append(changes, "expires "+wire.FormatTime(mem.ExpiresAt))
		}
	}
	if len(changes) == 0 {
		fmt.Fprintf(m.Stdout, "%s is already a %s memory of %s scope; nothing changed\n", mem.ID, mem.Type, mem.Scope)
		return nil
	}
	fmt.Fprintf(m.Stdout, "promoted %s: %s\n", mem.ID, strings.Join(changes, ", "))
	return nil
}
