package capture_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
)

// adder stores in order, refusing what refuse says.
type adder struct {
	added  []*cairn.Memory
	refuse func(m *cairn.Memory) error
}

func (a *adder) AddMemory(_ context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	if err := a.refuse(m); err != nil {
		return nil, err
	}
	a.added = append(a.added, m)
	m.ID = "mem-" + string(rune('a'+len(a.added)))
	return &cairn.WriteResult{Memory: m, Status: cairn.StatusCreated}, nil
}

// A capture stores every signal it reads with its provenance, reports a
// line it cannot read and a signal refused as invalid, and stops at any
// other failure. A hat transition adds its signals, written under its
// first hat; an unknown one stores nothing.
func TestStoreReportsWhatItStoredCouldNotReadOrWasRefused(t *testing.T) {
	t.Parallel()
	text := "MEMORY:pitfall:The cache is never flushed.\nMEMORY:nonsense\nMEMORY:fix:Refused by the service.\n" +
		"We will use SQLite in WAL mode instead of a server.\n"
	a := &adder{refuse: func(m *cairn.Memory) error {
		if strings.Contains(m.Content, "Refused") {
			return cairn.Errorf(cairn.EINVALID, "the content is\nrefused")
		}
		return nil
	}}
	rep, err := capture.Store(t.Context(), a, "p", cairn.CaptureRequest{Text: text, Agent: "claude", Session: "s1", HatTransition: "planner:creator"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Stored) != 2 || rep.Stored[0].Line != 1 || rep.Stored[0].Type != "pitfall" || rep.Stored[1].Kind != capture.KindHatTransition {
		t.Errorf("stored %+v, want the pitfall of line 1 and the decision of the hand-over", rep.Stored)
	}
	for _, m := range a.added {
		if m.Project != "p" || m.Agent != "claude" || m.SessionID != "s1" || m.Hat != "planner" {
			t.Errorf("stored %+v without the capture's provenance (hat planner)", m)
		}
	}
	if len(rep.Problems) != 2 || rep.Problems[0].Line != 2 || rep.Problems[0].Refused ||
		rep.Problems[1].Line != 3 || !rep.Problems[1].Refused || rep.Problems[1].Reason != "cannot store the memory: the content is refused" {
		t.Errorf("problems %+v, want line 2 unread and line 3 refused", rep.Problems)
	}

	a.refuse = func(*cairn.Memory) error { return cairn.Errorf(cairn.EUNAVAILABLE, "the database is gone") }
	if _, err := capture.Store(t.Context(), a, "p", cairn.CaptureRequest{Text: text}); cairn.ErrorCode(err) != cairn.EUNAVAILABLE {
		t.Errorf("a failure other than a refusal: %v, want it returned", err)
	}
	n := len(a.added)
	if _, err := capture.Store(t.Context(), a, "p", cairn.CaptureRequest{Text: text, HatTransition: "critic:editor"}); cairn.ErrorCode(err) != cairn.EINVALID || len(a.added) != n {
		t.Errorf("an unknown hat transition: %v, %d stored; want EINVALID and nothing", err, len(a.added)-n)
	}
	for _, tr := range cairn.HatTransitions {
		if _, err := capture.HatTransition(tr, "We will use SQLite."); err != nil {
			t.Errorf("the root's hat transition %s is not one capture extracts at: %v", tr, err)
		}
	}
}

// A task event stores its own memory first, then what a completed task's
// summary teaches and signals, reporting a refused rule (line 0) and an
// unread line; a refused event memory is the call's error, and an event
// that does not validate stores nothing.
func TestRecordTaskStoresTheEventThenWhatItsSummarySays(t *testing.T) {
	t.Parallel()
	a := &adder{refuse: func(m *cairn.Memory) error {
		if m.Type == "convention" || m.Type == "pattern" {
			return cairn.Errorf(cairn.EINVALID, "no rules today")
		}
		return nil
	}}
	ev := cairn.TaskEvent{Event: cairn.TaskCompleted, Task: "T-1", Agent: "claude", Session: "s1", Files: []string{"a.go"},
		Text: "Done. Always run the migrations before the tests.\nMEMORY:pitfall:The fixture clock is shared.\nMEMORY:nonsense"}
	rep, err := capture.RecordTask(t.Context(), a, "shop", ev)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Event.Type != "task_result" || a.added[0].Key != "task:T-1:result" || a.added[0].Project != "shop" {
		t.Errorf("event %+v (stored first: %+v), want the task_result", rep.Event, a.added[0])
	}
	if len(rep.Stored) != 1 || rep.Stored[0].Type != "pitfall" || rep.Stored[0].Line != 2 {
		t.Errorf("stored after the event: %+v, want the pitfall of line 2", rep.Stored)
	}
	var unread, refusedRule bool
	for _, p := range rep.Problems {
		unread = unread || p.Line == 3 && !p.Refused
		refusedRule = refusedRule || p.Line == 0 && p.Refused && strings.HasPrefix(p.Reason, "cannot store the learned ")
	}
	if !unread || !refusedRule {
		t.Errorf("problems %+v, want line 3 unread and the learned rule refused", rep.Problems)
	}

	a.refuse = func(*cairn.Memory) error { return cairn.Errorf(cairn.EINVALID, "no") }
	if _, err := capture.RecordTask(t.Context(), a, "shop", cairn.TaskEvent{Event: cairn.TaskFailed, Task: "T-2", Text: "timeout"}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("a refused event memory: %v, want its error", err)
	}
	n := len(a.added)
	for _, bad := range []cairn.TaskEvent{{Event: "paused", Task: "T-3", Text: "x"}, {Event: cairn.TaskCreated, Text: "no id"}, {Event: cairn.TaskFailed, Task: "T-3"}} {
		if _, err := capture.RecordTask(t.Context(), a, "shop", bad); cairn.ErrorCode(err) != cairn.EINVALID || len(a.added) != n {
			t.Errorf("%+v: %v, want EINVALID and nothing stored", bad, err)
		}
	}
}
