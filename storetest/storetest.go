// Package storetest is the conformance suite of cairn.Store. Every backend
// runs it from its own tests, so that all backends behave the same:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, openStore)
//		storetest.RunEngine(t, openStore)
//	}
//
// Run exercises the Store and Tx contract directly; RunEngine runs cairn's
// engine over the store and checks the behaviour users see, which must not
// depend on the backend. A behaviour change to the Store starts here.
//
// The open function gives each test a new, empty store; the suite closes it
// when the test ends, so open must not. The tests run in parallel, each on
// its own store.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// Opener returns a new, empty store for one test.
type Opener = func(t *testing.T) cairn.Store

// base is the time the fixtures are created at: UTC, milliseconds only.
var base = time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

func at(d time.Duration) time.Time { return base.Add(d) }

// Run runs the Store/Tx conformance tests against stores made by open.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s cairn.Store)
	}{
		{"CreatedMemoryRoundTripsEveryField", testCreateRoundTrip},
		{"UpdateMemoryReplacesEveryField", testUpdateReplacesEveryField},
		{"EmptyAndNilListsReadBackEmpty", testEmptyLists},
		{"DuplicateIDConflicts", testDuplicateID},
		{"DuplicateKeyConflictsWithinProjectAndType", testDuplicateKey},
		{"MissingIDIsNotFound", testMissingID},
		{"DeleteRemovesMemoryAndFreesItsKey", testDelete},
		{"FindMemoryByKeyIsScopedToProjectAndType", testFindByKey},
		{"FindMemoriesByHashIsScopedAndOldestFirst", testFindByHash},
		{"FindMemoriesByDocIsScopedAndSkipsMissing", testFindByDoc},
		{"FindMemoriesByDocFollowsUpdatesAndDeletes", testFindByDocFollowsMoves},
		{"FindMemoryIDsByPrefixIsOrderedLimitedAndScoped", testFindIDsByPrefix},
		{"FindMemoriesFilters", testFindMemoriesFilters},
		{"FindMemoriesSortOrders", testFindMemoriesSorts},
		{"FindMemoriesPagesAndCountsAll", testFindMemoriesPaging},
		{"ScanMemoryKeysVisitsEveryMemory", testScanMemoryKeys},
		{"CountByTypeCountsOwnProjectOnly", testCountByType},
		{"CountCreatedCountsByTypeAndPeriod", testCountCreated},
		{"FindProjectsCountsEveryProject", testFindProjects},
		{"PartitionStatsRoundTrip", testPartitionRoundTrip},
		{"UnknownPartitionHasZeroStats", testUnknownPartition},
		{"PartitionDocsListsPartitionsWithDocuments", testPartitionDocs},
		{"AppendPostingsAppendsBytesAndAddsDF", testAppendPostings},
		{"AppendPostingsOfManyTermsAsAnImportWritesThem", testAppendManyPostings},
		{"ReplacePostingsReplacesAndDeletesOnEmpty", testReplacePostings},
		{"PostingsSkipsMissingTerms", testPostingsSkipsMissing},
		{"DocFreqsReadsDFOfStoredTerms", testDocFreqs},
		{"DocFreqSumsAddsUpPartitions", testDocFreqSums},
		{"ScanPostingsPagesInByteOrder", testScanPostings},
		{"WritesInViewAreInvalid", testWritesInView},
		{"UpdateErrorRollsBackEverything", testRollback},
		{"ViewSeesOneSnapshot", testSnapshot},
		{"ConcurrentUpdatesAreSerialised", testSerialisedUpdates},
	}
	for _, tt := range slices.Concat(tests, lifecycleStoreTests, ingestStoreTests, tokenStoreTests, eventStoreTests, iterationStoreTests,
		capabilityStoreTests, jobStoreTests, settingsStoreTests) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, openStore(t, open))
		})
	}
}

func openStore(t *testing.T, open Opener) cairn.Store {
	t.Helper()
	s := open(t)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// --- helpers -------------------------------------------------------------

func update(t *testing.T, s cairn.Store, fn func(ctx context.Context, tx cairn.Tx) error) {
	t.Helper()
	ctx := t.Context()
	if err := s.Update(ctx, func(tx cairn.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, s cairn.Store, fn func(ctx context.Context, tx cairn.Tx) error) {
	t.Helper()
	ctx := t.Context()
	if err := s.View(ctx, func(tx cairn.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func create(t *testing.T, s cairn.Store, ms ...*cairn.Memory) {
	t.Helper()
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for _, m := range ms {
			if err := tx.CreateMemory(ctx, m); err != nil {
				return fmt.Errorf("create %s: %w", m.ID, err)
			}
		}
		return nil
	})
}

func find(t *testing.T, s cairn.Store, id string) *cairn.Memory {
	t.Helper()
	var m *cairn.Memory
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		m, err = tx.FindMemoryByID(ctx, id)
		return err
	})
	return m
}

func findAll(t *testing.T, s cairn.Store, f cairn.MemoryFilter) ([]*cairn.Memory, int) {
	t.Helper()
	var ms []*cairn.Memory
	var total int
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		ms, total, err = tx.FindMemories(ctx, f)
		return err
	})
	return ms, total
}

func wantCode(t *testing.T, err error, code, what string) {
	t.Helper()
	if got := cairn.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}

func ids(ms []*cairn.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func sortedIDs(ms []*cairn.Memory) []string {
	out := ids(ms)
	sort.Strings(out)
	return out
}

// mem returns a memory of project with document number doc in the
// project's partition; its id is "m-<doc>" and its hash unique.
func mem(project string, doc int64) *cairn.Memory {
	return &cairn.Memory{
		ID:          fmt.Sprintf("m-%04d", doc),
		Project:     project,
		Scope:       cairn.ScopeProject,
		Type:        "note",
		Title:       fmt.Sprintf("memory %d", doc),
		Content:     fmt.Sprintf("content of memory %d", doc),
		Confidence:  0.5,
		Source:      cairn.SourceExplicit,
		CreatedAt:   at(time.Duration(doc) * time.Second),
		UpdatedAt:   at(time.Duration(doc) * time.Second),
		ContentHash: fmt.Sprintf("hash-%d", doc),
		Partition:   project,
		DocNum:      doc,
	}
}

// fullMemory sets every field of a memory to a value other than its zero.
func fullMemory(id, project string, doc int64) *cairn.Memory {
	return &cairn.Memory{
		ID:           id,
		Project:      project,
		Scope:        cairn.ScopeGlobal,
		Type:         "decision",
		Key:          "database",
		Title:        "Use Postgres — ünïcode ✓",
		Content:      "We chose Postgres.\nLine two\twith a tab, \"quotes\", 'apostrophes' and 日本語.",
		Tags:         []string{"db", "scope:global", "agent:claude"},
		FileRefs:     []string{"internal/db/*.go", "go.mod"},
		Confidence:   0.8125,
		Source:       cairn.SourceImported,
		Agent:        "claude",
		Hat:          "builder",
		TaskID:       "42",
		SessionID:    "sess-1",
		CreatedAt:    at(-48 * time.Hour),
		UpdatedAt:    at(-24 * time.Hour),
		LastUsedAt:   at(-1 * time.Hour),
		VerifiedAt:   at(-2 * time.Hour),
		ExpiresAt:    at(90 * 24 * time.Hour),
		UseCount:     7,
		Pinned:       true,
		SupersededBy: "mem-newer",
		Flag:         cairn.FlagOverride + "," + cairn.FlagRoleSyntax,
		ContentHash:  "0123456789abcdef0123456789abcdef",
		Partition:    "",
		DocNum:       doc,
	}
}

// diffMemory lists the fields in which got differs from want. Times are
// compared as instants and must be UTC; nil and empty lists are equal.
func diffMemory(want, got *cairn.Memory) []string {
	var diffs []string
	wv, gv := reflect.ValueOf(want).Elem(), reflect.ValueOf(got).Elem()
	for i := 0; i < wv.NumField(); i++ {
		name := wv.Type().Field(i).Name
		w, g := wv.Field(i).Interface(), gv.Field(i).Interface()
		switch w := w.(type) {
		case time.Time:
			g := g.(time.Time)
			if !w.Equal(g) || w.IsZero() != g.IsZero() {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", name, g, w))
			} else if !g.IsZero() && g.Location() != time.UTC {
				diffs = append(diffs, fmt.Sprintf("%s: got %v in %v, want UTC", name, g, g.Location()))
			}
		case []string:
			g := g.([]string)
			if len(w) != len(g) || (len(w) > 0 && !slices.Equal(w, g)) {
				diffs = append(diffs, fmt.Sprintf("%s: got %q, want %q", name, g, w))
			}
		default:
			if !reflect.DeepEqual(w, g) {
				diffs = append(diffs, fmt.Sprintf("%s: got %#v, want %#v", name, g, w))
			}
		}
	}
	return diffs
}

func checkSame(t *testing.T, want, got *cairn.Memory) {
	t.Helper()
	if got == nil {
		t.Fatalf("memory %s: got nil", want.ID)
	}
	for _, d := range diffMemory(want, got) {
		t.Errorf("memory %s: %s", want.ID, d)
	}
}

// --- memories ------------------------------------------------------------

func testCreateRoundTrip(t *testing.T, s cairn.Store) {
	want := fullMemory("mem-full", "proj", 1)
	v := reflect.ValueOf(want).Elem()
	for i := 0; i < v.NumField(); i++ {
		// Partition "" is the global partition; every other field must be
		// set, so that a field a backend drops is noticed.
		if name := v.Type().Field(i).Name; name != "Partition" && v.Field(i).IsZero() {
			t.Fatalf("fixture leaves %s zero: extend fullMemory", name)
		}
	}
	create(t, s, want)
	checkSame(t, want, find(t, s, "mem-full"))

	// Found the same way by key and by listing.
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		m, err := tx.FindMemoryByKey(ctx, "proj", "decision", "database")
		if err != nil {
			return err
		}
		checkSame(t, want, m)
		ms, _, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: "proj"})
		if err != nil {
			return err
		}
		if len(ms) != 1 {
			t.Fatalf("FindMemories = %d memories, want 1", len(ms))
		}
		checkSame(t, want, ms[0])
		return nil
	})
}

