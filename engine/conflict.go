package engine

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/lexical"
)

// Conflict detection, without a model. Two texts contradict each other
// (Contradicts) when they are about the same subject and one negates what
// the other says:
//
//   - the subject is a text's distinct words (stemmed, as for near
//     duplicates) without the words that only carry polarity ("not",
//     "never", "always", "use", "avoid", "enabled", "disabled" …) and
//     without a few function words ("the", "is", "to" …); two subjects
//     are the same when each holds at least 2 words and their Jaccard
//     index is at least ContradictionThreshold;
//   - the polarity of a text is the parity of its negating words ("not",
//     "no", "never", "cannot", "without", "-n't", "avoid", "disable(d)",
//     "forbid(den)", "false", "off", "stop"): "Always use tabs" and "Never
//     use tabs" differ, "Do not disable caching" and "Enable caching" do
//     not.
//
// A new memory is compared with the conflictCandidates memories of its
// project that share most of its words (any type but those that say what
// happened, cairn.FacetEvent: session, fix, failure …), and with
// a memory of another type that has its key. Bulk import and supersede do
// not look for conflicts.
const ContradictionThreshold = 0.75

const conflictCandidates = 8

var polarityWords = sync.OnceValues(func() (neg, pos map[string]bool) {
	stem := func(ws ...string) map[string]bool {
		out := map[string]bool{}
		for _, w := range ws {
			out[lexical.Stem(w)] = true
			out[w] = true
		}
		return out
	}
	neg = stem("not", "no", "never", "nor", "cannot", "without", "none", "avoid", "avoided", "disable", "disabled",
		"forbid", "forbidden", "false", "off", "stop", "dont")
	pos = stem("always", "use", "uses", "used", "enable", "enabled", "allow", "allowed", "true", "on", "must",
		"should", "prefer", "prefers", "do", "does", "did", "the", "a", "an", "is", "are", "be", "to", "of", "for",
		"in", "we", "it", "this", "that", "and", "or", "with")
	return neg, pos
})

// subjectOf is text's subject words and its polarity (true: negated).
func subjectOf(text string) (map[string]bool, bool) {
	neg, pos := polarityWords()
	subj := map[string]bool{}
	negated := false
	for _, w := range nearDupWords(text) {
		switch {
		case neg[w.key] || neg[string(w.raw)]:
			negated = !negated
		case pos[w.key] || pos[string(w.raw)]:
		default:
			subj[w.key] = true
		}
	}
	return subj, negated
}

// Contradicts reports whether texts a and b say opposite things about the
// same subject, by the rule above.
func Contradicts(a, b string) bool {
	sa, na := subjectOf(a)
	sb, nb := subjectOf(b)
	if na == nb || len(sa) < 2 || len(sb) < 2 {
		return false
	}
	both := 0
	for w := range sa {
		if sb[w] {
			both++
		}
	}
	return float64(both)/float64(len(sa)+len(sb)-both) >= ContradictionThreshold
}

// findConflict returns a live memory of m's project that m contradicts,
// or nil.
func (e *Engine) findConflict(ctx context.Context, tx cairn.Tx, m *cairn.Memory, now time.Time) (*cairn.Memory, error) {
	if isEvent(m.Type) {
		return nil, nil
	}
	if m.Key != "" {
		for _, t := range e.policies.Names() {
			if t == m.Type || isEvent(t) {
				continue
			}
			old, err := tx.FindMemoryByKey(ctx, m.Project, t, m.Key)
			switch {
			case err == nil && old.Live(now):
				return old, nil
			case err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND:
				return nil, err
			}
		}
	}
	cands, err := e.similarCandidates(ctx, tx, m, conflictCandidates)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		if c.Project != m.Project || c.ID == m.ID || isEvent(c.Type) || !c.Live(now) {
			continue
		}
		if Contradicts(c.Content, m.Content) {
			return c, nil
		}
	}
	return nil, nil
}

// linkConflict tags the new memory m (not stored yet) and the stored
// memory old as in conflict with each other. old's tags change in place;
// nothing else of it does.
func (e *Engine) linkConflict(ctx context.Context, tx cairn.Tx, b *indexBatch, m, old *cairn.Memory) error {
	m.Tags = addTags(m.Tags, cairn.TagConflict, cairn.ConflictTagPrefix+old.ID)
	n := cloneMemory(old)
	n.Tags = addTags(n.Tags, cairn.TagConflict, cairn.ConflictTagPrefix+m.ID)
	if len(n.Tags) > cairn.MaxTags || len(m.Tags) > cairn.MaxTags {
		return nil // no room to say so: the two stay unlinked
	}
	if err := b.reindex(ctx, tx, old, n); err != nil {
		return err
	}
	return tx.UpdateMemory(ctx, n)
}

func addTags(tags []string, add ...string) []string {
	out := slices.Clone(tags)
	for _, t := range add {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// isEvent reports whether memories of type t say what happened rather
// than what holds (cairn.FacetEvent): they contradict nothing.
func isEvent(t string) bool { return cairn.FacetsOf(t)&cairn.FacetEvent != 0 }
