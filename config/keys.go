package config

// Every settable key of the configuration is a leaf: its name, the kind of
// value it takes, its range, and how to read and write it on a Config. Files
// and overrides go through the same leaves, so they are validated alike.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/lexical"
)

type kind int

const (
	kindInt kind = iota
	kindFloat
	kindBool
	kindString
	kindList
)

func (k kind) String() string {
	switch k {
	case kindInt:
		return "a whole number"
	case kindFloat:
		return "a number"
	case kindBool:
		return "true or false"
	case kindString:
		return "a string"
	}
	return "a list of strings"
}

// leaf is one settable key. Values are int, float64, bool, string or
// []string by kind.
type leaf struct {
	key    string // as shown: context.budget, modes.eco.budget, keywords."quick task".mode
	entry  string // for keys inside a map entry, the entry's key (modes.eco); else ""
	kind   kind
	lo, hi float64            // the range of numbers
	check  func(v any) string // more checks; returns the problem or ""
	get    func(*Config) any
	set    func(*Config, any)
	create func(*Config) bool // for map entries: adds the entry if missing, reports whether it did
	exists func(*Config) bool // for map entries: whether the entry exists
}

// field adapts a pointer to a field of Config.
func field[V any](p func(*Config) *V) (func(*Config) any, func(*Config, any)) {
	return func(c *Config) any { return *p(c) }, func(c *Config, v any) { *p(c) = v.(V) }
}

// entryField adapts a field of a map entry; setting creates the entry.
func entryField[T, V any](m func(*Config) map[string]T, name string, f func(*T) *V) (func(*Config) any, func(*Config, any)) {
	get := func(c *Config) any {
		t := m(c)[name]
		return *f(&t)
	}
	set := func(c *Config, v any) {
		t := m(c)[name]
		*f(&t) = v.(V)
		m(c)[name] = t
	}
	return get, set
}

func intLeaf(key string, lo, hi int, p func(*Config) *int) leaf {
	get, set := field(p)
	return leaf{key: key, kind: kindInt, lo: float64(lo), hi: float64(hi), get: get, set: set}
}

func floatLeaf(key string, lo, hi float64, p func(*Config) *float64) leaf {
	get, set := field(p)
	return leaf{key: key, kind: kindFloat, lo: lo, hi: hi, get: get, set: set}
}

func boolLeaf(key string, p func(*Config) *bool) leaf {
	get, set := field(p)
	return leaf{key: key, kind: kindBool, get: get, set: set}
}

func stringLeaf(key string, check func(string) string, p func(*Config) *string) leaf {
	get, set := field(p)
	return leaf{key: key, kind: kindString, check: func(v any) string { return check(v.(string)) }, get: get, set: set}
}

func listLeaf(key string, check func(string) string, p func(*Config) *[]string) leaf {
	get, set := field(p)
	return leaf{key: key, kind: kindList, check: func(v any) string { return checkList(v.([]string), check) }, get: get, set: set}
}