func testUpdateReplacesEveryField(t *testing.T, s cairn.Store) {
	create(t, s, fullMemory("mem-full", "proj", 1))
	// Every field changes; times, lists, flags and links go to zero where
	// they can.
	want := &cairn.Memory{
		ID:          "mem-full",
		Project:     "proj2",
		Scope:       cairn.ScopeProject,
		Type:        "pitfall",
		Key:         "",
		Title:       "New title",
		Content:     "New content",
		Tags:        nil,
		FileRefs:    []string{},
		Confidence:  0.25,
		Source:      cairn.SourceAutomatic,
		Agent:       "",
		Hat:         "",
		TaskID:      "",
		SessionID:   "sess-2",
		CreatedAt:   at(time.Hour),
		UpdatedAt:   at(2 * time.Hour),
		ContentHash: "ffffffffffffffffffffffffffffffff",
		Partition:   "proj2",
		DocNum:      9,
	}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.UpdateMemory(ctx, want) })
	got := find(t, s, "mem-full")
	checkSame(t, want, got)
	if !got.ExpiresAt.IsZero() || !got.LastUsedAt.IsZero() || !got.VerifiedAt.IsZero() {
		t.Errorf("zero times read back as %v, %v, %v", got.ExpiresAt, got.LastUsedAt, got.VerifiedAt)
	}

	// The old key is free and the memory is found by its new project only.
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		_, err := tx.FindMemoryByKey(ctx, "proj", "decision", "database")
		wantCode(t, err, cairn.ENOTFOUND, "old key after update")
		if _, n, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: "proj"}); err != nil || n != 0 {
			t.Errorf("old project still lists %d memories (%v)", n, err)
		}
		if _, n, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: "proj2"}); err != nil || n != 1 {
			t.Errorf("new project lists %d memories (%v), want 1", n, err)
		}
		return nil
	})

	// And back to every field set.
	full := fullMemory("mem-full", "proj", 3)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.UpdateMemory(ctx, full) })
	checkSame(t, full, find(t, s, "mem-full"))
}

func testEmptyLists(t *testing.T, s cairn.Store) {
	a := mem("p", 1)
	a.Tags, a.FileRefs = []string{}, nil
	b := mem("p", 2)
	b.Tags, b.FileRefs = nil, []string{}
	c := mem("p", 3)
	c.Tags, c.FileRefs = []string{"one"}, []string{"a b.go"}
	create(t, s, a, b, c)
	for _, m := range []*cairn.Memory{a, b, c} {
		got := find(t, s, m.ID)
		checkSame(t, m, got)
	}
}

func testDuplicateID(t *testing.T, s cairn.Store) {
	create(t, s, mem("p", 1))
	dup := mem("other", 2)
	dup.ID = mem("p", 1).ID
	err := s.Update(t.Context(), func(tx cairn.Tx) error { return tx.CreateMemory(t.Context(), dup) })
	wantCode(t, err, cairn.ECONFLICT, "CreateMemory with a taken id")
	checkSame(t, mem("p", 1), find(t, s, dup.ID))
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "other"}); n != 0 {
		t.Errorf("the conflicting memory was stored: project other has %d", n)
	}
}

func testDuplicateKey(t *testing.T, s cairn.Store) {
	a := mem("p", 1)
	a.Type, a.Key = "decision", "db"
	create(t, s, a)

	b := mem("p", 2)
	b.Type, b.Key = "decision", "db"
	err := s.Update(t.Context(), func(tx cairn.Tx) error { return tx.CreateMemory(t.Context(), b) })
	wantCode(t, err, cairn.ECONFLICT, "CreateMemory with a taken (project, type, key)")

	// The same key is free in another project, for another type, and
	// memories without a key never conflict.
	c := mem("q", 3)
	c.Type, c.Key = "decision", "db"
	d := mem("p", 4)
	d.Type, d.Key = "pitfall", "db"
	e, f := mem("p", 5), mem("p", 6)
	create(t, s, c, d, e, f)
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != 4 {
		t.Errorf("project p has %d memories, want 4", n)
	}
}

func testMissingID(t *testing.T, s cairn.Store) {
	create(t, s, mem("p", 1))
	ctx := t.Context()
	err := s.View(ctx, func(tx cairn.Tx) error {
		_, err := tx.FindMemoryByID(ctx, "m-9999")
		wantCode(t, err, cairn.ENOTFOUND, "FindMemoryByID")
		_, err = tx.FindMemoryByKey(ctx, "p", "note", "nokey")
		wantCode(t, err, cairn.ENOTFOUND, "FindMemoryByKey")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx cairn.Tx) error { return tx.UpdateMemory(ctx, mem("p", 9999)) })
	wantCode(t, err, cairn.ENOTFOUND, "UpdateMemory")
	err = s.Update(ctx, func(tx cairn.Tx) error { return tx.DeleteMemory(ctx, "m-9999") })
	wantCode(t, err, cairn.ENOTFOUND, "DeleteMemory")
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != 1 {
		t.Errorf("project p has %d memories after failed writes, want 1", n)
	}
}

func testDelete(t *testing.T, s cairn.Store) {
	a := mem("p", 1)
	a.Type, a.Key = "decision", "db"
	create(t, s, a, mem("p", 2))
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.DeleteMemory(ctx, a.ID) })
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		_, err := tx.FindMemoryByID(ctx, a.ID)
		wantCode(t, err, cairn.ENOTFOUND, "FindMemoryByID after delete")
		ms, err := tx.FindMemoriesByDoc(ctx, "p", []int64{1})
		if err != nil || len(ms) != 0 {
			t.Errorf("FindMemoriesByDoc after delete = %d, %v", len(ms), err)
		}
		return nil
	})
	if ms, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != 1 || ms[0].ID != "m-0002" {
		t.Errorf("after delete: %v, want [m-0002]", ids(ms))
	}
	// The key and the document number are free again.
	b := mem("p", 1)
	b.ID, b.Type, b.Key = "m-new", "decision", "db"
	create(t, s, b)
	err := s.Update(t.Context(), func(tx cairn.Tx) error { return tx.DeleteMemory(t.Context(), a.ID) })
	wantCode(t, err, cairn.ENOTFOUND, "deleting twice")
}

