package engine

import (
	"context"
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/lexical"
)

// NearDuplicateThreshold is the similarity ([NearDuplicateSimilarity]) from
// which a new memory without a key is folded into (reinforces) a live
// memory of the same project, scope and type instead of being added.
//
// The similarity is the Jaccard index of the two texts' word sets, where
// words are compared by stem, case-insensitively, and ignoring punctuation,
// and two words of five letters or more also match when one typo (an
// insertion, deletion, substitution or swap of adjacent letters) apart.
// Texts that differ in negation ("not", "never", "no", "-n't", ...) never
// match.
//
// At 0.9 the rule is strict on purpose:
//   - case, punctuation, white space, inflection ("tests"/"test") and typos
//     ("databse") do not matter: "Tests use table-driven subtests with
//     t.Run." and "tests use table driven subtests with t.Run" match;
//   - a text of up to nine distinct words matches only with the same
//     words: "Use t.TempDir() for test databases." and "Use t.TempDir()
//     for temporary files." do not match (0.5), nor does a sentence with an
//     extra clause;
//   - from ten words, one extra word is tolerated (10/11 ≈ 0.91), and from
//     eighteen shared words one changed word (18/20 = 0.9).
//
// Bulk import (Import) does not look for near duplicates: it dedups exact
// (normalised) content only, so that it stays fast.
const NearDuplicateThreshold = 0.9

// Near-duplicate search bounds: the new memory's first nearDupQueryTerms
// distinct index terms are looked up in its partition, and the best
// nearDupCandidates documents are loaded and compared. A near duplicate
// holds at least 90% of the new text's words, so it ranks among the best.
const (
	nearDupCandidates = 5
	nearDupQueryTerms = 32
	fuzzyMinLen       = 5  // shortest word (in letters) a typo may hide in
	fuzzyMaxLen       = 64 // longest word compared letter by letter
)

// findNearDuplicate returns the live memory of m's project, scope and type
// whose content is near-identical to m's (the most similar one, at least
// NearDuplicateThreshold), or nil. It reads the postings of a few of m's
// terms and at most nearDupCandidates memories.
func (e *Engine) findNearDuplicate(ctx context.Context, tx cairn.Tx, m *cairn.Memory, now time.Time) (*cairn.Memory, error) {
	cands, err := e.similarCandidates(ctx, tx, m, nearDupCandidates)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	words := nearDupWords(m.Content)
	var best *cairn.Memory
	bestSim := 0.0
	for _, c := range cands {
		if c.Project != m.Project || c.Scope != m.Scope || c.Type != m.Type || !c.Live(now) {
			continue
		}
		if sim := wordSimilarity(words, nearDupWords(c.Content)); sim >= NearDuplicateThreshold && sim > bestSim {
			best, bestSim = c, sim
		}
	}
	return best, nil
}

// similarCandidates loads the n memories of m's partition that share the
// most of m's first nearDupQueryTerms terms, by BM25.
func (e *Engine) similarCandidates(ctx context.Context, tx cairn.Tx, m *cairn.Memory, n int) ([]*cairn.Memory, error) {
	terms := lexical.QueryTerms(m.Content)
	if len(terms) == 0 {
		return nil, nil
	}
	if len(terms) > nearDupQueryTerms {
		terms = terms[:nearDupQueryTerms]
	}
	part := partitionOf(m)
	stats, err := tx.Partition(ctx, part)
	if err != nil {
		return nil, err
	}
	if stats.Docs == 0 {
		return nil, nil
	}
	dead, err := e.deadSet(stats)
	if err != nil {
		return nil, cairn.WrapError(cairn.EINTERNAL, err, "read the index of %q", part)
	}
	tps, err := e.postings(ctx, tx, stats, terms)
	if err != nil {
		return nil, err
	}
	s := &index.Scorer{Params: e.bm25, Stats: stats, Dead: dead}
	defer s.Release()
	for _, tp := range tps {
		if err := s.Add(tp, 1); err != nil {
			return nil, cairn.WrapError(cairn.EINTERNAL, err, "read the index of %q at term %q", part, tp.Term)
		}
	}
	top := s.Top(n)
	if len(top) == 0 {
		return nil, nil
	}
	docs := make([]int64, len(top))
	for i, sc := range top {
		docs[i] = sc.Doc
	}
	return tx.FindMemoriesByDoc(ctx, part, docs)
}

