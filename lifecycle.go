package cairn

import "time"

// Lifecycle limits of seed 000: a memory unused for DecayAfter loses
// DecayPerWeek of confidence for each whole week (never below
// MinConfidence), and one that stays below LowValueConfidence, was never
// used and is older than LowValueAge is removed by cleanup, unless it was
// stored explicitly (SourceExplicit): decay alone never removes what
// someone asked to remember.
const (
	DecayAfter         = 7 * 24 * time.Hour
	LowValueConfidence = 0.15
	LowValueAge        = 30 * 24 * time.Hour
)

// LifecycleState is what cleanup needs to know of a memory: no content, so
// that a whole project is cheap to read.
type LifecycleState struct {
	ID         string
	Type       string
	Title      string
	Confidence float64
	CreatedAt  time.Time
	LastUsedAt time.Time // zero when never used
	ExpiresAt  time.Time // zero when it does not expire
	// DecayedAt is the decay clock: the end of the last week whose decay
	// was applied; zero when the memory never decayed.
	DecayedAt time.Time
	UseCount  int
	Pinned    bool
	// Source is how the memory came to be: an explicit one (a person or
	// an agent asked to remember it) is never removed for low value.
	Source Source
}

// LifecyclePage selects a page of a project's lifecycle states in their
// order (creation, then id): those after the memory created at
// AfterCreated with id AfterID (zero and "": from the first), at most
// Limit of them (0: all). Cleanup reads a large project a page at a time,
// each page in its own transaction, from the last state of the page
// before.
type LifecyclePage struct {
	AfterCreated time.Time
	AfterID      string
	Limit        int
}

// Decay sets a memory's confidence and decay clock, and nothing else.
type Decay struct {
	ID         string
	Confidence float64
	DecayedAt  time.Time
}

// MaintenanceReport says what a cleanup did, or would do on a dry run.
type MaintenanceReport struct {
	Project string
	At      time.Time // the clock reading the rules were applied at
	Applied bool      // false for a dry run: nothing was changed
	Items   []MaintenanceItem
	// Expired, Deleted and Decayed count the items by action.
	Expired, Deleted, Decayed int
	// Pinned counts the pinned memories that were left alone although
	// they would otherwise have expired, decayed or been deleted.
	Pinned int
}

// MaintenanceItem is what cleanup does to one memory, and why.
type MaintenanceItem struct {
	MemoryID string
	Title    string
	Type     string
	Action   string // ActionExpired, ActionDeleted or ActionDecayed
	// Reason explains the action to a person, e.g. "expired: session
	// memories live 30 days, created 2026-09-01".
	Reason string
	// Confidence is the memory's confidence before; NewConfidence is
	// after a decay (equal to Confidence for removals).
	Confidence, NewConfidence float64
	Weeks                     int // whole weeks of decay applied
}
