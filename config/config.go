// Package config is cairn's configuration: how much memory to inject into an
// agent's prompt and how, how to score relevance, how long each type of
// memory lives, and the modes and prompt keywords that adjust injection for
// one run.
//
// # Files and precedence
//
// The configuration is TOML, in a file named cairn.toml, in two places:
//
//   - the user's file, $XDG_CONFIG_HOME/cairn/cairn.toml, else
//     ~/.config/cairn/cairn.toml (see [UserFile]);
//   - the project's file, .cairn/cairn.toml in the project's top-level
//     folder (see [ProjectFile]).
//
// Each key is resolved on its own: built-in defaults < the user's file < the
// project's file < the active mode (context.mode) < explicit overrides
// ([Loaded.Set], for command-line flags). A file sets only the keys it names;
// a missing file is the same as an empty one. Lists (types, hat relations)
// are one key each: a file replaces the whole list.
//
// Unknown keys are errors, not ignored, so that a typo cannot silently leave
// a default in force. Every error names the file, the line and the key, and
// says what is wrong:
//
//	/p/.cairn/cairn.toml:7: context.budget: expected a whole number, found "big"
//	/p/.cairn/cairn.toml:3: unknown key "contex.budget" (did you mean "context.budget"?)
//	/p/.cairn/cairn.toml:12: context.relevant.min_relevance: 1.7 is out of range 0..1
//
// # Layout
//
// example.cairn.toml, next to this file, is a commented copy of the defaults;
// it parses into exactly [Default]. In short:
//
//	[context]                  # what goes into the prompt
//	budget = 1500              # tokens, 1..200000
//	max_chars = 10000          # hard cap on the rendered block (Claude Code's limit)
//	min_confidence = 0.3       # memories at or below it are not injected (pinned aside)
//	index = false              # add the memory index to the session-start block
//	format = "markdown"
//	mode = ""                  # the active mode: a name under [modes], or ""
//
//	[context.static]           # injected always: pinned memories and these types
//	enabled = true
//	types = ["constraint", "convention", "decision", "global", "preference", "style", "user_preference"]
//	min_constraint_confidence = 0.9
//
//	[context.dynamic]          # the most recent memories of these types
//	enabled = true
//	count = 3
//	max_count = 10             # the cap for modes and keywords
//	types = ["session"]
//
//	[context.relevant]         # memories a search for the task finds
//	enabled = true
//	limit = 10
//	max_limit = 20             # the cap for modes and keywords
//	min_relevance = 0.25
//	types = []                 # [] = every type of the relevant tier
//
//	[scoring]                  # seed 000's relevance score, weight by weight
//	confidence = 0.2           # × the memory's confidence
//	same_hat = 0.25            # written by the current hat
//	related_hat = 0.1          # written by a related hat
//	path_overlap = 0.3         # refers to a file being worked on
//	tag_match = 0.15           # a tag matches a task keyword (per tag)
//	recency_max = 0.1          # used today ...
//	recency_per_day = 0.002    # ... less this per day since last use
//	relevance = 1.0            # × the text search's own relevance
//	threshold = 0.25           # memories scoring at or below are dropped
//
//	[scoring.hat_relations]    # hat → the hats whose memories are related
//	explorer = ["planner"]
//
//	[lifecycle.session]        # one table per memory type
//	ttl_days = 30              # 0 = permanent
//	tier = "dynamic"           # static, dynamic or relevant
//	initial_confidence = 0.0   # 0 = by source (0.5 automatic, 0.6 explicit, 0.7 imported)
//
//	[modes.eco]                # a mode: overrides for one run; 0 = not set
//	dynamic_count = 1
//	search_limit = 2
//	budget = 0
//
//	[[keywords]]               # a phrase in the prompt that adjusts injection
//	phrase = "detailed context"
//	dynamic_count = 5          # also search_limit, budget, mode
//
// Ranges: budget 1..200000, max_chars 1..1000000, counts and limits
// 0..1000, each max at least its count, scoring weights 0..10, confidences
// and min_relevance 0..1, ttl_days 0..100000. Names of types, modes and
// hats are lowercase (see [cairn.ValidName]).
//
// # Tiers
//
// A type's tier is lifecycle.<type>.tier; context.static.types and
// context.dynamic.types list the types of those tiers, and by default they
// are derived from the lifecycle tiers. A file may set either: listing a
// type under context.static.types makes it static, and leaving a static type
// out of an explicit list makes it relevant. Two explicit settings that
// disagree (lifecycle.learning.tier = "static" and a context.static.types
// without "learning") are an error. context.relevant.types, when not empty,
// narrows the search to the types it lists.
//
// Besides the static types, memories of type constraint or architecture
// whose confidence is at least context.static.min_constraint_confidence are
// injected with the static tier (seed 002's "critical constraints"; with the
// default types this promotes high-confidence architecture memories, since
// constraints are static already). 0 turns the promotion off.
//
// New types are declared by giving them a tier ([lifecycle.runbook]
// tier = "relevant"); a lifecycle table for an unknown type without a tier is
// taken for a typo and reported.
//
// # Modes and keywords
//
// A mode ([modes.NAME]) sets dynamic_count (context.dynamic.count),
// search_limit (context.relevant.limit) and budget (context.budget) for a
// run; 0 leaves a value alone, and counts are capped at max_count and
// max_limit. The defaults are seed 004's: autopilot and ralph 5/5, swarm
// 3/3, eco 1/2. New modes may be added; context.mode and a keyword's mode
// must name one. [Load] applies context.mode; [Config.ApplyMode] applies
// another one.
//
// A keyword ([[keywords]]) is a phrase that, found in the prompt (ignoring
// case, as whole words), applies its overrides: see [Config.ApplyKeywords].
// Keywords are identified by their phrase, stored in lower case: a file that
// names a default phrase changes that keyword key by key.
package config

import (
	"time"

	"github.com/cairn-dev/cairn"
)

// The configuration is a project's settings (cairn.Settings): this package
// reads them from cairn.toml files, checks every key and says where each
// value came from. The names below are the settings' types under the names
// the files' sections use.
type (
	Config           = cairn.Settings
	ContextConfig    = cairn.ContextSettings
	StaticTier       = cairn.StaticTier
	DynamicTier      = cairn.DynamicTier
	RelevantTier     = cairn.RelevantTier
	ScoringConfig    = cairn.ScoringSettings
	TypeLifecycle    = cairn.TypeLifecycle
	ModeOverride     = cairn.ModeOverride
	KeywordOverride  = cairn.KeywordOverride
	EmbeddingsConfig = cairn.EmbeddingsSettings
	ExportConfig     = cairn.ExportSettings
	LoopConfig       = cairn.LoopSettings
	CaptureConfig    = cairn.CaptureSettings
)

// Default returns a fresh copy of the built-in configuration
// (cairn.DefaultSettings).
func Default() *Config { return cairn.DefaultSettings() }

// DefaultOpenAIModel is the model OpenAIFallback asks for when model is "".
const DefaultOpenAIModel = cairn.DefaultOpenAIModel

// The tiers, formats and limits the configuration accepts.
var (
	tiers   = []string{string(cairn.TierStatic), string(cairn.TierDynamic), string(cairn.TierRelevant)}
	formats = []string{"markdown"}
)

const (
	maxBudget  = 200000
	maxChars   = 1000000
	maxCount   = 1000
	maxWeight  = 10
	maxTTLDays = 100000 // ~270 years; more would overflow a time.Duration
	day        = 24 * time.Hour
)
