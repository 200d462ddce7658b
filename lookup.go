package cairn

import (
	"slices"
	"time"
)

// The kinds of lookup: the questions an agent asks by name rather than
// by topic (LookupRequest.Kind).
const (
	LookupFile    = "file"    // what is known about a file
	LookupError   = "error"   // what fixed an error before
	LookupCommand = "command" // how a command was run when it worked
	// LookupFailure: the memory of the error a failed tool call's output
	// names, at the moment it failed.
	LookupFailure = "failure"
	// LookupCommandFailures: what is known about the failures of a shell
	// command, before it runs.
	LookupCommandFailures = "command-failures"
)

// Limits of a LookupRequest.
const (
	MaxLookupLimit  = 100
	MinLookupBudget = 50
	// DefaultLookupBudget is the budget of a lookup's answer, and
	// DefaultLookupLimit the most memories it shows, by name (`cairn
	// recall --file/--error/--command`) when the request gives none.
	DefaultLookupBudget = 800
	DefaultLookupLimit  = 10
)

// LookupRequest is one lookup, answered where the memories are
// (LookupService).
type LookupRequest struct {
	Project string
	Kind    string // LookupFile, LookupError or LookupCommand
	// Profile, when set, is the lookup profile to answer with instead of
	// the kind's (ProfileFailure: an error at the point of action).
	Profile string
	Subject string // the path, the error text or the failure's output, or the tool
	Budget  int    // tokens of the rendered answer; 0 means the profile's
	Limit   int    // items at most; 0 means the profile's
	Now     time.Time

	// At the point of a command (LookupFailure, LookupCommandFailures):
	// Command is the command line that failed or is about to run;
	// the memories Session was shown at least ShownTimes times are left
	// out (0: none are); Exact finds, after a failure, only the memories
	// that hold one of its error lines, none that merely read alike (for
	// an output not known to be a failure's). The failure's output in
	// Subject has its paths written as the project's memories write them
	// (relative to the project's folder, the home folder as "~").
	Command    string
	Session    string
	ShownTimes int
	Exact      bool
	// Record asks that the use of the memories the answer shows be
	// recorded in Session: a hook's answer is shown to the agent, a
	// person's lookup is not.
	Record bool
}

// LookupItem is one memory of an answer.
type LookupItem struct {
	Memory *Memory
	Score  float64 // what items are ordered by within their section
	// Section is where the item is shown: "known" (decisions, pitfalls,
	// fixes …), "sessions" (sessions that changed the file), "fixes",
	// "related" (of an error or a command).
	Section string
	Why     string // why it answers: "file reference", "named in the text", …
}

// LookupCommandLine is a command line seen to work.
type LookupCommandLine struct {
	Line     string
	Count    int       // memories that show it working
	LastSeen time.Time // the newest of them
	IDs      []string  // those memories, newest first
}

// LookupAnswer is the answer of a lookup.
type LookupAnswer struct {
	Kind     string
	Subject  string
	Items    []LookupItem        // ranked, within the budget
	Commands []LookupCommandLine // LookupCommand only, most often seen first
	Omitted  int                 // items found but left out by the limit or the budget
	Text     string              // the answer as a block; "" when nothing was found
}

// IDs are the ids of the memories shown, in order.
func (r *LookupAnswer) IDs() []string {
	var ids []string
	for _, it := range r.Items {
		ids = append(ids, it.Memory.ID)
	}
	for _, c := range r.Commands {
		for _, id := range c.IDs {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}