// fixedLeaves are the keys that do not depend on map entries, in key order.
func fixedLeaves() []leaf {
	weight := func(key string, p func(*Config) *float64) leaf { return floatLeaf(key, 0, maxWeight, p) }
	return []leaf{
		boolLeaf("capture.ask_at_stop", func(c *Config) *bool { return &c.Capture.AskAtStop }),
		intLeaf("context.budget", 1, maxBudget, func(c *Config) *int { return &c.Context.Budget }),
		intLeaf("context.start_budget", 1, maxBudget, func(c *Config) *int { return &c.Context.StartBudget }),
		boolLeaf("context.dynamic.enabled", func(c *Config) *bool { return &c.Context.Dynamic.Enabled }),
		intLeaf("context.dynamic.count", 0, maxCount, func(c *Config) *int { return &c.Context.Dynamic.Count }),
		intLeaf("context.dynamic.max_count", 0, maxCount, func(c *Config) *int { return &c.Context.Dynamic.MaxCount }),
		listLeaf("context.dynamic.types", checkTypeName, func(c *Config) *[]string { return &c.Context.Dynamic.Types }),
		stringLeaf("context.format", checkFormat, func(c *Config) *string { return &c.Context.Format }),
		boolLeaf("context.index", func(c *Config) *bool { return &c.Context.Index }),
		intLeaf("context.max_chars", 1, maxChars, func(c *Config) *int { return &c.Context.MaxChars }),
		floatLeaf("context.min_confidence", 0, 1, func(c *Config) *float64 { return &c.Context.MinConfidence }),
		stringLeaf("context.mode", checkModeRef, func(c *Config) *string { return &c.Context.Mode }),
		boolLeaf("context.relevant.enabled", func(c *Config) *bool { return &c.Context.Relevant.Enabled }),
		intLeaf("context.relevant.limit", 0, maxCount, func(c *Config) *int { return &c.Context.Relevant.Limit }),
		intLeaf("context.relevant.max_limit", 0, maxCount, func(c *Config) *int { return &c.Context.Relevant.MaxLimit }),
		floatLeaf("context.relevant.min_relevance", 0, 1, func(c *Config) *float64 { return &c.Context.Relevant.MinRelevance }),
		floatLeaf("context.relevant.floor", 0, 1, func(c *Config) *float64 { return &c.Context.Relevant.Floor }),
		listLeaf("context.relevant.types", checkTypeName, func(c *Config) *[]string { return &c.Context.Relevant.Types }),
		boolLeaf("context.static.enabled", func(c *Config) *bool { return &c.Context.Static.Enabled }),
		floatLeaf("context.static.min_constraint_confidence", 0, 1, func(c *Config) *float64 { return &c.Context.Static.MinConstraintConfidence }),
		listLeaf("context.static.types", checkTypeName, func(c *Config) *[]string { return &c.Context.Static.Types }),
		stringLeaf("embeddings.api_key_env", checkEnvName, func(c *Config) *string { return &c.Embeddings.APIKeyEnv }),
		stringLeaf("embeddings.base_url", checkBaseURL, func(c *Config) *string { return &c.Embeddings.BaseURL }),
		intLeaf("embeddings.batch_size", 1, 2048, func(c *Config) *int { return &c.Embeddings.BatchSize }),
		intLeaf("embeddings.dimensions", 0, 16384, func(c *Config) *int { return &c.Embeddings.Dimensions }),
		intLeaf("embeddings.max_requests_per_day", 1, 100000000, func(c *Config) *int { return &c.Embeddings.MaxRequestsPerDay }),
		intLeaf("embeddings.max_tokens_per_day", 1, 2000000000, func(c *Config) *int { return &c.Embeddings.MaxTokensPerDay }),
		stringLeaf("embeddings.mode", checkSearchMode, func(c *Config) *string { return &c.Embeddings.Mode }),
		boolLeaf("embeddings.openai_fallback", func(c *Config) *bool { return &c.Embeddings.OpenAIFallback }),
		stringLeaf("embeddings.model", func(string) string { return "" }, func(c *Config) *string { return &c.Embeddings.Model }),
		intLeaf("embeddings.prompt_timeout_ms", 1, 60000, func(c *Config) *int { return &c.Embeddings.PromptTimeoutMS }),
		intLeaf("embeddings.query_timeout_ms", 1, 600000, func(c *Config) *int { return &c.Embeddings.QueryTimeoutMS }),
		floatLeaf("embeddings.similarity_floor", 0.01, 0.99, func(c *Config) *float64 { return &c.Embeddings.SimilarityFloor }),
		intLeaf("embeddings.timeout_ms", 1, 600000, func(c *Config) *int { return &c.Embeddings.TimeoutMS }),
		stringLeaf("export.jsonl_dir", checkFolder, func(c *Config) *string { return &c.Export.JSONLDir }),
		intLeaf("loop.budget_chars", 100, maxChars, func(c *Config) *int { return &c.Loop.BudgetChars }),
		intLeaf("loop.escalate_after", 1, maxCount, func(c *Config) *int { return &c.Loop.EscalateAfter }),
		intLeaf("loop.review_after", 1, maxCount, func(c *Config) *int { return &c.Loop.ReviewAfter }),
		intLeaf("loop.summarize_after", 1, maxCount, func(c *Config) *int { return &c.Loop.SummarizeAfter }),
		intLeaf("loop.stuck_after", 1, maxCount, func(c *Config) *int { return &c.Loop.StuckAfter }),
		listLeaf("loop.tiers", checkModelTier, func(c *Config) *[]string { return &c.Loop.Tiers }),
		weight("scoring.confidence", func(c *Config) *float64 { return &c.Scoring.Confidence }),
		weight("scoring.path_overlap", func(c *Config) *float64 { return &c.Scoring.PathOverlap }),
		weight("scoring.recency_max", func(c *Config) *float64 { return &c.Scoring.RecencyMax }),
		weight("scoring.recency_per_day", func(c *Config) *float64 { return &c.Scoring.RecencyPerDay }),
		weight("scoring.related_hat", func(c *Config) *float64 { return &c.Scoring.RelatedHat }),
		weight("scoring.relevance", func(c *Config) *float64 { return &c.Scoring.Relevance }),
		weight("scoring.same_hat", func(c *Config) *float64 { return &c.Scoring.SameHat }),
		weight("scoring.tag_match", func(c *Config) *float64 { return &c.Scoring.TagMatch }),
		weight("scoring.threshold", func(c *Config) *float64 { return &c.Scoring.Threshold }),
	}
}

