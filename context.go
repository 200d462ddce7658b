package cairn

import "time"

// ContextRequest asks for the memories to put into an agent's prompt. The
// CLI fills the knobs from the configuration; zero knobs mean "none" (no
// static types, no dynamic count, …), so callers start from
// DefaultContextRequest.
type ContextRequest struct {
	Project string
	Prompt  string // the task or prompt: relevant memories are searched for it
	Hat     string // the agent's current role (explorer, planner, creator, critic, editor …)
	Agent   string // the agent's name: its own memories count more
	// Mode is the configuration's mode in force (seed 004: autopilot,
	// swarm, eco …): memories tagged mode:<Mode> match it as a tag.
	Mode    string
	Task    string   // task id: memories of the task count more
	Session string   // the current session: its own memories are left out (seed 000)
	Files   []string // files being worked on: memories about them count more
	Now     time.Time

	// Static tier: pinned memories, global-scope memories, and the newest
	// StaticPerType memories of each of StaticTypes; memories of
	// CriticalTypes count as static when their confidence is at least
	// CriticalConfidence (seed 002's critical constraints).
	StaticTypes        []string
	StaticPerType      int
	CriticalTypes      []string
	CriticalConfidence float64
	// Dynamic tier: the newest DynamicCount memories of DynamicTypes.
	DynamicTypes []string
	DynamicCount int
	// Relevant tier: up to RelevantLimit search hits for the prompt (of
	// RelevantTypes, or any type when empty) whose score reaches
	// MinRelevance.
	RelevantTypes []string
	RelevantLimit int
	MinRelevance  float64
	// Floor: the relevant tier is empty unless the prompt's best match has
	// at least this Strength (see Hit), and each relevant memory needs
	// Relevance × that strength ≥ Floor/4. It makes a prompt that matches
	// nothing well get nothing, rather than the best of weak matches.
	Floor float64
	// SearchMode is the relevant tier's search mode (Query.Mode).
	SearchMode string

	Weights ContextWeights
}

// ContextWeights is seed 000's relevance score, made explicit:
//
//	score = Relevance·(lexical relevance, 0..1) + Confidence·confidence
//	      + SameHat (or RelatedHat) + PathOverlap + TagMatch + SameAgent + SameTask
//	      + max(0, RecencyMax − RecencyPerDay·days since last use)
type ContextWeights struct {
	Relevance     float64
	Confidence    float64
	SameHat       float64
	RelatedHat    float64
	PathOverlap   float64
	TagMatch      float64
	SameAgent     float64
	SameTask      float64
	RecencyMax    float64
	RecencyPerDay float64
	HatRelations  map[string][]string
}

// DefaultContextRequest returns a request with seed 000's weights and the
// tiers of seed 004 for project.
func DefaultContextRequest(project string) ContextRequest {
	return ContextRequest{
		Project:            project,
		StaticTypes:        TypesOfTier(TierStatic),
		StaticPerType:      5,
		CriticalTypes:      TypesWith(FacetCritical),
		CriticalConfidence: 0.9,
		DynamicTypes:       TypesOfTier(TierDynamic),
		DynamicCount:       3,
		RelevantLimit:      8,
		MinRelevance:       0.25,
		Floor:              0.3,
		Weights: ContextWeights{
			Relevance: 1, Confidence: 0.2, SameHat: 0.25, RelatedHat: 0.1, PathOverlap: 0.3,
			TagMatch: 0.15, SameAgent: 0.1, SameTask: 0.15, RecencyMax: 0.1, RecencyPerDay: 0.002,
			HatRelations: map[string][]string{
				"explorer": {"planner"},
				"planner":  {"creator", "explorer"},
				"creator":  {"critic", "editor", "planner"},
				"critic":   {"creator", "editor"},
				"editor":   {"creator", "critic"},
			},
		},
	}
}

// Context tiers, as ContextItem.Tier.
const (
	ContextPinned   = "pinned"
	ContextStatic   = "static"
	ContextDynamic  = "dynamic"
	ContextRelevant = "relevant"
	// ContextParallel is not a tier of the engine's selection: it names
	// the block's section of memories other agent sessions of the project
	// wrote since the session's previous context (package recall).
	ContextParallel = "parallel"
)

// ContextItem is a memory chosen for a context, with its score and why.
type ContextItem struct {
	Memory  *Memory
	Tier    string
	Score   float64
	Reasons []ScoreReason
	// Match is, for a relevant memory, its relevance on the scale that
	// means the same for every prompt: Hit.Relevance times the match
	// strength of the prompt's best memory (see ContextRequest.Floor).
	Match float64
	// Stale is set by the caller that can see the project's files when a
	// file the memory refers to changed after it was written or verified.
	Stale bool
}

// ScoreReason is one component of a score.
type ScoreReason struct {
	Name  string
	Value float64
}

// ContextLeftOut is a memory considered and not chosen, and why.
type ContextLeftOut struct {
	ID     string
	Reason string // "threshold", "current session", "superseded", "expired", "duplicate"
	Score  float64
}

// ContextSelection is what a context request chose, before rendering.
type ContextSelection struct {
	Items   []ContextItem
	LeftOut []ContextLeftOut
	Terms   []string // the search terms drawn from the prompt
	// Retrieval is how the relevant tier was searched (zero when it was
	// not).
	Retrieval Retrieval
}
