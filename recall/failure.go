package recall

import (
	"context"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture/failure"
	"github.com/cairn-dev/cairn/contextpack"
)

// The answers at the point of a command, with the failure and command
// profiles: when a command (or another tool call) failed, the memory of
// the same error (its fix); before a shell command runs, what is known
// about the failures of that command. Both are lookups: they run where
// the memories are and answer a block in cairn's context format, which a
// hook adds to the agent's next request.

// maxErrorLines is how many error lines of a failure's output are looked
// up.
const maxErrorLines = 8

// maxCommandFixes bounds the fixes tagged with a command, and the search
// hits naming it, that a command's answer considers.
const maxCommandFixes = 20

// maxTagged bounds the fixes tagged with a failure's error lines read in
// one go, before each line takes its own.
const maxTagged = 200

// lookupFailure finds the memories of the error a failure's output names
// (req.Subject, its paths written as the project's memories write them):
// first the fixes that hold one of its error lines (the same line once
// paths, numbers, ids and line:column are set aside: failure.Normalize),
// the earlier the line in the output the better (it is more the failure
// itself), then by recency; when none does and req.Exact is not set, the
// fixes, pitfalls and issues that read like its error lines (the error
// lookup's search, on the lines without their paths and numbers). An
// output that names no error (failure.ErrorLines finds none) matches
// nothing.
func lookupFailure(ctx context.Context, svc LookupService, p Profile, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	lines := failure.ErrorLines(req.Subject, maxErrorLines)
	res := &cairn.LookupAnswer{Kind: cairn.LookupFailure, Subject: strings.Join(lines, "\n")}
	if len(lines) == 0 {
		return res, nil
	}
	shown := newShownSet(svc, req)
	tags := make([]string, len(lines))
	for i, l := range lines {
		tags[i] = failure.ErrorTag(l)
	}
	// The fixes that carry a line's tag, found in one read from the index
	// of tags, then taken line by line, at most req.Limit a line.
	cands, err := svc.ContextCandidates(ctx, cairn.CandidateRequest{Project: req.Project, Now: req.Now, Tags: tags,
		TagTypes: cairn.TypesWith(cairn.FacetFix), TagLimit: maxTagged})
	if err != nil {
		return nil, err
	}
	found := map[string]*cairn.LookupItem{}
	for i, tag := range tags {
		var mems []*cairn.Memory
		for _, m := range cands.Tagged {
			if len(mems) < req.Limit && m.HasTag(tag) {
				mems = append(mems, m)
			}
		}
		for _, m := range mems {
			if !m.Live(req.Now) || found[m.ID] != nil || shown.has(ctx, m.ID) {
				continue
			}
			found[m.ID] = &cairn.LookupItem{Memory: m, Score: 2 - float64(i)/float64(len(lines)) + p.Weights.recency(m, req.Now)/10,
				Section: "fixes", Why: "the same error"}
		}
	}
	if shown.err != nil {
		return nil, shown.err
	}
	if len(found) == 0 && !req.Exact {
		ep := profiles[cairn.ProfileLookupError]
		near, err := lookupError(ctx, svc, ep, cairn.LookupRequest{Project: req.Project, Subject: errorQuery(lines), Now: req.Now, Limit: req.Limit}, true)
		if err != nil {
			return nil, err
		}
		for _, it := range near.Items {
			if !shown.has(ctx, it.Memory.ID) {
				found[it.Memory.ID] = &it
			}
		}
		if shown.err != nil {
			return nil, shown.err
		}
	}
	res.Items = ranked(found, req.Limit)
	res.Text = block(req.Project, "Met before: what fixed this error", res.Items, req.Now, req.Budget)
	return res, nil
}

// lookupCommandFailures finds what is known about the failures of the
// command a shell command line runs (req.Command, else req.Subject; its
// program and sub-command, failure.CommandKey): the fixes of errors that
// command met before that say how to run it, and the memories of the
// profile's types that name the command, by the profile's weights.
func lookupCommandFailures(ctx context.Context, svc LookupService, p Profile, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	line := req.Command
	if line == "" {
		line = req.Subject
	}
	res := &cairn.LookupAnswer{Kind: cairn.LookupCommandFailures, Subject: failure.CommandKey(line)}
	tag := failure.CommandTag(line)
	if tag == "" {
		return res, nil
	}
	shown := newShownSet(svc, req)
	cands, err := svc.ContextCandidates(ctx, cairn.CandidateRequest{Project: req.Project, Now: req.Now, Tags: []string{tag},
		TagTypes: cairn.TypesWith(cairn.FacetFix), TagLimit: maxCommandFixes})
	if err != nil {
		return nil, err
	}
	found := map[string]*cairn.LookupItem{}
	for _, m := range cands.Tagged {
		// Before a command runs, what helps is how to run it: a fix that
		// was only an edit of the code fixed that code, not the command
		// (unless the error keeps coming back).
		if m.Live(req.Now) && (!onlyEdits(m.Content) || recurs(m.Content)) && !shown.has(ctx, m.ID) {
			found[m.ID] = &cairn.LookupItem{Memory: m, Score: p.Weights.value(m, 1, req.Now), Section: "fixes",
				Why: "a failure of this command"}
		}
	}
	// Memories written by hand or by the agent about the command's
	// failures carry no tag: those that name the command in their text.
	hits, err := svc.Search(ctx, cairn.Query{Project: req.Project, Text: res.Subject, Types: p.types(), Limit: maxCommandFixes, Now: req.Now})
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		m := h.Memory
		if found[m.ID] != nil || !m.Live(req.Now) || !containsWord(m.Title+"\n"+m.Content, res.Subject) || shown.has(ctx, m.ID) {
			continue
		}
		found[m.ID] = &cairn.LookupItem{Memory: m, Score: p.Weights.value(m, namedMatch, req.Now), Section: "fixes",
			Why: "names this command"}
	}
	if shown.err != nil {
		return nil, shown.err
	}
	res.Items = ranked(found, req.Limit)
	res.Text = block(req.Project, "Known failures of `"+res.Subject+"`", res.Items, req.Now, req.Budget)
	return res, nil
}

