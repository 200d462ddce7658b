package cairn_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

// Tried: brackets, capitals and white space inside the phrase, the
// phrase inside a longer word (kept), a plural (kept), an empty prompt,
// an empty phrase.
func TestStripPhrasesTakesOutWholePhrasesOnly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"(quick task) fix it", "( ) fix it"},
		{"fix it, Quick\n\tTASK", "fix it,  "},
		{"quick taskrunner, quick task", "quick taskrunner,  "},
		{"a quick tasks list", "a quick tasks list"},
		{"", ""},
		{"no phrase here", "no phrase here"},
	} {
		if got := cairn.StripPhrases(c.in, []string{"quick task"}); got != c.want {
			t.Errorf("StripPhrases(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := cairn.StripPhrases("eco mode and quick task", []string{"eco mode", "quick task", ""}); got != "  and  " {
		t.Errorf("two phrases and an empty one: %q", got)
	}
}
