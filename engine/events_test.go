package engine_test

// The delivery semantics of Subscribe. Bad inputs and situations tried: an
// invalid project, a resume point past the newest event (a replaced
// database), writes to another project, writes through a second handle on
// the same file (another process), a subscriber that reads nothing while
// more events are written than the feed keeps, a subscription closed in
// the middle and resumed from its Seq.

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/sqlite"
)

func eventEngine(t *testing.T, path string) *engine.Engine {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return engine.New(s, &engine.Options{EventPoll: 5 * time.Millisecond})
}

func addTo(t *testing.T, e *engine.Engine, project, session, content string) *cairn.Memory {
	t.Helper()
	res, err := e.AddMemory(t.Context(), &cairn.Memory{Project: project, SessionID: session, Type: "learning", Content: content})
	if err != nil {
		t.Fatal(err)
	}
	return res.Memory
}

// receive takes n events from sub, failing after a generous guard time
// (a guard against a hang, not a timing assertion).
func receive(t *testing.T, sub *engine.Subscription, n int) []cairn.Event {
	t.Helper()
	var out []cairn.Event
	guard := time.After(20 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				t.Fatalf("subscription ended after %d of %d events: %v", len(out), n, sub.Err())
			}
			out = append(out, ev)
		case <-guard:
			t.Fatalf("got %d of %d events", len(out), n)
		}
	}
	return out
}

// checkOrdered fails unless evs are increasing in Seq, of project only.
func checkOrdered(t *testing.T, evs []cairn.Event, project string) {
	t.Helper()
	for i, ev := range evs {
		if ev.Project != project {
			t.Errorf("event %d is of project %q, want %q: %+v", i, ev.Project, project, ev)
		}
		if i > 0 && ev.Seq <= evs[i-1].Seq {
			t.Errorf("event %d has seq %d after %d", i, ev.Seq, evs[i-1].Seq)
		}
	}
}

