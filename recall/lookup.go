package recall

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
	"github.com/cairn-dev/cairn/contextpack"
)

// Lookups answer the questions an agent asks by name rather than by
// topic, with the lookup profiles of the pipeline (and, at the point of a
// command, the failure and command profiles: failure.go):
//
//   - a file (ProfileLookupFile): the memories whose file references name
//     it (cairn.FileRefMatch) or whose text names it, then the sessions
//     that changed it, newest first;
//   - an error (ProfileLookupError, and ProfileFailure after a failed
//     command): the fixes whose problem reads like the error text, then
//     the pitfalls and problems that match it; a weak match (below the
//     profile's floor of Strength) is left out rather than shown;
//   - a command (ProfileLookupCommand): the command lines that start with
//     the tool and passed (a gate that failed and then passed, a
//     convention that says how to run it), each with how often and when
//     it was last seen, then the memories that say how to run it.

// kindProfiles are the profiles of the lookups a person or an agent asks
// for by kind.
var kindProfiles = map[string]string{cairn.LookupFile: cairn.ProfileLookupFile, cairn.LookupError: cairn.ProfileLookupError, cairn.LookupCommand: cairn.ProfileLookupCommand,
	cairn.LookupFailure: cairn.ProfileFailure, cairn.LookupCommandFailures: cairn.ProfileCommand}

// Limits of a LookupRequest.
const (
	// maxCommandScan bounds the fixes and session summaries a lookup of a
	// command lists, newest first.
	maxCommandScan = 1000
	// maxErrorText bounds the bytes of an error text searched for.
	maxErrorText = 2000
)

// LookupService is what a lookup reads: search, listing, the memories
// about files, what a session was shown, and the clock. engine.Engine
// implements it.
type LookupService interface {
	Search(ctx context.Context, q cairn.Query) ([]cairn.Hit, error)
	FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error)
	ContextCandidates(ctx context.Context, req cairn.CandidateRequest) (*cairn.Candidates, error)
	FindActivity(ctx context.Context, f cairn.ActivityFilter) ([]cairn.Activity, int, error)
	// ShownCounts is how many times each memory was shown in session of
	// project: the uses written, and those queued to be (a long-running
	// server writes them in batches), so that a lookup a moment after a
	// block knows what the block showed.
	ShownCounts(ctx context.Context, project, session string) (map[string]int, error)
	Now() time.Time
}

// lookupProfile is the profile that answers req.
func lookupProfile(req cairn.LookupRequest) (Profile, error) {
	name := req.Profile
	if name == "" {
		name = kindProfiles[req.Kind]
		if name == "" {
			return Profile{}, cairn.Errorf(cairn.EINVALID, "unknown lookup %q: use file, error or command", req.Kind)
		}
	}
	p, err := ProfileOf(name)
	if err != nil {
		return p, err
	}
	if p.Lookup == "" {
		return p, cairn.Errorf(cairn.EINVALID, "the %s profile makes a context block, not a lookup", name)
	}
	return p, nil
}

