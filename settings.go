package cairn

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The settings of a project are its policy: how long each type of memory
// lives and in which tier it is injected, how context blocks are made
// (their tiers, default budgets, the relevance floor), the weights of the
// score that orders a block, the modes and prompt keywords that adjust a
// block, the embeddings search mode, iteration memory and capture. They
// are written to the store per project (SettingsStore) by the command that
// owns the project's folder, from the project's cairn.toml (package
// config reads the files and checks every key), and read by whatever
// process answers for the project, so that a setting takes effect the same
// way through the CLI, a server and MCP.
//
// What one request asks for (a budget, a format, tiers, a mode, limits,
// an explanation) is not policy: see ContextRequest.

// Settings is cairn's configuration. The zero value is not useful: start from
// Default or Load.
type Settings struct {
	Context    ContextSettings          `json:"context"`
	Scoring    ScoringSettings          `json:"scoring"`
	Lifecycle  map[string]TypeLifecycle `json:"lifecycle"` // by type name
	Modes      map[string]ModeOverride  `json:"modes"`     // by mode name
	Keywords   []KeywordOverride        `json:"keywords"`  // in the order they apply
	Embeddings EmbeddingsSettings       `json:"embeddings"`
	Export     ExportSettings           `json:"export"`
	Loop       LoopSettings             `json:"loop"`
	Capture    CaptureSettings          `json:"capture"`
}

// CaptureSettings is what the hooks do while they capture a session.
type CaptureSettings struct {
	// AskAtStop lets the Stop hook ask the agent, once per session, to
	// write what a later session should know, when the session had
	// something worth keeping (a command failed and then passed, the user
	// corrected the agent) and the agent recorded nothing itself.
	AskAtStop bool `json:"ask_at_stop"`
}

// ExportSettings is seed 001's per-type JSON Lines files for agents that
// browse files: `cairn serve` keeps <type>.jsonl files of its project in
// JSONLDir up to date after writes (package jsonlmirror).
type ExportSettings struct {
	// JSONLDir is the folder, relative to the project's folder when not
	// absolute; "" keeps no files.
	JSONLDir string `json:"jsonl_dir"`
}

// LoopSettings is iteration memory for agent loops (cairn loop; seed 003).
type LoopSettings struct {
	BudgetChars   int      `json:"budget_chars"`   // characters of cairn loop context
	Tiers         []string `json:"tiers"`          // model tiers, cheapest first
	EscalateAfter int      `json:"escalate_after"` // consecutive failures before one tier up
	StuckAfter    int      `json:"stuck_after"`    // consecutive failures before the stuck warning
	ReviewAfter   int      `json:"review_after"`   // consecutive failures before a human review flag
	// SummarizeAfter is how many live loop learnings about one file (or
	// task) of one type are kept apart; one more, and they are merged into
	// one summary that supersedes them.
	SummarizeAfter int `json:"summarize_after"`
}

// EmbeddingsSettings is the optional embeddings endpoint (OpenAI-compatible
// POST {BaseURL}/embeddings) that vector and hybrid search use. It is off
// while BaseURL is empty; then every search is lexical.
type EmbeddingsSettings struct {
	BaseURL    string `json:"base_url"`
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions"` // asked of the model when > 0
	// APIKeyEnv names the environment variable that holds the key; the
	// key itself is never in a file, and "" sends none.
	APIKeyEnv string `json:"api_key_env"`
	// Mode is the search mode when the endpoint is set: hybrid, vector
	// or lexical.
	Mode              string  `json:"mode"`
	TimeoutMS         int     `json:"timeout_ms"`        // per request of `cairn embed` and the background fill
	QueryTimeoutMS    int     `json:"query_timeout_ms"`  // embedding a search's query
	PromptTimeoutMS   int     `json:"prompt_timeout_ms"` // embedding a prompt for context injection
	BatchSize         int     `json:"batch_size"`
	MaxRequestsPerDay int     `json:"max_requests_per_day"`
	MaxTokensPerDay   int     `json:"max_tokens_per_day"`
	SimilarityFloor   float64 `json:"similarity_floor"`
	// OpenAIFallback, when base_url is "", embeds through OpenAI when
	// OPENAI_API_KEY is set (OPENAI_BASE_URL, when set, instead of
	// api.openai.com; model "text-embedding-3-small" unless model says
	// otherwise). Off by default: a key in the environment alone never
	// sends memories out of the machine.
	OpenAIFallback bool `json:"openai_fallback"`
}

