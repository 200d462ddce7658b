package contextpack

import "unicode/utf8"

// EstimateTokens estimates how many model tokens s costs, without a
// tokenizer. The heuristic, in quarter tokens per rune by its UTF-8 length:
//
//   - 1-byte runes (ASCII): 1, so about 4 bytes per token;
//   - 2-byte runes (accented Latin, Greek, Cyrillic, Hebrew, Arabic): 2,
//     so 2 runes per token;
//   - 3- and 4-byte runes (CJK, kana, Hangul, symbols, emoji): 4, so one
//     token per CJK rune;
//   - a byte that is not valid UTF-8: 4.
//
// The sum is rounded up, so the estimate is never 0 for non-empty text and
// is subadditive: EstimateTokens(a+b) <= EstimateTokens(a)+EstimateTokens(b).
// Render relies on that to keep the whole block within the budget while it
// prices the block's parts one by one.
func EstimateTokens(s string) int {
	return (quarters(s) + 3) / 4
}

// quarters is the estimate of s in quarter tokens (see EstimateTokens).
func quarters(s string) int { return sizeOf(s).quarters }

// ones and highs are the words with each byte 0x01 and 0x80.
const ones, highs = 0x0101010101010101, 0x8080808080808080

// load8 returns s[i:i+8] as a little-endian word (one load).
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// runeQuarters is the cost of one non-ASCII rune r encoded in n bytes.
func runeQuarters(r rune, n int) int {
	switch {
	case r == utf8.RuneError && n == 1:
		return 4
	case n == 2:
		return 2
	default:
		return 4
	}
}

// cutQuarters returns the longest prefix of s that costs at most max
// quarter tokens. It never splits a rune.
func cutQuarters(s string, max int) string {
	q := 0
	for i := 0; i < len(s); {
		c := s[i]
		w, n := 1, 1
		if c >= utf8.RuneSelf {
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			w = runeQuarters(r, n)
		}
		if q+w > max {
			return s[:i]
		}
		q += w
		i += n
	}
	return s
}
