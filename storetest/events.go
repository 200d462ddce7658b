package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// The events part of the suite: the activity log read forward from a
// sequence number. Run includes these tests.

var eventStoreTests = []struct {
	name string
	fn   func(t *testing.T, s cairn.Store)
}{
	{"FindEventsReadsForwardFromASeqInOrder", testFindEvents},
	{"FindEventsIsScopedToItsProject", testFindEventsScoped},
	{"LastEventSeqIsTheNewestEntry", testLastEventSeq},
}

func findEvents(t *testing.T, s cairn.Store, f cairn.EventFilter) []cairn.Event {
	t.Helper()
	var out []cairn.Event
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		out, err = tx.FindEvents(ctx, f)
		return err
	})
	return out
}

func lastEventSeq(t *testing.T, s cairn.Store) int64 {
	t.Helper()
	var seq int64
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		seq, err = tx.LastEventSeq(ctx)
		return err
	})
	return seq
}

// Seqs increase with each write, later writes come later whatever their
// time says, a limit keeps the oldest, and an event carries its memory's
// type and title while the memory exists (a deleted one's are empty).
func testFindEvents(t *testing.T, s cairn.Store) {
	m := mem("p", 1)
	create(t, s, m)
	appendActivity(t, s, cairn.Activity{At: at(time.Hour), Project: "p", MemoryID: m.ID, Action: cairn.ActionCreated, SessionID: "s-1", Detail: "new"})
	// An entry written later with an earlier time still comes after.
	appendActivity(t, s,
		cairn.Activity{At: at(0), Project: "p", MemoryID: m.ID, Action: cairn.ActionUsed, SessionID: "s-2"},
		cairn.Activity{At: at(0), Project: "p", MemoryID: "gone", Action: cairn.ActionDeleted, Detail: "by hand"})

	all := findEvents(t, s, cairn.EventFilter{})
	if len(all) != 3 {
		t.Fatalf("got %d events, want 3: %+v", len(all), all)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Fatalf("seqs not increasing: %+v", all)
		}
	}
	want := cairn.Event{Seq: all[0].Seq, At: at(time.Hour), Project: "p", MemoryID: m.ID, Action: cairn.ActionCreated,
		SessionID: "s-1", Detail: "new", Type: m.Type, Title: m.Title}
	if all[0] != want {
		t.Errorf("first event = %+v, want %+v", all[0], want)
	}
	if all[1].Action != cairn.ActionUsed || all[2].Action != cairn.ActionDeleted {
		t.Errorf("events out of write order: %+v", all)
	}
	if all[2].Type != "" || all[2].Title != "" {
		t.Errorf("an event of a missing memory has type %q and title %q", all[2].Type, all[2].Title)
	}
	after := findEvents(t, s, cairn.EventFilter{After: all[0].Seq})
	if len(after) != 2 || after[0].Seq != all[1].Seq {
		t.Errorf("after %d: %+v", all[0].Seq, after)
	}
	if got := findEvents(t, s, cairn.EventFilter{Limit: 1}); len(got) != 1 || got[0].Seq != all[0].Seq {
		t.Errorf("limit 1 gave %+v, want the oldest", got)
	}
	if got := findEvents(t, s, cairn.EventFilter{After: all[2].Seq}); len(got) != 0 {
		t.Errorf("after the last: %+v", got)
	}
}

func testFindEventsScoped(t *testing.T, s cairn.Store) {
	for i := range 6 {
		p := []string{"a", "b"}[i%2]
		appendActivity(t, s, cairn.Activity{At: at(0), Project: p, MemoryID: "m", Action: cairn.ActionCreated})
	}
	got := findEvents(t, s, cairn.EventFilter{Project: "a"})
	if len(got) != 3 {
		t.Fatalf("project a: %d events, want 3: %+v", len(got), got)
	}
	for _, e := range got {
		if e.Project != "a" {
			t.Errorf("project a's events hold %+v", e)
		}
	}
	if more := findEvents(t, s, cairn.EventFilter{Project: "a", After: got[0].Seq, Limit: 1}); len(more) != 1 || more[0].Seq != got[1].Seq {
		t.Errorf("project a after %d, limit 1: %+v, want seq %d", got[0].Seq, more, got[1].Seq)
	}
}

func testLastEventSeq(t *testing.T, s cairn.Store) {
	if seq := lastEventSeq(t, s); seq != 0 {
		t.Errorf("an empty log's last seq is %d, want 0", seq)
	}
	appendActivity(t, s, cairn.Activity{At: at(0), Project: "p", MemoryID: "m", Action: cairn.ActionCreated},
		cairn.Activity{At: at(0), Project: "q", MemoryID: "m", Action: cairn.ActionUsed})
	all := findEvents(t, s, cairn.EventFilter{})
	if seq := lastEventSeq(t, s); seq != all[len(all)-1].Seq {
		t.Errorf("last seq %d, want %d", seq, all[len(all)-1].Seq)
	}
}
