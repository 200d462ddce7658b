package lexical_test

import (
	"testing"

	"github.com/cairn-dev/cairn/lexical"
)

func TestEditDistanceCountsSingleEdits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"session", "session", 0},
		{"session", "sesion", 1}, {"failure-report", "failure-reprot", 2},
		{"kitten", "sitting", 3}, {"contex.budget", "context.budget", 1},
	} {
		if got := lexical.EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := lexical.EditDistance(c.b, c.a); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}