func testFindByKey(t *testing.T, s cairn.Store) {
	a := mem("p", 1)
	a.Type, a.Key = "decision", "db"
	b := mem("q", 2)
	b.Type, b.Key = "decision", "db"
	c := mem("p", 3)
	c.Type, c.Key = "pattern", "db"
	create(t, s, a, b, c)
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for _, tt := range []struct{ project, typ, id string }{
			{"p", "decision", a.ID}, {"q", "decision", b.ID}, {"p", "pattern", c.ID},
		} {
			m, err := tx.FindMemoryByKey(ctx, tt.project, tt.typ, "db")
			if err != nil || m.ID != tt.id {
				t.Errorf("FindMemoryByKey(%s, %s) = %v, %v; want %s", tt.project, tt.typ, m, err, tt.id)
			}
		}
		_, err := tx.FindMemoryByKey(ctx, "q", "pattern", "db")
		wantCode(t, err, cairn.ENOTFOUND, "key of another project's type")
		_, err = tx.FindMemoryByKey(ctx, "p", "decision", "DB")
		wantCode(t, err, cairn.ENOTFOUND, "key in another case")
		return nil
	})
}

func testFindByHash(t *testing.T, s cairn.Store) {
	newer, older, other, diff := mem("p", 1), mem("p", 2), mem("q", 3), mem("p", 4)
	for _, m := range []*cairn.Memory{newer, older, other} {
		m.ContentHash = "same"
	}
	newer.CreatedAt = at(time.Hour)
	older.CreatedAt = at(-time.Hour)
	create(t, s, newer, older, other, diff)
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		ms, err := tx.FindMemoriesByHash(ctx, "p", "same")
		if err != nil {
			return err
		}
		if got := ids(ms); !slices.Equal(got, []string{older.ID, newer.ID}) {
			t.Errorf("FindMemoriesByHash = %v, want [%s %s] (oldest first, project p only)", got, older.ID, newer.ID)
		}
		ms, err = tx.FindMemoriesByHash(ctx, "p", "nothing")
		if err != nil || len(ms) != 0 {
			t.Errorf("unknown hash: %d memories, %v", len(ms), err)
		}
		return nil
	})
}

// A memory is found by the document number and partition it has now:
// an update that gives it another number, or moves it to another
// partition, leaves nothing at the old place; an update that keeps them,
// a deletion and a memory created at a freed number are seen too, in the
// transaction that made them and after it.
func testFindByDocFollowsMoves(t *testing.T, s cairn.Store) {
	a, b, c := mem("p", 1), mem("p", 2), mem("p", 3)
	create(t, s, a, b, c)
	docs := func(ctx context.Context, tx cairn.Tx, part string, want map[int64]string) {
		t.Helper()
		got, err := tx.FindMemoriesByDoc(ctx, part, []int64{0, 1, 2, 3, 4, 5, 6, 7})
		if err != nil {
			t.Fatal(err)
		}
		have := map[int64]string{}
		for _, m := range got {
			if m.Partition != part {
				t.Errorf("FindMemoriesByDoc(%q) returned %s of partition %q", part, m.ID, m.Partition)
			}
			have[m.DocNum] = m.ID + "/" + m.Title
		}
		if !reflect.DeepEqual(have, want) {
			t.Errorf("FindMemoriesByDoc(%q) = %v, want %v", part, have, want)
		}
	}
	check := func(ctx context.Context, tx cairn.Tx) {
		t.Helper()
		docs(ctx, tx, "p", map[int64]string{2: "m-0002/kept", 5: "m-0001/moved", 7: "m-0009/new"})
		docs(ctx, tx, "", map[int64]string{4: "m-0003/global"})
	}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		a.DocNum, a.Title = 5, "moved"
		b.Title = "kept"
		c.Scope, c.Partition, c.DocNum, c.Title = cairn.ScopeGlobal, "", 4, "global"
		for _, m := range []*cairn.Memory{a, b, c} {
			if err := tx.UpdateMemory(ctx, m); err != nil {
				return err
			}
		}
		d := mem("p", 9)
		d.DocNum, d.Title = 7, "new"
		if err := tx.CreateMemory(ctx, d); err != nil {
			return err
		}
		e := mem("p", 10)
		e.DocNum = 6
		if err := tx.CreateMemory(ctx, e); err != nil {
			return err
		}
		if err := tx.DeleteMemory(ctx, e.ID); err != nil {
			return err
		}
		check(ctx, tx)
		return nil
	})
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		check(ctx, tx)
		return nil
	})
}

func testFindByDoc(t *testing.T, s cairn.Store) {
	// More documents than a backend might put in one statement.
	var ms []*cairn.Memory
	var docs []int64
	for d := int64(0); d < 1200; d++ {
		if d%2 == 0 {
			ms = append(ms, mem("p", d))
		}
		docs = append(docs, d)
	}
	g := mem("q", 4) // the same number in another partition
	g.ID = "g-4"
	ms = append(ms, g)
	create(t, s, ms...)
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		got, err := tx.FindMemoriesByDoc(ctx, "p", docs)
		if err != nil {
			return err
		}
		if len(got) != 600 {
			t.Fatalf("FindMemoriesByDoc = %d memories, want 600", len(got))
		}
		for _, m := range got {
			if m.Partition != "p" || m.DocNum%2 != 0 {
				t.Fatalf("FindMemoriesByDoc returned %s (partition %q doc %d)", m.ID, m.Partition, m.DocNum)
			}
		}
		got, err = tx.FindMemoriesByDoc(ctx, "q", []int64{3, 4, 5})
		if err != nil || len(got) != 1 || got[0].ID != "g-4" {
			t.Errorf("FindMemoriesByDoc(q) = %v, %v; want [g-4]", ids(got), err)
		}
		got, err = tx.FindMemoriesByDoc(ctx, "p", nil)
		if err != nil || len(got) != 0 {
			t.Errorf("FindMemoriesByDoc(no docs) = %v, %v", ids(got), err)
		}
		got, err = tx.FindMemoriesByDoc(ctx, "", []int64{0, 2})
		if err != nil || len(got) != 0 {
			t.Errorf("FindMemoriesByDoc(global) = %v, %v; want none", ids(got), err)
		}
		return nil
	})
}

func testFindIDsByPrefix(t *testing.T, s cairn.Store) {
	var ms []*cairn.Memory
	for i, id := range []string{"mem-b2", "mem-a1", "mem-a10", "mem-a2", "mem-A3", "other", "mem-a1\u00e9"} {
		m := mem("p", int64(i))
		m.ID = id
		ms = append(ms, m)
	}
	// Project q holds mem-b2, and mem-a2 as a global memory: p sees the
	// second, not the first.
	ms[0].Project, ms[0].Partition = "q", "q"
	ms[3].Project, ms[3].Scope, ms[3].Partition = "q", cairn.ScopeGlobal, ""
	create(t, s, ms...)
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for _, tt := range []struct {
			project string
			prefix  string
			limit   int
			want    []string
		}{
			{"p", "mem-", 10, []string{"mem-A3", "mem-a1", "mem-a10", "mem-a1\u00e9", "mem-a2"}},
			{"p", "mem-b", 10, nil},
			{"q", "mem-", 10, []string{"mem-a2", "mem-b2"}},
			{"r", "mem-a", 10, []string{"mem-a2"}},
			{"", "mem-a", 10, []string{"mem-a1", "mem-a10", "mem-a1\u00e9", "mem-a2"}},
			{"", "mem-a", 2, []string{"mem-a1", "mem-a10"}},
			{"", "mem-a1", 10, []string{"mem-a1", "mem-a10", "mem-a1\u00e9"}},
			{"", "mem-", 10, []string{"mem-A3", "mem-a1", "mem-a10", "mem-a1\u00e9", "mem-a2", "mem-b2"}},
			{"", "mem-c", 10, nil},
			{"", "mem-_", 10, nil},
			{"", "mem-%", 10, nil},
		} {
			got, err := tx.FindMemoryIDsByPrefix(ctx, tt.project, tt.prefix, tt.limit)
			if err != nil {
				return err
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("FindMemoryIDsByPrefix(%q, %q, %d) = %q, want %q", tt.project, tt.prefix, tt.limit, got, tt.want)
			}
		}
		return nil
	})
}

