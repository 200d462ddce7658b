package cairn

import (
	"sort"
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
}

const day = 24 * time.Hour

// defaultTypes covers the types of every seed: Dex's hat-aligned types,
// the hybrid store's task and conversation types, Nova26's categories,
// Ralph's iteration memory and AIDE's categories with their TTLs.
var defaultTypes = [...]TypePolicy{
	{Name: "architecture", Tier: TierRelevant, Description: "how the code is organised"},
	{Name: "dependency", Tier: TierRelevant, Description: "external dependencies and their quirks"},
	{Name: "decision", Tier: TierStatic, Description: "a choice that was made, and why"},
	{Name: "constraint", Tier: TierStatic, Description: "a limitation or requirement that must hold"},
	{Name: "pattern", Tier: TierRelevant, Description: "how things are done here"},
	{Name: "convention", Tier: TierStatic, Description: "style, naming and formatting rules"},
	{Name: "pitfall", Tier: TierRelevant, Description: "something that does not work, or surprises"},
	{Name: "gotcha", Tier: TierRelevant, TTL: 90 * day, Description: "a pitfall to avoid (expires after 90 days)"},
	{Name: "fix", Tier: TierRelevant, Confidence: 0.7, Description: "the solution to a problem that occurred"},
	{Name: "error_solution", Tier: TierRelevant, Confidence: 0.7, Description: "fix for an error: do this"},
	{Name: "preference", Tier: TierStatic, Description: "how the user likes things done"},
	{Name: "user_preference", Tier: TierStatic, Description: "how the user likes things done"},
	{Name: "style", Tier: TierStatic, Description: "style preferences"},
	{Name: "global", Tier: TierStatic, Description: "user-wide preferences and conventions"},
	{Name: "context", Tier: TierRelevant, Description: "background facts about the project"},
	{Name: "project_fact", Tier: TierRelevant, Description: "a fact about the project"},
	{Name: "issue", Tier: TierRelevant, Description: "a known problem or a task failure"},
	{Name: "learning", Tier: TierRelevant, TTL: 90 * day, Description: "a discovery or insight (expires after 90 days)"},
	{Name: "session", Tier: TierDynamic, TTL: 30 * day, Description: "a session summary (expires after 30 days)"},
	{Name: "task_input", Tier: TierRelevant, TTL: 90 * day, Weight: 0.8, Description: "what a task asked for"},
	{Name: "task_result", Tier: TierRelevant, TTL: 90 * day, Weight: 0.9, Description: "what a task did"},
	{Name: "failure", Tier: TierRelevant, Weight: 0.9, Description: "a failed attempt at a task and what to avoid"},
	{Name: "note", Tier: TierRelevant, Description: "anything else worth keeping"},
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