func TestSubscribeDeliversStoredThenLiveEventsOfItsProjectOnce(t *testing.T) {
	t.Parallel()
	e := eventEngine(t, filepath.Join(t.TempDir(), "c.db"))
	first := addTo(t, e, "a", "s-1", "The stored memory before the subscription.")
	addTo(t, e, "b", "s-1", "Another project's memory is never delivered to a.")
	sub, err := e.Subscribe(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	got := receive(t, sub, 1)
	if got[0].MemoryID != first.ID || got[0].Action != cairn.ActionCreated || got[0].Title != first.Title ||
		got[0].Type != "learning" || got[0].SessionID != "s-1" {
		t.Errorf("stored event = %+v, want the creation of %s", got[0], first.ID)
	}
	addTo(t, e, "b", "s-2", "Written to b while a listens.")
	live := addTo(t, e, "a", "s-2", "Written to a while a listens.")
	if _, err := e.UpdateMemory(t.Context(), live.ID, cairn.MemoryUpdate{Pinned: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteMemory(t.Context(), live.ID); err != nil {
		t.Fatal(err)
	}
	got = append(got, receive(t, sub, 3)...)
	checkOrdered(t, got, "a")
	want := []string{cairn.ActionCreated, cairn.ActionCreated, cairn.ActionPinned, cairn.ActionDeleted}
	for i, ev := range got {
		if ev.Action != want[i] {
			t.Errorf("event %d is %s, want %s", i, ev.Action, want[i])
		}
	}
	select {
	case ev := <-sub.Events():
		t.Errorf("an event more: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
	if sub.Seq() < got[len(got)-1].Seq {
		t.Errorf("Seq %d is behind the last event received, %d", sub.Seq(), got[len(got)-1].Seq)
	}
}

func TestSubscribeFromNowSkipsWhatWasWrittenBefore(t *testing.T) {
	t.Parallel()
	e := eventEngine(t, filepath.Join(t.TempDir(), "c.db"))
	addTo(t, e, "a", "", "Written before the subscription.")
	sub, err := e.Subscribe(t.Context(), "a", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	m := addTo(t, e, "a", "", "Written after the subscription.")
	if got := receive(t, sub, 1); got[0].MemoryID != m.ID {
		t.Errorf("first event from now is %+v, want %s's creation", got[0], m.ID)
	}
}

// Another process writing to the same file is stood in for by a second
// store handle, with connections of its own.
func TestSubscribeSeesWritesOfAnotherHandleOnTheSameFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	reader, writer := eventEngine(t, path), eventEngine(t, path)
	sub, err := reader.Subscribe(t.Context(), "a", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	m := addTo(t, writer, "a", "s-9", "Written by another process.")
	if got := receive(t, sub, 1); got[0].MemoryID != m.ID || got[0].SessionID != "s-9" {
		t.Errorf("event = %+v, want %s's creation in s-9", got[0], m.ID)
	}
}

func TestSlowSubscriberLosesNothingWhenTheFeedMovesOn(t *testing.T) {
	t.Parallel()
	e := eventEngine(t, filepath.Join(t.TempDir(), "c.db"))
	slow, err := e.Subscribe(t.Context(), "a", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fast, err := e.Subscribe(t.Context(), "a", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	// More events than the feed keeps (4096), in two imports, while the
	// slow subscriber reads nothing: it holds the first import's first
	// event, and the second import pushes the rest out of the feed.
	importN := func(from, n int) {
		recs := func(yield func(cairn.ImportRecord) bool) {
			for i := from; i < from+n; i++ {
				m := &cairn.Memory{Project: "a", Type: "note", Content: fmt.Sprintf("imported memory number %d", i)}
				if !yield(cairn.ImportRecord{Line: i + 1, Memory: m}) {
					return
				}
			}
		}
		if _, err := e.Import(t.Context(), recs, cairn.ImportOptions{Project: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	importN(0, 10)
	receive(t, fast, 10)
	importN(10, 5000)
	receive(t, fast, 5000)
	got := receive(t, slow, 5010)
	checkOrdered(t, got, "a")
}

func TestResumingFromSeqLosesAndRepeatsNothing(t *testing.T) {
	t.Parallel()
	e := eventEngine(t, filepath.Join(t.TempDir(), "c.db"))
	var ids []string
	for i := range 6 {
		ids = append(ids, addTo(t, e, "a", "", fmt.Sprintf("Memory %d about resuming a stream.", i)).ID)
	}
	ctx, cancel := context.WithCancel(t.Context())
	sub, err := e.Subscribe(ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	first := receive(t, sub, 2)
	cancel()
	for ev := range sub.Events() { // received until the channel closes
		first = append(first, ev)
	}
	if err := sub.Err(); err != nil {
		t.Errorf("a cancelled subscription ended with %v", err)
	}
	again, err := e.Subscribe(t.Context(), "a", sub.Seq())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	rest := receive(t, again, 6-len(first))
	all := append(first, rest...)
	checkOrdered(t, all, "a")
	for i, ev := range all {
		if ev.MemoryID != ids[i] {
			t.Errorf("event %d is of %s, want %s", i, ev.MemoryID, ids[i])
		}
	}
}

func TestSubscribeRefusesBadProjectsAndSeqsPastTheNewest(t *testing.T) {
	t.Parallel()
	e := eventEngine(t, filepath.Join(t.TempDir(), "c.db"))
	addTo(t, e, "a", "", "The only memory.")
	last, err := e.LastEventSeq(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		project string
		after   int64
	}{{"", 0}, {"a\x00b", 0}, {"a", last + 1}} {
		if _, err := e.Subscribe(t.Context(), c.project, c.after); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("Subscribe(%q, %d) = %v, want EINVALID", c.project, c.after, err)
		}
	}
	// A refused subscription leaves the feed as it was: a good one works.
	sub, err := e.Subscribe(t.Context(), "a", last)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	m := addTo(t, e, "a", "", "Written after the refusals.")
	if got := receive(t, sub, 1); got[0].MemoryID != m.ID {
		t.Errorf("event = %+v, want %s's creation", got[0], m.ID)
	}
}

// A subscription from now starts after the newest event stored, even
// while the feed of an earlier subscription has not yet read it (here it
// never polls again): a write made before the call is not news to it.
func TestSubscribeFromNowStartsAfterTheNewestStoredEvent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.db")
	s, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reader := engine.New(s, &engine.Options{EventPoll: time.Hour})
	first, err := reader.Subscribe(t.Context(), "a", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	m := addTo(t, eventEngine(t, path), "a", "", "Written before the second subscription.")
	last, err := reader.LastEventSeq(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	second, err := reader.Subscribe(t.Context(), "a", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if second.Seq() != last {
		t.Errorf("a subscription from now starts after %d, want %d (the creation of %s)", second.Seq(), last, m.ID)
	}
}