// Lookup answers req where the data is (svc reads the store of this
// process; a client of a server asks the server, which calls Lookup). It
// fails with EINVALID for an unknown kind or profile, an empty subject,
// or a limit or budget out of range, and returns the service's errors.
func Lookup(ctx context.Context, svc LookupService, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	p, err := lookupProfile(req)
	if err != nil {
		return nil, err
	}
	req.Kind = p.Lookup
	req.Subject = strings.TrimSpace(req.Subject)
	if req.Subject == "" && (req.Kind != cairn.LookupCommandFailures || strings.TrimSpace(req.Command) == "") {
		return nil, cairn.Errorf(cairn.EINVALID, "give the %s to look up", subjectName(req.Kind))
	}
	if req.Limit == 0 {
		req.Limit = p.Limit
	}
	if req.Limit < 1 || req.Limit > cairn.MaxLookupLimit {
		return nil, cairn.Errorf(cairn.EINVALID, "the limit must be from 1 to %d", cairn.MaxLookupLimit)
	}
	if req.Budget == 0 {
		req.Budget = p.Budget
	}
	if req.Budget < cairn.MinLookupBudget {
		return nil, cairn.Errorf(cairn.EINVALID, "the budget must be at least %d tokens", cairn.MinLookupBudget)
	}
	if req.Now.IsZero() {
		req.Now = svc.Now()
	}
	var res *cairn.LookupAnswer
	switch req.Kind {
	case cairn.LookupFile:
		res, err = lookupFile(ctx, svc, p, req)
	case cairn.LookupError:
		res, err = lookupError(ctx, svc, p, req, false)
	case cairn.LookupCommand:
		res, err = lookupCommand(ctx, svc, p, req)
	case cairn.LookupFailure:
		return lookupFailure(ctx, svc, p, req)
	default:
		return lookupCommandFailures(ctx, svc, p, req)
	}
	if err != nil {
		return nil, err
	}
	res.Kind, res.Subject = req.Kind, req.Subject
	if req.Kind == cairn.LookupFile {
		res.Subject = cairn.CleanFileRef(req.Subject)
	}
	packLookup(res, req)
	return res, nil
}

// AnswerLookup is Lookup, recording the use of what the answer shows with
// record when req.Record asks for it (a long-running server batches
// these writes). When only the recording fails, the answer is returned
// with that error: the answer is right, its bookkeeping is not.
func AnswerLookup(ctx context.Context, svc LookupService, req cairn.LookupRequest, record Recorder) (*cairn.LookupAnswer, error) {
	a, err := Lookup(ctx, svc, req)
	if err != nil || !req.Record || record == nil {
		return a, err
	}
	if ids := a.IDs(); len(ids) > 0 {
		if err := record(ctx, ids, req.Session); err != nil {
			return a, fmt.Errorf("recording the use of the answer's memories: %w", err)
		}
	}
	return a, nil
}

func subjectName(kind string) string {
	switch kind {
	case cairn.LookupFile:
		return "file path"
	case cairn.LookupError:
		return "error text"
	case cairn.LookupCommand:
		return "command or tool"
	case cairn.LookupFailure:
		return "failure's output"
	case cairn.LookupCommandFailures:
		return "command line"
	}
	return "subject"
}

// isSummary reports whether memories of type t are session summaries.
func isSummary(t string) bool { return cairn.FacetsOf(t)&cairn.FacetSummary != 0 }

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

// fileLookupScan is how many memories about the file a lookup considers,
// per item it may show.
const fileLookupScan = 4

// lookupFile: the candidates are the memories about the file (the index
// of references and cairn.FileRefMatch, as every block finds them) and the
// search hits whose text names it; each is worth its type's weight times
// how well it names the file.
func lookupFile(ctx context.Context, svc LookupService, p Profile, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	file := cairn.CleanFileRef(req.Subject)
	found := map[string]*cairn.LookupItem{}
	add := func(m *cairn.Memory, match float64, why string) {
		if !m.Live(req.Now) {
			return
		}
		score := p.Weights.value(m, match, req.Now)
		if it := found[m.ID]; it != nil {
			if score > it.Score {
				it.Score, it.Why = score, why
			}
			return
		}
		sec := "known"
		if isSummary(m.Type) {
			sec = "sessions"
		}
		found[m.ID] = &cairn.LookupItem{Memory: m, Score: score, Section: sec, Why: why}
	}
	cands, err := svc.ContextCandidates(ctx, cairn.CandidateRequest{Project: req.Project, Now: req.Now, Files: []string{file},
		FileTypes: p.types(), FileLimit: max(cairn.MaxFileCandidates, fileLookupScan*req.Limit)})
	if err != nil {
		return nil, err
	}
	fm := cairn.NewFileMatcher([]string{file})
	for _, m := range cands.Files {
		add(m, fm.Match(m), "file reference")
	}
	hits, err := svc.Search(ctx, cairn.Query{Project: req.Project, Text: file, Limit: 50, Now: req.Now})
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		if mentions(h.Memory.Title+"\n"+h.Memory.Content, file) {
			add(h.Memory, 0.9, "named in the text")
		}
	}
	return collect(found, req, func(a, b *cairn.LookupItem) bool {
		if a.Section == "sessions" && b.Section == "sessions" {
			return a.Memory.CreatedAt.After(b.Memory.CreatedAt) // the newest session first
		}
		return a.Score > b.Score
	}), nil
}

