package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

func TestUpdateActivitiesNameWhatChanged(t *testing.T) {
	t.Parallel()
	e := New(nil, nil)
	base := &cairn.Memory{ID: "m", Project: "p", Scope: cairn.ScopeProject, Type: "learning", Title: "t", Content: "c",
		CreatedAt: t0, ExpiresAt: t0.Add(days(90))}
	for _, c := range []struct {
		name   string
		change func(m *cairn.Memory)
		want   []string
	}{
		{"content", func(m *cairn.Memory) { m.Content = "d" }, []string{"updated: content"}},
		{"pin", func(m *cairn.Memory) { m.Pinned = true }, []string{"pinned: "}},
		{"pin and tags", func(m *cairn.Memory) { m.Pinned, m.Tags = true, []string{"x"} }, []string{"pinned: ", "updated: tags"}},
		{"supersede", func(m *cairn.Memory) { m.SupersededBy = "n" }, []string{"superseded: by n"}},
		{"promotion to a permanent type", func(m *cairn.Memory) { m.Type, m.ExpiresAt = "pattern", time.Time{} },
			[]string{"promoted: type learning → pattern, no longer expires"}},
		{"promotion to global scope", func(m *cairn.Memory) { m.Scope = cairn.ScopeGlobal }, []string{"promoted: scope project → global"}},
		{"back to project scope", func(m *cairn.Memory) { m.Scope = cairn.ScopeProject }, nil},
		{"expiry by hand", func(m *cairn.Memory) { m.ExpiresAt = t0 }, []string{"updated: expires_at"}},
	} {
		old := cloneMemory(base)
		if c.name == "back to project scope" {
			old.Scope = cairn.ScopeGlobal
			c.want = []string{"updated: scope"}
		}
		n := cloneMemory(old)
		c.change(n)
		var got []string
		for _, a := range e.updateActivities(old, n, t0) {
			if a.MemoryID != "m" || a.Project != "p" || !a.At.Equal(t0) {
				t.Errorf("%s: entry %+v is not of m in p at t0", c.name, a)
			}
			got = append(got, a.Action+": "+a.Detail)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestUniqueIDsKeepsFirstOccurrences(t *testing.T) {
	t.Parallel()
	if got := uniqueIDs([]string{"b", "a", "b", "c", "a"}); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("uniqueIDs = %v", got)
	}
}
