package wire_test

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn/wire"
)

func TestParseDurationReadsGoDurationsDaysAndWeeks(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]time.Duration{"36h": 36 * time.Hour, "90m": 90 * time.Minute, "1h30m": 90 * time.Minute,
		"7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour} {
		if got, err := wire.ParseDuration(s); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", s, got, err, want)
		}
	}
	// Bad inputs tried: empty, negative, zero, a unit Go does not know,
	// words, too many days.
	for _, s := range []string{"", "-1h", "0d", "3y", "soon", "9999999d"} {
		if _, err := wire.ParseDuration(s); err == nil {
			t.Errorf("%q was accepted", s)
		}
	}
}
