package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// The streaming hash must equal the hash of the normalised content, so
// that databases written before and after it agree on duplicates.
func TestContentHashEqualsHashOfNormalizedContent(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bc", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "é", "漢字", "x.y", strings.Repeat("w", 5000)}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for n := r.IntN(12); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		sum := sha256.Sum256([]byte(cairn.NormalizeContent(s)))
		if got, want := contentHash(s), hex.EncodeToString(sum[:16]); got != want {
			t.Fatalf("contentHash(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestHasNormalizedPrefixFoldsWhiteSpace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		content, title string
		want           bool
	}{
		{"Tests use  t.Run.\nMore", "Tests use t.Run", true},
		{"  Tests\tuse t.Run", "Tests use", true},
		{"Tests use t.Run", "Tests used", false},
		{"Short", "Short but longer", false},
		{"anything", "", true},
		{"Tests use", "Tests  use", true},
		{"Testsuse", "Tests use", false},
	} {
		if got := hasNormalizedPrefix(c.content, c.title); got != c.want {
			t.Errorf("hasNormalizedPrefix(%q, %q) = %v, want %v", c.content, c.title, got, c.want)
		}
	}
}
