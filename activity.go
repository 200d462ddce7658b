package cairn

import "time"

// Activity actions: what happened to a memory. Each write the engine makes
// appends one activity row per memory it touched, in the same transaction
// as the write.
const (
	ActionCreated    = "created"    // stored for the first time (by add or import)
	ActionUpdated    = "updated"    // its content or other fields changed
	ActionReinforced = "reinforced" // the same content was written again
	ActionUsed       = "used"       // injected into an agent's context
	ActionDecayed    = "decayed"    // its confidence fell after weeks without use
	ActionExpired    = "expired"    // removed by cleanup: its type's time to live ran out
	ActionDeleted    = "deleted"    // removed by hand, or by cleanup as low-value
	ActionPromoted   = "promoted"   // its type or scope changed (seed 004's promotion)
	ActionPinned     = "pinned"     // marked to be always injected
	ActionUnpinned   = "unpinned"   // no longer always injected
	ActionSuperseded = "superseded" // replaced by a newer memory
)

// Actions lists every activity action, in the order above.
func Actions() []string {
	return []string{ActionCreated, ActionUpdated, ActionReinforced, ActionUsed, ActionDecayed,
		ActionExpired, ActionDeleted, ActionPromoted, ActionPinned, ActionUnpinned, ActionSuperseded}
}

// Activity is one entry of the activity log: something that happened to a
// memory. Entries outlive their memory, so the log still tells what a
// deleted memory was and why it went.
type Activity struct {
	ID        int64 // assigned by the store; ignored by AppendActivity
	At        time.Time
	Project   string // the memory's project
	MemoryID  string
	Action    string // one of the Action constants
	SessionID string // the agent session that caused it, when known
	Detail    string // a short note for people, e.g. "0.50 → 0.46 (2 weeks unused)"
}

// ActivityFilter selects activity entries. Zero fields do not filter.
type ActivityFilter struct {
	Project   string // required by Service methods; see Tx.FindActivity
	MemoryID  string
	SessionID string
	Actions   []string  // any of
	After     time.Time // at or after
	Before    time.Time // before
	// AfterID keeps the entries whose id is above it: ids grow in commit
	// order, so a reader that remembers the largest id it saw reads only
	// what was committed since (0: every entry).
	AfterID int64
	Limit   int // 0: no limit
	// SkipTotal leaves the total count (FindActivity's second result) at
	// 0, which saves a count of every match.
	SkipTotal bool
}
