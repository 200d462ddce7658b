package cairn

import (
	"cmp"
	"slices"
	"time"
)

// Context tiers: where the memories of a block come from.
const (
	ContextPinned   = "pinned"   // pinned memories, always shown
	ContextStatic   = "static"   // global-scope memories and the static tier's types (see TierStatic)
	ContextDynamic  = "dynamic"  // the newest memories of the dynamic tier's types (session summaries)
	ContextRelevant = "relevant" // what a search for the prompt and the files finds
	// ContextParallel names the block's section of memories other agent
	// sessions of the project wrote since the session's previous block
	// (ContextService.NewFromOtherSessions).
	ContextParallel = "parallel"
)

// CandidateRequest asks for the memories a block chooses from: the stage
// of retrieval that reads the store, run where the data is (package
// recall scores, selects and packs what it returns). Zero fields ask for
// nothing: no static types, no search, no files.
type CandidateRequest struct {
	Project string
	// Session, when set, asks for Candidates.Shown: what the session was
	// already shown.
	Session string
	Now     time.Time // zero: the service's clock

	// Pinned asks for the pinned memories (the newest 50).
	Pinned bool
	// StaticTypes asks for the StaticPerType most trusted memories of each
	// type (by confidence, then newest) and, when not empty, the
	// global-scope memories (the newest 50).
	StaticTypes   []string
	StaticPerType int
	// CriticalTypes asks for the CriticalPerType (0: StaticPerType) most
	// trusted memories of each of these types (those of StaticTypes
	// aside) whose confidence is at least CriticalConfidence (seed 002's
	// critical constraints).
	CriticalTypes      []string
	CriticalConfidence float64
	CriticalPerType    int
	// DynamicTypes asks for the newest DynamicCount memories of each type
	// (and two more, for those a block leaves out).
	DynamicTypes []string
	DynamicCount int

	// Search, when set, is ranked as a prompt's: an embeddings endpoint
	// gets the short time a prompt can wait before ranking falls back to
	// words.
	Search *Query
	// Files asks for the project's memories whose file references name
	// any of them (FileRefMatch), the most recently changed first, at most
	// FileLimit (0: MaxFileCandidates); of FileTypes when not empty.
	Files     []string
	FileTypes []string
	FileLimit int
	// Tags asks for the project's memories that carry any of them, of
	// TagTypes when not empty, the newest first, at most TagLimit (0:
	// MaxFileCandidates).
	Tags     []string
	TagTypes []string
	TagLimit int
	// Hat asks for the project's memories written under that hat (seed
	// 000's hat alignment), of HatTypes when not empty, the most trusted
	// first, at most HatLimit (0: MaxFileCandidates).
	Hat      string
	HatTypes []string
	HatLimit int
}

// MaxFileCandidates is the most memories about files CandidateRequest
// returns.
const MaxFileCandidates = 40

// TierCandidates are the memories of one query of a lasting tier, newest
// first; a block keeps at most Limit of them (0: all) once it left out
// those it does not show.
type TierCandidates struct {
	Tier     string
	Memories []*Memory
	Limit    int
}

// Candidates is what a CandidateRequest found. The memories may be shared
// with the service's caches: callers do not change them.
type Candidates struct {
	Tiers     []TierCandidates // pinned, static, critical, dynamic, in that order
	Hits      []Hit            // Search's hits
	Retrieval Retrieval        // how Search was ranked
	Files     []*Memory        // the memories about Files
	Tagged    []*Memory        // the memories with Tags
	OfHat     []*Memory        // the memories of Hat
	// Shown holds, by id, when each memory was last shown in Session.
	// A long-lived service may lend the map it keeps: read it only.
	Shown map[string]time.Time
}

// ContextRequest is one context block to build: what one request asks
// of it (its budget, format, tiers, mode, limits, explanation), beside
// the project's settings (Settings), which say the rest and are read
// where the block is built. Zero values take the profile's and the
// settings' defaults; Budget, Limit and MaxChars are used only when their
// Set flag is true, so that 0 can mean "nothing".
type ContextRequest struct {
	// Profile names the kind of block (package recall's profiles); ""
	// is the whole context block.
	Profile string
	Project string
	Prompt  string
	Hat     string
	Agent   string
	Task    string
	Session string // memories written in this session are left out
	Files   []string

	Mode string // a mode of the settings; "" takes context.mode
	// Keywords are keyword phrases of the settings to apply as if the
	// prompt held them (those an earlier prompt matched, kept for the
	// next session's start).
	Keywords []string
	Format   string // markdown, xml or json; "" takes context.format
	// SearchMode is the relevant tier's search mode (ModeLexical,
	// ModeVector, ModeHybrid); "" takes embeddings.mode when an endpoint
	// is configured, else lexical.
	SearchMode string

	Budget, Limit, MaxChars          int
	BudgetSet, LimitSet, MaxCharsSet bool

	// Tiers, when not nil, keeps only these tiers of the profile's
	// (ContextPinned, ContextStatic, ContextDynamic,
	// ContextRelevant, ContextParallel).
	Tiers []string
	// Types, when not nil, narrows the relevant tier to these types
	// instead of the profile's (or the configuration's
	// context.relevant.types).
	Types []string

	// Root is the project's folder: memories whose referenced files there
	// changed after they were written or verified are marked stale and
	// count for less. "" skips the check.
	Root string

	Explain bool // explain each chosen memory's score and what was left out
	Index   bool // add seed 001's memory index
	// Conversations are the months of the project's conversation log,
	// newest first (YYYY-MM), shown in the index.
	Conversations []string
}

