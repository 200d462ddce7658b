// Package lookup answers the questions an agent asks by name rather than by
// topic: what is known about a file, what fixed an error before, and how a
// command was run when it worked. Each answer is ranked and packed into a
// token budget, ready to read.
//
//   - File: the decisions, pitfalls, fixes and other memories that name
//     the file (in their file references, or in their text), then the
//     sessions that changed it, newest first.
//   - Error: the fixes (fix, error_solution) whose problem reads like the
//     error text, then pitfalls and issues that match it; a weak match is
//     left out rather than shown as an answer.
//   - Command: the command lines that start with the tool and passed (a
//     gate that failed and then passed, a convention that says how to run
//     it), each with how often and when it was last seen, then the
//     memories that say how to run it.
//
// Lookups read through the small Reader interface, which both the engine
// and the HTTP client satisfy, so that a lookup answered by `cairn serve`
// gives the same answer as one that opens the database.
package lookup

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// Reader is what a lookup reads: cairn.Service's search and listing.
type Reader interface {
	Search(ctx context.Context, q cairn.Query) ([]cairn.Hit, error)
	FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error)
}

// The kinds of lookup.
const (
	KindFile    = "file"
	KindError   = "error"
	KindCommand = "command"
)

// Defaults of a Request.
const (
	DefaultBudget = 800 // tokens
	DefaultLimit  = 10
	MaxLimit      = 100
	// maxFileScan bounds the memories with file references a file lookup
	// reads, newest first.
	maxFileScan = 1000
	// minErrorStrength is the least share of the error text's weight a
	// memory must hold to count as the same failure.
	minErrorStrength = 0.25
)

// Request is one lookup.
type Request struct {
	Project string
	Kind    string // KindFile, KindError or KindCommand
	Subject string // the path, the error text, or the tool
	Budget  int    // tokens of the rendered answer; 0 means DefaultBudget
	Limit   int    // items at most; 0 means DefaultLimit
	Now     time.Time
}

// Item is one memory of an answer.
type Item struct {
	Memory *cairn.Memory
	Score  float64 // what items are ordered by within their section
	// Section is where the item is shown: "known" (decisions, pitfalls,
	// fixes …), "sessions" (sessions that changed the file), "fixes",
	// "related" (of an error or a command).
	Section string
	Why     string // why it answers: "file reference", "named in the text", …
}

// Command is a command line seen to work.
type Command struct {
	Line     string
	Count    int       // memories that show it working
	LastSeen time.Time // the newest of them
	IDs      []string  // those memories, newest first
}

// Result is an answer.
type Result struct {
	Kind     string
	Subject  string
	Items    []Item    // ranked, within the budget
	Commands []Command // KindCommand only, most often seen first
	Omitted  int       // items found but left out by the limit or the budget
	Text     string    // the answer as markdown; "" when nothing was found
}

// IDs are the ids of the memories shown, in order.
func (r *Result) IDs() []string {
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

// Lookup answers req. It fails with EINVALID for an unknown kind, an empty
// subject, or a limit or budget out of range, and returns the reader's
// errors.
func Lookup(ctx context.Context, r Reader, req Request) (*Result, error) {
	req.Subject = strings.TrimSpace(req.Subject)
	if req.Subject == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "give the %s to look up", subjectName(req.Kind))
	}
	if req.Limit == 0 {
		req.Limit = DefaultLimit
	}
	if req.Limit < 1 || req.Limit > MaxLimit {
		return nil, cairn.Errorf(cairn.EINVALID, "the limit must be from 1 to %d", MaxLimit)
	}
	if req.Budget == 0 {
		req.Budget = DefaultBudget
	}
	if req.Budget < 50 {
		return nil, cairn.Errorf(cairn.EINVALID, "the budget must be at least 50 tokens")
	}
	if req.Now.IsZero() {
		req.Now = time.Now().UTC()
	}
	var res *Result
	var err error
	switch req.Kind {
	case KindFile:
		res, err = lookupFile(ctx, r, req)
	case KindError:
		res, err = lookupError(ctx, r, req)
	case KindCommand:
		res, err = lookupCommand(ctx, r, req)
	default:
		return nil, cairn.Errorf(cairn.EINVALID, "unknown lookup %q: use file, error or command", req.Kind)
	}
	if err != nil {
		return nil, err
	}
	res.Kind, res.Subject = req.Kind, req.Subject
	if req.Kind == KindFile {
		res.Subject = cairn.CleanFileRef(req.Subject)
	}
	render(res, req)
	return res, nil
}

