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
