package storetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// The lifecycle part of the suite: usage, decay, cleanup, supersede links
// and the activity log. Run and RunEngine include these tests.

var lifecycleStoreTests = []struct {
	name string
	fn   func(t *testing.T, s cairn.Store)
}{
	{"TouchMemoriesCountsUseAndBoostsUpToTheCap", testTouchMemories},
	{"DecayMemoriesSetsConfidenceAndClockOnly", testDecayMemories},
	{"FindLifecycleStatesReadsOwnProjectOldestFirst", testLifecycleStates},
	{"FindLifecycleStatesReadsPageAfterPage", testLifecycleStatesPages},
	{"FindMemoriesSupersededByFollowsLinksBackwards", testSupersededBy},
	{"ActivityRoundTripsNewestFirst", testActivityRoundTrip},
	{"FindActivityFilters", testActivityFilters},
	{"ManyActivityEntriesRoundTripInOrder", testActivityMany},
	{"LifecycleWritesInViewAreInvalid", testLifecycleWritesInView},
	{"ActivityRollsBackWithItsUpdate", testActivityRollback},
}

var lifecycleEngineTests = []struct {
	name string
	fn   func(t *testing.T, e *engine.Engine)
}{
	{"RecordUseBoostsConfidenceUpToTheCapAndLogs", testRecordUse},
	{"RecordUsesInABatchRecordsWhatOneByOneWould", testRecordUsesBatch},
	{"QueuedUsesOrderListingsAndCountInCleanupOnceFolded", testQueuedUsesListingsAndCleanup},
	{"DecayLosesTwoHundredthsPerUnusedWeekOnce", testDecayWeeks},
	{"DecayStopsAtTheFloor", testDecayFloor},
	{"ExpiredMemoriesGoByTheirTypesTTL", testTTLExpiry},
	{"ConfiguredPoliciesSetExpiryConfidenceAndCleanup", testConfiguredPolicies},
	{"StoredProjectSettingsGovernEveryEngineOfTheStore", testStoredProjectSettings},
	{"LowValueMemoriesGo", testLowValue},
	{"PinnedMemoriesNeverDecayNorGo", testPinnedImmune},
	{"CleanupDryRunChangesNothing", testDryRun},
	{"CleanupApplyRemovesFromSearchAndLogs", testApplyRemoves},
	{"CleanupOfALargeProjectLetsRequestsInterleave", testCleanupInterleaves},
	{"EveryWritePathLogsActivity", testWriteActivity},
	{"ImportLogsActivityPerMemory", testImportActivity},
	{"PromotionMovesExpiryToTheNewType", testPromotion},
	{"SupersedeLinksFormAChainWithoutLoops", testSupersedeChain},
	{"AddSupersedingIsAtomic", testAddSuperseding},
}

const week = 7 * 24 * time.Hour

// --- store ---------------------------------------------------------------

func touch(t *testing.T, s cairn.Store, ids []string, when time.Time) map[string]string {
	t.Helper()
	var got map[string]string
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		got, err = tx.TouchMemories(ctx, ids, when, cairn.UsageBoost, cairn.MaxConfidence)
		return err
	})
	return got
}

func lifecycleStates(t *testing.T, s cairn.Store, project string) []cairn.LifecycleState {
	t.Helper()
	return lifecyclePage(t, s, project, cairn.LifecyclePage{})
}

func lifecyclePage(t *testing.T, s cairn.Store, project string, page cairn.LifecyclePage) []cairn.LifecycleState {
	t.Helper()
	var out []cairn.LifecycleState
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		out, err = tx.FindLifecycleStates(ctx, project, page)
		return err
	})
	return out
}

func testTouchMemories(t *testing.T, s cairn.Store) {
	low, high, above, other := mem("p", 1), mem("p", 2), mem("p", 3), mem("q", 4)
	high.Confidence = 0.94
	above.Confidence, above.UseCount, above.LastUsedAt = 0.97, 2, at(time.Hour)
	create(t, s, low, high, above, other)
	when := at(24 * time.Hour)
	got := touch(t, s, []string{low.ID, high.ID, above.ID, "m-missing", other.ID}, when)
	want := map[string]string{low.ID: "p", high.ID: "p", above.ID: "p", other.ID: "q"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("TouchMemories = %v, want %v (the missing id left out)", got, want)
	}
	for _, c := range []struct {
		m    *cairn.Memory
		conf float64
	}{{low, 0.52}, {high, 0.95}, {above, 0.97}, {other, 0.52}} {
		w := *c.m
		w.UseCount++
		w.LastUsedAt = when
		g := find(t, s, c.m.ID)
		if !approx(g.Confidence, c.conf) {
			t.Errorf("%s: confidence %v after a use, want %v", c.m.ID, g.Confidence, c.conf)
		}
		w.Confidence = g.Confidence
		checkSame(t, &w, g) // nothing else changed, updated_at neither
	}
	touch(t, s, []string{low.ID, low.ID}, when.Add(time.Hour)) // an id twice counts once
	if g := find(t, s, low.ID); !approx(g.Confidence, 0.54) || g.UseCount != 2 || !g.LastUsedAt.Equal(when.Add(time.Hour)) {
		t.Errorf("after a second use: confidence %v, use count %d, last used %v", g.Confidence, g.UseCount, g.LastUsedAt)
	}
	if got := touch(t, s, nil, when); len(got) != 0 {
		t.Errorf("TouchMemories(nil) = %v", got)
	}
}

func testDecayMemories(t *testing.T, s cairn.Store) {
	m := mem("p", 1)
	create(t, s, m)
	clock := at(2 * week)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.DecayMemories(ctx, []cairn.Decay{{ID: m.ID, Confidence: 0.46, DecayedAt: clock}})
	})
	w := *m
	w.Confidence = 0.46
	checkSame(t, &w, find(t, s, m.ID))
	if st := lifecycleStates(t, s, "p"); len(st) != 1 || !st[0].DecayedAt.Equal(clock) || st[0].Confidence != 0.46 {
		t.Fatalf("lifecycle state after decay: %+v, want confidence 0.46 and decay clock %v", st, clock)
	}
	// A full-row update is not a decay: the clock stays.
	w.Content = "rewritten content"
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.UpdateMemory(ctx, &w) })
	if st := lifecycleStates(t, s, "p"); !st[0].DecayedAt.Equal(clock) {
		t.Errorf("UpdateMemory reset the decay clock to %v, want %v", st[0].DecayedAt, clock)
	}
	var inner error
	err := s.Update(t.Context(), func(tx cairn.Tx) error {
		inner = tx.DecayMemories(t.Context(), []cairn.Decay{{ID: "m-missing", Confidence: 0.1, DecayedAt: clock}})
		return inner
	})
	wantCode(t, inner, cairn.ENOTFOUND, "DecayMemories of a missing memory")
	if err == nil {
		t.Error("Update returned nil after DecayMemories failed")
	}
}

func testLifecycleStates(t *testing.T, s cairn.Store) {
	full := fullMemory("mem-full", "p", 1) // global scope, learned in p
	plain, other := mem("p", 2), mem("q", 3)
	create(t, s, plain, full, other)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.DecayMemories(ctx, []cairn.Decay{{ID: plain.ID, Confidence: 0.48, DecayedAt: at(week)}})
	})
	got := lifecycleStates(t, s, "p")
	want := []cairn.LifecycleState{
		{ID: full.ID, Type: full.Type, Title: full.Title, Confidence: full.Confidence, CreatedAt: full.CreatedAt,
			LastUsedAt: full.LastUsedAt, ExpiresAt: full.ExpiresAt, UseCount: full.UseCount, Pinned: true},
		{ID: plain.ID, Type: plain.Type, Title: plain.Title, Confidence: 0.48, CreatedAt: plain.CreatedAt, DecayedAt: at(week)},
	}
	if len(got) != len(want) {
		t.Fatalf("FindLifecycleStates(p) = %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		same := g.ID == w.ID && g.Type == w.Type && g.Title == w.Title && g.Confidence == w.Confidence &&
			g.CreatedAt.Equal(w.CreatedAt) && g.LastUsedAt.Equal(w.LastUsedAt) && g.ExpiresAt.Equal(w.ExpiresAt) &&
			g.DecayedAt.Equal(w.DecayedAt) && g.UseCount == w.UseCount && g.Pinned == w.Pinned &&
			g.LastUsedAt.IsZero() == w.LastUsedAt.IsZero() && g.DecayedAt.IsZero() == w.DecayedAt.IsZero()
		if !same {
			t.Errorf("state %d = %+v, want %+v", i, g, w)
		}
	}
}

// testLifecycleStatesPages reads a project two states at a time, from the
// last state of each page: every memory comes once, in order, also those
// created in the same millisecond (ordered by id) and one stored with no
// creation time and one created before 1970; other projects stay out.
func testLifecycleStatesPages(t *testing.T, s cairn.Store) {
	var ms []*cairn.Memory
	for i := int64(1); i <= 8; i++ {
		m := mem("p", i)
		if i >= 3 && i <= 5 { // three memories of one millisecond
			m.CreatedAt = at(3 * time.Second)
		}
		ms = append(ms, m)
	}
	ms[6].CreatedAt = time.Time{} // no creation time: after those before 1970
	ms[7].CreatedAt = time.Date(1960, 1, 2, 0, 0, 0, 0, time.UTC)
	create(t, s, append(ms, mem("q", 9))...)
	want := []string{ms[7].ID, ms[6].ID, ms[0].ID, ms[1].ID, ms[2].ID, ms[3].ID, ms[4].ID, ms[5].ID}
	var got []string
	page := cairn.LifecyclePage{Limit: 2}
	for n := 0; ; n++ {
		st := lifecyclePage(t, s, "p", page)
		for _, x := range st {
			got = append(got, x.ID)
		}
		if len(st) < page.Limit || n > len(want) {
			break
		}
		page.AfterCreated, page.AfterID = st[len(st)-1].CreatedAt, st[len(st)-1].ID
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pages of 2 read %v, want %v", got, want)
	}
	if all := lifecycleStates(t, s, "p"); len(all) != len(want) {
		t.Errorf("Limit 0 read %d states, want all %d", len(all), len(want))
	}
}