func subjectName(kind string) string {
	switch kind {
	case KindFile:
		return "file path"
	case KindError:
		return "error text"
	case KindCommand:
		return "command or tool"
	}
	return "subject"
}

// typeWeights rank the types a person asks about a file or an error for:
// the first entry whose facets a type has gives its weight; otherWeight
// is that of the others.
var typeWeights = []struct {
	facets cairn.Facet
	weight float64
}{
	{cairn.FacetRule | cairn.FacetPitfall | cairn.FacetFix, 1},
	{cairn.FacetPractice | cairn.FacetAttempt | cairn.FacetProblem, 0.85},
	{cairn.FacetRecord, 0.6},
}

const otherWeight = 0.7

// typeWeight is the weight of type t (see typeWeights).
func typeWeight(t string) float64 {
	f := cairn.FacetsOf(t)
	for _, w := range typeWeights {
		if f&w.facets != 0 {
			return w.weight
		}
	}
	return otherWeight
}

// has reports whether memories of type t have any of the facets f.
func has(t string, f cairn.Facet) bool { return cairn.FacetsOf(t)&f != 0 }

// recency is 1 for a memory of now, falling to 0.5 over a year.
func recency(m *cairn.Memory, now time.Time) float64 {
	age := now.Sub(m.UpdatedAt).Hours() / 24
	if age < 0 {
		age = 0
	}
	return 0.5 + 0.5/(1+age/90)
}

// mentions reports whether text names file: its path, or its base name
// when that has an extension (a bare "main" names too much).
func mentions(text, file string) bool {
	if containsWord(text, file) {
		return true
	}
	base := path.Base(file)
	return base != file && strings.Contains(base, ".") && containsWord(text, base)
}

// containsWord reports whether s holds w not run into a longer name.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		before, after := byte(' '), byte(' ')
		if start > 0 {
			before = s[start-1]
		}
		if end < len(s) {
			after = s[end]
		}
		if !nameByte(before) && before != '/' && !nameByte(after) {
			return true
		}
		i = start + 1
	}
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func lookupFile(ctx context.Context, r Reader, req Request) (*Result, error) {
	file := cairn.CleanFileRef(req.Subject)
	found := map[string]*Item{}
	add := func(m *cairn.Memory, match float64, why string) {
		if !m.Live(req.Now) {
			return
		}
		score := typeWeight(m.Type) * match * (0.5 + 0.5*m.Confidence) * recency(m, req.Now)
		if it := found[m.ID]; it != nil {
			if score > it.Score {
				it.Score, it.Why = score, why
			}
			return
		}
		sec := "known"
		if has(m.Type, cairn.FacetSummary) {
			sec = "sessions"
		}
		found[m.ID] = &Item{Memory: m, Score: score, Section: sec, Why: why}
	}
	mems, _, err := r.FindMemories(ctx, cairn.MemoryFilter{Project: req.Project, IncludeGlobal: true, HasFileRefs: true,
		SkipTotal: true, Limit: maxFileScan})
	if err != nil {
		return nil, err
	}
	for _, m := range mems {
		best := 0.0
		for _, ref := range m.FileRefs {
			best = max(best, cairn.FileRefMatch(ref, file))
		}
		if best > 0 {
			add(m, best, "file reference")
		}
	}
	hits, err := r.Search(ctx, cairn.Query{Project: req.Project, Text: file, Limit: 50, Now: req.Now})
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		if mentions(h.Memory.Title+"\n"+h.Memory.Content, file) {
			add(h.Memory, 0.9, "named in the text")
		}
	}
	return collect(found, req, func(a, b *Item) bool {
		if a.Section == "sessions" && b.Section == "sessions" {
			return a.Memory.CreatedAt.After(b.Memory.CreatedAt) // the newest session first
		}
		return a.Score > b.Score
	}), nil
}

