package cairn

import (
	"sort"
	"strings"
	"time"
)

// Tier says when context injection considers a type's memories.
type Tier string

const (
	TierStatic   Tier = "static"   // always injected (pinned, preferences, decisions, constraints)
	TierDynamic  Tier = "dynamic"  // the N most recent (session summaries)
	TierRelevant Tier = "relevant" // injected when a search for the task finds them
)

// TypePolicy is what cairn does with memories of one type. Types not listed
// in DefaultTypes get the default policy (see Policies.Of).
type TypePolicy struct {
	Name        string
	Tier        Tier
	TTL         time.Duration // 0: never expires
	Confidence  float64       // initial confidence; 0: by source (see InitialConfidence)
	Description string
	// Weight scales search relevance for this type (1 is neutral).
	Weight float64
	// Facets say what the type's memories are (see Facet): retrieval
	// reads them instead of lists of type names. A type the
	// configuration adds has none.
	Facets Facet
}

// Facet is what the memories of a type are, as retrieval asks it: which
// types say what fixed a failure, which warn, which record an event. A
// type may have several facets; the built-in types have theirs
// (DefaultTypes), and a type the configuration adds has none.
type Facet uint32

const (
	// FacetFix: says what fixed a failure (fix, error_solution).
	FacetFix Facet = 1 << iota
	// FacetPitfall: warns of something that does not work or surprises
	// (pitfall, gotcha).
	FacetPitfall
	// FacetProblem: a known problem (issue).
	FacetProblem
	// FacetAttempt: a failed attempt at a task and what to avoid
	// (failure).
	FacetAttempt
	// FacetRule: binds what is done: a choice made or a limit that must
	// hold (decision, constraint).
	FacetRule
	// FacetConvention: how code is written here (convention).
	FacetConvention
	// FacetPractice: how the code is built and how things are done here,
	// lasting beyond any task (architecture, dependency, pattern,
	// convention).
	FacetPractice
	// FacetPreference: how the user likes things done (preference,
	// user_preference, style, global).
	FacetPreference
	// FacetCritical: binding when trusted: at high confidence it is shown
	// with the lasting tiers (architecture, constraint; seed 002's
	// critical constraints).
	FacetCritical
	// FacetRecord: the record of an event, not a lesson (session,
	// task_input, task_result).
	FacetRecord
	// FacetEvent: says what happened rather than what holds, so it
	// contradicts nothing (the records, failure, issue, fix).
	FacetEvent
	// FacetSummary: a session's summary, with its lists of files changed
	// and commands that failed, then passed (session).
	FacetSummary
	// FacetLearning: a discovery of an iteration or a session (learning).
	FacetLearning
	// FacetOutcome: what a task did, with its retry suggestions and
	// difficulty (task_result).
	FacetOutcome
	// FacetIndexed: the memory index lists the type even when it has no
	// memories, so that an agent sees where things would go (seed 001's
	// decision, context, preference, issue, task_input, task_result).
	FacetIndexed
)

const day = 24 * time.Hour

// defaultTypes covers the types of every seed: Dex's hat-aligned types,
// the hybrid store's task and conversation types, Nova26's categories,
// Ralph's iteration memory and AIDE's categories with their TTLs. They
// are in the order a block shows them by type (TypeOrder): seed 000's
// order first, then the others alphabetically.
var defaultTypes = [...]TypePolicy{
	{Name: "architecture", Tier: TierRelevant, Facets: FacetPractice | FacetCritical, Description: "how the code is organised"},
	{Name: "pattern", Tier: TierRelevant, Facets: FacetPractice, Description: "how things are done here"},
	{Name: "pitfall", Tier: TierRelevant, Facets: FacetPitfall, Description: "something that does not work, or surprises"},
	{Name: "gotcha", Tier: TierRelevant, TTL: 90 * day, Facets: FacetPitfall, Description: "a pitfall to avoid (expires after 90 days)"},
	{Name: "decision", Tier: TierStatic, Facets: FacetRule | FacetIndexed, Description: "a choice that was made, and why"},
	{Name: "fix", Tier: TierRelevant, Confidence: 0.7, Facets: FacetFix | FacetEvent, Description: "the solution to a problem that occurred"},
	{Name: "error_solution", Tier: TierRelevant, Confidence: 0.7, Facets: FacetFix, Description: "fix for an error: do this"},
	{Name: "convention", Tier: TierStatic, Facets: FacetConvention | FacetPractice, Description: "style, naming and formatting rules"},
	{Name: "constraint", Tier: TierStatic, Facets: FacetRule | FacetCritical, Description: "a limitation or requirement that must hold"},
	{Name: "context", Tier: TierRelevant, Facets: FacetIndexed, Description: "background facts about the project"},
	{Name: "dependency", Tier: TierRelevant, Facets: FacetPractice, Description: "external dependencies and their quirks"},
	{Name: "failure", Tier: TierRelevant, Weight: 0.9, Facets: FacetAttempt | FacetEvent, Description: "a failed attempt at a task and what to avoid"},
	{Name: "global", Tier: TierStatic, Facets: FacetPreference, Description: "user-wide preferences and conventions"},
	{Name: "issue", Tier: TierRelevant, Facets: FacetProblem | FacetEvent | FacetIndexed, Description: "a known problem or a task failure"},
	{Name: "learning", Tier: TierRelevant, TTL: 90 * day, Facets: FacetLearning, Description: "a discovery or insight (expires after 90 days)"},
	{Name: "note", Tier: TierRelevant, Description: "anything else worth keeping"},
	{Name: "preference", Tier: TierStatic, Facets: FacetPreference | FacetIndexed, Description: "how the user likes things done"},
	{Name: "project_fact", Tier: TierRelevant, Description: "a fact about the project"},
	{Name: "session", Tier: TierDynamic, TTL: 30 * day, Facets: FacetRecord | FacetEvent | FacetSummary, Description: "a session summary (expires after 30 days)"},
	{Name: "style", Tier: TierStatic, Facets: FacetPreference, Description: "style preferences"},
	{Name: "task_input", Tier: TierRelevant, TTL: 90 * day, Weight: 0.8, Facets: FacetRecord | FacetEvent | FacetIndexed, Description: "what a task asked for"},
	{Name: "task_result", Tier: TierRelevant, TTL: 90 * day, Weight: 0.9, Facets: FacetRecord | FacetEvent | FacetOutcome | FacetIndexed, Description: "what a task did"},
	{Name: "user_preference", Tier: TierStatic, Facets: FacetPreference, Description: "how the user likes things done"},
}