func testSupersededBy(t *testing.T, s cairn.Store) {
	a, b, c, d := mem("p", 1), mem("p", 2), mem("p", 3), mem("q", 4)
	a.SupersededBy, b.SupersededBy, d.SupersededBy = c.ID, c.ID, a.ID
	create(t, s, b, a, c, d)
	find := func(id string) []string {
		var out []*cairn.Memory
		view(t, s, func(ctx context.Context, tx cairn.Tx) error {
			var err error
			out, err = tx.FindMemoriesSupersededBy(ctx, id)
			return err
		})
		return ids(out)
	}
	for _, c := range []struct {
		id   string
		want []string
	}{{c.ID, []string{a.ID, b.ID}}, {a.ID, []string{d.ID}}, {b.ID, nil}, {"", nil}} {
		if got := find(c.id); !slices.Equal(got, c.want) {
			t.Errorf("FindMemoriesSupersededBy(%q) = %v, want %v", c.id, got, c.want)
		}
	}
}

func appendActivity(t *testing.T, s cairn.Store, as ...cairn.Activity) {
	t.Helper()
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.AppendActivity(ctx, as) })
}

func findActivity(t *testing.T, s cairn.Store, f cairn.ActivityFilter) ([]cairn.Activity, int) {
	t.Helper()
	var out []cairn.Activity
	var total int
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		out, total, err = tx.FindActivity(ctx, f)
		return err
	})
	return out, total
}

// activityKeys describes entries as "action memory session", in order.
func activityKeys(as []cairn.Activity) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = strings.TrimSpace(a.Action + " " + a.MemoryID + " " + a.SessionID)
	}
	return out
}

func testActivityRoundTrip(t *testing.T, s cairn.Store) {
	first := cairn.Activity{At: at(0), Project: "p", MemoryID: "m-1", Action: cairn.ActionCreated, SessionID: "sess-1", Detail: "ünïcode — “quotes”\nand a line"}
	second := cairn.Activity{At: at(time.Hour), Project: "p", MemoryID: "m-1", Action: cairn.ActionUsed, SessionID: "sess-2"}
	tie := cairn.Activity{At: at(time.Hour), Project: "p", MemoryID: "m-2", Action: cairn.ActionDecayed, Detail: "0.50 → 0.48"}
	appendActivity(t, s, first, second)
	appendActivity(t, s, tie, cairn.Activity{At: at(2 * time.Hour), Project: "q", MemoryID: "m-9", Action: cairn.ActionDeleted})
	got, total := findActivity(t, s, cairn.ActivityFilter{Project: "p"})
	if total != 3 || len(got) != 3 {
		t.Fatalf("FindActivity(p) = %d entries, total %d; want 3, 3", len(got), total)
	}
	// Newest first; of two at the same time, the later appended first.
	for i, w := range []cairn.Activity{tie, second, first} {
		g := got[i]
		if g.ID == 0 || !g.At.Equal(w.At) || g.At.Location() != time.UTC || g.Project != w.Project || g.MemoryID != w.MemoryID ||
			g.Action != w.Action || g.SessionID != w.SessionID || g.Detail != w.Detail {
			t.Errorf("entry %d = %+v, want %+v with an id", i, g, w)
		}
	}
	if got[0].ID == got[1].ID || got[1].ID == got[2].ID {
		t.Errorf("entries share ids: %d %d %d", got[0].ID, got[1].ID, got[2].ID)
	}
	if err := s.Update(t.Context(), func(tx cairn.Tx) error { return tx.AppendActivity(t.Context(), nil) }); err != nil {
		t.Errorf("AppendActivity(nil): %v", err)
	}
}

func testActivityFilters(t *testing.T, s cairn.Store) {
	appendActivity(t, s,
		cairn.Activity{At: at(0), Project: "p", MemoryID: "m-1", Action: cairn.ActionCreated, SessionID: "s1"},
		cairn.Activity{At: at(time.Hour), Project: "p", MemoryID: "m-1", Action: cairn.ActionUsed, SessionID: "s2"},
		cairn.Activity{At: at(2 * time.Hour), Project: "p", MemoryID: "m-2", Action: cairn.ActionUsed, SessionID: "s2"},
		cairn.Activity{At: at(3 * time.Hour), Project: "p", MemoryID: "m-1", Action: cairn.ActionDecayed},
		cairn.Activity{At: at(4 * time.Hour), Project: "p", MemoryID: "m-2", Action: cairn.ActionDeleted},
		cairn.Activity{At: at(time.Hour), Project: "q", MemoryID: "m-1", Action: cairn.ActionUsed, SessionID: "s2"},
	)
	for _, c := range []struct {
		name  string
		f     cairn.ActivityFilter
		want  []string
		total int
	}{
		{"memory", cairn.ActivityFilter{MemoryID: "m-1"}, []string{"decayed m-1", "used m-1 s2", "created m-1 s1"}, 3},
		{"session", cairn.ActivityFilter{SessionID: "s2"}, []string{"used m-2 s2", "used m-1 s2"}, 2},
		{"actions", cairn.ActivityFilter{Actions: []string{cairn.ActionUsed, cairn.ActionDeleted}}, []string{"deleted m-2", "used m-2 s2", "used m-1 s2"}, 3},
		{"after", cairn.ActivityFilter{After: at(2 * time.Hour)}, []string{"deleted m-2", "decayed m-1", "used m-2 s2"}, 3},
		{"before", cairn.ActivityFilter{Before: at(2 * time.Hour)}, []string{"used m-1 s2", "created m-1 s1"}, 2},
		{"between", cairn.ActivityFilter{After: at(time.Hour), Before: at(3 * time.Hour)}, []string{"used m-2 s2", "used m-1 s2"}, 2},
		{"memory and action", cairn.ActivityFilter{MemoryID: "m-1", Actions: []string{cairn.ActionUsed}}, []string{"used m-1 s2"}, 1},
		{"limit", cairn.ActivityFilter{Limit: 2}, []string{"deleted m-2", "decayed m-1"}, 5},
		{"unknown session", cairn.ActivityFilter{SessionID: "s9"}, []string{}, 0},
	} {
		c.f.Project = "p"
		got, total := findActivity(t, s, c.f)
		if !slices.Equal(activityKeys(got), c.want) || total != c.total {
			t.Errorf("%s: FindActivity = %q (total %d), want %q (total %d)", c.name, activityKeys(got), total, c.want, c.total)
		}
	}
	// After an id: only the entries appended since, whatever their times
	// (a use logged late with an early time is still new).
	all, _ := findActivity(t, s, cairn.ActivityFilter{Project: "p", SessionID: "s2"})
	last := max(all[0].ID, all[1].ID)
	appendActivity(t, s, cairn.Activity{At: at(-time.Hour), Project: "p", MemoryID: "m-3", Action: cairn.ActionUsed, SessionID: "s2"})
	got, total := findActivity(t, s, cairn.ActivityFilter{Project: "p", SessionID: "s2", AfterID: last})
	if !slices.Equal(activityKeys(got), []string{"used m-3 s2"}) || total != 1 {
		t.Errorf("after id %d: FindActivity = %q (total %d), want the one entry appended since", last, activityKeys(got), total)
	}
}

// testActivityMany appends more entries at once than a backend is likely
// to insert in one statement, of which some share a time.
func testActivityMany(t *testing.T, s cairn.Store) {
	const n = 1000
	as := make([]cairn.Activity, n)
	for i := range as {
		as[i] = cairn.Activity{At: at(time.Duration(i/3) * time.Second), Project: "p", MemoryID: fmt.Sprintf("m-%04d", i),
			Action: cairn.ActionCreated, Detail: fmt.Sprintf("entry %d", i)}
	}
	appendActivity(t, s, as[:1]...)
	appendActivity(t, s, as[1:n-5]...)
	appendActivity(t, s, as[n-5:]...)
	got, total := findActivity(t, s, cairn.ActivityFilter{Project: "p"})
	if total != n || len(got) != n {
		t.Fatalf("%d entries (total %d), want %d", len(got), total, n)
	}
	for i, g := range got {
		w := as[n-1-i]
		if g.MemoryID != w.MemoryID || g.Detail != w.Detail || !g.At.Equal(w.At) {
			t.Fatalf("entry %d = %+v, want %+v (newest first, then last appended first)", i, g, w)
		}
	}
	if got, _ := findActivity(t, s, cairn.ActivityFilter{Project: "p", MemoryID: "m-0500"}); len(got) != 1 || got[0].Detail != "entry 500" {
		t.Errorf("entry of m-0500: %+v", got)
	}
}