// The tables that hold keys, and the maps whose entries are named by the
// user.
var (
	fixedTables = []string{"context", "context.static", "context.dynamic", "context.relevant", "scoring", "scoring.hat_relations", "lifecycle", "modes", "embeddings", "loop"}
	entryFields = map[string][]string{
		"lifecycle": {"initial_confidence", "tier", "ttl_days"},
		"modes":     {"budget", "dynamic_count", "search_limit"},
		"keywords":  {"budget", "dynamic_count", "mode", "search_limit"},
	}
	entryNoun = map[string]string{"lifecycle": "type", "modes": "mode"}
)

func lifecycleLeaf(name, f string) (leaf, bool) {
	m := func(c *Config) map[string]TypeLifecycle { return c.Lifecycle }
	l := leaf{key: keyString("lifecycle", name, f), entry: keyString("lifecycle", name)}
	switch f {
	case "ttl_days":
		l.kind, l.lo, l.hi = kindInt, 0, maxTTLDays
		l.get, l.set = entryField(m, name, func(t *TypeLifecycle) *int { return &t.TTLDays })
	case "tier":
		l.kind = kindString
		l.check = func(v any) string { return checkTier(v.(string)) }
		l.get, l.set = entryField(m, name, func(t *TypeLifecycle) *string { return &t.Tier })
	case "initial_confidence":
		l.kind, l.lo, l.hi = kindFloat, 0, 1
		l.get, l.set = entryField(m, name, func(t *TypeLifecycle) *float64 { return &t.InitialConfidence })
	default:
		return leaf{}, false
	}
	l.exists = func(c *Config) bool { _, ok := c.Lifecycle[name]; return ok }
	l.create = func(c *Config) bool {
		if _, ok := c.Lifecycle[name]; ok {
			return false
		}
		c.Lifecycle[name] = TypeLifecycle{Tier: string(cairn.TierRelevant)}
		return true
	}
	return l, true
}

func modeLeaf(name, f string) (leaf, bool) {
	m := func(c *Config) map[string]ModeOverride { return c.Modes }
	l := leaf{key: keyString("modes", name, f), entry: keyString("modes", name), kind: kindInt, lo: 0, hi: maxCount}
	switch f {
	case "dynamic_count":
		l.get, l.set = entryField(m, name, func(t *ModeOverride) *int { return &t.DynamicCount })
	case "search_limit":
		l.get, l.set = entryField(m, name, func(t *ModeOverride) *int { return &t.SearchLimit })
	case "budget":
		l.hi = maxBudget
		l.get, l.set = entryField(m, name, func(t *ModeOverride) *int { return &t.Budget })
	default:
		return leaf{}, false
	}
	l.exists = func(c *Config) bool { _, ok := c.Modes[name]; return ok }
	l.create = func(c *Config) bool {
		if _, ok := c.Modes[name]; ok {
			return false
		}
		c.Modes[name] = ModeOverride{}
		return true
	}
	return l, true
}

