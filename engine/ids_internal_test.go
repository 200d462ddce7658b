package engine

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// newIDAt is an id of one fresh generator at now.
func newIDAt(now time.Time) string { return (&idGen{}).next(now) }

func TestNewIDHasPrefixAndLength(t *testing.T) {
	t.Parallel()
	id := newIDAt(time.Now())
	if len(id) != 20 || !strings.HasPrefix(id, "mem-") {
		t.Fatalf("NewID = %q, want mem- and 16 characters", id)
	}
	for _, c := range id[4:] {
		if !strings.ContainsRune(crockford, c) {
			t.Errorf("NewID = %q has %q, not a Crockford base32 digit", id, c)
		}
	}
}

func TestNewIDSortsByTime(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []time.Duration{0, time.Millisecond, 2 * time.Millisecond, time.Second, time.Hour, 24 * time.Hour, 365 * 24 * time.Hour, 30 * 365 * 24 * time.Hour}
	var ids []string
	for _, d := range steps {
		ids = append(ids, newIDAt(start.Add(d)))
	}
	if !slices.IsSorted(ids) {
		t.Errorf("ids of increasing times are not sorted: %v", ids)
	}
	// Within one millisecond the time part is shared and the rest random.
	a, b := newIDAt(start), newIDAt(start.Add(999*time.Microsecond))
	if a[:13] != b[:13] {
		t.Errorf("ids of one millisecond differ in their time part: %s %s", a, b)
	}
}

func TestEngineIDsAreUniqueAndOrderedWithinOneMillisecond(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	g := &idGen{}
	seen := map[string]bool{}
	prev := ""
	for i := 0; i < 100000; i++ {
		id := g.next(now)
		if seen[id] {
			t.Fatalf("NewID repeated %s after %d ids", id, i)
		}
		if id <= prev {
			t.Fatalf("NewID %s does not sort after %s", id, prev)
		}
		seen[id], prev = true, id
	}
}