// filterFixture stores memories that tell every filter apart.
func filterFixture(t *testing.T, s cairn.Store) {
	m := func(project string, doc int64, fn func(m *cairn.Memory)) *cairn.Memory {
		x := mem(project, doc)
		fn(x)
		return x
	}
	create(t, s,
		m("p", 1, func(m *cairn.Memory) {
			m.Type, m.Tags, m.Confidence, m.SessionID = "decision", []string{"go", "db"}, 0.9, "s1"
			m.CreatedAt = at(-3 * time.Hour)
		}),
		m("p", 2, func(m *cairn.Memory) {
			m.Type, m.Tags, m.Confidence, m.SessionID, m.Agent, m.TaskID = "pitfall", []string{"golang"}, 0.5, "s2", "mars", "t7"
			m.CreatedAt = at(-2 * time.Hour)
			m.Source, m.UseCount, m.LastUsedAt = cairn.SourceAutomatic, 3, at(time.Hour)
			m.ExpiresAt = at(2 * time.Hour)
		}),
		m("p", 3, func(m *cairn.Memory) {
			m.Type, m.Tags, m.Confidence, m.SessionID = "note", []string{"db", "go", "x:y"}, 0.7, "s1"
			m.CreatedAt = at(-1 * time.Hour)
			m.Source, m.UseCount, m.ExpiresAt = cairn.SourceExtracted, 1, at(-time.Hour)
		}),
		m("p", 4, func(m *cairn.Memory) {
			m.Type, m.Tags, m.Confidence, m.CreatedAt, m.Hat = "decision", nil, 0.69999, at(0), "critic"
			m.FileRefs = []string{"a.go"}
		}),
		m("q", 5, func(m *cairn.Memory) {
			m.Type, m.Tags, m.Confidence, m.SessionID = "decision", []string{"go", "db"}, 0.9, "s1"
		}),
		m("q", 6, func(m *cairn.Memory) {
			m.Scope, m.Partition, m.Type, m.Tags, m.Confidence, m.SessionID = cairn.ScopeGlobal, "", "decision", []string{"go"}, 0.95, "s1"
		}),
		m("r", 7, func(m *cairn.Memory) {
			m.Scope, m.Partition, m.Type, m.Tags, m.Confidence = cairn.ScopeGlobal, "", "note", []string{"db"}, 0.3
		}),
	)
}

func testFindMemoriesFilters(t *testing.T, s cairn.Store) {
	filterFixture(t, s)
	tests := []struct {
		name string
		f    cairn.MemoryFilter
		want []string
	}{
		{"project only", cairn.MemoryFilter{Project: "p"}, []string{"m-0001", "m-0002", "m-0003", "m-0004"}},
		{"other project", cairn.MemoryFilter{Project: "q"}, []string{"m-0005", "m-0006"}},
		{"unknown project", cairn.MemoryFilter{Project: "nobody"}, nil},
		{"include global", cairn.MemoryFilter{Project: "p", IncludeGlobal: true}, []string{"m-0001", "m-0002", "m-0003", "m-0004", "m-0006", "m-0007"}},
		{"include global of own project once", cairn.MemoryFilter{Project: "q", IncludeGlobal: true}, []string{"m-0005", "m-0006", "m-0007"}},
		{"ids", cairn.MemoryFilter{Project: "p", IDs: []string{"m-0002", "m-0004", "m-0005", "nope"}}, []string{"m-0002", "m-0004"}},
		{"types any of", cairn.MemoryFilter{Project: "p", Types: []string{"decision", "note"}}, []string{"m-0001", "m-0003", "m-0004"}},
		{"tags all of", cairn.MemoryFilter{Project: "p", Tags: []string{"go", "db"}}, []string{"m-0001", "m-0003"}},
		{"tag is matched whole", cairn.MemoryFilter{Project: "p", Tags: []string{"go"}}, []string{"m-0001", "m-0003"}},
		{"tag with colon", cairn.MemoryFilter{Project: "p", Tags: []string{"x:y"}}, []string{"m-0003"}},
		{"tag part is no match", cairn.MemoryFilter{Project: "p", Tags: []string{"x"}}, nil},
		{"min confidence inclusive", cairn.MemoryFilter{Project: "p", MinConfidence: 0.7}, []string{"m-0001", "m-0003"}},
		{"after inclusive", cairn.MemoryFilter{Project: "p", After: at(-2 * time.Hour)}, []string{"m-0002", "m-0003", "m-0004"}},
		{"before exclusive", cairn.MemoryFilter{Project: "p", Before: at(-2 * time.Hour)}, []string{"m-0001"}},
		{"after and before", cairn.MemoryFilter{Project: "p", After: at(-150 * time.Minute), Before: at(0)}, []string{"m-0002", "m-0003"}},
		{"session", cairn.MemoryFilter{Project: "p", Session: "s1"}, []string{"m-0001", "m-0003"}},
		{"agent", cairn.MemoryFilter{Project: "p", Agent: "mars"}, []string{"m-0002"}},
		{"task", cairn.MemoryFilter{Project: "p", Task: "t7"}, []string{"m-0002"}},
		{"task of none", cairn.MemoryFilter{Project: "p", Task: "t8"}, nil},
		{"hat", cairn.MemoryFilter{Project: "p", Hat: "critic"}, []string{"m-0004"}},
		{"hat of none", cairn.MemoryFilter{Project: "p", Hat: "editor"}, nil},
		{"has file refs", cairn.MemoryFilter{Project: "p", HasFileRefs: true}, []string{"m-0004"}},
		{"source", cairn.MemoryFilter{Project: "p", Source: cairn.SourceAutomatic}, []string{"m-0002"}},
		{"source of none", cairn.MemoryFilter{Project: "p", Source: cairn.SourceImported}, nil},
		{"never used", cairn.MemoryFilter{Project: "p", NeverUsed: true}, []string{"m-0001", "m-0004"}},
		// m-0002 expires at +2h, m-0003 expired at -1h, the others never.
		{"expires before: expired", cairn.MemoryFilter{Project: "p", ExpiresBefore: at(0)}, []string{"m-0003"}},
		{"expires before is exclusive", cairn.MemoryFilter{Project: "p", ExpiresBefore: at(-time.Hour)}, nil},
		{"expires after: still to expire", cairn.MemoryFilter{Project: "p", ExpiresAfter: at(0)}, []string{"m-0002"}},
		{"expires after is inclusive", cairn.MemoryFilter{Project: "p", ExpiresAfter: at(2 * time.Hour)}, []string{"m-0002"}},
		{"expiring within a window", cairn.MemoryFilter{Project: "p", ExpiresAfter: at(0), ExpiresBefore: at(3 * time.Hour)}, []string{"m-0002"}},
		{"expires after long ago: every memory that expires", cairn.MemoryFilter{Project: "p", ExpiresAfter: time.Unix(0, 0)}, []string{"m-0002", "m-0003"}},
		{"everything", cairn.MemoryFilter{Project: "p", IncludeGlobal: true, Types: []string{"decision"}, Tags: []string{"go"}, MinConfidence: 0.8, Session: "s1", After: at(-4 * time.Hour)}, []string{"m-0001", "m-0006"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ms, total := findAll(t, s, tt.f)
			if got := sortedIDs(ms); !slices.Equal(got, tt.want) {
				t.Errorf("FindMemories = %v, want %v", got, tt.want)
			}
			if total != len(tt.want) {
				t.Errorf("total = %d, want %d", total, len(tt.want))
			}
		})
	}
}

func testFindMemoriesSorts(t *testing.T, s cairn.Store) {
	// Each memory is first by exactly one order.
	var ms []*cairn.Memory
	for i := int64(1); i <= 5; i++ {
		m := mem("p", i)
		m.CreatedAt = at(time.Duration(i) * time.Minute)
		m.UpdatedAt = at(time.Duration((i*3)%5) * time.Hour)
		m.Confidence = []float64{0, 0.3, 0.9, 0.1, 0.5, 0.7}[i]
		m.UseCount = int([]int64{0, 4, 1, 5, 2, 3}[i])
		if i != 2 {
			m.LastUsedAt = at(time.Duration((i*2)%5+1) * time.Hour)
		}
		ms = append(ms, m)
	}
	create(t, s, ms...)
	tests := []struct {
		sort string
		want []string
	}{
		{"", []string{"m-0005", "m-0004", "m-0003", "m-0002", "m-0001"}},
		{cairn.SortCreatedDesc, []string{"m-0005", "m-0004", "m-0003", "m-0002", "m-0001"}},
		{cairn.SortCreatedAsc, []string{"m-0001", "m-0002", "m-0003", "m-0004", "m-0005"}},
		// updated: 1→3h 2→1h 3→4h 4→2h 5→0h
		{cairn.SortUpdatedDesc, []string{"m-0003", "m-0001", "m-0004", "m-0002", "m-0005"}},
		{cairn.SortConfidenceDesc, []string{"m-0002", "m-0005", "m-0004", "m-0001", "m-0003"}},
		{cairn.SortUsedDesc, []string{"m-0003", "m-0001", "m-0005", "m-0004", "m-0002"}},
		// last used: 1→3h 2→never 3→2h 4→5h 5→1h
		{cairn.SortLastUsedDesc, []string{"m-0004", "m-0001", "m-0003", "m-0005", "m-0002"}},
		// value, confidence × (uses + 1): 1→1.5 2→1.8 3→0.6 4→1.5 5→2.8
		{cairn.SortValueDesc, []string{"m-0005", "m-0002", "m-0004", "m-0001", "m-0003"}},
	}
	for _, tt := range tests {
		t.Run("sort="+tt.sort, func(t *testing.T) {
			t.Parallel()
			got, _ := findAll(t, s, cairn.MemoryFilter{Project: "p", Sort: tt.sort})
			if !slices.Equal(ids(got), tt.want) {
				t.Errorf("Sort %q = %v, want %v", tt.sort, ids(got), tt.want)
			}
		})
	}
}