func hatLeaf(name string) leaf {
	return leaf{
		key: keyString("scoring", "hat_relations", name), kind: kindList,
		check: func(v any) string { return checkList(v.([]string), checkHatName) },
		get:   func(c *Config) any { return c.Scoring.HatRelations[name] },
		set:   func(c *Config, v any) { c.Scoring.HatRelations[name] = v.([]string) },
	}
}

// keywordLeaf is a field of the keyword with phrase (normalized).
func keywordLeaf(phrase, f string) (leaf, bool) {
	l := leaf{key: keyString("keywords", phrase, f), entry: keyString("keywords", phrase), kind: kindInt, lo: 0, hi: maxCount}
	var num func(*KeywordOverride) *int
	switch f {
	case "dynamic_count":
		num = func(k *KeywordOverride) *int { return &k.DynamicCount }
	case "search_limit":
		num = func(k *KeywordOverride) *int { return &k.SearchLimit }
	case "budget":
		l.hi = maxBudget
		num = func(k *KeywordOverride) *int { return &k.Budget }
	case "mode":
		l.kind = kindString
		l.check = func(v any) string { return checkModeRef(v.(string)) }
	default:
		return leaf{}, false
	}
	find := func(c *Config) *KeywordOverride {
		if i := slices.IndexFunc(c.Keywords, func(k KeywordOverride) bool { return k.Phrase == phrase }); i >= 0 {
			return &c.Keywords[i]
		}
		return nil
	}
	l.exists = func(c *Config) bool { return find(c) != nil }
	l.create = func(c *Config) bool {
		if find(c) != nil {
			return false
		}
		c.Keywords = append(c.Keywords, KeywordOverride{Phrase: phrase})
		return true
	}
	l.get = func(c *Config) any {
		k := find(c)
		switch {
		case k == nil:
			return zeroOf(l.kind)
		case num == nil:
			return k.Mode
		}
		return *num(k)
	}
	l.set = func(c *Config, v any) {
		l.create(c)
		if k := find(c); num == nil {
			k.Mode = v.(string)
		} else {
			*num(k) = v.(int)
		}
	}
	return l, true
}

func zeroOf(k kind) any {
	switch k {
	case kindInt:
		return 0
	case kindFloat:
		return 0.0
	case kindBool:
		return false
	case kindString:
		return ""
	}
	return []string{}
}

// lookup returns the leaf named by path. Keys inside maps resolve whether
// or not the entry exists; setting them creates it.
func lookup(path []string) (leaf, bool) {
	if len(path) == 3 {
		switch {
		case path[0] == "lifecycle":
			return lifecycleLeaf(path[1], path[2])
		case path[0] == "modes":
			return modeLeaf(path[1], path[2])
		case path[0] == "keywords":
			return keywordLeaf(cairn.NormalizePhrase(path[1]), path[2])
		case path[0] == "scoring" && path[1] == "hat_relations":
			return hatLeaf(path[2]), true
		}
	}
	key := strings.Join(path, ".")
	for _, l := range fixedLeaves() {
		if l.key == key {
			return l, true
		}
	}
	return leaf{}, false
}

// leaves returns every key of c, sorted.
func leaves(c *Config) []leaf {
	out := fixedLeaves()
	for n := range c.Lifecycle {
		for _, f := range entryFields["lifecycle"] {
			l, _ := lifecycleLeaf(n, f)
			out = append(out, l)
		}
	}
	for n := range c.Modes {
		for _, f := range entryFields["modes"] {
			l, _ := modeLeaf(n, f)
			out = append(out, l)
		}
	}
	for _, k := range c.Keywords {
		for _, f := range entryFields["keywords"] {
			l, _ := keywordLeaf(k.Phrase, f)
			out = append(out, l)
		}
	}
	for n := range c.Scoring.HatRelations {
		out = append(out, hatLeaf(n))
	}
	slices.SortFunc(out, func(a, b leaf) int { return strings.Compare(a.key, b.key) })
	return out
}

