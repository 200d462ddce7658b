package recall

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// distinctWordsByRunes is distinctWords as it is defined: every rune of
// text, as range reads it, a letter or digit lowercased and hashed by the
// bytes of its value, low first.
func distinctWordsByRunes(text string) []uint64 {
	const offset = 14695981039346656037
	var out []uint64
	h, in := uint64(offset), false
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			h = hashRune(h, unicode.ToLower(r))
			in = true
			continue
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

func TestDistinctWordsHashesEveryRuneAsDefined(t *testing.T) {
	texts := []string{
		"", " ", "a", "Z9", "Fix the flaky test: go test ./... -run TestX",
		"ÉCOLE école Straße STRASSE İstanbul ǅemal Ⅻ ٣٤ 東京 タワー",
		"snake_case kebab-case CamelCase x86_64 0xFF \x00\x7f",
		"bad \xff\xfe utf8 \xe2\x82 cut", "emoji 🙂 between😀words", strings.Repeat("word ", 300),
	}
	pieces := []string{"a", "Q", "7", " ", "_", "-", "é", "É", "ß", "ǅ", "Ω", "٣", "東", "🙂", "\xff", "\xe2\x82", "\t", "İ", "K"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		if got, want := distinctWords(text), distinctWordsByRunes(text); !slices.Equal(got, want) {
			t.Fatalf("distinctWords(%q) = %v, want %v", text, got, want)
		}
	}
	// Case and word order do not matter; a word's letters do.
	if a, b := distinctWords("Alpha beta GAMMA"), distinctWords("gamma ALPHA Beta beta"); !slices.Equal(a, b) || len(a) != 3 {
		t.Errorf("the same words gave %v and %v", a, b)
	}
	if a, b := distinctWords("alpha"), distinctWords("alpah"); slices.Equal(a, b) {
		t.Errorf("two words hashed alike: %v", a)
	}
}

func BenchmarkDistinctWords(b *testing.B) {
	text := strings.Repeat("The server answers Claude Code's http hooks from a warm cache; 42 calls. ", 8)
	for b.Loop() {
		distinctWords(text)
	}
}