// FacetsOf returns the facets of the built-in type t; none for another
// type.
func FacetsOf(t string) Facet {
	for _, p := range defaultTypes {
		if p.Name == t {
			return p.Facets
		}
	}
	return 0
}

// TypesWith returns the built-in types that have any of the facets f, in
// TypeOrder. The slice is the caller's.
func TypesWith(f Facet) []string {
	var out []string
	for _, p := range defaultTypes {
		if p.Facets&f != 0 {
			out = append(out, p.Name)
		}
	}
	return out
}

// TypesWithAll returns the built-in types that have every facet of f, in
// TypeOrder. The slice is the caller's.
func TypesWithAll(f Facet) []string {
	var out []string
	for _, p := range defaultTypes {
		if p.Facets&f == f {
			out = append(out, p.Name)
		}
	}
	return out
}

// TypesOfTier returns the built-in types of tier, sorted by name.
func TypesOfTier(tier Tier) []string {
	var out []string
	for _, p := range defaultTypes {
		if p.Tier == tier {
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out
}

// TypeOrder returns the order in which a block shows memories grouped by
// type and the memory index lists types: seed 000's order (architecture,
// pattern, pitfall, gotcha, decision, fix, error_solution, convention),
// then the other built-in types alphabetically. Types not in it come
// after it, alphabetically (see CompareTypes). The slice is the caller's.
func TypeOrder() []string {
	out := make([]string, len(defaultTypes))
	for i, p := range defaultTypes {
		out[i] = p.Name
	}
	return out
}

// CompareTypes orders type names by TypeOrder, then alphabetically: the
// order in which a block shows types.
func CompareTypes(a, b string) int {
	if ra, rb := TypeRank(a), TypeRank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// TypeRank is the position of t in TypeOrder, or len(TypeOrder()) for a
// type not in it.
func TypeRank(t string) int {
	for i, p := range defaultTypes {
		if p.Name == t {
			return i
		}
	}
	return len(defaultTypes)
}

// DefaultType is the type of a memory added without one.
const DefaultType = "note"

// DefaultTypes returns a fresh copy of the built-in type policies, sorted by
// name. Callers may change the copy (configuration overrides).
func DefaultTypes() Policies {
	m := make(Policies, len(defaultTypes))
	for _, p := range defaultTypes {
		if p.Weight == 0 {
			p.Weight = 1
		}
		m[p.Name] = p
	}
	return m
}

// Policies maps type names to their policy.
type Policies map[string]TypePolicy

// Of returns the policy for type t: its entry, or for an unknown type the
// default policy (relevant tier, no TTL, confidence by source, weight 1).
func (ps Policies) Of(t string) TypePolicy {
	if p, ok := ps[t]; ok {
		return p
	}
	return TypePolicy{Name: t, Tier: TierRelevant, Weight: 1}
}

// Names returns the type names in order.
func (ps Policies) Names() []string {
	out := make([]string, 0, len(ps))
	for n := range ps {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// InitialConfidence is seed 000's starting confidence by source, unless the
// type's policy sets one.
func InitialConfidence(p TypePolicy, src Source) float64 {
	if p.Confidence > 0 {
		return p.Confidence
	}
	switch src {
	case SourceExplicit:
		return 0.6
	case SourceImported:
		return 0.7
	default:
		return 0.5
	}
}