// isTable reports whether path names a table of the layout.
func isTable(path []string) bool {
	if len(path) == 2 && (path[0] == "lifecycle" || path[0] == "modes") {
		return true
	}
	return slices.Contains(fixedTables, strings.Join(path, "."))
}

// suggest returns the known key nearest to path, or "".
func suggest(c *Config, path []string) string {
	key := keyString(path...)
	cands := slices.Clone(fixedTables)
	for _, l := range leaves(c) {
		cands = append(cands, l.key)
	}
	if len(path) == 3 {
		for prefix, fs := range entryFields {
			for _, f := range fs {
				cands = append(cands, keyString(prefix, path[1], f))
			}
		}
	}
	best, bestD := "", math.MaxInt
	for _, k := range cands {
		if d := lexical.EditDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	if bestD <= max(2, len(key)/5) {
		return best
	}
	// A key written outside its table: budget → context.budget.
	last := "." + path[len(path)-1]
	var same []string
	for _, l := range fixedLeaves() {
		if strings.HasSuffix(l.key, last) {
			same = append(same, l.key)
		}
	}
	if len(same) == 1 {
		return same[0]
	}
	return ""
}

// nearest returns the name in names nearest to s, if it is close.
func nearest(s string, names []string) string {
	best, bestD := "", math.MaxInt
	for _, n := range names {
		if d := lexical.EditDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	if bestD <= max(1, len(s)/4) {
		return best
	}
	return ""
}

// Checks; each returns the problem or "".

func checkList(xs []string, check func(string) string) string {
	for i, x := range xs {
		if p := check(x); p != "" {
			return p
		}
		if slices.Contains(xs[:i], x) {
			return fmt.Sprintf("lists %q twice", x)
		}
	}
	return ""
}

func checkTypeName(s string) string {
	if !cairn.ValidName(s) {
		return fmt.Sprintf("%q is not a type name (lowercase letters, digits and _ - : . /)", s)
	}
	return ""
}

func checkModelTier(s string) string {
	if strings.TrimSpace(s) == "" || strings.ContainsAny(s, ", \t\n") || len(s) > 100 {
		return fmt.Sprintf("%q is not a model tier name (no spaces or commas, at most 100 bytes)", s)
	}
	return ""
}

func checkHatName(s string) string {
	if !cairn.ValidName(s) {
		return fmt.Sprintf("%q is not a hat name (lowercase letters, digits and _ - : . /)", s)
	}
	return ""
}

// checkModeRef checks the syntax of a mode reference; that the mode exists
// is checked once all files are read.
func checkModeRef(s string) string {
	if s != "" && !cairn.ValidName(s) {
		return fmt.Sprintf("%q is not a mode name (lowercase letters, digits and _ - : . /)", s)
	}
	return ""
}

func checkSearchMode(s string) string {
	if !slices.Contains([]string{cairn.ModeHybrid, cairn.ModeVector, cairn.ModeLexical}, s) {
		return fmt.Sprintf("unknown search mode %q (hybrid, vector or lexical)", s)
	}
	return ""
}

// checkFolder: a folder's path, one line.
func checkFolder(s string) string {
	if strings.ContainsAny(s, "\x00\n\r") {
		return "a folder's path is one line without NUL characters"
	}
	return ""
}

func checkBaseURL(s string) string {
	if s != "" && !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return fmt.Sprintf("%q is not an http:// or https:// URL", s)
	}
	return ""
}

// checkEnvName: the key is named, never given; a value that looks like a
// key is refused so that it does not end up in a file.
func checkEnvName(s string) string {
	for _, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			// The value is not repeated: it may be the key itself.
			return "not the name of an environment variable (letters, digits and _); give the variable's name, not the key"
		}
	}
	if strings.HasPrefix(s, "sk") && len(s) > 30 {
		return "this looks like a key, not the name of the environment variable that holds it"
	}
	return ""
}