func testLifecycleWritesInView(t *testing.T, s cairn.Store) {
	create(t, s, mem("p", 1))
	ctx := t.Context()
	writes := map[string]func(tx cairn.Tx) error{
		"TouchMemories": func(tx cairn.Tx) error {
			_, err := tx.TouchMemories(ctx, []string{"m-0001"}, at(time.Hour), cairn.UsageBoost, cairn.MaxConfidence)
			return err
		},
		"DecayMemories": func(tx cairn.Tx) error {
			return tx.DecayMemories(ctx, []cairn.Decay{{ID: "m-0001", Confidence: 0.1, DecayedAt: at(week)}})
		},
		"AppendActivity": func(tx cairn.Tx) error {
			return tx.AppendActivity(ctx, []cairn.Activity{{At: at(0), Project: "p", MemoryID: "m-0001", Action: cairn.ActionUsed}})
		},
	}
	for name, w := range writes {
		var inner error
		s.View(ctx, func(tx cairn.Tx) error {
			inner = w(tx)
			return inner
		})
		wantCode(t, inner, cairn.EINVALID, name+" in View")
	}
	checkSame(t, mem("p", 1), find(t, s, "m-0001"))
	if _, n := findActivity(t, s, cairn.ActivityFilter{Project: "p"}); n != 0 {
		t.Errorf("%d activity entries after writes in View, want 0", n)
	}
}

func testActivityRollback(t *testing.T, s cairn.Store) {
	create(t, s, mem("p", 1))
	err := s.Update(t.Context(), func(tx cairn.Tx) error {
		ctx := t.Context()
		if _, err := tx.TouchMemories(ctx, []string{"m-0001"}, at(time.Hour), cairn.UsageBoost, cairn.MaxConfidence); err != nil {
			return err
		}
		if err := tx.AppendActivity(ctx, []cairn.Activity{{At: at(time.Hour), Project: "p", MemoryID: "m-0001", Action: cairn.ActionUsed}}); err != nil {
			return err
		}
		return cairn.Errorf(cairn.EINVALID, "changed my mind")
	})
	wantCode(t, err, cairn.EINVALID, "failed Update")
	checkSame(t, mem("p", 1), find(t, s, "m-0001"))
	if _, n := findActivity(t, s, cairn.ActivityFilter{Project: "p"}); n != 0 {
		t.Errorf("%d activity entries after a rolled-back Update, want 0", n)
	}
}

// --- engine --------------------------------------------------------------

// after is e with its clock moved d past now.
func after(e *engine.Engine, d time.Duration) *engine.Engine {
	return e.WithClock(func() time.Time { return now.Add(d) })
}

func maintain(t *testing.T, e *engine.Engine, project string, apply bool) *cairn.MaintenanceReport {
	t.Helper()
	rep, err := e.Maintain(t.Context(), project, apply)
	if err != nil {
		t.Fatalf("Maintain(%s, apply=%v): %v", project, apply, err)
	}
	if rep.Applied != apply || rep.Project != project {
		t.Errorf("report says project %q applied %v, want %q %v", rep.Project, rep.Applied, project, apply)
	}
	return rep
}

// itemKeys describes report items as "action id", in order.
func itemKeys(rep *cairn.MaintenanceReport) []string {
	out := []string{}
	for _, it := range rep.Items {
		out = append(out, it.Action+" "+it.MemoryID)
	}
	return out
}

func itemOf(rep *cairn.MaintenanceReport, id string) *cairn.MaintenanceItem {
	for i := range rep.Items {
		if rep.Items[i].MemoryID == id {
			return &rep.Items[i]
		}
	}
	return nil
}

func activityOf(t *testing.T, e *engine.Engine, project, id string) []cairn.Activity {
	t.Helper()
	as, total, err := e.FindActivity(t.Context(), cairn.ActivityFilter{Project: project, MemoryID: id})
	if err != nil {
		t.Fatalf("FindActivity(%s, %s): %v", project, id, err)
	}
	if total != len(as) {
		t.Fatalf("FindActivity: total %d for %d entries", total, len(as))
	}
	return as
}

// actionsOf lists the actions logged for a memory, oldest first.
func actionsOf(t *testing.T, e *engine.Engine, project, id string) []string {
	t.Helper()
	as := activityOf(t, e, project, id)
	out := []string{}
	for i := len(as) - 1; i >= 0; i-- {
		out = append(out, as[i].Action)
	}
	return out
}

func wantGone(t *testing.T, e *engine.Engine, id string) {
	t.Helper()
	if _, err := e.FindMemoryByID(t.Context(), id); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("memory %s: error %v, want it deleted", id, err)
	}
}

// testConfiguredPolicies gives an engine policies other than the
// built-in ones (learnings live 10 days, notes 20, a note starts at 0.8):
// new memories take them, and cleanup applies them to memories stored
// before, except an expiry set by hand.
func testConfiguredPolicies(t *testing.T, e *engine.Engine) {
	ps := cairn.DefaultTypes()
	learning, note := ps.Of("learning"), ps.Of("note")
	learning.TTL, note.TTL, note.Confidence = 10*24*time.Hour, 20*24*time.Hour, 0.8
	ps["learning"], ps["note"] = learning, note
	conf := engine.New(e.Store(), &engine.Options{Policies: ps, Now: func() time.Time { return now }})

	n := add(t, conf, &cairn.Memory{Project: "p", Content: "a note under the configured policy"}).Memory
	if !approx(n.Confidence, 0.8) || !n.ExpiresAt.Equal(now.Add(20*24*time.Hour)) {
		t.Errorf("new note: confidence %v, expires %v; want 0.8 and 20 days", n.Confidence, n.ExpiresAt)
	}
	old := add(t, e, &cairn.Memory{Project: "p", Type: "learning", Content: "a learning stored under the built-in 90 days"}).Memory
	plain := add(t, e, &cairn.Memory{Project: "p", Content: "a note stored when notes kept"}).Memory
	byHand := add(t, e, &cairn.Memory{Project: "p", Type: "learning", Content: "a learning kept by hand", ExpiresAt: now.Add(60 * 24 * time.Hour)}).Memory

	rep := maintain(t, conf.WithClock(func() time.Time { return now.Add(25 * 24 * time.Hour) }), "p", false)
	for _, id := range []string{old.ID, plain.ID, n.ID} {
		if it := itemOf(rep, id); it == nil || it.Action != cairn.ActionExpired {
			t.Errorf("%s after 25 days under the configured TTL: %+v, want expired", id, it)
		}
	}
	if it := itemOf(rep, byHand.ID); it != nil && it.Action == cairn.ActionExpired {
		t.Errorf("a hand-set expiry was overridden: %+v", it)
	}
	if it := itemOf(rep, old.ID); it != nil && !strings.Contains(it.Reason, "10 days") {
		t.Errorf("reason %q does not name the configured 10 days", it.Reason)
	}
}