// sectionOrder is the order sections are shown in.
var sectionOrder = map[string]int{"known": 0, "fixes": 0, "sessions": 1, "related": 1}

// collect ranks the found items, sections in order, and keeps the limit.
func collect(found map[string]*Item, req Request, less func(a, b *Item) bool) *Result {
	items := make([]*Item, 0, len(found))
	for _, it := range found {
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if sa, sb := sectionOrder[a.Section], sectionOrder[b.Section]; sa != sb {
			return sa < sb
		}
		if a.Score == b.Score && a.Section == b.Section && !has(a.Memory.Type, cairn.FacetSummary) {
			return a.Memory.ID < b.Memory.ID
		}
		return less(a, b)
	})
	res := &Result{}
	for i, it := range items {
		if i == req.Limit {
			res.Omitted = len(items) - i
			break
		}
		res.Items = append(res.Items, *it)
	}
	return res
}

// fixTypes are the types that say what fixed a failure; relatedTypes
// those that say what went wrong or what must hold.
var (
	fixTypes     = cairn.TypesWith(cairn.FacetFix)
	relatedTypes = cairn.TypesWith(cairn.FacetPitfall | cairn.FacetProblem | cairn.FacetAttempt | cairn.FacetLearning | cairn.FacetRule)
	// commandTypes are those whose text lists the commands that passed:
	// the fixes made when a failed command passed, and session summaries.
	commandTypes = append(cairn.TypesWithAll(cairn.FacetFix|cairn.FacetEvent), cairn.TypesWith(cairn.FacetSummary)...)
)

func lookupError(ctx context.Context, r Reader, req Request) (*Result, error) {
	text := req.Subject
	if len(text) > 2000 {
		text = text[:2000]
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
	}
	found := map[string]*Item{}
	for _, pass := range []struct {
		types   []string
		section string
		weight  float64
	}{
		{fixTypes, "fixes", 1},
		{relatedTypes, "related", 0.8},
	} {
		hits, err := r.Search(ctx, cairn.Query{Project: req.Project, Text: text, Types: pass.types, Limit: 30,
			Now: req.Now})
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			if h.Strength < minErrorStrength || !h.Memory.Live(req.Now) {
				continue
			}
			why := fmt.Sprintf("matches %d%% of the error", int(h.Strength*100+0.5))
			found[h.Memory.ID] = &Item{Memory: h.Memory, Score: pass.weight * h.Strength * (0.5 + 0.5*h.Memory.Confidence) * recency(h.Memory, req.Now),
				Section: pass.section, Why: why}
		}
	}
	return collect(found, req, func(a, b *Item) bool { return a.Score > b.Score }), nil
}