func checkFormat(s string) string {
	if !slices.Contains(formats, s) {
		return fmt.Sprintf("unknown format %q (known formats: %s)", s, strings.Join(formats, ", "))
	}
	return ""
}

func checkTier(s string) string {
	if !slices.Contains(tiers, s) {
		return fmt.Sprintf("unknown tier %q (use %s)", s, strings.Join(tiers, ", "))
	}
	return ""
}

// validate checks a converted value against the leaf's range and checks.
func (l leaf) validate(v any) string {
	switch l.kind {
	case kindInt:
		if n := v.(int); float64(n) < l.lo || float64(n) > l.hi {
			return fmt.Sprintf("%d is out of range %d..%d", n, int(l.lo), int(l.hi))
		}
	case kindFloat:
		if f := v.(float64); !(f >= l.lo && f <= l.hi) {
			return fmt.Sprintf("%s is out of range %s..%s", plainFloat(f), plainFloat(l.lo), plainFloat(l.hi))
		}
	}
	if l.check != nil {
		return l.check(v)
	}
	return ""
}

// fromTOML converts a decoded TOML value to the leaf's kind.
func fromTOML(k kind, v any) (any, string) {
	switch k {
	case kindInt:
		if n, ok := v.(int64); ok && n >= math.MinInt && n <= math.MaxInt {
			return int(n), ""
		}
	case kindFloat:
		switch n := v.(type) {
		case float64:
			return n, ""
		case int64:
			return float64(n), ""
		}
	case kindBool:
		if b, ok := v.(bool); ok {
			return b, ""
		}
	case kindString:
		if s, ok := v.(string); ok {
			return s, ""
		}
	case kindList:
		if xs, ok := v.([]any); ok {
			out := make([]string, 0, len(xs))
			for _, x := range xs {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Sprintf("expected %s, found %s", k, describe(v))
				}
				out = append(out, s)
			}
			return out, ""
		}
	}
	return nil, fmt.Sprintf("expected %s, found %s", k, describe(v))
}

// fromString converts an override's text to the leaf's kind. Lists are
// comma-separated.
func fromString(k kind, s string) (any, string) {
	t := strings.TrimSpace(s)
	switch k {
	case kindInt:
		if n, err := strconv.Atoi(t); err == nil {
			return n, ""
		}
	case kindFloat:
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return f, ""
		}
	case kindBool:
		if b, err := strconv.ParseBool(t); err == nil {
			return b, ""
		}
	case kindString:
		return s, ""
	case kindList:
		out := []string{}
		for _, x := range strings.Split(s, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out, ""
	}
	return nil, fmt.Sprintf("expected %s, found %q", k, s)
}

// describe shows a decoded TOML value in an error message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return formatFloat(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = describe(e)
		}
		if s := "[" + strings.Join(parts, ", ") + "]"; len(s) <= 60 {
			return s
		}
		return "a list"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return fmt.Sprintf("a %T", v)
}

// render shows a value in TOML syntax.
func render(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case float64:
		return formatFloat(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return strconv.Quote(x)
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// plainFloat writes f for a message: 1.7, 0, 10.
func plainFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// formatFloat writes f as TOML would: 1.0, 0.25, 1e-05.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// keyString joins a key path as TOML writes it, quoting the parts that are
// not bare keys.
func keyString(path ...string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = p
		if !isBare(p) {
			parts[i] = strconv.Quote(p)
		}
	}
	return strings.Join(parts, ".")
}

func isBare(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Validate checks every value of c against the ranges and rules a
// configuration file must keep to: a configuration that came another way
// (as JSON over the REST API, say) is held to the same limits. The error
// names the first key out of bounds.
func Validate(c *Config) error {
	for _, l := range leaves(c) {
		if msg := l.validate(l.get(c)); msg != "" {
			return fmt.Errorf("%s: %s", l.key, msg)
		}
	}
	return nil
}
