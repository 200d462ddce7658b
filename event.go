package cairn

import "time"

// Event is one write to a project's memories as other agents see it: an
// entry of the activity log (see Activity), numbered. Events are how
// parallel agents learn from each other as they work (package engine's
// Subscribe, the SSE stream of `cairn serve`, `cairn watch`).
type Event struct {
	// Seq numbers the event: the activity entry's id. Seqs increase in
	// the order writes commit, across processes sharing the store, and
	// are never reused; they are shared by all projects, so one project's
	// seqs increase but are not consecutive. A reader that has seen seq N
	// resumes from N: it gets every later event and none again.
	Seq       int64
	At        time.Time // when the write was made (the writer's clock)
	Project   string    // the memory's project
	MemoryID  string
	Action    string // one of the Action constants
	SessionID string // the agent session that caused it, when known
	Detail    string // a short note for people
	// Type and Title are the memory's as stored when the event was read;
	// empty when the memory no longer exists.
	Type  string
	Title string
}

// EventFilter selects events from the store, oldest first.
type EventFilter struct {
	Project string // "": every project
	After   int64  // only events with a greater Seq
	Limit   int    // at most this many; 0: no limit
}