func testFindMemoriesPaging(t *testing.T, s cairn.Store) {
	var ms []*cairn.Memory
	for i := int64(1); i <= 7; i++ {
		ms = append(ms, mem("p", i))
	}
	create(t, s, append(ms, mem("q", 8))...)
	all := []string{"m-0001", "m-0002", "m-0003", "m-0004", "m-0005", "m-0006", "m-0007"}
	tests := []struct {
		limit, offset int
		want          []string
	}{
		{0, 0, all},
		{3, 0, all[:3]},
		{3, 3, all[3:6]},
		{3, 6, all[6:]},
		{3, 7, nil},
		{0, 5, all[5:]},
		{100, 2, all[2:]},
	}
	for _, tt := range tests {
		got, total := findAll(t, s, cairn.MemoryFilter{Project: "p", Sort: cairn.SortCreatedAsc, Limit: tt.limit, Offset: tt.offset})
		if !slices.Equal(ids(got), tt.want) {
			t.Errorf("Limit %d Offset %d = %v, want %v", tt.limit, tt.offset, ids(got), tt.want)
		}
		if total != 7 {
			t.Errorf("Limit %d Offset %d: total %d, want 7", tt.limit, tt.offset, total)
		}
	}
	got, total := findAll(t, s, cairn.MemoryFilter{Project: "p", Types: []string{"none"}, Limit: 2})
	if len(got) != 0 || total != 0 {
		t.Errorf("no match: %v, total %d", ids(got), total)
	}
}

func testScanMemoryKeys(t *testing.T, s cairn.Store) {
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		n := 0
		err := tx.ScanMemoryKeys(ctx, func(id, project, hash string) { n++ })
		if n != 0 {
			t.Errorf("ScanMemoryKeys of an empty store visited %d", n)
		}
		return err
	})
	filterFixture(t, s)
	want := map[string]string{}
	for _, f := range []cairn.MemoryFilter{{Project: "p"}, {Project: "q"}, {Project: "r"}} {
		ms, _ := findAll(t, s, f)
		for _, m := range ms {
			want[m.ID] = m.Project + "/" + m.ContentHash
		}
	}
	if len(want) != 7 {
		t.Fatalf("fixture has %d memories, want 7", len(want))
	}
	scan := func(tx cairn.Tx) map[string]string {
		got := map[string]string{}
		if err := tx.ScanMemoryKeys(t.Context(), func(id, project, hash string) {
			if _, dup := got[id]; dup {
				t.Errorf("ScanMemoryKeys visited %s twice", id)
			}
			got[id] = project + "/" + hash
		}); err != nil {
			t.Errorf("ScanMemoryKeys: %v", err)
		}
		return got
	}
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if got := scan(tx); !reflect.DeepEqual(got, want) {
			t.Errorf("ScanMemoryKeys = %v, want %v", got, want)
		}
		return nil
	})
	// A write transaction sees its own writes.
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.DeleteMemory(ctx, "m-0001"); err != nil {
			return err
		}
		if err := tx.CreateMemory(ctx, mem("z", 9)); err != nil {
			return err
		}
		delete(want, "m-0001")
		want["m-0009"] = "z/hash-9"
		if got := scan(tx); !reflect.DeepEqual(got, want) {
			t.Errorf("ScanMemoryKeys in the writing transaction = %v, want %v", got, want)
		}
		return nil
	})
}

func testCountByType(t *testing.T, s cairn.Store) {
	filterFixture(t, s)
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		got, err := tx.CountByType(ctx, "p")
		if err != nil {
			return err
		}
		if want := map[string]int{"decision": 2, "pitfall": 1, "note": 1}; !reflect.DeepEqual(got, want) {
			t.Errorf("CountByType(p) = %v, want %v", got, want)
		}
		got, err = tx.CountByType(ctx, "q")
		if err != nil {
			return err
		}
		// q's global-scope memory is still q's.
		if want := map[string]int{"decision": 2}; !reflect.DeepEqual(got, want) {
			t.Errorf("CountByType(q) = %v, want %v", got, want)
		}
		got, err = tx.CountByType(ctx, "nobody")
		if err != nil || len(got) != 0 {
			t.Errorf("CountByType(nobody) = %v, %v; want empty", got, err)
		}
		return nil
	})
}

func testCountCreated(t *testing.T, s cairn.Store) {
	filterFixture(t, s)
	// p: m-0001 decision -3h, m-0002 pitfall -2h, m-0003 note -1h,
	// m-0004 decision 0; q's global m-0006 is q's, not p's.
	type key struct {
		typ    string
		period int
	}
	count := func(project string, from time.Time, step time.Duration) map[key]int {
		got := map[key]int{}
		view(t, s, func(ctx context.Context, tx cairn.Tx) error {
			cs, err := tx.CountCreated(ctx, project, from, step)
			for _, c := range cs {
				if c.Count <= 0 {
					t.Errorf("CountCreated(%s) returned a count of %d", project, c.Count)
				}
				got[key{c.Type, c.Period}] += c.Count
			}
			return err
		})
		return got
	}
	if got, want := count("p", at(-3*time.Hour), 2*time.Hour), map[key]int{{"decision", 0}: 1, {"pitfall", 0}: 1, {"note", 1}: 1, {"decision", 1}: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("CountCreated(p, -3h, 2h) = %v, want %v", got, want)
	}
	// from is inclusive, and what was created before it is left out.
	if got, want := count("p", at(-2*time.Hour), time.Hour), map[key]int{{"pitfall", 0}: 1, {"note", 1}: 1, {"decision", 2}: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("CountCreated(p, -2h, 1h) = %v, want %v", got, want)
	}
	if got, want := count("q", at(0), 24*time.Hour), map[key]int{{"decision", 0}: 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("CountCreated(q) = %v, want %v (its global memory counts)", got, want)
	}
	if got := count("nobody", at(-24*time.Hour), time.Hour); len(got) != 0 {
		t.Errorf("CountCreated(nobody) = %v, want nothing", got)
	}
	// A bad input tried: a period that is not positive.
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		_, err := tx.CountCreated(ctx, "p", at(0), 0)
		wantCode(t, err, cairn.EINVALID, "CountCreated with a zero period")
		return nil
	})
}

func testFindProjects(t *testing.T, s cairn.Store) {
	list := func() []cairn.ProjectSummary {
		var out []cairn.ProjectSummary
		view(t, s, func(ctx context.Context, tx cairn.Tx) error {
			var err error
			out, err = tx.FindProjects(ctx)
			return err
		})
		return out
	}
	if got := list(); len(got) != 0 {
		t.Errorf("FindProjects of an empty store = %v", got)
	}
	filterFixture(t, s)
	// Memories are updated at +1s..+7s (mem); m-0002 of p was used at
	// +1h, after every change.
	want := []cairn.ProjectSummary{
		{Name: "p", Memories: 4, LastActivity: at(time.Hour)},
		{Name: "q", Memories: 2, LastActivity: at(6 * time.Second)},
		{Name: "r", Memories: 1, LastActivity: at(7 * time.Second)},
	}
	got := list()
	if len(got) != len(want) {
		t.Fatalf("FindProjects = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Memories != want[i].Memories || !got[i].LastActivity.Equal(want[i].LastActivity) {
			t.Errorf("FindProjects[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	// A project whose last memory is deleted is no longer listed.
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.DeleteMemory(ctx, "m-0007") })
	if got := list(); len(got) != 2 || got[1].Name != "q" {
		t.Errorf("FindProjects after r's memory was deleted = %v, want p and q", got)
	}
}

// --- index ---------------------------------------------------------------

// blob is postings-like binary data that text handling would damage.
func blob(seed byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*37)
	}
	b[0] = 0
	if n > 2 {
		b[n/2] = 0xff
		b[n-1] = 0
	}
	return b
}