// lookupSectionOrder is the order a lookup's sections are shown in.
var lookupSectionOrder = map[string]int{"known": 0, "fixes": 0, "commands": 0, "sessions": 1, "related": 1}

// collect ranks the found items, sections in order, and keeps the limit.
func collect(found map[string]*cairn.LookupItem, req cairn.LookupRequest, less func(a, b *cairn.LookupItem) bool) *cairn.LookupAnswer {
	items := make([]*cairn.LookupItem, 0, len(found))
	for _, it := range found {
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if sa, sb := lookupSectionOrder[a.Section], lookupSectionOrder[b.Section]; sa != sb {
			return sa < sb
		}
		if a.Score == b.Score && a.Section == b.Section && !isSummary(a.Memory.Type) {
			return a.Memory.ID < b.Memory.ID
		}
		return less(a, b)
	})
	res := &cairn.LookupAnswer{}
	for i, it := range items {
		if i == req.Limit {
			res.Omitted = len(items) - i
			break
		}
		res.Items = append(res.Items, *it)
	}
	return res
}

// lookupError searches the fixes of the profile's types and the other
// types it reads; a hit counts when it holds at least the profile's floor
// of the error's weight (Strength). Fixes come before every other type in
// the answer, so when the fixes alone fill req.Limit and the caller does
// not count what is left out (uncounted: the answer after a failure), the
// second search could change nothing it shows and is not made. A counted
// lookup makes the two searches at once, with the same answer, and the
// fixes' error first when both fail.
func lookupError(ctx context.Context, svc LookupService, p Profile, req cairn.LookupRequest, uncounted bool) (*cairn.LookupAnswer, error) {
	text := req.Subject
	if len(text) > maxErrorText {
		text = text[:maxErrorText]
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
	}
	search := func(ctx context.Context, facets cairn.Facet) ([]cairn.Hit, error) {
		return svc.Search(ctx, cairn.Query{Project: req.Project, Text: text, Types: cairn.TypesWith(facets), Limit: 30,
			Now: req.Now})
	}
	found := map[string]*cairn.LookupItem{}
	add := func(hits []cairn.Hit, section string) {
		for _, h := range hits {
			if h.Strength < p.Floor || !h.Memory.Live(req.Now) {
				continue
			}
			why := fmt.Sprintf("matches %d%% of the error", int(h.Strength*100+0.5))
			found[h.Memory.ID] = &cairn.LookupItem{Memory: h.Memory, Score: p.Weights.value(h.Memory, h.Strength, req.Now),
				Section: section, Why: why}
		}
	}
	// A counted lookup makes both searches whatever the fixes find: the
	// other types are searched on another goroutine while the fixes are,
	// and the fixes' error wins, as it would one after the other. An
	// uncounted one searches the other types only when the fixes leave
	// room, which after a failure they mostly do not: searching both at
	// once there would about double the CPU of a call and shorten few.
	var other chan searchResult
	if !uncounted {
		otherCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		other = make(chan searchResult, 1)
		go func() {
			hits, err := search(otherCtx, p.Types&^cairn.FacetFix)
			other <- searchResult{hits, err}
		}()
	}
	fixes, err := search(ctx, p.Types&cairn.FacetFix)
	if err != nil {
		return nil, err
	}
	add(fixes, "fixes")
	if uncounted && len(found) >= req.Limit {
		return collect(found, req, byScore), nil
	}
	var r searchResult
	if other != nil {
		r = <-other
	} else {
		r.hits, r.err = search(ctx, p.Types&^cairn.FacetFix)
	}
	if r.err != nil {
		return nil, r.err
	}
	add(r.hits, "related")
	return collect(found, req, byScore), nil
}