// The profiles' names: the kinds of block (ContextRequest.Profile) and of
// lookup (LookupRequest.Profile). Package recall holds what each is.
const (
	ProfileContext       = "context"        // `cairn context`, the MCP context tool: every tier
	ProfilePrompt        = "prompt"         // a user prompt (UserPromptSubmit)
	ProfileSessionStart  = "session-start"  // a session's start (SessionStart)
	ProfileSubagent      = "subagent"       // a subagent's start (SubagentStart)
	ProfileEdit          = "edit"           // before an edit of a file (PreToolUse of Edit, Write …)
	ProfileCommand       = "command"        // before a shell command (PreToolUse of Bash): its known failures
	ProfileFailure       = "failure"        // after a tool call failed: the memory of the same error
	ProfileLoop          = "loop"           // the next iteration of an agent loop
	ProfileLookupFile    = "lookup-file"    // what is known about a file
	ProfileLookupError   = "lookup-error"   // what fixed an error before
	ProfileLookupCommand = "lookup-command" // how a command was run when it worked
)

// BlockProfiles are the profiles that make a context block
// (ContextRequest.Profile); the others answer a lookup or a loop.
var BlockProfiles = []string{ProfileContext, ProfilePrompt, ProfileSessionStart, ProfileSubagent, ProfileEdit}

// ContextFormats are the formats a context block is rendered in
// (ContextRequest.Format).
var ContextFormats = []string{"markdown", "xml", "json"}

// Validate checks r against the settings s it is to be built with, before
// anything is read: a block profile ("" is ProfileContext), a mode of s
// ("" is s's), a format (ContextFormats; "" is s's), and no negative
// budget, limit or character cap. EINVALID says what is wrong, in words
// a person can act on; a request that passes is not refused for these
// reasons where the block is built with s.
func (r *ContextRequest) Validate(s *Settings) error {
	switch {
	case r.Profile == "" || slices.Contains(BlockProfiles, r.Profile):
	case slices.Contains([]string{ProfileCommand, ProfileFailure, ProfileLoop, ProfileLookupFile, ProfileLookupError, ProfileLookupCommand}, r.Profile):
		return Errorf(EINVALID, "the %s profile answers a lookup or a loop, not a context block", r.Profile)
	default:
		return Errorf(EINVALID, "unknown block profile %q", r.Profile)
	}
	if r.Mode != "" {
		if err := s.Clone().ApplyMode(r.Mode); err != nil {
			return err
		}
	}
	if f := cmp.Or(r.Format, s.Context.Format); !slices.Contains(ContextFormats, f) {
		return Errorf(EINVALID, "the format must be markdown, xml or json, not %q", f)
	}
	if r.BudgetSet && r.Budget < 0 || r.LimitSet && r.Limit < 0 || r.MaxCharsSet && r.MaxChars < 0 ||
		s.Context.Budget < 0 || s.Context.Relevant.Limit < 0 || s.Context.MaxChars < 0 {
		return Errorf(EINVALID, "the budget, the limit and the character cap cannot be negative")
	}
	return nil
}

// ContextCall is one context block asked of a ContextBlockService: the
// request and what to do besides building it. It is what a transport
// carries, so that the block a client gets from a server is the block it
// would have built itself; the settings it is built with are the
// project's, read where it is built.
type ContextCall struct {
	ContextRequest
	// Now is the clock of the block (recency, expiry); zero takes the
	// service's.
	Now time.Time
	// Record records the use of the memories the block shows, in
	// Session: use counts, last use and confidence rise.
	Record bool
	// MaxJSONChars, when above 0, renders the block shorter until its
	// text, escaped as a JSON string, is at most that long: Claude Code
	// counts the escaped text against its cap. A block that cannot be
	// made short enough is EINVALID.
	MaxJSONChars int
}

// ContextBlock is a built block.
type ContextBlock struct {
	Text    string   // the rendered block; "" when nothing was placed
	IDs     []string // the memories the block shows, in block order
	Tokens  int      // the block's size in estimated tokens
	Explain string   // when ContextRequest.Explain: why each memory was chosen or left out
	// Retrieval is how the relevant memories were ranked: a fallback to
	// lexical ranking says why (the hooks log it).
	Retrieval Retrieval
}
