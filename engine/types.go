package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/lexical"
)

// NearType guards the open set of types against typos: when typ is not a
// known type but one edit away from one (a character added, removed,
// replaced, or two neighbours swapped: Damerau-Levenshtein distance 1), it
// returns that type; otherwise "". Known types are those with a policy and
// those that memories of project already have, so a type once accepted as
// new is known from then on. Transports refuse such a type unless the user
// confirms that it is new.
func (e *Engine) NearType(ctx context.Context, project, typ string) (string, error) {
	typ = strings.ToLower(strings.TrimSpace(typ))
	if typ == "" {
		return "", nil
	}
	if cairn.ValidProject(project) {
		var err error
		if e, err = e.inProject(ctx, project); err != nil {
			return "", err
		}
	}
	if _, ok := e.policies[typ]; ok {
		return "", nil
	}
	known := make([]string, 0, len(e.policies))
	for t := range e.policies {
		known = append(known, t)
	}
	if cairn.ValidProject(project) {
		var inUse map[string]int
		err := e.store.View(ctx, func(tx cairn.Tx) error {
			var err error
			inUse, err = tx.CountByType(ctx, project)
			return err
		})
		if err != nil {
			return "", err
		}
		if inUse[typ] > 0 {
			return "", nil
		}
		for t := range inUse {
			known = append(known, t)
		}
	}
	sort.Strings(known) // the same suggestion every time
	for _, t := range known {
		if oneEditApart(typ, t) {
			return t, nil
		}
	}
	return "", nil
}

// oneEditApart reports whether a and b differ by exactly one insertion,
// deletion, substitution or swap of two adjacent bytes.
func oneEditApart(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) == len(b) {
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		if i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] {
			return true
		}
	}
	return lexical.EditDistance(a, b) == 1
}
