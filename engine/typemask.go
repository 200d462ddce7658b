package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// A search narrowed to types (the point-of-action block reads pitfalls,
// fixes and decisions only) skips the documents of other types while it
// scores, instead of loading candidates from the store to find their type
// and asking for more when too many were of another type. Each memory's
// type is a term of its document (typeTerm), so the documents of a type
// are that term's postings.

// maxTypeMasks bounds the masks kept (one per partition and set of types
// in use).
const maxTypeMasks = 64

type maskKey struct{ part, types string }

type typeMask struct {
	// other: the documents of other types, from the type terms' postings
	// stamped pstamp.
	pstamp postingsStamp
	other  index.DeadSet
	// skip: other and the dead set of the statistics stamped stamp.
	stamp statsStamp
	skip  index.DeadSet
}

// skipOtherTypes returns dead with every document of the partition whose
// type is not one of types added: the documents a search narrowed to types
// skips. dead is the dead set of ps, types are normalised names. The
// partition must be made by this binary's rules (IndexVersion), whose
// documents hold their type term. A long-lived engine keeps both the
// documents of other types, while the partition's postings stay the same,
// and their union with the dead set, while that stays the same too.
func (e *Engine) skipOtherTypes(ctx context.Context, tx cairn.Tx, ps *cairn.PartitionStats, dead index.DeadSet, types []string) (index.DeadSet, error) {
	sorted := slices.Clone(types)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	key, st, pst := maskKey{ps.Name, strings.Join(sorted, ",")}, stampOf(ps), postingsStampOf(ps)
	var other index.DeadSet
	if c := e.cache; c != nil {
		c.mu.Lock()
		m, ok := c.masks[key]
		c.mu.Unlock()
		if ok && m.stamp == st && m.pstamp == pst {
			return m.skip, nil
		}
		if ok && m.pstamp == pst {
			other = m.other
		}
	}
	if other == nil {
		terms := make([]string, len(sorted))
		for i, t := range sorted {
			terms[i] = typeTerm(t)
		}
		tps, err := e.preparedPostings(ctx, tx, ps, terms)
		if err != nil {
			return nil, err
		}
		words := int((ps.NextDoc + 63) / 64)
		keep := make(index.DeadSet, 0, words)
		for _, p := range tps {
			p.MarkDocs(&keep)
		}
		other = make(index.DeadSet, words)
		for w := range other {
			var k uint64
			if w < len(keep) {
				k = keep[w]
			}
			other[w] = ^k
		}
	}
	skip := make(index.DeadSet, len(other))
	for w := range skip {
		var d uint64
		if w < len(dead) {
			d = dead[w]
		}
		skip[w] = d | other[w]
	}
	if c := e.cache; c != nil {
		c.mu.Lock()
		if c.masks == nil || len(c.masks) >= maxTypeMasks {
			c.masks = map[maskKey]typeMask{}
		}
		c.masks[key] = typeMask{pstamp: pst, other: other, stamp: st, skip: skip}
		c.mu.Unlock()
	}
	return skip, nil
}
