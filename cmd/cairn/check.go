package main

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Flag values are checked before anything is opened or written: a value
// that cannot be right is a mistake in how cairn was called (exit 2).

// checkScope refuses a --scope other than project or global.
func checkScope(cmd string, o optString) error {
	if o.set && o.v != string(cairn.ScopeProject) && o.v != string(cairn.ScopeGlobal) {
		return usagef("%s: --scope must be project or global, not %q", cmd, o.v)
	}
	return nil
}

// checkTypeNames refuses --type values that are not type names.
func checkTypeNames(cmd string, types ...string) error {
	for _, t := range types {
		if !cairn.ValidName(strings.ToLower(strings.TrimSpace(t))) {
			return usagef("%s: --type %q is not a type name: use lowercase letters, digits and _ - : . / (see `cairn types`)", cmd, t)
		}
	}
	return nil
}

// checkNewType refuses a type one edit away from a known type (a likely
// typo, see engine.NearType) unless newType says it is meant as new.
func checkNewType(ctx context.Context, svc cairn.App, g *globals, cmd string, typ optString, newType bool) error {
	if !typ.set || newType {
		return nil
	}
	near, err := svc.NearType(ctx, g.project, typ.v)
	if err != nil || near == "" {
		return err
	}
	return usagef("%s: %q is not a known type; did you mean %q? (give --new-type to store it as a new type)", cmd, typ.v, near)
}
