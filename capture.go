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
