package cairn

import (
	"context"
	"slices"
	"strings"
)

// CaptureRequest is an agent's output whose signals are to be stored
// (package capture documents them: MEMORY:type:content lines,
// <learning>, <failure-report> …), and who wrote it.
type CaptureRequest struct {
	Text                      string
	Hat, Agent, Task, Session string
	// HatTransition, when set (explorer:planner or planner:creator), also
	// keeps what seed 000 keeps from the output at that hand-over; the
	// writer's hat is then its first one unless Hat says otherwise.
	HatTransition string
}

// HatTransitions are the hand-overs of hats at which a capture keeps what
// seed 000 keeps (CaptureRequest.HatTransition).
var HatTransitions = []string{"explorer:planner", "planner:creator"}

// Validate checks r before anything is read or stored: EINVALID for a
// hat transition that is set but not one of HatTransitions (case and
// surrounding space aside), saying which are.
func (r *CaptureRequest) Validate() error {
	if r.HatTransition == "" {
		return nil
	}
	if t := strings.ToLower(strings.TrimSpace(r.HatTransition)); !slices.Contains(HatTransitions, t) {
		return Errorf(EINVALID, "unknown hat transition %q: use %s", t, strings.Join(HatTransitions, " or "))
	}
	return nil
}

// CaptureReport is what a capture stored, and the lines it could not use.
type CaptureReport struct {
	Stored   []Captured
	Problems []CaptureProblem
}

// Captured is one memory a capture stored: the signal's kind and line,
// and what became of it (StatusCreated, StatusReinforced …).
type Captured struct {
	ID, Status, Kind, Type, Title string
	Line                          int
}

// CaptureProblem is a line a capture could not read as a signal, or
// (Refused) a signal the service refused to store.
type CaptureProblem struct {
	Line         int
	Reason, Text string
	Refused      bool
}

// CaptureService stores what an agent's output signals, where the
// memories are.
type CaptureService interface {
	// Capture stores the signals of r.Text in the service's project, in
	// order, each as AddMemory stores a memory: a signal refused as
	// invalid is a Refused problem and the others are stored; any other
	// failure ends the capture with its error (what was stored stays).
	// EINVALID when r does not Validate (nothing is stored).
	Capture(ctx context.Context, r CaptureRequest) (*CaptureReport, error)
}

// The events of a task (seed 001's task events, `cairn task`).
const (
	TaskCreated   = "created"
	TaskCompleted = "completed"
	TaskFailed    = "failed"
)

// TaskEvent is an event of a task, and what it says; package capture says
// what each event stores.
type TaskEvent struct {
	Event string // TaskCreated, TaskCompleted or TaskFailed
	// Task is the task's id; a completed or failed event that learns as
	// seed 002 does (Learns) may go without.
	Task  string
	Title string // a short title; "" lets the memory take its first sentence
	// Text is the description (created), the summary (completed) or the
	// error (failed).
	Text  string
	Files []string // the files the task modified or involved
	// The provenance of what is stored.
	Agent, Session, Hat string
}

// Learns reports whether ev learns as seed 002 does: a completed or
// failed event of a named agent with a title.
func (ev *TaskEvent) Learns() bool {
	return ev.Agent != "" && strings.TrimSpace(ev.Title) != "" && ev.Event != TaskCreated
}

// Validate checks ev before anything is stored: EINVALID for an unknown
// event, no task id (unless it Learns), or no text (a completed task may
// name its files instead).
func (ev *TaskEvent) Validate() error {
	switch {
	case ev.Event != TaskCreated && ev.Event != TaskCompleted && ev.Event != TaskFailed:
		return Errorf(EINVALID, "unknown event %q: want created, completed or failed", ev.Event)
	case strings.TrimSpace(ev.Task) == "" && !ev.Learns():
		return Errorf(EINVALID, "the task id is required (or, for completed and failed, the agent and the title)")
	case strings.TrimSpace(ev.Text) == "" && !(ev.Event == TaskCompleted && len(ev.Files) > 0):
		return Errorf(EINVALID, "the text is empty")
	}
	return nil
}

// TaskReport is what a task event stored: its own memory, then what its
// summary taught (Kind "learned") and signalled, and the lines it could
// not use.
type TaskReport struct {
	Event    Captured
	Stored   []Captured
	Problems []CaptureProblem
}

// TaskService stores the events of tasks, where the memories are.
type TaskService interface {
	// RecordTaskEvent stores what ev says in the service's project: the
	// event's memory first (its failure is the call's), then the rules
	// and the signals of a completed task's summary, as Capture stores
	// signals (a refused one is a Refused problem; Line 0 for a learned
	// rule). EINVALID when ev does not Validate (nothing is stored).
	RecordTaskEvent(ctx context.Context, ev TaskEvent) (*TaskReport, error)
}