// partition returns Partition(name), after checking that PartitionCounts
// answers the same without the dead set.
func partition(t *testing.T, s cairn.Store, name string) *cairn.PartitionStats {
	t.Helper()
	var ps, counts *cairn.PartitionStats
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		if ps, err = tx.Partition(ctx, name); err != nil {
			return err
		}
		counts, err = tx.PartitionCounts(ctx, name)
		return err
	})
	if ps != nil && counts != nil {
		want := *ps
		want.Dead = nil
		if !reflect.DeepEqual(*counts, want) {
			t.Errorf("PartitionCounts(%q) = %+v, want Partition's without the dead set: %+v", name, *counts, want)
		}
	}
	return ps
}

func postings(t *testing.T, s cairn.Store, part string, terms ...string) map[string]cairn.TermPostings {
	t.Helper()
	out := map[string]cairn.TermPostings{}
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		tps, err := tx.Postings(ctx, part, terms)
		for _, tp := range tps {
			if _, dup := out[tp.Term]; dup {
				t.Errorf("Postings returned %q twice", tp.Term)
			}
			out[tp.Term] = tp
		}
		return err
	})
	return out
}

func testPartitionRoundTrip(t *testing.T, s cairn.Store) {
	p := &cairn.PartitionStats{Name: "proj", Docs: 12, TotalLen: 345, NextDoc: 20, DeadDocs: 8, Dead: blob(3, 40), Analyzer: 7}
	g := &cairn.PartitionStats{Name: "", Docs: 1, TotalLen: 2, NextDoc: 3, DeadDocs: 0, Dead: nil}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.PutPartition(ctx, p); err != nil {
			return err
		}
		return tx.PutPartition(ctx, g)
	})
	check := func(want *cairn.PartitionStats) {
		t.Helper()
		got := partition(t, s, want.Name)
		if got.Name != want.Name || got.Docs != want.Docs || got.TotalLen != want.TotalLen ||
			got.NextDoc != want.NextDoc || got.DeadDocs != want.DeadDocs || !bytes.Equal(got.Dead, want.Dead) || got.Analyzer != want.Analyzer {
			t.Errorf("Partition(%q) = %+v, want %+v", want.Name, got, want)
		}
	}
	check(p)
	check(g)
	// A second put replaces the first.
	p2 := &cairn.PartitionStats{Name: "proj", Docs: 1, TotalLen: 1, NextDoc: 21, DeadDocs: 0, Dead: []byte{}}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.PutPartition(ctx, p2) })
	check(p2)
	check(g)
}

func testPartitionDocs(t *testing.T, s cairn.Store) {
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		got, err := tx.PartitionDocs(ctx)
		if err != nil || len(got) != 0 {
			t.Errorf("PartitionDocs of an empty store = %v, %v; want none", got, err)
		}
		return nil
	})
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for _, ps := range []*cairn.PartitionStats{
			{Name: "alpha", Docs: 12, TotalLen: 40, NextDoc: 14, DeadDocs: 2, Dead: blob(1, 8)},
			{Name: "", Docs: 3, TotalLen: 9, NextDoc: 3},
			{Name: "emptied", Docs: 0, TotalLen: 0, NextDoc: 7, DeadDocs: 7},
		} {
			if err := tx.PutPartition(ctx, ps); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		got, err := tx.PartitionDocs(ctx)
		if err != nil {
			return err
		}
		if want := map[string]int64{"alpha": 12, "": 3}; !reflect.DeepEqual(got, want) {
			t.Errorf("PartitionDocs = %v, want %v (a partition without documents left out)", got, want)
		}
		return nil
	})
}

func testUnknownPartition(t *testing.T, s cairn.Store) {
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.PutPartition(ctx, &cairn.PartitionStats{Name: "known", Docs: 5, TotalLen: 5, NextDoc: 5})
	})
	for _, name := range []string{"unknown", "", "Known", "known "} {
		ps := partition(t, s, name)
		if ps == nil {
			t.Fatalf("Partition(%q) = nil", name)
		}
		if ps.Name != name || ps.Docs != 0 || ps.TotalLen != 0 || ps.NextDoc != 0 || ps.DeadDocs != 0 || len(ps.Dead) != 0 {
			t.Errorf("Partition(%q) = %+v, want zero statistics", name, ps)
		}
	}
}

func testAppendPostings(t *testing.T, s cairn.Store) {
	a1, a2, b1 := blob(1, 7), blob(2, 300), blob(3, 5)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "alpha", DF: 2, Data: a1}, {Term: "beta", DF: 1, Data: b1}})
	})
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		// Twice in one transaction, and in another partition.
		if err := tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "alpha", DF: 3, Data: a2}}); err != nil {
			return err
		}
		if err := tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "alpha", DF: 1, Data: b1}}); err != nil {
			return err
		}
		return tx.AppendPostings(ctx, "", []cairn.TermPostings{{Term: "alpha", DF: 1, Data: b1}})
	})
	got := postings(t, s, "p", "alpha", "beta")
	wantA := slices.Concat(a1, a2, b1)
	if tp := got["alpha"]; tp.DF != 6 || !bytes.Equal(tp.Data, wantA) {
		t.Errorf("alpha = DF %d data %x, want DF 6 data %x", tp.DF, tp.Data, wantA)
	}
	if tp := got["beta"]; tp.DF != 1 || !bytes.Equal(tp.Data, b1) {
		t.Errorf("beta = DF %d data %x, want DF 1 data %x", tp.DF, tp.Data, b1)
	}
	if tp := postings(t, s, "", "alpha")["alpha"]; tp.DF != 1 || !bytes.Equal(tp.Data, b1) {
		t.Errorf("global alpha = DF %d data %x, want its own postings", tp.DF, tp.Data)
	}
}

// testAppendManyPostings appends as an import does, thousands of terms at
// once, to a partition that has none yet and then to one that has them
// (a backend may write the first kind another way): every term is
// stored, then appended to, and a neighbouring partition is untouched.
func testAppendManyPostings(t *testing.T, s cairn.Store) {
	const n = 5000
	batch := func(seed byte) []cairn.TermPostings {
		tps := make([]cairn.TermPostings, n)
		for i := range tps {
			tps[i] = cairn.TermPostings{Term: fmt.Sprintf("term%05d", i), DF: int64(i%7 + 1), Data: blob(seed+byte(i), 3+i%5)}
		}
		return tps
	}
	first, second := batch(1), batch(100)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.AppendPostings(ctx, "other", first[:10]); err != nil {
			return err
		}
		if err := tx.AppendPostings(ctx, "bulk", first); err != nil {
			return err
		}
		// In the same transaction, reading what was just written.
		tps, err := tx.Postings(ctx, "bulk", []string{"term00000", "term04999"})
		if err != nil {
			return err
		}
		if len(tps) != 2 || tps[1].DF != first[n-1].DF {
			t.Errorf("Postings in the writing transaction = %v", tps)
		}
		return nil
	})
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.AppendPostings(ctx, "bulk", second) })
	terms := make([]string, n)
	for i := range terms {
		terms[i] = first[i].Term
	}
	got := postings(t, s, "bulk", terms...)
	if len(got) != n {
		t.Fatalf("%d terms stored, want %d", len(got), n)
	}
	for i := range first {
		tp := got[first[i].Term]
		if tp.DF != first[i].DF+second[i].DF || !bytes.Equal(tp.Data, slices.Concat(first[i].Data, second[i].Data)) {
			t.Fatalf("%s = DF %d data %x, want both batches appended", first[i].Term, tp.DF, tp.Data)
		}
	}
	if o := postings(t, s, "other", terms...); len(o) != 10 || o["term00003"].DF != first[3].DF {
		t.Errorf("the other partition holds %d terms, want its own 10", len(o))
	}
}