// NearDuplicateSimilarity returns the similarity of two texts, from 0
// (nothing in common) to 1 (the same words), as described at
// [NearDuplicateThreshold].
func NearDuplicateSimilarity(a, b string) float64 {
	return wordSimilarity(nearDupWords(a), nearDupWords(b))
}

// ndWord is a distinct word of a text: its stem (the comparison key), its
// lowercased letters, and whether it is made of letters only.
type ndWord struct {
	key   string
	raw   []rune
	alpha bool
}

// negations are the words whose presence flips a statement.
var negations = map[string]bool{"not": true, "no": true, "never": true, "nor": true, "cannot": true, "without": true, "none": true}

// nearDupWords cuts text into its distinct words: runs of letters and
// digits, lowercased, ASCII words stemmed. "n't" is the word "not".
func nearDupWords(text string) []ndWord {
	var out []ndWord
	seen := map[string]bool{}
	emit := func(w []rune) {
		if len(w) == 0 {
			return
		}
		raw := string(w)
		alpha, ascii := true, true
		for _, r := range w {
			if !unicode.IsLetter(r) {
				alpha = false
			}
			if r >= utf8.RuneSelf || !unicode.IsLetter(r) {
				ascii = false
			}
		}
		key := raw
		if ascii {
			key = lexical.Stem(raw)
		}
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, ndWord{key: key, raw: []rune(raw), alpha: alpha})
	}
	rs := []rune(text)
	var w []rune
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			w = append(w, unicode.ToLower(r))
			continue
		}
		if (r == '\'' || r == '’') && len(w) > 1 && w[len(w)-1] == 'n' && i+1 < len(rs) && (rs[i+1] == 't' || rs[i+1] == 'T') &&
			(i+2 == len(rs) || !unicode.IsLetter(rs[i+2]) && !unicode.IsDigit(rs[i+2])) {
			emit(w)
			emit([]rune("not"))
			w = w[:0]
			i++ // the t
			continue
		}
		emit(w)
		w = w[:0]
	}
	emit(w)
	return out
}

// wordSimilarity is the Jaccard index of two word sets, matching words by
// key first, then by one typo; 0 when their negations differ.
func wordSimilarity(a, b []ndWord) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inA := make(map[string]bool, len(a))
	for _, x := range a {
		inA[x.key] = true
	}
	inB := make(map[string]bool, len(b))
	for _, y := range b {
		inB[y.key] = true
	}
	for n := range negations {
		if inA[n] != inB[n] {
			return 0
		}
	}
	exact := 0
	var ra, rb []ndWord
	for _, x := range a {
		if inB[x.key] {
			exact++
		} else {
			ra = append(ra, x)
		}
	}
	for _, y := range b {
		if !inA[y.key] {
			rb = append(rb, y)
		}
	}
	union := len(a) + len(b) - exact
	// Even if every leftover word matched by a typo, would it reach the
	// threshold? If not, skip the letter-by-letter comparison.
	f := min(len(ra), len(rb))
	if float64(exact+f)/float64(union-f) < NearDuplicateThreshold {
		return float64(exact) / float64(union)
	}
	used := make([]bool, len(rb))
	fuzzy := 0
	for _, x := range ra {
		for j, y := range rb {
			if !used[j] && oneTypo(x, y) {
				used[j] = true
				fuzzy++
				break
			}
		}
	}
	matched := exact + fuzzy
	return float64(matched) / float64(len(a)+len(b)-matched)
}

// oneTypo reports whether two words of letters, long enough, are at most
// one insertion, deletion, substitution or adjacent swap apart.
func oneTypo(x, y ndWord) bool {
	a, b := x.raw, y.raw
	if !x.alpha || !y.alpha || min(len(a), len(b)) < fuzzyMinLen || max(len(a), len(b)) > fuzzyMaxLen {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return true // equal, or b has one more letter at the end
	}
	if len(a) == len(b) {
		if slices.Equal(a[i+1:], b[i+1:]) {
			return true // substitution
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:]) // swap
	}
	return slices.Equal(a[i:], b[i+1:]) // insertion
}