// Enabled reports whether an endpoint is configured.
func (e EmbeddingsSettings) Enabled() bool { return e.BaseURL != "" && e.Model != "" }

// DefaultOpenAIModel is the model OpenAIFallback asks for when model is "".
const DefaultOpenAIModel = "text-embedding-3-small"

// Resolve returns the endpoint to use: e itself when configured; else,
// with OpenAIFallback and an OPENAI_API_KEY that getenv gives, OpenAI's
// (its key in the environment variable APIKeyEnv names); else e, which
// is not Enabled and leaves search lexical.
func (e EmbeddingsSettings) Resolve(getenv func(string) string) EmbeddingsSettings {
	if e.Enabled() || !e.OpenAIFallback || strings.TrimSpace(getenv("OPENAI_API_KEY")) == "" {
		return e
	}
	e.BaseURL = strings.TrimSpace(getenv("OPENAI_BASE_URL"))
	if e.BaseURL == "" {
		e.BaseURL = "https://api.openai.com/v1"
	}
	if e.Model == "" {
		e.Model = DefaultOpenAIModel
	}
	e.APIKeyEnv = "OPENAI_API_KEY"
	return e
}

// ContextSettings is what context injection puts into a prompt.
type ContextSettings struct {
	Budget int `json:"budget"` // tokens
	// StartBudget caps the budget of a block without a prompt (the
	// session-start block), so that what is injected before any task is
	// known stays small.
	StartBudget int          `json:"start_budget"`
	MaxChars    int          `json:"max_chars"` // hard cap on the rendered block
	Format      string       `json:"format"`    // "markdown"
	Static      StaticTier   `json:"static"`
	Dynamic     DynamicTier  `json:"dynamic"`
	Relevant    RelevantTier `json:"relevant"`
	Mode        string       `json:"mode"` // the active mode, or ""
	// Index adds seed 001's memory index to the session-start block (the
	// hooks'), as `cairn context --index` does to any block.
	Index bool `json:"index"`
	// MinConfidence: memories at or below this confidence are not
	// injected, pinned ones aside (seed 000's `confidence > 0.3`); 0
	// injects any.
	MinConfidence float64 `json:"min_confidence"`
}

// StaticTier is what is injected always: pinned memories, memories of
// Types, and constraint and architecture memories at or above
// MinConstraintConfidence (0: none of those).
type StaticTier struct {
	Enabled                 bool     `json:"enabled"`
	Types                   []string `json:"types"`
	MinConstraintConfidence float64  `json:"min_constraint_confidence"`
}

// DynamicTier is the Count most recent memories of Types. MaxCount caps
// what modes and keywords may raise Count to.
type DynamicTier struct {
	Enabled  bool     `json:"enabled"`
	Count    int      `json:"count"`
	MaxCount int      `json:"max_count"`
	Types    []string `json:"types"`
}

// RelevantTier is up to Limit memories that a search for the task finds
// with at least MinRelevance. Types empty means every type that is neither
// static nor dynamic. MaxLimit caps what modes and keywords may raise Limit
// to.
type RelevantTier struct {
	Enabled      bool    `json:"enabled"`
	Limit        int     `json:"limit"`
	MaxLimit     int     `json:"max_limit"`
	MinRelevance float64 `json:"min_relevance"`
	// Floor is the match strength (Hit.Strength) the prompt's best
	// memory must reach for any relevant memory to be injected; each
	// memory then needs its relevance times that strength to reach a quarter
	// of it. 0 turns the floor off.
	Floor float64  `json:"floor"`
	Types []string `json:"types"`
}

