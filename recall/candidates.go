package recall

import (
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/lexical"
)

// The candidates stage of a context block. Every context profile reads
// the pinned and dynamic tiers, whichever it shows: a memory they hold
// was shown at the session's start and is not repeated by a prompt's
// block. The static tier is read only by the profiles that show it: the
// session's start shows those that fit its budget, and any other may
// match a later prompt (what the session was shown is left out by its
// record).

// staticPerType is how many of each static type's most trusted memories
// the static tier considers: every one that fits the budget is shown, so
// this only bounds the work of a project with very many.
const staticPerType = 40

// CriticalCap is the most memories the Critical Constraints section
// shows (seed 002's cap): those of the constraint types, by relevance to
// the prompt, then confidence.
const CriticalCap = 5

// query is a context block's candidate request and the knobs its
// selection reads, resolved from the configuration, the profile and the
// request.
type query struct {
	req        cairn.ContextRequest
	candidates cairn.CandidateRequest
	weights    seed000
	now        time.Time
	// text is what the relevant tier searches for: the prompt, the task
	// and the files' names.
	text          string
	relevantLimit int
	minRelevance  float64
	floor         float64
	// staticShown says the profile shows the static tier. A profile that
	// does not (a prompt's block) lets a static memory compete as a
	// relevant one: the session's start showed only those that fit its
	// budget, and what a session was shown is left out by its record.
	staticShown bool
	// minConfidence: memories at or below it are left out, pinned ones
	// aside (context.min_confidence).
	minConfidence float64
}

// contextQuery resolves a context block's candidates and selection for
// the configuration c (its mode and overrides applied), the profile p and
// the request, at now.
func contextQuery(c *cairn.Settings, r cairn.ContextRequest, p Profile, now time.Time) *query {
	cc := c.Context
	q := &query{req: r, weights: seed000Of(c, r), now: now, staticShown: p.shows(cairn.ContextStatic), minConfidence: cc.MinConfidence}
	q.candidates = cairn.CandidateRequest{Project: r.Project, Session: r.Session, Now: now, Pinned: true}
	if cc.Static.Enabled && q.staticShown {
		q.candidates.StaticTypes, q.candidates.StaticPerType = cc.Static.Types, staticPerType
		// min_constraint_confidence 0 turns critical constraints off.
		if cc.Static.MinConstraintConfidence > 0 {
			q.candidates.CriticalTypes = cairn.TypesWith(cairn.FacetCritical)
			q.candidates.CriticalConfidence = cc.Static.MinConstraintConfidence
			q.candidates.CriticalPerType = CriticalCap
		}
	}
	if cc.Dynamic.Enabled {
		q.candidates.DynamicTypes, q.candidates.DynamicCount = cc.Dynamic.Types, cc.Dynamic.Count
	}
	if cc.Relevant.Enabled {
		q.relevantLimit = cc.Relevant.Limit
	}
	q.minRelevance = max(c.Scoring.Threshold, cc.Relevant.MinRelevance)
	q.floor = cc.Relevant.Floor
	if p.Floor >= 0 {
		q.floor = p.Floor
	}
	types := cc.Relevant.Types
	if p.Types != 0 {
		types = p.types()
	}
	if r.Types != nil {
		types = r.Types
	}
	q.text = strings.TrimSpace(strings.Join(append([]string{r.Prompt, r.Task}, fileTerms(r.Files)...), " "))
	if q.relevantLimit > 0 && q.text != "" {
		mode := r.SearchMode
		if mode == "" && c.Embeddings.Enabled() {
			mode = c.Embeddings.Mode
		}
		// A prompt (its filler words count for nothing in Strength), with
		// each hit's explanation: whether it holds a word of the prompt or
		// was lent its relevance (lentStrength).
		q.candidates.Search = &cairn.Query{Text: q.text, Limit: min(cairn.MaxLimit, q.relevantLimit+2), Types: types,
			Now: now, NoFeedback: true, Prompt: true, Explain: true, Mode: mode}
		if len(r.Files) > 0 {
			// Memories about the files being worked on, whatever their
			// words (of the relevant tier's types, when it has some).
			q.candidates.Files, q.candidates.FileTypes = r.Files, types
		}
	}
	if q.relevantLimit > 0 {
		// Seed 000's candidates that need no word of the prompt: the
		// memories tagged with one of its keywords, and those of the
		// current hat (see choose for what they must reach).
		if kw := keywords(q.text); len(kw) > 0 {
			q.candidates.Tags, q.candidates.TagTypes, q.candidates.TagLimit = kw, types, structuredLimit
		}
		if r.Hat != "" {
			q.candidates.Hat, q.candidates.HatTypes, q.candidates.HatLimit = r.Hat, types, structuredLimit
		}
	}
	return q
}

// structuredLimit is the most memories of the current hat, and the most
// tagged with the prompt's keywords, a block considers.
const structuredLimit = 20

// maxKeywords bounds the keywords of a prompt looked up as tags.
const maxKeywords = 30

// keywords are the words of text that could be tags (seed 000's task
// keywords): lower case, three characters or more, each once, at most
// maxKeywords.
func keywords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	}) {
		w = strings.Trim(w, "-_")
		if utf8.RuneCountInString(w) < 3 || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxKeywords {
			break
		}
	}
	return out
}

// terms are the search words the prompt gives, for --explain.
func (q *query) terms() []string {
	if q.candidates.Search == nil {
		return nil
	}
	return lexical.QueryTerms(q.text)
}

// fileTerms turns file paths into search words: each base name without
// its extension (seed 004's term extraction). Folder names would match
// every memory about the same tree; the files are matched on their own.
func fileTerms(files []string) []string {
	var out []string
	for _, f := range files {
		base := path.Base(f)
		out = append(out, strings.TrimSuffix(base, path.Ext(base)))
	}
	return out
}

// shows reports whether the profile shows the tier t.
func (p Profile) shows(t string) bool { return p.Tiers == nil || slices.Contains(p.Tiers, t) }
