package recall

import (
	"slices"

	"github.com/cairn-dev/cairn"
)

// Profile is how the pipeline makes one kind of block: where its
// candidates come from, which types they are, how they are scored and
// selected, and how much the block may say. Every block an agent is shown
// is made by one of the profiles (Profiles); a profile is data, and the
// stages read it:
//
//	candidates  the lasting tiers, a search, the memories about files,
//	            other sessions' news, a task's attempts (candidates.go)
//	score       Weights (score.go)
//	select      Floor and Limit, and what a session was shown (select.go)
//	pack        sections packed into Budget by package contextpack (pack.go)
type Profile struct {
	Name string
	// Tiers are the sources of a context block (cairn.ContextPinned,
	// ContextStatic, ContextDynamic, ContextRelevant, ContextParallel);
	// nil means every one of them, with an agent's own patterns and, when
	// asked, the memory index (the block of `cairn context`).
	Tiers []string
	// Types are the facets of the types the relevant tier, the memories
	// about files and a lookup's search read; 0 means the configuration's
	// context.relevant.types (context blocks) or every type (lookups).
	Types cairn.Facet
	// Budget is the most tokens of the block; 0 means the configuration's
	// context.budget (capped by context.start_budget for the block at a
	// session's start). A loop's block is also capped at four characters
	// a token.
	Budget int
	// Weights score the candidates.
	Weights Weights
	// Floor is the least match a searched memory needs to be shown:
	// FloorConfig takes the configuration's relevance floor and threshold
	// (see how a context block chooses, select.go); otherwise the least Strength (a lookup of an
	// error) or Relevance (the loop's learnings) of a hit, 0 for none.
	Floor float64
	// Limit is the most memories a lookup shows by default, or a loop
	// offers as learnings; 0 for a context block means the
	// configuration's context.relevant.limit.
	Limit int
	// Annotate shows each item's age and, in the relevant section, its
	// relevance where they fit (every block; annotations never cost an
	// item its place).
	Annotate bool
	// Lookup is the kind of lookup the profile answers (cairn.LookupFile,
	// LookupError, LookupCommand); "" for a context block or the loop's.
	Lookup string
}

// FloorConfig is Profile.Floor for the configuration's floor.
const FloorConfig = -1

// Weights are how a profile scores its candidates.
//
// The answer after a failure ranks the fixes that hold one of the
// failure's error lines first, by where the line comes in the output,
// then by a tenth of their recency (lookupFailure).
//
// Seed000, for context blocks: seed 000's relevance score with the
// configuration's weights (scoring.*, see contextScore); a relevant
// memory is worth its match squared and a tenth of that score.
//
// Otherwise (lookups and the loop):
//
//	value = ByFacet weight × match × (1 − Confidence + Confidence × confidence) × recency
//	recency = 1 − RecencyShare + RecencyShare / (1 + age in days / RecencyDays)   (1 when RecencyDays is 0)
//
// where match is how the memory answers (its file match, its Strength);
// with AgeSpan the value is the match (a learning's Relevance) less
// 1/AgeSpan per day of age (at most AgeDays), and at least MinValue.
type Weights struct {
	Seed000 bool
	// ByFacet gives a type its weight: the first entry whose facets the
	// type has; Other for the rest.
	ByFacet []FacetWeight
	Other   float64
	// Confidence is the share of the value that the memory's confidence
	// moves.
	Confidence float64
	// RecencyDays and RecencyShare make older memories count less: a
	// memory RecencyDays old keeps 1 − RecencyShare/2 of its value.
	RecencyDays, RecencyShare float64
	// AgeSpan, AgeDays and MinValue: the loop's value of a learning.
	AgeSpan, AgeDays, MinValue float64
}

// FacetWeight is the weight of the types with any of Facets.
type FacetWeight struct {
	Facets cairn.Facet
	Weight float64
}

// Budgets of the blocks that are not the configuration's.
const (
	// ActionBudget is the most tokens a block at the point of action
	// adds: before an edit, before a command, after a failure, at a
	// subagent's start.
	ActionBudget = 300
	// FailureBudget is the most tokens of the answer after a failure.
	FailureBudget = 400
	// pointLimit is the most memories an answer at the point of a
	// command shows (after a failure, before a command).
	pointLimit = 3
)

// actionFacets are the types worth reading before an action: what went
// wrong there before and how it was fixed, and what was decided.
const actionFacets = cairn.FacetPitfall | cairn.FacetFix | cairn.FacetAttempt | cairn.FacetProblem | cairn.FacetRule | cairn.FacetConvention

// lookupWeights rank the types a person asks about a file or an error
// for, trusted and recent ones first.
var lookupWeights = Weights{
	ByFacet: []FacetWeight{
		{cairn.FacetRule | cairn.FacetPitfall | cairn.FacetFix, 1},
		{cairn.FacetPractice | cairn.FacetAttempt | cairn.FacetProblem, 0.85},
		{cairn.FacetRecord, 0.6},
	},
	Other: 0.7, Confidence: 0.5, RecencyDays: 90, RecencyShare: 0.5,
}

