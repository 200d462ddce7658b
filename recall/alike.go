package recall

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// lentStrength is, for a hit found only through what a session neighbour
// lent it (no word of the prompt of its own), the Strength of that
// neighbour among hits, or 0 when it is not among them: such a memory
// passes the floor only when its lender does on its own words. For any
// other hit it is best, the best Strength of all. A hit without its
// explanation (see cairn.Query.Explain) is taken as any other.
func lentStrength(h cairn.Hit, hits []cairn.Hit, best float64) float64 {
	x := h.Explain
	if x == nil || x.Match > 0 || x.Lent <= 0 {
		return best
	}
	for _, l := range hits {
		if l.Memory.ID == x.LentBy {
			return l.Strength
		}
	}
	return 0
}

// nearlyAlikeShare is the share of their distinct words (Jaccard) from
// which two memories' contents are nearly the same: a block holds only the
// better one. Texts of fewer than minAlikeWords distinct words are never
// alike by their words: one word in seven ("alpha keeps its state in one
// place", "bravo keeps …") changes what a short memory is about.
const (
	nearlyAlikeShare = 0.7
	minAlikeWords    = 10
)

// alikeSet is the relevant memories a block holds so far, so that it
// holds no two alike: two of one type with the same title of their own
// ("Session catchup", "Next task": cairn.SameOwnTitle), or two whose
// contents, of minAlikeWords distinct words at least, share
// nearlyAlikeShare of them.
type alikeSet struct {
	ms    []*cairn.Memory
	words [][]uint64
}

func (s *alikeSet) len() int { return len(s.ms) }

// add adds m and returns "", or returns the id of the memory it is
// alike, which it is not added beside.
func (s *alikeSet) add(m *cairn.Memory) string {
	for _, k := range s.ms {
		if cairn.SameOwnTitle(m, k) {
			return k.ID
		}
	}
	words := distinctWords(m.Content)
	for i, k := range s.ms {
		if min(len(words), len(s.words[i])) >= minAlikeWords && jaccard(words, s.words[i]) >= nearlyAlikeShare {
			return k.ID
		}
	}
	s.ms = append(s.ms, m)
	s.words = append(s.words, words)
	return ""
}

// distinctWords is the sorted set of the hashes (FNV-1a) of text's
// words: runs of letters and digits, lowercased. A rune is hashed by the
// bytes of its value, low first, and not by its UTF-8 encoding; ASCII,
// most of any memory's text, takes a path of its own that hashes the
// same.
func distinctWords(text string) []uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	// About one word in every eight bytes of English text or code: most
	// texts need no second allocation.
	out := make([]uint64, 0, len(text)/8+1)
	h, in := uint64(offset), false
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				h = (h ^ uint64(c)) * prime
				in = true
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			i += size
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				h = hashRune(h, unicode.ToLower(r))
				in = true
				continue
			}
		}
		if in {
			out = append(out, h)
			h, in = offset, false
		}
	}
	if in {
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hashRune is h with r added, as distinctWords hashes a rune: FNV-1a
// over the bytes of its value, low first.
func hashRune(h uint64, r rune) uint64 {
	const prime = 1099511628211
	for r > 0 {
		h = (h ^ uint64(r&0xff)) * prime
		r >>= 8
	}
	return h
}

// jaccard is the Jaccard index of two sorted sets of word hashes, or, when
// their sizes alone keep it below nearlyAlikeShare, that bound (smaller
// size over larger), without comparing them.
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if small, large := min(len(a), len(b)), max(len(a), len(b)); float64(small) < nearlyAlikeShare*float64(large) {
		return float64(small) / float64(large) // at most this
	}
	both := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			both++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}