// namedMatch is how well a memory that names a command answers what is
// known about its failures, beside a fix tagged with it (1).
const namedMatch = 0.9

// shownSet is what a lookup's session was shown at least ShownTimes
// times (its use recorded with it, or queued to be:
// LookupService.ShownCounts), read when a memory that would be answered
// is first asked about: most commands and most errors have no memory, and
// their lookups then read nothing of the session. Nothing is shown to no
// session, or when ShownTimes is 0.
type shownSet struct {
	svc              LookupService
	project, session string
	times            int
	read             bool
	shown            map[string]bool
	err              error // the read's; has reports nothing shown after it
}

func newShownSet(svc LookupService, req cairn.LookupRequest) *shownSet {
	return &shownSet{svc: svc, project: req.Project, session: req.Session, times: req.ShownTimes}
}

// has reports whether the session was shown memory id at least s.times
// times.
func (s *shownSet) has(ctx context.Context, id string) bool {
	if !s.read {
		s.read = true
		if s.session != "" && s.times > 0 {
			var counts map[string]int
			if counts, s.err = s.svc.ShownCounts(ctx, s.project, s.session); s.err == nil {
				s.shown = map[string]bool{}
				for m, n := range counts {
					if n >= s.times {
						s.shown[m] = true
					}
				}
			}
		}
	}
	return s.shown[id]
}

// onlyEdits reports whether a fix memory's fix was edits of files only.
func onlyEdits(content string) bool {
	for _, l := range strings.Split(content, "\n") {
		if f, ok := strings.CutPrefix(l, "**Fix:** "); ok {
			return strings.HasPrefix(f, "edited ") && !strings.Contains(f, "; ")
		}
	}
	return false
}

// recurs reports whether a fix memory's error was met in more than one
// session.
func recurs(content string) bool { return strings.Contains(content, "\n**Seen:** in ") }

// ranked orders items by score, then the most recently changed, then the
// newest id (so that equal items, read from a map, come in one order
// every time), and keeps n.
func ranked(found map[string]*cairn.LookupItem, n int) []cairn.LookupItem {
	items := make([]cairn.LookupItem, 0, len(found))
	for _, it := range found {
		items = append(items, *it)
	}
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if !a.Memory.UpdatedAt.Equal(b.Memory.UpdatedAt) {
			return a.Memory.UpdatedAt.After(b.Memory.UpdatedAt)
		}
		return a.Memory.ID > b.Memory.ID
	})
	if len(items) > n {
		items = items[:n]
	}
	return items
}

// block is the pack stage of the answers at the point of a command: the
// items, best first, as a block of one section within budget tokens and
// Claude Code's character cap.
func block(project, title string, items []cairn.LookupItem, now time.Time, budget int) string {
	if len(items) == 0 {
		return ""
	}
	sec := contextpack.Section{Kind: "seen_before", Title: title}
	for i, it := range items {
		m := it.Memory
		sec.Items = append(sec.Items, contextpack.Item{ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content,
			Tags: m.Tags, FileRefs: m.FileRefs, CreatedAt: m.CreatedAt, Value: float64(len(items) - i), Flag: m.Flag})
	}
	out := contextpack.Render(contextpack.Request{Project: project, Sections: []contextpack.Section{sec}, Budget: budget,
		MaxChars: contextpack.ClaudeCodeMaxChars, Now: now})
	return out.Text
}

var (
	numberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(?:0x[0-9a-fA-F]+|\d+(?:[.:,]\d+)*)\b`) })
	pathWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:[A-Za-z]:)?[\w.~@+-]*(?:[\\/][\w.@+~-]+)+[\\/]?`) })
)

// errorQuery is the text an error search looks for: the error lines with
// each path cut to its file name and the numbers left out, so that the
// words of the error weigh, not where it happened.
func errorQuery(lines []string) string {
	var out []string
	for _, l := range lines {
		l = pathWord().ReplaceAllStringFunc(l, func(p string) string { return path.Base(strings.ReplaceAll(p, `\`, "/")) })
		l = numberRE().ReplaceAllString(l, " ")
		l = strings.Join(strings.Fields(l), " ")
		if l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