// Passing command lines are read from the texts that say a command worked:
// a fix's title ("Fix for `cmd` failure"), a session's "Failed, then
// passed" list, and any command in backticks in a convention, pattern or
// decision.
func lookupCommand(ctx context.Context, r Reader, req Request) (*Result, error) {
	tool := strings.Join(strings.Fields(req.Subject), " ")
	hits, err := r.Search(ctx, cairn.Query{Project: req.Project, Text: tool, Limit: 100,
		Now: req.Now})
	if err != nil {
		return nil, err
	}
	// A session or fix that the search ranks low still counts: list them.
	more, _, err := r.FindMemories(ctx, cairn.MemoryFilter{Project: req.Project, Types: commandTypes,
		SkipTotal: true, Limit: maxFileScan})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var mems []*cairn.Memory
	for _, h := range hits {
		seen[h.Memory.ID] = true
		mems = append(mems, h.Memory)
	}
	for _, m := range more {
		if !seen[m.ID] {
			seen[m.ID] = true
			mems = append(mems, m)
		}
	}
	cmds := map[string]*Command{}
	found := map[string]*Item{}
	for _, m := range mems {
		if !m.Live(req.Now) {
			continue
		}
		lines := workingCommands(m, tool)
		for _, l := range lines {
			c := cmds[l]
			if c == nil {
				c = &Command{Line: l}
				cmds[l] = c
			}
			c.Count++
			if m.CreatedAt.After(c.LastSeen) {
				c.LastSeen = m.CreatedAt
			}
			c.IDs = append(c.IDs, m.ID)
		}
		if has(m.Type, cairn.FacetSummary) || isCommandFix(m.Type) && len(lines) > 0 {
			continue // shown through their commands
		}
		if len(lines) > 0 || containsWord(m.Title+"\n"+m.Content, tool) {
			found[m.ID] = &Item{Memory: m, Score: typeWeight(m.Type) * (0.5 + 0.5*m.Confidence) * recency(m, req.Now),
				Section: "related", Why: "says how to run it"}
		}
	}
	res := collect(found, req, func(a, b *Item) bool { return a.Score > b.Score })
	for _, c := range cmds {
		res.Commands = append(res.Commands, *c)
	}
	sort.Slice(res.Commands, func(i, j int) bool {
		a, b := res.Commands[i], res.Commands[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if !a.LastSeen.Equal(b.LastSeen) {
			return a.LastSeen.After(b.LastSeen)
		}
		return a.Line < b.Line
	})
	if len(res.Commands) > req.Limit {
		res.Omitted += len(res.Commands) - req.Limit
		res.Commands = res.Commands[:req.Limit]
	}
	return res, nil
}

// workingCommands are the command lines in m that start with tool and
// that m shows working.
func workingCommands(m *cairn.Memory, tool string) []string {
	var out []string
	addLine := func(c string) {
		c = strings.Join(strings.Fields(c), " ")
		if startsWithTool(c, tool) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	switch {
	case isCommandFix(m.Type):
		if c, ok := strings.CutPrefix(m.Title, "Fix for `"); ok {
			if c, ok = strings.CutSuffix(c, "` failure"); ok {
				addLine(c)
			}
		}
	case has(m.Type, cairn.FacetSummary):
		in := false
		for _, l := range strings.Split(m.Content, "\n") {
			switch {
			case strings.HasPrefix(l, "**Failed, then passed:**"):
				in = true
			case strings.HasPrefix(l, "**"):
				in = false
			case in && strings.HasPrefix(l, "- `"):
				addLine(strings.TrimSuffix(strings.TrimPrefix(l, "- `"), "`"))
			}
		}
	case has(m.Type, cairn.FacetAttempt|cairn.FacetProblem|cairn.FacetPitfall):
		// These say what did not work.
	default:
		for _, span := range backticked(m.Content) {
			addLine(span)
		}
	}
	return out
}

// isCommandFix reports whether memories of type t are fixes made when a
// failed command passed: their title names the command ("Fix for `cmd`
// failure").
func isCommandFix(t string) bool {
	f := cairn.FacetsOf(t)
	return f&cairn.FacetFix != 0 && f&cairn.FacetEvent != 0
}

// startsWithTool reports whether the command line c runs tool: it starts
// with tool's words (after "$ " or environment assignments).
func startsWithTool(c, tool string) bool {
	c = strings.TrimPrefix(c, "$ ")
	f := strings.Fields(c)
	for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") {
		f = f[1:]
	}
	tw := strings.Fields(tool)
	if len(f) < len(tw) {
		return false
	}
	for i, w := range tw {
		if f[i] != w && path.Base(f[i]) != w {
			return false
		}
	}
	return true
}

// backticked are the `spans` of s and the lines of its ``` blocks.
func backticked(s string) []string {
	var out []string
	fence := false
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			continue
		}
		if fence {
			out = append(out, t)
			continue
		}
		for {
			i := strings.IndexByte(t, '`')
			if i < 0 {
				break
			}
			j := strings.IndexByte(t[i+1:], '`')
			if j < 0 {
				break
			}
			out = append(out, t[i+1:i+1+j])
			t = t[i+j+2:]
		}
	}
	return out
}