// ScoringSettings holds the weights of seed 000's relevance score:
//
//	score = Confidence×confidence + SameHat or RelatedHat + PathOverlap
//	      + TagMatch per matching tag + max(0, RecencyMax − RecencyPerDay×days since use)
//	      + Relevance×text relevance
//
// and a memory is kept when score > Threshold. HatRelations maps the
// current hat to the hats whose memories count as related.
type ScoringSettings struct {
	Confidence    float64             `json:"confidence"`
	SameHat       float64             `json:"same_hat"`
	RelatedHat    float64             `json:"related_hat"`
	PathOverlap   float64             `json:"path_overlap"`
	TagMatch      float64             `json:"tag_match"`
	RecencyMax    float64             `json:"recency_max"`
	RecencyPerDay float64             `json:"recency_per_day"`
	Relevance     float64             `json:"relevance"`
	Threshold     float64             `json:"threshold"`
	HatRelations  map[string][]string `json:"hat_relations"`
}

// TypeLifecycle is how one memory type lives.
type TypeLifecycle struct {
	TTLDays           int     `json:"ttl_days"`           // 0: permanent
	Tier              string  `json:"tier"`               // "static", "dynamic" or "relevant"
	InitialConfidence float64 `json:"initial_confidence"` // 0: by source
}

// ModeOverride is what a mode changes; 0 leaves a value alone.
type ModeOverride struct {
	DynamicCount int `json:"dynamic_count"` // context.dynamic.count
	SearchLimit  int `json:"search_limit"`  // context.relevant.limit
	Budget       int `json:"budget"`        // context.budget
}

// KeywordOverride is what a phrase in the prompt changes; 0 and "" leave a
// value alone. Phrase is in lower case with single spaces.
type KeywordOverride struct {
	Phrase       string `json:"phrase"`
	DynamicCount int    `json:"dynamic_count"`
	SearchLimit  int    `json:"search_limit"`
	Budget       int    `json:"budget"`
	Mode         string `json:"mode"`
}

// DefaultSettings returns a fresh copy of the built-in settings. The lifecycle
// table and the static and dynamic type lists come from DefaultTypes.
func DefaultSettings() *Settings {
	c := &Settings{
		Context: ContextSettings{
			Budget:        1500,
			StartBudget:   600,
			MaxChars:      10000,
			Format:        "markdown",
			MinConfidence: 0.3,
			Static:        StaticTier{Enabled: true, Types: []string{}, MinConstraintConfidence: 0.9},
			Dynamic:       DynamicTier{Enabled: true, Count: 3, MaxCount: 10, Types: []string{}},
			Relevant:      RelevantTier{Enabled: true, Limit: 10, MaxLimit: 20, MinRelevance: 0.25, Floor: 0.3, Types: []string{}},
		},
		Loop:    LoopSettings{BudgetChars: 4000, Tiers: []string{"haiku", "sonnet", "opus"}, EscalateAfter: 2, StuckAfter: 3, ReviewAfter: 5, SummarizeAfter: 5},
		Capture: CaptureSettings{AskAtStop: true},
		Scoring: ScoringSettings{
			Confidence: 0.2, SameHat: 0.25, RelatedHat: 0.1, PathOverlap: 0.3, TagMatch: 0.15,
			RecencyMax: 0.1, RecencyPerDay: 0.002, Relevance: 1.0, Threshold: 0.25,
			HatRelations: map[string][]string{
				"explorer": {"planner"},
				"planner":  {"creator", "explorer"},
				"creator":  {"critic", "editor", "planner"},
				"critic":   {"creator", "editor"},
				"editor":   {"creator", "critic"},
			},
		},
		Embeddings: EmbeddingsSettings{
			Mode: "hybrid", TimeoutMS: 10000, QueryTimeoutMS: 2000, PromptTimeoutMS: 150, BatchSize: 64,
			MaxRequestsPerDay: 2000, MaxTokensPerDay: 2000000, SimilarityFloor: 0.5,
		},
		Lifecycle: map[string]TypeLifecycle{},
		Modes: map[string]ModeOverride{
			"autopilot": {DynamicCount: 5, SearchLimit: 5},
			"ralph":     {DynamicCount: 5, SearchLimit: 5},
			"swarm":     {DynamicCount: 3, SearchLimit: 3},
			"eco":       {DynamicCount: 1, SearchLimit: 2},
		},
		Keywords: []KeywordOverride{
			{Phrase: "detailed context", DynamicCount: 5},
			{Phrase: "full history", DynamicCount: 10},
			{Phrase: "quick task", DynamicCount: 1},
			{Phrase: "eco mode", DynamicCount: 1},
		},
	}
	ps := DefaultTypes()
	for _, n := range ps.Names() {
		p := ps[n]
		c.Lifecycle[n] = TypeLifecycle{TTLDays: int(p.TTL / day), Tier: string(p.Tier), InitialConfidence: p.Confidence}
	}
	c.Context.Static.Types = c.TypesOfTier(string(TierStatic))
	c.Context.Dynamic.Types = c.TypesOfTier(string(TierDynamic))
	return c
}