func testReplacePostings(t *testing.T, s cairn.Store) {
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.AppendPostings(ctx, "p", []cairn.TermPostings{
			{Term: "keep", DF: 4, Data: blob(1, 10)},
			{Term: "shrink", DF: 4, Data: blob(2, 10)},
			{Term: "drop", DF: 4, Data: blob(3, 10)},
		})
	})
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.AppendPostings(ctx, "q", []cairn.TermPostings{{Term: "drop", DF: 1, Data: blob(4, 3)}})
	})
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.ReplacePostings(ctx, "p", []cairn.TermPostings{
			{Term: "shrink", DF: 1, Data: blob(5, 4)},
			{Term: "drop", DF: 0, Data: nil},
			{Term: "new", DF: 2, Data: blob(6, 6)},
			{Term: "never-existed", DF: 0, Data: []byte{}},
		})
	})
	got := postings(t, s, "p", "keep", "shrink", "drop", "new", "never-existed")
	if len(got) != 3 {
		t.Errorf("terms after replace: %v, want keep, shrink, new", slices.Sorted(maps.Keys(got)))
	}
	if tp := got["keep"]; tp.DF != 4 || !bytes.Equal(tp.Data, blob(1, 10)) {
		t.Errorf("keep changed: %+v", tp)
	}
	if tp := got["shrink"]; tp.DF != 1 || !bytes.Equal(tp.Data, blob(5, 4)) {
		t.Errorf("shrink = %+v, want replaced", tp)
	}
	if tp := got["new"]; tp.DF != 2 || !bytes.Equal(tp.Data, blob(6, 6)) {
		t.Errorf("new = %+v, want created", tp)
	}
	if tp, ok := postings(t, s, "q", "drop")["drop"]; !ok || tp.DF != 1 {
		t.Errorf("replacing in p removed q's term: %+v", tp)
	}
	var scanned []cairn.TermPostings
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		scanned, err = tx.ScanPostings(ctx, "p", "", 100)
		return err
	})
	var terms []string
	for _, tp := range scanned {
		terms = append(terms, tp.Term)
	}
	if !slices.Equal(terms, []string{"keep", "new", "shrink"}) {
		t.Errorf("ScanPostings after replace = %v", terms)
	}
	// Appending to a replaced term continues from the replacement.
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "shrink", DF: 1, Data: blob(7, 3)}, {Term: "drop", DF: 1, Data: blob(8, 3)}})
	})
	got = postings(t, s, "p", "shrink", "drop")
	if tp := got["shrink"]; tp.DF != 2 || !bytes.Equal(tp.Data, slices.Concat(blob(5, 4), blob(7, 3))) {
		t.Errorf("shrink after append = %+v", tp)
	}
	if tp := got["drop"]; tp.DF != 1 || !bytes.Equal(tp.Data, blob(8, 3)) {
		t.Errorf("drop after re-append = %+v, want only the new data", tp)
	}
}

func testPostingsSkipsMissing(t *testing.T, s cairn.Store) {
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "a", DF: 1, Data: blob(1, 3)}, {Term: "c", DF: 1, Data: blob(2, 3)}})
	})
	got := postings(t, s, "p", "a", "b", "c", "d")
	if len(got) != 2 || got["a"].Term != "a" || got["c"].Term != "c" {
		t.Errorf("Postings = %v, want a and c", slices.Sorted(maps.Keys(got)))
	}
	if got := postings(t, s, "other", "a", "c"); len(got) != 0 {
		t.Errorf("Postings of another partition = %v", slices.Sorted(maps.Keys(got)))
	}
	if got := postings(t, s, "p"); len(got) != 0 {
		t.Errorf("Postings of no terms = %v", slices.Sorted(maps.Keys(got)))
	}
}

func testDocFreqs(t *testing.T, s cairn.Store) {
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "a", DF: 2, Data: blob(1, 3)}, {Term: "b", DF: 1, Data: blob(2, 3)}, {Term: "gone", DF: 1, Data: blob(3, 3)}}); err != nil {
			return err
		}
		if err := tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "a", DF: 3, Data: blob(4, 3)}}); err != nil {
			return err
		}
		if err := tx.ReplacePostings(ctx, "p", []cairn.TermPostings{{Term: "b", DF: 7, Data: blob(5, 3)}, {Term: "gone"}}); err != nil {
			return err
		}
		return tx.AppendPostings(ctx, "q", []cairn.TermPostings{{Term: "c", DF: 9, Data: blob(6, 3)}})
	})
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		got, err := tx.DocFreqs(ctx, "p", []string{"a", "b", "c", "gone", "missing"})
		if err != nil {
			return err
		}
		if want := map[string]int64{"a": 5, "b": 7}; !reflect.DeepEqual(got, want) {
			t.Errorf("DocFreqs(p) = %v, want %v", got, want)
		}
		got, err = tx.DocFreqs(ctx, "", []string{"a", "c"})
		if err != nil || len(got) != 0 {
			t.Errorf("DocFreqs of the global partition = %v, %v; want none", got, err)
		}
		got, err = tx.DocFreqs(ctx, "p", nil)
		if err != nil || len(got) != 0 {
			t.Errorf("DocFreqs of no terms = %v, %v", got, err)
		}
		return nil
	})
}

func testDocFreqSums(t *testing.T, s cairn.Store) {
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for part, tps := range map[string][]cairn.TermPostings{
			"p":   {{Term: "a", DF: 2, Data: blob(1, 3)}, {Term: "b", DF: 1, Data: blob(2, 3)}},
			"q":   {{Term: "a", DF: 5, Data: blob(3, 3)}, {Term: "c", DF: 4, Data: blob(4, 3)}},
			"r":   {{Term: "a", DF: 7, Data: blob(5, 3)}},
			"":    {{Term: "a", DF: 100, Data: blob(6, 3)}},
			"p'x": {{Term: "c", DF: 11, Data: blob(7, 3)}},
		} {
			if err := tx.AppendPostings(ctx, part, tps); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for _, c := range []struct {
			parts, terms []string
			want         map[string]int64
		}{
			{[]string{"p", "q"}, []string{"a", "b", "c", "missing"}, map[string]int64{"a": 7, "b": 1, "c": 4}},
			{[]string{"q", "r", "p'x", "unknown"}, []string{"a", "c"}, map[string]int64{"a": 12, "c": 15}},
			{[]string{"r"}, []string{"b"}, map[string]int64{}},
			{nil, []string{"a"}, map[string]int64{}},
			{[]string{"p"}, nil, map[string]int64{}},
		} {
			got, err := tx.DocFreqSums(ctx, c.parts, c.terms)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("DocFreqSums(%q, %q) = %v, want %v", c.parts, c.terms, got, c.want)
			}
		}
		return nil
	})
}

func testScanPostings(t *testing.T, s cairn.Store) {
	// Byte order, not collation order: upper case before lower case, and
	// multi-byte UTF-8 last.
	terms := []string{"zeta", "Zebra", "alpha", "alpha.beta", "alpha_beta", "b", "é", "日本", "10", "9", "a/b"}
	var tps []cairn.TermPostings
	for i, term := range terms {
		tps = append(tps, cairn.TermPostings{Term: term, DF: int64(i + 1), Data: blob(byte(i), 4)})
	}
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.AppendPostings(ctx, "p", tps); err != nil {
			return err
		}
		return tx.AppendPostings(ctx, "q", []cairn.TermPostings{{Term: "alpha2", DF: 1, Data: blob(9, 2)}})
	})
	want := slices.Clone(terms)
	sort.Strings(want) // byte order
	for _, limit := range []int{1, 3, 100} {
		var got []string
		after := ""
		for pages := 0; pages < 20; pages++ {
			var page []cairn.TermPostings
			view(t, s, func(ctx context.Context, tx cairn.Tx) error {
				var err error
				page, err = tx.ScanPostings(ctx, "p", after, limit)
				return err
			})
			if len(page) > limit {
				t.Fatalf("limit %d: page of %d", limit, len(page))
			}
			if len(page) == 0 {
				break
			}
			for _, tp := range page {
				got = append(got, tp.Term)
				i := slices.Index(terms, tp.Term)
				if i < 0 || tp.DF != int64(i+1) || !bytes.Equal(tp.Data, blob(byte(i), 4)) {
					t.Errorf("scanned %q with DF %d data %x", tp.Term, tp.DF, tp.Data)
				}
			}
			after = page[len(page)-1].Term
		}
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: scanned %q, want %q", limit, got, want)
		}
	}
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		page, err := tx.ScanPostings(ctx, "p", "alpha", 2)
		if err != nil {
			return err
		}
		if len(page) != 2 || page[0].Term != "alpha.beta" || page[1].Term != "alpha_beta" {
			t.Errorf("ScanPostings after %q = %v", "alpha", page)
		}
		page, err = tx.ScanPostings(ctx, "p", "\U0010FFFF", 10)
		if err != nil || len(page) != 0 {
			t.Errorf("ScanPostings after the last term = %d terms, %v", len(page), err)
		}
		return nil
	})
}

// --- transactions --------------------------------------------------------