// byScore orders lookup items best first.
func byScore(a, b *cairn.LookupItem) bool { return a.Score > b.Score }

// searchResult is a search's answer, from another goroutine.
type searchResult struct {
	hits []cairn.Hit
	err  error
}

// commandTypes are those whose text lists the commands that passed: the
// fixes made when a failed command passed, and session summaries.
func commandTypes() []string {
	return append(cairn.TypesWithAll(cairn.FacetFix|cairn.FacetEvent), cairn.TypesWith(cairn.FacetSummary)...)
}

// lookupCommand reads passing command lines from the texts that say a
// command worked: a fix's title ("Fix for `cmd` failure"), a session's
// "Failed, then passed" list, and any command in backticks in a
// convention, pattern or decision.
func lookupCommand(ctx context.Context, svc LookupService, p Profile, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	tool := strings.Join(strings.Fields(req.Subject), " ")
	hits, err := svc.Search(ctx, cairn.Query{Project: req.Project, Text: tool, Limit: 100,
		Now: req.Now})
	if err != nil {
		return nil, err
	}
	// A session or fix that the search ranks low still counts: list them.
	more, _, err := svc.FindMemories(ctx, cairn.MemoryFilter{Project: req.Project, Types: commandTypes(),
		SkipTotal: true, Limit: maxCommandScan})
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
	cmds := map[string]*cairn.LookupCommandLine{}
	found := map[string]*cairn.LookupItem{}
	for _, m := range mems {
		if !m.Live(req.Now) {
			continue
		}
		lines := workingCommands(m, tool)
		for _, l := range lines {
			c := cmds[l]
			if c == nil {
				c = &cairn.LookupCommandLine{Line: l}
				cmds[l] = c
			}
			c.Count++
			if m.CreatedAt.After(c.LastSeen) {
				c.LastSeen = m.CreatedAt
			}
			c.IDs = append(c.IDs, m.ID)
		}
		if isSummary(m.Type) || isCommandFix(m.Type) && len(lines) > 0 {
			continue // shown through their commands
		}
		if len(lines) > 0 || containsWord(m.Title+"\n"+m.Content, tool) {
			found[m.ID] = &cairn.LookupItem{Memory: m, Score: p.Weights.value(m, 1, req.Now),
				Section: "related", Why: "says how to run it"}
		}
	}
	res := collect(found, req, byScore)
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

// isCommandFix reports whether memories of type t are fixes made when a
// failed command passed: their title names the command ("Fix for `cmd`
// failure").
func isCommandFix(t string) bool {
	f := cairn.FacetsOf(t)
	return f&cairn.FacetFix != 0 && f&cairn.FacetEvent != 0
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
	f := cairn.FacetsOf(m.Type)
	switch {
	case isCommandFix(m.Type):
		// "Fix for `cmd` failure" (earlier versions) or a "**Passed:** `cmd`"
		// line.
		if c, ok := strings.CutPrefix(m.Title, "Fix for `"); ok {
			if c, ok = strings.CutSuffix(c, "` failure"); ok {
				addLine(c)
			}
		}
		for _, l := range strings.Split(m.Content, "\n") {
			if rest, ok := strings.CutPrefix(l, "**Passed:** `"); ok {
				if c, _, ok := strings.Cut(rest, "`"); ok {
					addLine(c)
				}
			}
		}
	case f&cairn.FacetSummary != 0:
		in := false
		for _, l := range strings.Split(m.Content, "\n") {
			switch {
			case strings.HasPrefix(l, "**Failed, then passed:**"):
				in = true
			case strings.HasPrefix(l, "**"):
				in = false
			case in && strings.HasPrefix(l, "- `"):
				// "- `cmd`", or "- `cmd` — the error it met"
				if c, _, ok := strings.Cut(strings.TrimPrefix(l, "- `"), "`"); ok {
					addLine(c)
				}
			}
		}
	case f&(cairn.FacetAttempt|cairn.FacetProblem|cairn.FacetPitfall) != 0:
		// These say what did not work.
	default:
		for _, span := range backticked(m.Content) {
			addLine(span)
		}
	}
	return out
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

// lookupSections are the sections of each kind of answer, in order, and
// their headings.
var lookupSections = map[string][]struct{ kind, title string }{
	cairn.LookupFile:    {{"known", "Known about `%s`"}, {"sessions", "Sessions that changed `%s`"}},
	cairn.LookupError:   {{"fixes", "What fixed this error before"}, {"related", "Related pitfalls and issues"}},
	cairn.LookupCommand: {{"commands", "How `%s` was run when it worked"}, {"related", "What the memories say about running `%s`"}},
}

// packLookup is the pack stage of a lookup: its items and command lines
// as the sections of a block, packed into the budget by contextpack
// (memory text fenced as data, as in every block); what does not fit is
// counted in Omitted and named at the block's end.
func packLookup(res *cairn.LookupAnswer, req cairn.LookupRequest) {
	if len(res.Items) == 0 && len(res.Commands) == 0 {
		return
	}
	sections := lookupBlockSections(res)
	pr := contextpack.Request{Project: req.Project, Sections: sections, Budget: req.Budget, Now: req.Now}
	out := contextpack.Render(pr)
	n := 0
	for _, o := range out.Omitted {
		if o.Reason != contextpack.ReasonDuplicate { // a memory shown by a command line and as itself
			n++
		}
	}
	if n > 0 {
		more := contextpack.Section{Kind: "more", Title: "Not shown", Priority: -1,
			Text: fmt.Sprintf("%d more not shown: raise the budget or the limit.", res.Omitted+n)}
		pr.Sections = append(sections, more)
		out = contextpack.Render(pr)
	}
	placed := map[string]bool{}
	for _, pl := range out.Placed {
		placed[pl.Section+"\x00"+pl.ID] = true
		placed[pl.ID] = true
	}
	kept := res.Items[:0]
	for _, it := range res.Items {
		if placed[it.Memory.ID] {
			kept = append(kept, it)
		} else {
			res.Omitted++
		}
	}
	res.Items = kept
	keptCmds := res.Commands[:0]
	for _, c := range res.Commands {
		if placed["commands\x00"+c.IDs[0]] {
			keptCmds = append(keptCmds, c)
		} else {
			res.Omitted++
		}
	}
	res.Commands = keptCmds
	if len(res.Items) == 0 && len(res.Commands) == 0 {
		return
	}
	res.Text = out.Text
}

// lookupBlockSections are res's items and commands as block sections,
// each worth its score (the first sections packed first).
func lookupBlockSections(res *cairn.LookupAnswer) []contextpack.Section {
	var out []contextpack.Section
	for i, s := range lookupSections[res.Kind] {
		title := s.title
		if strings.Contains(title, "%s") {
			title = fmt.Sprintf(title, res.Subject)
		}
		sec := contextpack.Section{Kind: s.kind, Title: title, Priority: i}
		if s.kind == "commands" {
			for j, c := range res.Commands {
				times := "once"
				if c.Count > 1 {
					times = fmt.Sprintf("%d times", c.Count)
				}
				sec.Items = append(sec.Items, contextpack.Item{ID: c.IDs[0], Type: "command", Title: c.Line,
					Content: "worked " + times, CreatedAt: c.LastSeen, Value: float64(len(res.Commands) - j)})
			}
		}
		for j, it := range res.Items {
			if it.Section != s.kind {
				continue
			}
			m := it.Memory
			value := it.Score
			if s.kind == "sessions" {
				value = float64(len(res.Items) - j) // the newest first, as ranked
			}
			sec.Items = append(sec.Items, contextpack.Item{ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content,
				Tags: m.Tags, FileRefs: m.FileRefs, CreatedAt: m.CreatedAt, Value: value, Flag: m.Flag,
				Reasons: []contextpack.Reason{{Name: it.Why, Value: round3(it.Score)}}})
		}
		if len(sec.Items) > 0 {
			out = append(out, sec)
		}
	}
	return out
}
