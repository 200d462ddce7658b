package capture

import "testing"

// TestTruncateRunes cuts at characters, not bytes, and never leaves a
// space before the "…"; a text of exactly n characters is kept whole.
func TestTruncateRunes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"ab cd", 4, "ab…"},
		{"ééééé", 4, "ééé…"},
	} {
		if got := truncateRunes(tc.in, tc.n); got != tc.want {
			t.Errorf("truncateRunes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