// pointWeights rank what is known at the point of a command by its
// match, the memory's confidence and its age.
var pointWeights = Weights{Other: 1, Confidence: 0.5, RecencyDays: 90, RecencyShare: 0.5}

// errorWeights rank the fixes of an error first, the related pitfalls
// and problems after them.
var errorWeights = Weights{
	ByFacet:    []FacetWeight{{cairn.FacetFix, 1}},
	Other:      0.8,
	Confidence: 0.5, RecencyDays: 90, RecencyShare: 0.5,
}

// profiles are every block the pipeline makes, by name.
var profiles = map[string]Profile{
	cairn.ProfileContext: {Name: cairn.ProfileContext, Weights: Weights{Seed000: true}, Floor: FloorConfig, Annotate: true},
	cairn.ProfilePrompt: {Name: cairn.ProfilePrompt, Tiers: []string{cairn.ContextRelevant, cairn.ContextParallel},
		Weights: Weights{Seed000: true}, Floor: FloorConfig, Annotate: true},
	cairn.ProfileSessionStart: {Name: cairn.ProfileSessionStart, Tiers: []string{cairn.ContextPinned, cairn.ContextStatic, cairn.ContextDynamic, cairn.ContextParallel},
		Weights: Weights{Seed000: true}, Floor: FloorConfig, Annotate: true},
	cairn.ProfileSubagent: {Name: cairn.ProfileSubagent, Tiers: []string{cairn.ContextRelevant}, Budget: ActionBudget,
		Weights: Weights{Seed000: true}, Floor: FloorConfig, Annotate: true},
	cairn.ProfileEdit: {Name: cairn.ProfileEdit, Tiers: []string{cairn.ContextRelevant}, Types: actionFacets, Budget: ActionBudget,
		Weights: Weights{Seed000: true}, Floor: FloorConfig, Annotate: true},
	cairn.ProfileCommand: {Name: cairn.ProfileCommand, Lookup: cairn.LookupCommandFailures, Types: cairn.FacetFix | cairn.FacetAttempt | cairn.FacetPitfall,
		Budget: ActionBudget, Weights: pointWeights, Limit: pointLimit},
	cairn.ProfileFailure: {Name: cairn.ProfileFailure, Lookup: cairn.LookupFailure, Types: cairn.FacetFix, Budget: FailureBudget,
		Weights: pointWeights, Limit: pointLimit},
	cairn.ProfileLoop: {Name: cairn.ProfileLoop, Types: cairn.FacetLearning | cairn.FacetPractice | cairn.FacetPitfall | cairn.FacetFix |
		cairn.FacetRule | cairn.FacetProblem | cairn.FacetOutcome, Budget: cairn.DefaultLoopBudget / 4,
		Weights: Weights{AgeSpan: 700, AgeDays: 365, MinValue: 0.01}, Floor: 0.2, Limit: 10},
	cairn.ProfileLookupFile: {Name: cairn.ProfileLookupFile, Lookup: cairn.LookupFile, Budget: cairn.DefaultLookupBudget, Weights: lookupWeights, Limit: cairn.DefaultLookupLimit},
	cairn.ProfileLookupError: {Name: cairn.ProfileLookupError, Lookup: cairn.LookupError, Types: cairn.FacetFix | relatedFacets, Budget: cairn.DefaultLookupBudget,
		Weights: errorWeights, Floor: minErrorStrength, Limit: cairn.DefaultLookupLimit},
	cairn.ProfileLookupCommand: {Name: cairn.ProfileLookupCommand, Lookup: cairn.LookupCommand, Budget: cairn.DefaultLookupBudget, Weights: lookupWeights, Limit: cairn.DefaultLookupLimit},
}

// relatedFacets are the types an error's lookup shows after its fixes:
// what went wrong before and what must hold.
const relatedFacets = cairn.FacetPitfall | cairn.FacetProblem | cairn.FacetAttempt | cairn.FacetLearning | cairn.FacetRule

// minErrorStrength is the least share of the error text's weight a memory
// must hold to count as the same failure.
const minErrorStrength = 0.25

// Profiles returns every profile the pipeline knows, by name: a copy the
// caller may change.
func Profiles() map[string]Profile {
	out := make(map[string]Profile, len(profiles))
	for n, p := range profiles {
		p.Tiers = slices.Clone(p.Tiers)
		p.Weights.ByFacet = slices.Clone(p.Weights.ByFacet)
		out[n] = p
	}
	return out
}

// ProfileOf returns the profile named name; EINVALID for an unknown one.
// Its slices are shared: callers replace them rather than change them.
func ProfileOf(name string) (Profile, error) {
	p, ok := profiles[name]
	if !ok {
		return Profile{}, cairn.Errorf(cairn.EINVALID, "unknown block profile %q", name)
	}
	return p, nil
}

// types are the names of the built-in types with the profile's facets;
// nil when it names none.
func (p Profile) types() []string {
	if p.Types == 0 {
		return nil
	}
	return cairn.TypesWith(p.Types)
}