// TypesOfTier returns the lifecycle types of tier, sorted.
func (c *Settings) TypesOfTier(tier string) []string {
	out := []string{}
	for n, lc := range c.Lifecycle {
		if lc.Tier == tier {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Clone returns a deep copy of c: changing one never changes the other.
func (c *Settings) Clone() *Settings {
	d := *c
	d.Context.Static.Types = slices.Clone(c.Context.Static.Types)
	d.Context.Dynamic.Types = slices.Clone(c.Context.Dynamic.Types)
	d.Context.Relevant.Types = slices.Clone(c.Context.Relevant.Types)
	d.Scoring.HatRelations = make(map[string][]string, len(c.Scoring.HatRelations))
	for k, v := range c.Scoring.HatRelations {
		d.Scoring.HatRelations[k] = slices.Clone(v)
	}
	d.Lifecycle = make(map[string]TypeLifecycle, len(c.Lifecycle))
	for k, v := range c.Lifecycle {
		d.Lifecycle[k] = v
	}
	d.Modes = make(map[string]ModeOverride, len(c.Modes))
	for k, v := range c.Modes {
		d.Modes[k] = v
	}
	d.Keywords = slices.Clone(c.Keywords)
	return &d
}

// ModeNames returns the names of the configured modes, sorted.
func (c *Settings) ModeNames() []string {
	out := make([]string, 0, len(c.Modes))
	for n := range c.Modes {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ApplyMode makes name the active mode and applies its overrides, capped at
// context.dynamic.max_count and context.relevant.max_limit. The empty name
// changes nothing. An unknown name is an EINVALID error that lists the known
// ones.
func (c *Settings) ApplyMode(name string) error {
	if name == "" {
		return nil
	}
	m, ok := c.Modes[name]
	if !ok {
		return Errorf(EINVALID, "unknown mode %q (known modes: %s)", name, strings.Join(c.ModeNames(), ", "))
	}
	c.Context.Mode = name
	c.override(m.DynamicCount, m.SearchLimit, m.Budget)
	return nil
}

// override sets the values that are not 0, capping counts at their max.
func (c *Settings) override(dynamicCount, searchLimit, budget int) {
	if dynamicCount > 0 {
		c.Context.Dynamic.Count = min(dynamicCount, c.Context.Dynamic.MaxCount)
	}
	if searchLimit > 0 {
		c.Context.Relevant.Limit = min(searchLimit, c.Context.Relevant.MaxLimit)
	}
	if budget > 0 {
		c.Context.Budget = budget
	}
}

// ApplyKeywords applies the keyword overrides whose phrase occurs in prompt
// and returns the phrases that matched, in configuration order. A phrase
// matches ignoring case and runs of white space, as whole words ("eco mode"
// is not found in "deco model"). The modes of all matching keywords apply
// first, then their other overrides in configuration order, so a later
// keyword wins over an earlier one and over a mode. A keyword naming a mode
// that is not configured applies its other overrides only (Load rejects
// such keywords; this can only happen to a Settings changed in code).
func (c *Settings) ApplyKeywords(prompt string) []string {
	matched := c.matchKeywords(prompt)
	for _, k := range matched {
		if k.Mode != "" {
			_ = c.ApplyMode(k.Mode) // documented: an unknown mode is skipped
		}
	}
	phrases := make([]string, 0, len(matched))
	for _, k := range matched {
		c.override(k.DynamicCount, k.SearchLimit, k.Budget)
		phrases = append(phrases, k.Phrase)
	}
	if len(phrases) == 0 {
		return nil
	}
	return phrases
}

// MatchKeywords returns the phrases of the keywords prompt holds, in
// configuration order (as ApplyKeywords matches them), and changes nothing.
func (c *Settings) MatchKeywords(prompt string) []string {
	var phrases []string
	for _, k := range c.matchKeywords(prompt) {
		phrases = append(phrases, k.Phrase)
	}
	return phrases
}

func (c *Settings) matchKeywords(prompt string) []KeywordOverride {
	text := foldSpace(strings.ToLower(prompt))
	var matched []KeywordOverride
	for _, k := range c.Keywords {
		if k.Phrase != "" && containsWords(text, foldSpace(strings.ToLower(k.Phrase))) {
			matched = append(matched, k)
		}
	}
	return matched
}

// foldSpace trims s and folds each run of white space to one space.
func foldSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// NormalizePhrase is the stored form of a keyword phrase: lower case,
// with single spaces.
func NormalizePhrase(s string) string { return foldSpace(strings.ToLower(s)) }

// containsWords reports whether phrase occurs in text with no letter or
// digit touching either end.
func containsWords(text, phrase string) bool {
	if phrase == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(text[i:], phrase)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(phrase)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		first, _ := utf8.DecodeRuneInString(phrase)
		last, _ := utf8.DecodeLastRuneInString(phrase)
		okBefore := start == 0 || !isWord(before) || !isWord(first)
		okAfter := end == len(text) || !isWord(after) || !isWord(last)
		if okBefore && okAfter {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		i = start + size
	}
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// Policies returns cairn's type policies with this configuration's
// lifecycle applied: TTL, tier and initial confidence per type. Types the
// configuration adds get weight 1 and no description.
func (c *Settings) Policies() Policies {
	ps := DefaultTypes()
	for n, lc := range c.Lifecycle {
		p := ps.Of(n)
		p.Name = n
		p.Tier = Tier(lc.Tier)
		p.TTL = time.Duration(lc.TTLDays) * day
		p.Confidence = lc.InitialConfidence
		ps[n] = p
	}
	return ps
}

// StripPhrases returns prompt without the keyword phrases given (as
// ApplyKeywords returns them), each removed wherever it occurs as it
// matches: ignoring case and runs of white space, as whole words. A
// keyword is an instruction to cairn, not words to look for: "(quick
// task) fix the cart total" searches for "fix the cart total". Each
// occurrence becomes a space; the rest of the prompt is kept as it is.
func StripPhrases(prompt string, phrases []string) string {
	for _, p := range phrases {
		words := strings.Fields(p)
		if len(words) == 0 {
			continue
		}
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		re, err := regexp.Compile(`(?i)` + strings.Join(words, `\s+`))
		if err != nil {
			continue // quoted words always compile
		}
		var b strings.Builder
		last := 0
		for _, m := range re.FindAllStringIndex(prompt, -1) {
			if !wholeWords(prompt, m[0], m[1]) {
				continue
			}
			b.WriteString(prompt[last:m[0]])
			b.WriteByte(' ')
			last = m[1]
		}
		if last > 0 {
			b.WriteString(prompt[last:])
			prompt = b.String()
		}
	}
	return prompt
}

// wholeWords reports whether text[start:end] has no letter or digit
// touching either end where its own end is one (containsWords' rule).
func wholeWords(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	first, _ := utf8.DecodeRuneInString(text[start:end])
	last, _ := utf8.DecodeLastRuneInString(text[start:end])
	return (start == 0 || !isWord(before) || !isWord(first)) && (end == len(text) || !isWord(after) || !isWord(last))
}
