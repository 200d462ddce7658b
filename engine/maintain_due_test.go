package engine_test

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

func TestTheLifecycleRunsWhenDueAndOnlyThen(t *testing.T) {
	t.Parallel()
	e, c := nearDupEngine(t)
	m := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "session", Content: "Session: tried the new parser"}).Memory // expires in 30 days
	rep, err := e.MaintainIfDue(t.Context(), "p", engine.MaintenanceEvery)
	if err != nil || rep == nil || rep.Expired != 0 {
		t.Fatalf("first run (never ran before): %+v %v", rep, err)
	}
	c.Advance(31 * 24 * time.Hour)
	// Due again (a day has passed): the expired session is removed.
	rep, err = e.MaintainIfDue(t.Context(), "p", engine.MaintenanceEvery)
	if err != nil || rep == nil || rep.Expired != 1 {
		t.Fatalf("after 31 days: %+v %v", rep, err)
	}
	if _, err := e.FindMemoryByID(t.Context(), m.ID); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("the expired memory is still there: %v", err)
	}
	// Not due an hour later.
	c.Advance(time.Hour)
	if rep, err := e.MaintainIfDue(t.Context(), "p", engine.MaintenanceEvery); rep != nil || err != nil {
		t.Errorf("ran again within the day: %+v %v", rep, err)
	}
	// Each project keeps its own time.
	if rep, err := e.MaintainIfDue(t.Context(), "q", engine.MaintenanceEvery); rep == nil || err != nil {
		t.Errorf("another project's first run: %+v %v", rep, err)
	}
}
