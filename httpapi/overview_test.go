package httpapi_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// ids of a list answer, and its stale marks.
func listIDs(t *testing.T, a *testAPI, query string) (ids, stale []string, total int) {
	t.Helper()
	r := a.do("GET", "/api/projects/p/memories?global=false&"+query, nil, "")
	if r.status != 200 {
		t.Fatalf("list %s: %v", query, r)
	}
	var out struct {
		Memories []struct{ ID string }
		Stale    []string
		Total    int
	}
	r.decode(t, &out)
	for _, m := range out.Memories {
		ids = append(ids, m.ID)
	}
	return ids, out.Stale, out.Total
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// The list filters the web page offers: source, never used, expiry (at
// the request's clock) and staleness (a file changed after the memory
// was written, under the project's folder). Tried: a file older than
// the memory, a reference that matches no file, and a memory without
// references, none of which is stale.
func TestListFiltersBySourceUseExpiryAndStaleness(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	fresh := a.add("p", map[string]any{"content": "fresh file", "file_refs": []string{"old.go"}}, "")
	changed := a.add("p", map[string]any{"content": "changed file", "file_refs": []string{"new.go", "gone.go"}, "source": "extracted"}, "")
	noRefs := a.add("p", map[string]any{"content": "no files", "expires_at": now.Add(48 * time.Hour).Format(time.RFC3339)}, "")
	later := a.add("p", map[string]any{"content": "expires later", "expires_at": now.Add(30 * 24 * time.Hour).Format(time.RFC3339)}, "")
	for name, mt := range map[string]time.Time{"old.go": now.Add(-time.Hour), "new.go": now.Add(time.Hour)} {
		path := filepath.Join(a.root, name)
		if err := os.WriteFile(path, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	if r := a.do("POST", "/api/projects/p/context", map[string]any{"prompt": "expires later"}, ""); r.status != 200 {
		t.Fatalf("context: %v", r)
	}

	ids, stale, total := listIDs(t, a, "stale=true")
	if !slices.Equal(ids, []string{changed}) || total != 1 || !slices.Equal(stale, []string{changed}) {
		t.Errorf("stale=true: %v (stale %v, total %d), want only %s", ids, stale, total, changed)
	}
	if ids, stale, _ := listIDs(t, a, ""); len(ids) != 4 || !slices.Equal(stale, []string{changed}) {
		t.Errorf("the whole list marks %v stale, want only %s", stale, changed)
	}
	if ids, _, _ := listIDs(t, a, "stale=true&offset=1"); len(ids) != 0 {
		t.Errorf("the second page of one stale memory holds %v", ids)
	}
	if ids, _, _ := listIDs(t, a, "source=extracted"); !slices.Equal(ids, []string{changed}) {
		t.Errorf("source=extracted: %v, want %s", ids, changed)
	}
	if ids, _, _ := listIDs(t, a, "never_used=true"); !sameSet(ids, []string{fresh, changed, noRefs}) {
		t.Errorf("never_used: %v, want all but the one a context used (%s)", ids, later)
	}
	if ids, _, _ := listIDs(t, a, "expiry=any"); !sameSet(ids, []string{noRefs, later}) {
		t.Errorf("expiry=any: %v, want %s and %s", ids, noRefs, later)
	}
	if ids, _, _ := listIDs(t, a, "expiry=soon"); !slices.Equal(ids, []string{noRefs}) {
		t.Errorf("expiry=soon: %v, want %s (in two days)", ids, noRefs)
	}
	if ids, _, _ := listIDs(t, a, "expiry=expired"); len(ids) != 0 {
		t.Errorf("expiry=expired: %v, want none yet", ids)
	}
	// Three days on, the first has expired and the other is not soon.
	r := a.do("GET", "/api/projects/p/memories?expiry=expired", nil, "", "Cairn-Now", now.Add(72*time.Hour).Format(time.RFC3339))
	var out struct{ Memories []struct{ ID string } }
	r.decode(t, &out)
	if len(out.Memories) != 1 || out.Memories[0].ID != noRefs {
		t.Errorf("expiry=expired three days on: %s, want %s", r.body, noRefs)
	}
}

// Memories created each week, by type, the last week holding now
// (2026-11-20 is a Friday: its week starts Monday 2026-11-16).
func TestCreatedByWeekCountsEachWeekByType(t *testing.T) {
	t.Parallel()
	a := newAPI(t, false)
	add := func(at time.Time, typ, content string) {
		r := a.do("POST", "/api/projects/p/memories", map[string]any{"content": content, "type": typ}, "", "Cairn-Now", at.Format(time.RFC3339))
		if r.status != 201 {
			t.Fatalf("add: %v", r)
		}
	}
	add(now, "decision", "this week a")
	add(time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC), "decision", "this week's first millisecond")
	add(time.Date(2026, 11, 15, 23, 59, 0, 0, time.UTC), "pitfall", "last week's last minute")
	add(now.AddDate(0, 0, -28), "note", "four weeks ago, before the window")
	r := a.do("GET", "/api/projects/p/stats/created?weeks=4", nil, "")
	var out struct {
		Periods []struct {
			Start, End time.Time
			ByType     map[string]int `json:"by_type"`
		}
	}
	r.decode(t, &out)
	if len(out.Periods) != 4 {
		t.Fatalf("weeks=4 answered %d periods: %s", len(out.Periods), r.body)
	}
	if first, last := out.Periods[0], out.Periods[3]; !first.Start.Equal(time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)) ||
		!last.Start.Equal(time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)) || !last.End.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("weeks: %s", r.body)
	}
	want := []map[string]int{{}, {}, {"pitfall": 1}, {"decision": 2}}
	for i, p := range out.Periods {
		if len(p.ByType) != len(want[i]) || (len(want[i]) > 0 && !equalCounts(p.ByType, want[i])) {
			t.Errorf("week %d: %v, want %v", i, p.ByType, want[i])
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}