// testStoredProjectSettings stores a project's settings through one
// engine and writes through another over the same store (another
// process, say a server started elsewhere), whose own policies are the
// built-in ones: the project's memories take its stored settings, another
// project's keep the engine's own, and deleting them restores those.
func testStoredProjectSettings(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	if _, err := e.ProjectSettings(ctx, "p"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatalf("settings of a new store: %v, want ENOTFOUND", err)
	}
	s := cairn.DefaultSettings()
	s.Lifecycle["learning"] = cairn.TypeLifecycle{TTLDays: 2, Tier: "relevant", InitialConfidence: 0.7}
	s.Lifecycle["runbook"] = cairn.TypeLifecycle{Tier: "relevant"}
	if err := e.SetProjectSettings(ctx, "p", &cairn.ProjectSettings{Settings: s, Source: "/p/.cairn/cairn.toml", Fingerprint: "f", Folder: "/p"}); err != nil {
		t.Fatalf("SetProjectSettings: %v", err)
	}
	other := engine.New(e.Store(), &engine.Options{Now: func() time.Time { return now }})
	got, err := other.ProjectSettings(ctx, "p")
	if err != nil || got.Settings.Lifecycle["learning"].TTLDays != 2 || got.Source != "/p/.cairn/cairn.toml" || got.Folder != "/p" || !got.UpdatedAt.Equal(now) {
		t.Fatalf("ProjectSettings through another engine = %+v, %v", got, err)
	}
	l := add(t, other, &cairn.Memory{Project: "p", Type: "learning", Content: "a learning of the configured project"}).Memory
	if !l.ExpiresAt.Equal(now.Add(2*24*time.Hour)) || !approx(l.Confidence, 0.7) {
		t.Errorf("learning of p: expires %v, confidence %v; want 2 days and 0.7", l.ExpiresAt, l.Confidence)
	}
	q := add(t, other, &cairn.Memory{Project: "q", Type: "learning", Content: "a learning of another project"}).Memory
	if !q.ExpiresAt.Equal(now.Add(90 * 24 * time.Hour)) {
		t.Errorf("learning of q: expires %v, want the built-in 90 days", q.ExpiresAt)
	}
	// A change of type takes the project's time to live.
	n := add(t, other, &cairn.Memory{Project: "p", Content: "a note that turns out to be a learning"}).Memory
	typ := "learning"
	if u, err := other.UpdateMemory(ctx, n.ID, cairn.MemoryUpdate{Type: &typ}); err != nil || !u.ExpiresAt.Equal(u.CreatedAt.Add(2*24*time.Hour)) {
		t.Errorf("note made a learning: %+v, %v; want 2 days to live", u, err)
	}
	// A type the project declares is known there, and near to a typo.
	if near, err := other.NearType(ctx, "p", "runbok"); err != nil || near != "runbook" {
		t.Errorf("NearType(p, runbok) = %q, %v; want runbook", near, err)
	}
	// Cleanup expires by the project's time to live, also a learning
	// stored before the settings were.
	rep := maintain(t, other.WithClock(func() time.Time { return now.Add(3 * 24 * time.Hour) }), "p", false)
	if it := itemOf(rep, l.ID); it == nil || it.Action != cairn.ActionExpired || !strings.Contains(it.Reason, "2 days") {
		t.Errorf("p's learning after 3 days: %+v, want expired for its 2 days", it)
	}
	// Without stored settings, the engine's own apply again.
	if err := e.DeleteProjectSettings(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if l := add(t, other, &cairn.Memory{Project: "p", Type: "learning", Content: "a learning after the settings went"}).Memory; !l.ExpiresAt.Equal(now.Add(90 * 24 * time.Hour)) {
		t.Errorf("learning after DeleteProjectSettings: expires %v, want 90 days", l.ExpiresAt)
	}
	// Bad inputs tried: an invalid project, nil settings.
	if err := e.SetProjectSettings(ctx, "", &cairn.ProjectSettings{Settings: s}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("SetProjectSettings of a bad project: %v, want EINVALID", err)
	}
	if err := e.SetProjectSettings(ctx, "p", &cairn.ProjectSettings{}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("SetProjectSettings without settings: %v, want EINVALID", err)
	}
}

func testRecordUse(t *testing.T, e *engine.Engine) {
	low := add(t, e, &cairn.Memory{Project: "p", Content: "the quokka cache warms on start", Confidence: 0.5}).Memory
	high := add(t, e, &cairn.Memory{Project: "p", Content: "near the cap", Confidence: 0.94}).Memory
	above := add(t, e, &cairn.Memory{Project: "p", Content: "set by hand above the cap", Confidence: 0.97}).Memory
	other := add(t, e, &cairn.Memory{Project: "q", Content: "another project's memory", Confidence: 0.5}).Memory
	stBefore, _ := e.Stats(t.Context(), "p")
	use := after(e, time.Hour)
	if err := use.RecordUse(t.Context(), []string{low.ID, high.ID, above.ID, low.ID, "mem-deleted-meanwhile", other.ID}, "sess-9"); err != nil {
		t.Fatalf("RecordUse: %v", err)
	}
	for _, c := range []struct {
		m    *cairn.Memory
		conf float64
	}{{low, 0.52}, {high, 0.95}, {above, 0.97}, {other, 0.52}} {
		g := get(t, e, c.m.ID)
		if !approx(g.Confidence, c.conf) || g.UseCount != 1 || !g.LastUsedAt.Equal(now.Add(time.Hour)) || !g.UpdatedAt.Equal(c.m.UpdatedAt) {
			t.Errorf("%s after one use: confidence %v, use count %d, last used %v, updated %v; want %v, 1, %v, unchanged",
				c.m.ID, g.Confidence, g.UseCount, g.LastUsedAt, g.UpdatedAt, c.conf, now.Add(time.Hour))
		}
	}
	for _, m := range []*cairn.Memory{low, high, above, other} {
		as := activityOf(t, e, m.Project, m.ID)
		if len(as) != 2 || as[0].Action != cairn.ActionUsed || as[0].SessionID != "sess-9" || !as[0].At.Equal(now.Add(time.Hour)) {
			t.Errorf("%s: activity %+v, want a used entry of sess-9 after its creation", m.ID, as)
		}
	}
	// Twenty-five more uses (0.50 more) reach the cap and stay there.
	for i := 0; i < 25; i++ {
		if err := use.RecordUse(t.Context(), []string{low.ID}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if g := get(t, e, low.ID); g.Confidence != cairn.MaxConfidence || g.UseCount != 26 {
		t.Errorf("after 26 uses: confidence %v, use count %d; want %v, 26", g.Confidence, g.UseCount, cairn.MaxConfidence)
	}
	// Use changes no indexed text: the index is untouched.
	if st, _ := e.Stats(t.Context(), "p"); st.IndexDocs != stBefore.IndexDocs || st.DeadDocs != stBefore.DeadDocs {
		t.Errorf("index statistics changed by RecordUse: %+v -> %+v", stBefore, st)
	}
	wantFound(t, e, "p", "quokka", low.ID)
	if err := e.RecordUse(t.Context(), nil, "s"); err != nil {
		t.Errorf("RecordUse(nil): %v", err)
	}
	wantCode(t, e.RecordUse(t.Context(), []string{""}, "s"), cairn.EINVALID, "RecordUse of an empty id")
}

// Uses recorded in one batch (as a server's use queue writes them) leave
// the same use counts, last uses, confidences and activity log, in the
// same order, as the same uses recorded one by one (and so do the same
// uses queued, in two writes, then folded): with a memory in
// several uses of the batch, at times out of order, in sessions that
// were shown it before or earlier in the batch, at and near the maximum
// confidence, and ids that are not stored. Each way has its own copy of
// the memories (a project each); the batch is also recorded by an engine
// that keeps what sessions were shown in memory, as a server does.
func testRecordUsesBatch(t *testing.T, e *engine.Engine) {
	confs := []float64{0.5, 0.1, 0.3, 0.77, 0.9, 0.93, 0.94, 0.949, 0.95, 0.97, 0.6, 0.61}
	ways := []struct {
		project string
		eng     *engine.Engine
		batch   bool
	}{
		{"one-by-one", e, false},
		{"batch", e, true},
		{"batch-cached", engine.New(e.Store(), &engine.Options{CacheBytes: 1 << 20, Now: func() time.Time { return now }}), true},
		{"queued", e, true},
	}
	ids := map[string][]string{}
	for _, w := range ways {
		for i, c := range confs {
			m := add(t, e, &cairn.Memory{Project: w.project, Content: fmt.Sprintf("memory %d about the batch of uses", i), Confidence: c}).Memory
			ids[w.project] = append(ids[w.project], m.ID)
		}
		// What the sessions were shown before the batch.
		if err := w.eng.RecordUse(t.Context(), []string{ids[w.project][2], ids[w.project][3]}, w.project+"-s1"); err != nil {
			t.Fatal(err)
		}
	}
	type use struct {
		mems    []int // -1: an id not stored
		session string
		minute  int
	}
	plan := []use{
		{[]int{0, 1, 2}, "", 1},
		{[]int{2, 3, 4, 0}, "s1", 2},
		{[]int{4, 5, 4, -1}, "s1", 3}, // 4 again in the batch's session
		{[]int{6, 7, 8, 9}, "", 5},
		{[]int{0, 6, 7, 8, 9}, "", 4}, // earlier than the use before
		{[]int{7, 7, -1, 10}, "s2", 6},
		{[]int{}, "s2", 7},
		{[]int{7, 11, 0}, "s2", 8},
		{[]int{5, 6, 7, 11}, "", 9},
		{[]int{1, 1, 1}, "", 3},
	}
	for i := range 45 { // enough uses to take 0.1 to the maximum
		plan = append(plan, use{[]int{1, i % 12}, "", 10 + i})
	}
	for _, w := range ways {
		var uses []engine.Use
		for _, u := range plan {
			eu := engine.Use{At: now.Add(time.Duration(u.minute) * time.Minute)}
			if u.session != "" {
				eu.Session = w.project + "-" + u.session
			}
			for _, m := range u.mems {
				if m < 0 {
					eu.IDs = append(eu.IDs, "mem-not-stored-"+w.project)
				} else {
					eu.IDs = append(eu.IDs, ids[w.project][m])
				}
			}
			uses = append(uses, eu)
		}
		if w.project == "queued" {
			// Queued in two writes, the second's sessions shown by the
			// first, then folded.
			for _, part := range [][]engine.Use{uses[:4], uses[4:]} {
				if _, err := w.eng.QueueUses(t.Context(), part); err != nil {
					t.Fatalf("%s: QueueUses: %v", w.project, err)
				}
			}
			if _, err := w.eng.FoldUses(t.Context()); err != nil {
				t.Fatalf("%s: FoldUses: %v", w.project, err)
			}
			continue
		}
		if w.batch {
			if err := w.eng.RecordUses(t.Context(), uses); err != nil {
				t.Fatalf("%s: RecordUses: %v", w.project, err)
			}
			continue
		}
		for _, u := range uses {
			if err := w.eng.RecordUses(t.Context(), []engine.Use{u}); err != nil {
				t.Fatalf("%s: RecordUses: %v", w.project, err)
			}
		}
	}
	// Each way's state, its own project and ids read as the memories'
	// indexes, its sessions without their prefix.
	state := func(project string) []string {
		index := map[string]string{}
		var out []string
		for i, id := range ids[project] {
			index[id] = fmt.Sprint(i)
			m := get(t, e, id)
			out = append(out, fmt.Sprintf("memory %d: %d uses, last %s, confidence %v", i, m.UseCount, m.LastUsedAt.Format(time.RFC3339), m.Confidence))
		}
		as, _, err := e.FindActivity(t.Context(), cairn.ActivityFilter{Project: project, Actions: []string{cairn.ActionUsed}})
		if err != nil {
			t.Fatal(err)
		}
		for i := len(as) - 1; i >= 0; i-- { // oldest first
			a := as[i]
			out = append(out, fmt.Sprintf("used %s at %s in %q", index[a.MemoryID], a.At.Format(time.RFC3339), strings.TrimPrefix(a.SessionID, project+"-")))
		}
		return out
	}
	want := state(ways[0].project)
	if m := get(t, e, ids[ways[0].project][1]); m.Confidence != cairn.MaxConfidence {
		t.Errorf("the plan takes memory 1 to confidence %v, not to the maximum", m.Confidence)
	}
	for _, w := range ways[1:] {
		if got := state(w.project); !slices.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant (one by one):\n%s", w.project, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// Queued uses (engine.QueueUses) log their activity at once, and reach
// the listings ordered by use count, last use and value when they are
// folded (at once on a store without a use queue). A cleanup that
// applies its decisions folds first: a low-value memory whose only use
// is queued is not removed as never used.
func testQueuedUsesListingsAndCleanup(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	a := add(t, e, &cairn.Memory{Project: "p", Content: "the first memory of the listing", Confidence: 0.5}).Memory
	b := add(t, e, &cairn.Memory{Project: "p", Content: "the second memory of the listing", Confidence: 0.5}).Memory
	low := add(t, e, &cairn.Memory{Project: "p", Content: "a low remark used only lately", Confidence: 0.12, Source: cairn.SourceAutomatic}).Memory
	list := func(sort string) []string {
		t.Helper()
		ms, _, err := e.FindMemories(ctx, cairn.MemoryFilter{Project: "p", Sort: sort})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		return ids
	}
	byCreation := list(cairn.SortCreatedDesc) // low, b, a
	use := after(e, time.Hour)
	queued, err := use.QueueUses(ctx, []engine.Use{{IDs: []string{a.ID}, Session: "s1"}, {IDs: []string{a.ID}, Session: "s2"}, {IDs: []string{b.ID}, Session: "s2"}})
	if err != nil {
		t.Fatal(err)
	}
	if as := activityOf(t, e, "p", a.ID); len(as) != 3 || as[0].Action != cairn.ActionUsed {
		t.Errorf("activity of a queued memory: %+v, want two used entries after its creation", as)
	}
	if queued > 0 {
		if got := list(cairn.SortUsedDesc); !slices.Equal(got, byCreation) {
			t.Errorf("by use count before the fold: %v, want %v (no use applied yet)", got, byCreation)
		}
		if n, err := e.FoldUses(ctx); err != nil || n != 3 {
			t.Fatalf("FoldUses = %d, %v; want 3", n, err)
		}
	} else if n, err := e.FoldUses(ctx); err != nil || n != 0 {
		t.Fatalf("FoldUses of a store without a queue = %d, %v; want 0", n, err)
	}
	want := []string{a.ID, b.ID, low.ID}
	for _, sort := range []string{cairn.SortUsedDesc, cairn.SortValueDesc} {
		if got := list(sort); !slices.Equal(got, want) {
			t.Errorf("by %s after the fold: %v, want %v", sort, got, want)
		}
	}
	if got := list(cairn.SortLastUsedDesc); got[2] != low.ID {
		t.Errorf("by last use after the fold: %v, want %s last (never used)", got, low.ID)
	}
	// A use of the low memory, queued on day 31: cleanup counts it.
	if _, err := after(e, 31*24*time.Hour).QueueUses(ctx, []engine.Use{{IDs: []string{low.ID}, Session: "s3"}}); err != nil {
		t.Fatal(err)
	}
	if rep := maintain(t, after(e, 31*24*time.Hour+time.Minute), "p", true); itemOf(rep, low.ID) != nil && itemOf(rep, low.ID).Action == cairn.ActionDeleted {
		t.Errorf("cleanup removed %s as never used, though its use was queued: %v", low.ID, itemKeys(rep))
	}
	if g := get(t, e, low.ID); g.UseCount != 1 {
		t.Errorf("after the cleanup: %s used %d times, want 1", low.ID, g.UseCount)
	}
}

func testDecayWeeks(t *testing.T, e *engine.Engine) {
	m := add(t, e, &cairn.Memory{Project: "p", Content: "unused memory", Confidence: 0.5}).Memory
	used := add(t, e, &cairn.Memory{Project: "p", Content: "memory used on day five", Confidence: 0.5}).Memory
	if err := after(e, 5*24*time.Hour).RecordUse(t.Context(), []string{used.ID}, ""); err != nil {
		t.Fatal(err)
	}
	day := func(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }
	steps := []struct {
		day   int
		items []string // "action id"
		conf  float64  // m's confidence after the step
	}{
		{6, nil, 0.5},
		{7, []string{"decayed " + m.ID}, 0.48},
		{7, nil, 0.48}, // the same week again: no second decay
		{10, nil, 0.48},
		{12, []string{"decayed " + used.ID}, 0.48},
		{13, nil, 0.48},
		{14, []string{"decayed " + m.ID}, 0.46},
		{35, []string{"decayed " + m.ID, "decayed " + used.ID}, 0.40},
	}
	for _, st := range steps {
		rep := maintain(t, after(e, day(st.day)), "p", true)
		want := append([]string{}, st.items...)
		got := itemKeys(rep)
		slices.Sort(got) // m and used were created at the same time
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("day %d: items %v, want %v", st.day, got, want)
		}
		if g := get(t, e, m.ID); g.Confidence != st.conf {
			t.Errorf("day %d: confidence %v, want exactly %v", st.day, g.Confidence, st.conf)
		}
	}
	// The other: 0.52 after its use on day 5, 0.50 on day 12, and three
	// more weeks (to day 33) by day 35.
	if g := get(t, e, used.ID); g.Confidence != 0.44 {
		t.Errorf("memory used on day 5: confidence %v on day 35, want exactly 0.44", g.Confidence)
	}
	rep := maintain(t, after(e, day(42)), "p", false)
	if it := itemOf(rep, m.ID); it == nil || it.Reason != "decay 0.40 → 0.38 (1 week unused)" || it.Weeks != 1 || it.Confidence != 0.40 || it.NewConfidence != 0.38 {
		t.Errorf("day 42 dry run: item %+v, want decay 0.40 → 0.38 over 1 week", it)
	}
	// A use restarts the week: used on day 36, decayed again from day 43.
	if err := after(e, day(36)).RecordUse(t.Context(), []string{m.ID}, ""); err != nil {
		t.Fatal(err)
	}
	if rep := maintain(t, after(e, day(42)), "p", true); itemOf(rep, m.ID) != nil {
		t.Errorf("day 42, six days after a use: %v, want no decay", itemKeys(rep))
	}
	rep = maintain(t, after(e, day(50)), "p", true)
	if it := itemOf(rep, m.ID); it == nil || it.NewConfidence != 0.38 || it.Reason != "decay 0.42 → 0.38 (2 weeks unused)" {
		t.Errorf("day 50, two weeks after a use: item %+v, want decay 0.42 → 0.38", it)
	}
	if as := activityOf(t, e, "p", m.ID); len(as) == 0 || as[0].Action != cairn.ActionDecayed || as[0].Detail != "decay 0.42 → 0.38 (2 weeks unused)" {
		t.Errorf("newest activity of %s: %+v, want the decay", m.ID, as[:min(1, len(as))])
	}
	if got := actionsOf(t, e, "p", m.ID); !slices.Equal(got, []string{"created", "decayed", "decayed", "decayed", "used", "decayed"}) {
		t.Errorf("activity of %s: %v", m.ID, got)
	}
}

func testDecayFloor(t *testing.T, e *engine.Engine) {
	m := add(t, e, &cairn.Memory{Project: "p", Content: "barely trusted", Confidence: 0.13}).Memory
	rep := maintain(t, after(e, 2*week), "p", true)
	if it := itemOf(rep, m.ID); it == nil || it.NewConfidence != cairn.MinConfidence || it.Reason != "decay 0.13 → 0.10 (2 weeks unused)" {
		t.Errorf("item %+v, want decay 0.13 → 0.10", it)
	}
	if rep := maintain(t, after(e, 4*week), "p", true); len(rep.Items) != 0 {
		t.Errorf("at the floor: items %v, want none", itemKeys(rep))
	}
	if g := get(t, e, m.ID); g.Confidence != cairn.MinConfidence {
		t.Errorf("confidence %v, want the floor %v", g.Confidence, cairn.MinConfidence)
	}
}

func testTTLExpiry(t *testing.T, e *engine.Engine) {
	session := add(t, e, &cairn.Memory{Project: "p", Type: "session", Content: "implemented the jackal login"}).Memory
	learning := add(t, e, &cairn.Memory{Project: "p", Type: "learning", Content: "jackal hooks must not write to stderr"}).Memory
	gotcha := add(t, e, &cairn.Memory{Project: "p", Type: "gotcha", Content: "jackal needs .js extensions"}).Memory
	note := add(t, e, &cairn.Memory{Project: "p", Content: "jackal notes never expire"}).Memory
	custom := add(t, e, &cairn.Memory{Project: "p", Content: "jackal freeze until the 11th", ExpiresAt: now.Add(10 * 24 * time.Hour)}).Memory
	day := func(n int) *engine.Engine { return after(e, time.Duration(n)*24*time.Hour) }
	expired := func(rep *cairn.MaintenanceReport) []string {
		var out []string
		for _, it := range rep.Items {
			if it.Action == cairn.ActionExpired {
				out = append(out, it.MemoryID)
			}
		}
		return out
	}
	if rep := maintain(t, day(9), "p", false); len(expired(rep)) != 0 {
		t.Errorf("day 9: expired %v, want none", expired(rep))
	}
	rep := maintain(t, day(10), "p", true)
	if it := itemOf(rep, custom.ID); it == nil || it.Action != cairn.ActionExpired || it.Reason != "expired: it was set to expire on 2025-06-11" {
		t.Errorf("day 10: item %+v, want the custom expiry", it)
	}
	if rep := maintain(t, day(29), "p", true); len(expired(rep)) != 0 {
		t.Errorf("day 29: expired %v, want none", expired(rep))
	}
	rep = maintain(t, day(30), "p", true)
	if got := expired(rep); !slices.Equal(got, []string{session.ID}) || rep.Expired != 1 {
		t.Errorf("day 30: expired %v (count %d), want only the session %s", got, rep.Expired, session.ID)
	}
	if it := itemOf(rep, session.ID); it == nil || it.Reason != "expired: session memories live 30 days, created 2025-06-01" || it.Type != "session" || it.Title != session.Title {
		t.Errorf("day 30: item %+v", it)
	}
	wantGone(t, e, session.ID)
	if rep := maintain(t, day(89), "p", true); len(expired(rep)) != 0 {
		t.Errorf("day 89: expired %v, want none", expired(rep))
	}
	rep = maintain(t, day(90), "p", true)
	got := expired(rep)
	slices.Sort(got)
	if want := slices.Sorted(slices.Values([]string{learning.ID, gotcha.ID})); !slices.Equal(got, want) {
		t.Errorf("day 90: expired %v, want the learning and the gotcha %v", got, want)
	}
	if it := itemOf(rep, gotcha.ID); it == nil || it.Reason != "expired: gotcha memories live 90 days, created 2025-06-01" {
		t.Errorf("day 90: gotcha item %+v", it)
	}
	get(t, e, note.ID)
	if got := searchIDs(t, e, "p", "jackal"); !slices.Equal(got, []string{note.ID}) {
		t.Errorf("Search(jackal) after expiry = %v, want only %s", got, note.ID)
	}
	if got := actionsOf(t, e, "p", session.ID); !slices.Equal(got, []string{"created", "decayed", "decayed", "expired"}) {
		t.Errorf("activity of the session memory: %v", got)
	}
}

func testLowValue(t *testing.T, e *engine.Engine) {
	low := add(t, e, &cairn.Memory{Project: "p", Content: "a dubious low value remark", Confidence: 0.12, Source: cairn.SourceAutomatic}).Memory
	used := add(t, e, &cairn.Memory{Project: "p", Content: "low but once useful", Confidence: 0.12, Source: cairn.SourceAutomatic}).Memory
	if err := after(e, 24*time.Hour).RecordUse(t.Context(), []string{used.ID}, ""); err != nil {
		t.Fatal(err)
	}
	// Asked for: decay alone never removes it.
	explicit := add(t, e, &cairn.Memory{Project: "p", Content: "a low remark someone asked to keep", Confidence: 0.12, Source: cairn.SourceExplicit}).Memory
	sinking := add(t, e, &cairn.Memory{Project: "q", Content: "sinks below the line by decay", Confidence: 0.16, Source: cairn.SourceExtracted}).Memory
	// Thirty days old is not older than thirty days.
	if rep := maintain(t, after(e, 30*24*time.Hour), "p", true); rep.Deleted != 0 {
		t.Errorf("day 30: %v, want nothing deleted", itemKeys(rep))
	}
	rep := maintain(t, after(e, 31*24*time.Hour), "p", true)
	if got := itemKeys(rep); !slices.Equal(got, []string{"deleted " + low.ID}) {
		t.Errorf("day 31: items %v, want only %s deleted", got, low.ID)
	}
	if it := itemOf(rep, low.ID); it == nil || it.Reason != "low value: confidence 0.10, never used, 31 days old" {
		t.Errorf("day 31: item %+v", it)
	}
	wantGone(t, e, low.ID)
	get(t, e, used.ID)
	get(t, e, explicit.ID)
	if rep := maintain(t, after(e, 400*24*time.Hour), "p", true); itemOf(rep, explicit.ID) != nil {
		t.Errorf("an explicit memory at the lowest confidence after 400 days: %v, want it left alone", itemKeys(rep))
	}
	get(t, e, explicit.ID)
	rep = maintain(t, after(e, 31*24*time.Hour), "q", false)
	if it := itemOf(rep, sinking.ID); it == nil || it.Action != cairn.ActionDeleted || it.Reason != "low value: confidence 0.10 after 4 weeks of decay, never used, 31 days old" {
		t.Errorf("decayed below the line: item %+v", it)
	}
}

func testPinnedImmune(t *testing.T, e *engine.Engine) {
	session := add(t, e, &cairn.Memory{Project: "p", Type: "session", Content: "pinned session summary", Pinned: true}).Memory
	low := add(t, e, &cairn.Memory{Project: "p", Content: "pinned but low", Confidence: 0.11, Pinned: true}).Memory
	trusted := add(t, e, &cairn.Memory{Project: "p", Content: "pinned and trusted", Confidence: 0.8, Pinned: true}).Memory
	plain := add(t, e, &cairn.Memory{Project: "p", Content: "not pinned", Confidence: 0.8}).Memory
	before := snapshot(t, e, "p")
	rep := maintain(t, after(e, 100*24*time.Hour), "p", true)
	if got := itemKeys(rep); !slices.Equal(got, []string{"decayed " + plain.ID}) || rep.Pinned != 3 {
		t.Errorf("items %v, %d pinned left alone; want only %s decayed and 3 pinned", got, rep.Pinned, plain.ID)
	}
	for _, m := range []*cairn.Memory{session, low, trusted} {
		checkSame(t, before[m.ID], get(t, e, m.ID))
	}
}

// lifecycleFixture is a project with something of every cleanup kind, at
// day 100: an expired session, a low-value note, a decaying note.
func lifecycleFixture(t *testing.T, e *engine.Engine) (session, low, decaying *cairn.Memory) {
	session = add(t, e, &cairn.Memory{Project: "p", Type: "session", Content: "the ocelot session summary", CreatedAt: now.Add(-3 * time.Hour)}).Memory
	low = add(t, e, &cairn.Memory{Project: "p", Content: "an ocelot remark of little value", Confidence: 0.14, Source: cairn.SourceAutomatic, CreatedAt: now.Add(-2 * time.Hour)}).Memory
	decaying = add(t, e, &cairn.Memory{Project: "p", Content: "ocelot facts slowly fade", Confidence: 0.9, CreatedAt: now.Add(-time.Hour)}).Memory
	return session, low, decaying
}

func testDryRun(t *testing.T, e *engine.Engine) {
	session, low, decaying := lifecycleFixture(t, e)
	later := after(e, 100*24*time.Hour)
	before := snapshot(t, e, "p")
	stBefore, _ := e.Stats(t.Context(), "p")
	_, actsBefore, _ := e.FindActivity(t.Context(), cairn.ActivityFilter{Project: "p"})
	dry := maintain(t, later, "p", false)
	if got, want := itemKeys(dry), []string{"expired " + session.ID, "deleted " + low.ID, "decayed " + decaying.ID}; !slices.Equal(got, want) {
		t.Errorf("dry run items %v, want %v", got, want)
	}
	if dry.Expired != 1 || dry.Deleted != 1 || dry.Decayed != 1 || !dry.At.Equal(now.Add(100*24*time.Hour)) {
		t.Errorf("dry run counts %d/%d/%d at %v", dry.Expired, dry.Deleted, dry.Decayed, dry.At)
	}
	checkUnchanged(t, before, snapshot(t, e, "p"))
	if st, _ := e.Stats(t.Context(), "p"); st.IndexDocs != stBefore.IndexDocs || st.DeadDocs != stBefore.DeadDocs {
		t.Errorf("a dry run changed the index: %+v -> %+v", stBefore, st)
	}
	if _, n, _ := e.FindActivity(t.Context(), cairn.ActivityFilter{Project: "p"}); n != actsBefore {
		t.Errorf("a dry run logged %d activity entries", n-actsBefore)
	}
	wantFound(t, later, "p", "ocelot", low.ID)
	// Applying then does what the dry run said.
	applied := maintain(t, later, "p", true)
	if !slices.EqualFunc(dry.Items, applied.Items, func(a, b cairn.MaintenanceItem) bool { return a == b }) {
		t.Errorf("applied items %+v differ from the dry run's %+v", applied.Items, dry.Items)
	}
}

func testApplyRemoves(t *testing.T, e *engine.Engine) {
	session, low, decaying := lifecycleFixture(t, e)
	later := after(e, 100*24*time.Hour)
	stBefore, _ := e.Stats(t.Context(), "p")
	wantFound(t, later, "p", "ocelot", low.ID)
	rep := maintain(t, later, "p", true)
	if rep.Expired != 1 || rep.Deleted != 1 || rep.Decayed != 1 {
		t.Fatalf("items %v", itemKeys(rep))
	}
	wantGone(t, e, session.ID)
	wantGone(t, e, low.ID)
	if got := searchIDs(t, later, "p", "ocelot"); !slices.Equal(got, []string{decaying.ID}) {
		t.Errorf("Search(ocelot) after cleanup = %v, want only %s", got, decaying.ID)
	}
	if st, _ := e.Stats(t.Context(), "p"); st.Total != 1 || st.IndexDocs != stBefore.IndexDocs-2 {
		t.Errorf("after cleanup: %d memories, %d indexed; want 1, %d", st.Total, st.IndexDocs, stBefore.IndexDocs-2)
	}
	// 100 days: 14 whole weeks of 0.02.
	if g := get(t, e, decaying.ID); g.Confidence != 0.62 {
		t.Errorf("decayed confidence %v, want exactly 0.62", g.Confidence)
	}
	for _, c := range []struct {
		m              *cairn.Memory
		action, detail string
	}{
		{session, cairn.ActionExpired, "expired: session memories live 30 days, created 2025-06-01 — the ocelot session summary"},
		{low, cairn.ActionDeleted, "low value: confidence 0.10 after 14 weeks of decay, never used, 100 days old — an ocelot remark of little value"},
		{decaying, cairn.ActionDecayed, "decay 0.90 → 0.62 (14 weeks unused)"},
	} {
		as := activityOf(t, e, "p", c.m.ID)
		if len(as) == 0 || as[0].Action != c.action || as[0].Detail != c.detail || !as[0].At.Equal(now.Add(100*24*time.Hour)) {
			t.Errorf("%s: newest activity %+v, want %s %q", c.m.ID, as[:min(1, len(as))], c.action, c.detail)
		}
	}
	// The index stays usable: new memories are found, the removed are not.
	nw := addNew(t, later, "p", "a fresh ocelot sighting")
	if got := searchIDs(t, later, "p", "ocelot"); len(got) != 2 || !slices.Contains(got, nw.ID) {
		t.Errorf("Search(ocelot) after adding = %v", got)
	}
	if rep := maintain(t, later, "p", true); len(rep.Items) != 0 {
		t.Errorf("a second cleanup found %v", itemKeys(rep))
	}
}

func testWriteActivity(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	m := add(t, e, &cairn.Memory{Project: "p", Content: "Run the linter before pushing.", SessionID: "s1"}).Memory
	again := add(t, e, &cairn.Memory{Project: "p", Content: "Run the linter   before pushing.", SessionID: "s2"})
	if again.Status != cairn.StatusReinforced {
		t.Fatalf("re-add: %s", again.Status)
	}
	as := activityOf(t, e, "p", m.ID)
	if got := activityKeys(as); !slices.Equal(got, []string{"reinforced " + m.ID + " s2", "created " + m.ID + " s1"}) {
		t.Errorf("activity after add and re-add: %q", got)
	}
	if len(as) == 2 && (as[1].Detail != "Run the linter before pushing" || !as[1].At.Equal(now)) {
		t.Errorf("created entry %+v, want the title as detail, at now", as[1])
	}
	keyed := add(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "db", Content: "use sqlite"}).Memory
	if res := add(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "db", Content: "use postgres"}); res.Status != cairn.StatusUpdated {
		t.Fatalf("same key: %s", res.Status)
	}
	add(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "db", Content: "use postgres"}) // unchanged: no entry
	if got := actionsOf(t, e, "p", keyed.ID); !slices.Equal(got, []string{"created", "updated"}) {
		t.Errorf("activity of a key upsert: %v", got)
	}
	upd := func(u cairn.MemoryUpdate) {
		t.Helper()
		if _, err := e.UpdateMemory(ctx, m.ID, u); err != nil {
			t.Fatalf("UpdateMemory(%+v): %v", u, err)
		}
	}
	other := addNew(t, e, "p", "run the linter and the tests before pushing")
	upd(cairn.MemoryUpdate{Content: ptr("Run golangci-lint before pushing.")})
	upd(cairn.MemoryUpdate{Content: ptr("Run golangci-lint before pushing.")}) // unchanged: no entry
	upd(cairn.MemoryUpdate{Pinned: ptr(true)})
	upd(cairn.MemoryUpdate{Pinned: ptr(false)})
	upd(cairn.MemoryUpdate{Type: ptr("pattern")})
	scope := cairn.ScopeGlobal
	upd(cairn.MemoryUpdate{Scope: &scope})
	upd(cairn.MemoryUpdate{SupersededBy: ptr(other.ID)})
	upd(cairn.MemoryUpdate{Tags: ptr([]string{"lint"}), Pinned: ptr(true)})
	if err := e.DeleteMemory(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	as = activityOf(t, e, "p", m.ID)
	var got []string
	for i := len(as) - 1; i >= 0; i-- {
		got = append(got, as[i].Action+": "+as[i].Detail)
	}
	want := []string{
		"created: Run the linter before pushing",
		"reinforced: same content added again; confidence 0.62",
		"updated: title, content",
		"pinned: ",
		"unpinned: ",
		"promoted: type note → pattern",
		"promoted: scope project → global",
		"superseded: by " + other.ID,
		"pinned: ",
		"updated: tags",
		"deleted: Run golangci-lint before pushing",
	}
	if !slices.Equal(got, want) {
		t.Errorf("activity of every write path:\n got %q\nwant %q", got, want)
	}
}

func testImportActivity(t *testing.T, e *engine.Engine) {
	importRecords(t, e, cairn.ImportOptions{Project: "p"}, exported()...)
	for _, m := range exported() {
		as := activityOf(t, e, "p", m.ID)
		if len(as) != 1 || as[0].Action != cairn.ActionCreated || as[0].Detail != "imported" || as[0].SessionID != "" {
			t.Errorf("%s after import: activity %+v, want one created entry", m.ID, as)
		}
	}
	importRecords(t, e, cairn.ImportOptions{Project: "p"}, exported()...) // unchanged: no entries
	newer := exported()[1]
	newer.Content, newer.UpdatedAt = "tabs, never spaces", now
	rep := importRecords(t, e, cairn.ImportOptions{Project: "p"}, newer,
		&cairn.Memory{Content: "twice in one import"}, &cairn.Memory{Content: "twice in one import"})
	if rep.Updated != 1 || rep.Created != 1 || rep.Reinforced != 1 {
		t.Fatalf("import report %+v", rep)
	}
	if got := actionsOf(t, e, "p", newer.ID); !slices.Equal(got, []string{"created", "updated"}) {
		t.Errorf("activity of a newer import: %v", got)
	}
	as, _, err := e.FindActivity(t.Context(), cairn.ActivityFilter{Project: "p", Actions: []string{cairn.ActionReinforced}})
	if err != nil || len(as) != 1 {
		t.Fatalf("reinforced entries: %+v, %v", as, err)
	}
	if got := actionsOf(t, e, "p", as[0].MemoryID); !slices.Equal(got, []string{"created", "reinforced"}) {
		t.Errorf("activity of content imported twice: %v", got)
	}
	if _, total, _ := e.FindActivity(t.Context(), cairn.ActivityFilter{Project: "p"}); total != 6 {
		t.Errorf("%d activity entries after the imports, want 6", total)
	}
}

func testPromotion(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	learning := add(t, e, &cairn.Memory{Project: "p", Type: "learning", Content: "the build caches modules"}).Memory
	if !learning.ExpiresAt.Equal(now.Add(90 * 24 * time.Hour)) {
		t.Fatalf("learning expires %v", learning.ExpiresAt)
	}
	p, err := e.UpdateMemory(ctx, learning.ID, cairn.MemoryUpdate{Type: ptr("pattern")})
	if err != nil {
		t.Fatal(err)
	}
	if !p.ExpiresAt.IsZero() {
		t.Errorf("a learning promoted to a pattern expires %v, want never", p.ExpiresAt)
	}
	if as := activityOf(t, e, "p", learning.ID); as[0].Action != cairn.ActionPromoted || as[0].Detail != "type learning → pattern, no longer expires" {
		t.Errorf("promotion entry %+v", as[0])
	}
	note := add(t, e, &cairn.Memory{Project: "p", Content: "summary of today"}).Memory
	s, err := e.UpdateMemory(ctx, note.ID, cairn.MemoryUpdate{Type: ptr("session")})
	if err != nil {
		t.Fatal(err)
	}
	if !s.ExpiresAt.Equal(note.CreatedAt.Add(30 * 24 * time.Hour)) {
		t.Errorf("a note made a session expires %v, want 30 days after its creation", s.ExpiresAt)
	}
	until := now.Add(5 * 24 * time.Hour)
	custom := add(t, e, &cairn.Memory{Project: "p", Type: "learning", Content: "freeze until friday", ExpiresAt: until}).Memory
	c, err := e.UpdateMemory(ctx, custom.ID, cairn.MemoryUpdate{Type: ptr("pattern")})
	if err != nil {
		t.Fatal(err)
	}
	if !c.ExpiresAt.Equal(until) {
		t.Errorf("an expiry set by hand became %v, want it kept (%v)", c.ExpiresAt, until)
	}
	rep := maintain(t, after(e, 100*24*time.Hour), "p", true)
	if it := itemOf(rep, learning.ID); it != nil && it.Action != cairn.ActionDecayed {
		t.Errorf("the promoted pattern: %+v, want it kept", it)
	}
	get(t, e, learning.ID)
}

func testSupersedeChain(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	mk := func(content string, age time.Duration) *cairn.Memory {
		return add(t, e, &cairn.Memory{Project: "p", Content: content, CreatedAt: now.Add(-age)}).Memory
	}
	a, b, c, x := mk("use mysql 5", 4*time.Hour), mk("use postgres 15", 3*time.Hour), mk("use postgres 16", 2*time.Hour), mk("use the sqlite fallback", time.Hour)
	supersede := func(old, nw *cairn.Memory) error {
		_, err := e.UpdateMemory(ctx, old.ID, cairn.MemoryUpdate{SupersededBy: &nw.ID})
		return err
	}
	for _, l := range [][2]*cairn.Memory{{a, b}, {b, c}, {x, c}} {
		if err := supersede(l[0], l[1]); err != nil {
			t.Fatalf("supersede %s by %s: %v", l[0].ID, l[1].ID, err)
		}
	}
	wantCode(t, supersede(c, a), cairn.EINVALID, "a loop through the chain")
	wantCode(t, supersede(b, a), cairn.EINVALID, "a loop of two")
	wantCode(t, supersede(a, a), cairn.EINVALID, "superseding itself")
	wantCode(t, supersede(a, &cairn.Memory{ID: "mem-missing"}), cairn.ENOTFOUND, "superseded by a missing memory")
	elsewhere := addNew(t, e, "q", "use postgres 17 in another project")
	wantCode(t, supersede(a, elsewhere), cairn.EINVALID, "superseded by another project's memory")
	global := add(t, e, &cairn.Memory{Project: "q", Scope: cairn.ScopeGlobal, Content: "prefer managed databases"}).Memory
	if err := supersede(x, global); err != nil {
		t.Errorf("superseded by a global memory of another project: %v", err)
	}
	if err := supersede(x, c); err != nil {
		t.Fatal(err)
	}
	if got := get(t, e, a.ID).SupersededBy; got != b.ID {
		t.Errorf("a failed supersede changed the link to %q", got)
	}
	chain := func(id string) []string {
		ms, err := e.SupersedeChain(ctx, id)
		if err != nil {
			t.Fatalf("SupersedeChain(%s): %v", id, err)
		}
		return ids(ms)
	}
	for _, tc := range []struct {
		of   *cairn.Memory
		want []string
	}{
		{a, []string{a.ID, b.ID, c.ID}},
		{b, []string{a.ID, b.ID, c.ID}},
		{c, []string{a.ID, b.ID, x.ID, c.ID}},
		{x, []string{x.ID, c.ID}},
	} {
		if got := chain(tc.of.ID); !slices.Equal(got, tc.want) {
			t.Errorf("SupersedeChain(%s) = %v, want %v", tc.of.ID, got, tc.want)
		}
	}
	lone := addNew(t, e, "p", "nothing to do with databases")
	if got := chain(lone.ID[:16]); !slices.Equal(got, []string{lone.ID}) {
		t.Errorf("SupersedeChain of a lone memory = %v", got)
	}
	// Superseded memories stay searchable.
	wantFound(t, e, "p", "mysql", a.ID)
	// A link to a deleted memory ends a chain.
	if err := e.DeleteMemory(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := supersede(lone, b); err != nil {
		t.Errorf("superseding by a memory whose successor was deleted: %v", err)
	}
	if got := chain(b.ID); !slices.Equal(got, []string{a.ID, lone.ID, b.ID}) {
		t.Errorf("SupersedeChain after a deletion = %v, want %v", got, []string{a.ID, lone.ID, b.ID})
	}
}

func testAddSuperseding(t *testing.T, e *engine.Engine) {
	ctx := t.Context()
	old := addNew(t, e, "p", "deploy with the capybara script")
	res, prev, err := e.AddSuperseding(ctx, &cairn.Memory{Project: "p", Content: "deploy with the capybara pipeline", SessionID: "s1"}, old.ID[:16])
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != cairn.StatusCreated || prev.ID != old.ID || prev.SupersededBy != res.Memory.ID {
		t.Errorf("AddSuperseding: %s %s, old now superseded by %q", res.Status, res.Memory.ID, prev.SupersededBy)
	}
	if got := actionsOf(t, e, "p", old.ID); !slices.Equal(got, []string{"created", "superseded"}) {
		t.Errorf("activity of the old memory: %v", got)
	}
	if got := activityKeys(activityOf(t, e, "p", res.Memory.ID)); !slices.Equal(got, []string{"created " + res.Memory.ID + " s1"}) {
		t.Errorf("activity of the new memory: %v", got)
	}
	before := snapshot(t, e, "p")
	_, _, err = e.AddSuperseding(ctx, &cairn.Memory{Project: "p", Content: "deploy with the capybara rocket"}, "mem-missing")
	wantCode(t, err, cairn.ENOTFOUND, "superseding a missing memory")
	_, _, err = e.AddSuperseding(ctx, &cairn.Memory{Project: "p", Content: "deploy with the capybara pipeline"}, res.Memory.ID)
	wantCode(t, err, cairn.EINVALID, "superseding a memory by its own content")
	checkUnchanged(t, before, snapshot(t, e, "p"))
	wantNone(t, e, "p", "rocket")
}

// testCleanupInterleaves cleans up a project of several thousand memories
// (some expire, some go for low value, the rest decay) while clients keep
// searching it and adding memories to it. The report is what a dry run
// said, item for item, and the cleanup did all of it; the writes made
// during the run were committed between its changes, not after them
// (their activity comes between the cleanup's first and last entries),
// and searches were answered meanwhile: no request waited for the whole
// run.
func testCleanupInterleaves(t *testing.T, e *engine.Engine) {
	const n = 4000
	ms := make([]*cairn.Memory, 0, n)
	for i := range n {
		m := &cairn.Memory{ID: fmt.Sprintf("bulk-%05d", i), Project: "p", Content: fmt.Sprintf("bulk note %d about the ocelot %d", i, i%97), Confidence: 0.5, Source: cairn.SourceImported}
		switch i % 4 {
		case 0:
			m.Type = "session" // expires after 30 days
		case 1:
			m.Confidence = 0.12 // low value
		}
		ms = append(ms, m)
	}
	importRecords(t, e, cairn.ImportOptions{}, ms...)
	later := after(e, 40*24*time.Hour)
	dry := maintain(t, later, "p", false)
	if dry.Expired != n/4 || dry.Deleted != n/4 || dry.Decayed != n/2 {
		t.Fatalf("dry run: %d expired, %d deleted, %d decayed; want %d, %d, %d", dry.Expired, dry.Deleted, dry.Decayed, n/4, n/4, n/2)
	}

	ctx, stop := context.WithCancel(t.Context())
	var (
		wg                sync.WaitGroup
		running           atomic.Bool
		searchesDuring    atomic.Int64
		added             []string
		addMu             sync.Mutex
		firstAdd          = make(chan struct{})
		firstAddOnce      sync.Once
		searchErr, addErr atomic.Value
	)
	wg.Add(2)
	go func() { // a client that writes: fresh memories, which cleanup leaves alone
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			res, err := later.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("a fresh remark number %d", i)})
			if err != nil {
				if ctx.Err() == nil {
					addErr.Store(err)
				}
				return
			}
			addMu.Lock()
			added = append(added, res.Memory.ID)
			addMu.Unlock()
			firstAddOnce.Do(func() { close(firstAdd) })
		}
	}()
	go func() { // a client that reads
		defer wg.Done()
		for ctx.Err() == nil {
			_, err := later.Search(ctx, cairn.Query{Project: "p", Text: "ocelot", Limit: 5})
			if err != nil {
				if ctx.Err() == nil {
					searchErr.Store(err)
				}
				return
			}
			if running.Load() {
				searchesDuring.Add(1)
			}
		}
	}()
	<-firstAdd
	running.Store(true)
	rep := maintain(t, later, "p", true)
	running.Store(false)
	stop()
	wg.Wait()
	if err, _ := addErr.Load().(error); err != nil {
		t.Fatalf("a write during cleanup failed: %v", err)
	}
	if err, _ := searchErr.Load().(error); err != nil {
		t.Fatalf("a search during cleanup failed: %v", err)
	}
	if !slices.Equal(itemKeys(rep), itemKeys(dry)) || rep.Pinned != dry.Pinned {
		t.Errorf("the applied report differs from the dry run's: %d items, want %d", len(rep.Items), len(dry.Items))
	}
	if left := maintain(t, later, "p", false); len(left.Items) != 0 {
		t.Errorf("after the cleanup a dry run still finds %d items, e.g. %v", len(left.Items), itemKeys(left)[:1])
	}
	// The removals left the index compacted (in steps, between requests)
	// and searches find the survivors only.
	if st, err := e.Stats(t.Context(), "p"); err != nil || st.DeadDocs >= int64(n/2) {
		t.Errorf("after the cleanup the index holds %d dead documents (%v), want fewer than the %d removed: compacted", st.DeadDocs, err, n/2)
	}
	for _, h := range search(t, later, cairn.Query{Project: "p", Text: "ocelot", Limit: cairn.MaxLimit}) {
		if i, _ := strconv.Atoi(strings.TrimPrefix(h.Memory.ID, "bulk-")); i%4 < 2 {
			t.Errorf("search found %s, removed by the cleanup", h.Memory.ID)
		}
	}
	// Where the writes landed among the cleanup's changes, by activity
	// order (oldest first).
	acts, _ := findActivity(t, e.Store(), cairn.ActivityFilter{Project: "p"})
	fresh := map[string]bool{}
	for _, id := range added {
		fresh[id] = true
	}
	first, last, cleanup := -1, -1, 0
	for i := len(acts) - 1; i >= 0; i-- { // newest first: walk backwards
		switch acts[i].Action {
		case cairn.ActionExpired, cairn.ActionDeleted, cairn.ActionDecayed:
			if first < 0 {
				first = i
			}
			last = i
			cleanup++
		}
	}
	between := 0
	for i := last + 1; i < first; i++ {
		if fresh[acts[i].MemoryID] {
			between++
		}
	}
	if cleanup != len(rep.Items) {
		t.Errorf("%d cleanup entries in the activity log, want %d", cleanup, len(rep.Items))
	}
	if between == 0 {
		t.Errorf("none of the %d writes made during the cleanup was committed between its changes: they waited for the whole run", len(added))
	}
	if searchesDuring.Load() == 0 {
		t.Error("no search was answered while the cleanup ran")
	}
	t.Logf("%d writes, %d between the cleanup's changes; %d searches during it", len(added), between, searchesDuring.Load())
}