func testWritesInView(t *testing.T, s cairn.Store) {
	create(t, s, mem("p", 1))
	ctx := t.Context()
	writes := map[string]func(tx cairn.Tx) error{
		"CreateMemory": func(tx cairn.Tx) error { return tx.CreateMemory(ctx, mem("p", 2)) },
		"UpdateMemory": func(tx cairn.Tx) error { m := mem("p", 1); m.Content = "changed"; return tx.UpdateMemory(ctx, m) },
		"DeleteMemory": func(tx cairn.Tx) error { return tx.DeleteMemory(ctx, "m-0001") },
		"PutPartition": func(tx cairn.Tx) error { return tx.PutPartition(ctx, &cairn.PartitionStats{Name: "p", Docs: 1}) },
		"AppendPostings": func(tx cairn.Tx) error {
			return tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "x", DF: 1, Data: blob(1, 3)}})
		},
		"ReplacePostings": func(tx cairn.Tx) error {
			return tx.ReplacePostings(ctx, "p", []cairn.TermPostings{{Term: "x", DF: 1, Data: blob(1, 3)}})
		},
		"ReplacePostings(delete)": func(tx cairn.Tx) error {
			return tx.ReplacePostings(ctx, "p", []cairn.TermPostings{{Term: "x"}})
		},
	}
	for name, w := range writes {
		var inner error
		err := s.View(ctx, func(tx cairn.Tx) error {
			inner = w(tx)
			return inner
		})
		wantCode(t, inner, cairn.EINVALID, name+" in View")
		if err == nil {
			t.Errorf("%s in View: View returned nil, want the write's error", name)
		}
	}
	checkSame(t, mem("p", 1), find(t, s, "m-0001"))
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != 1 {
		t.Errorf("project p has %d memories after writes in View, want 1", n)
	}
	if ps := partition(t, s, "p"); ps.Docs != 0 {
		t.Errorf("PutPartition in View was stored: %+v", ps)
	}
	if got := postings(t, s, "p", "x"); len(got) != 0 {
		t.Error("AppendPostings in View was stored")
	}
}

func testRollback(t *testing.T, s cairn.Store) {
	keep := mem("p", 1)
	gone := mem("p", 2)
	create(t, s, keep, gone)
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		if err := tx.PutPartition(ctx, &cairn.PartitionStats{Name: "p", Docs: 2, TotalLen: 4, NextDoc: 3}); err != nil {
			return err
		}
		return tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "old", DF: 1, Data: blob(1, 3)}, {Term: "gone", DF: 1, Data: blob(2, 3)}})
	})

	errBoom := errors.New("boom")
	err := s.Update(t.Context(), func(tx cairn.Tx) error {
		ctx := t.Context()
		changed := mem("p", 1)
		changed.Content = "changed"
		for _, step := range []error{
			tx.CreateMemory(ctx, mem("p", 3)),
			tx.UpdateMemory(ctx, changed),
			tx.DeleteMemory(ctx, gone.ID),
			tx.PutPartition(ctx, &cairn.PartitionStats{Name: "p", Docs: 99}),
			tx.PutPartition(ctx, &cairn.PartitionStats{Name: "new", Docs: 1}),
			tx.AppendPostings(ctx, "p", []cairn.TermPostings{{Term: "old", DF: 5, Data: blob(3, 3)}, {Term: "fresh", DF: 1, Data: blob(4, 3)}}),
			tx.ReplacePostings(ctx, "p", []cairn.TermPostings{{Term: "gone"}}),
		} {
			if step != nil {
				return step
			}
		}
		// The transaction sees its own writes.
		if m, err := tx.FindMemoryByID(ctx, "m-0003"); err != nil || m.ID != "m-0003" {
			t.Errorf("transaction does not see its own create: %v", err)
		}
		return fmt.Errorf("wrapped: %w", errBoom)
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want the function's error", err)
	}
	checkSame(t, keep, find(t, s, keep.ID))
	checkSame(t, gone, find(t, s, gone.ID))
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != 2 {
		t.Errorf("project p has %d memories after rollback, want 2", n)
	}
	if ps := partition(t, s, "p"); ps.Docs != 2 || ps.NextDoc != 3 {
		t.Errorf("partition p after rollback = %+v", ps)
	}
	if ps := partition(t, s, "new"); ps.Docs != 0 {
		t.Errorf("partition new after rollback = %+v", ps)
	}
	got := postings(t, s, "p", "old", "gone", "fresh")
	if len(got) != 2 || got["old"].DF != 1 || !bytes.Equal(got["old"].Data, blob(1, 3)) || got["gone"].DF != 1 {
		t.Errorf("postings after rollback = %+v", got)
	}

	// A failed write inside fn, returned by fn, rolls back the writes
	// before it.
	err = s.Update(t.Context(), func(tx cairn.Tx) error {
		if err := tx.CreateMemory(t.Context(), mem("p", 4)); err != nil {
			return err
		}
		return tx.CreateMemory(t.Context(), mem("p", 1)) // taken id
	})
	wantCode(t, err, cairn.ECONFLICT, "second create")
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		_, err := tx.FindMemoryByID(ctx, "m-0004")
		wantCode(t, err, cairn.ENOTFOUND, "memory created before the failing write")
		return nil
	})
}

func testSnapshot(t *testing.T, s cairn.Store) {
	create(t, s, mem("p", 1))
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		return tx.PutPartition(ctx, &cairn.PartitionStats{Name: "p", Docs: 1, NextDoc: 2})
	})
	ctx := t.Context()
	err := s.View(ctx, func(tx cairn.Tx) error {
		_, n1, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: "p"})
		if err != nil {
			return err
		}
		ps1, err := tx.Partition(ctx, "p")
		if err != nil {
			return err
		}
		// Another goroutine commits a write while the view is open.
		done := make(chan error, 1)
		go func() {
			done <- s.Update(ctx, func(tx cairn.Tx) error {
				if err := tx.CreateMemory(ctx, mem("p", 2)); err != nil {
					return err
				}
				if err := tx.DeleteMemory(ctx, "m-0001"); err != nil {
					return err
				}
				return tx.PutPartition(ctx, &cairn.PartitionStats{Name: "p", Docs: 5, NextDoc: 9})
			})
		}()
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("concurrent Update: %w", err)
			}
		case <-time.After(20 * time.Second):
			return errors.New("an Update waited on an open View for 20s")
		}
		_, n2, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: "p"})
		if err != nil {
			return err
		}
		ps2, err := tx.Partition(ctx, "p")
		if err != nil {
			return err
		}
		m, err := tx.FindMemoryByID(ctx, "m-0001")
		if err != nil {
			t.Errorf("the view lost a memory deleted after it started: %v", err)
		} else if m.ID != "m-0001" {
			t.Errorf("found %s", m.ID)
		}
		if _, err := tx.FindMemoryByID(ctx, "m-0002"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Errorf("the view sees a memory created after it started (err %v)", err)
		}
		if n1 != 1 || n2 != 1 {
			t.Errorf("counts in one view: %d then %d, want 1 and 1", n1, n2)
		}
		if ps1.Docs != 1 || ps2.Docs != 1 || ps2.NextDoc != 2 {
			t.Errorf("partition in one view: %+v then %+v", ps1, ps2)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A new view sees the write.
	if ms, _ := findAll(t, s, cairn.MemoryFilter{Project: "p"}); !slices.Equal(ids(ms), []string{"m-0002"}) {
		t.Errorf("after the view: %v, want [m-0002]", ids(ms))
	}
	if ps := partition(t, s, "p"); ps.Docs != 5 {
		t.Errorf("after the view: partition %+v", ps)
	}
}

func testSerialisedUpdates(t *testing.T, s cairn.Store) {
	// Read-modify-write of one counter from many goroutines: an Update
	// that is not serialised with the others loses increments.
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				ctx := t.Context()
				errs <- s.Update(ctx, func(tx cairn.Tx) error {
					ps, err := tx.Partition(ctx, "counter")
					if err != nil {
						return err
					}
					m := mem("p", ps.NextDoc)
					if err := tx.CreateMemory(ctx, m); err != nil {
						return err
					}
					ps.NextDoc++
					ps.Docs++
					return tx.PutPartition(ctx, ps)
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Update: %v", err)
		}
	}
	if ps := partition(t, s, "counter"); ps.NextDoc != workers*each || ps.Docs != workers*each {
		t.Errorf("counter after %d serialised increments = %+v", workers*each, ps)
	}
	if _, n := findAll(t, s, cairn.MemoryFilter{Project: "p"}); n != workers*each {
		t.Errorf("%d memories, want %d", n, workers*each)
	}
}
