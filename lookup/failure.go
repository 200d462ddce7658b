package lookup

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
	"github.com/cairn-dev/cairn/redact"
)

// The answers for an agent at the moment a command fails, and before it
// runs one: SeenBefore finds the memory of the same error (its fix), and
// CommandFailures what is known about the failures of the command about
// to run. Both answer with a block in cairn's context format, which a
// hook adds to the agent's next request.

// Defaults of a point-of-action answer.
const (
	// ActionBudget is the most tokens of a failure's or a command's block.
	ActionBudget = 400
	// actionLimit is the most memories a failure's or a command's block
	// shows.
	actionLimit = 3
	// maxErrorLines is how many error lines of a failure's output are
	// looked up.
	maxErrorLines = 8
)

// seenTypes say what fixed a failure.
var seenTypes = []string{"fix", "error_solution"}

// commandTypes say what went wrong with a command, or what fixed it.
var commandTypes = []string{"fix", "error_solution", "failure", "pitfall", "gotcha"}

// Failure is a command (or another tool call) that failed.
type Failure struct {
	Project string
	Output  string // what the failure said: its error output
	Command string // the command line, when a shell command failed
	Now     time.Time
	Budget  int // tokens of the block; 0 means ActionBudget
	// Shown are memories the session was shown already: they are left
	// out.
	Shown map[string]bool
	// Paths rewrites the output's paths as capture rewrote those of the
	// memories (relative to the project's folder, home folders as "~"),
	// so that both read the same.
	Paths redact.Paths
	// Exact finds only the memories that hold one of the output's error
	// lines, none that merely read alike: for an output not known to be
	// a failure's.
	Exact bool
}

// SeenBefore finds the memories of the error a failure's output names:
// first the fixes that hold one of its error lines (the same line once
// paths, numbers, ids and line:column are set aside: failure.Normalize),
// then, when none does, the fixes, pitfalls and issues that read like its
// error lines (Lookup's error search, on the lines without their paths
// and numbers). An output that names no error (failure.ErrorLines finds
// none) matches nothing. The result's Text is a block in cairn's context
// format, "" when nothing was found; its Items are the memories shown.
func SeenBefore(ctx context.Context, r Reader, f Failure) (*Result, error) {
	if f.Now.IsZero() {
		f.Now = time.Now().UTC()
	}
	lines := failure.ErrorLines(f.Paths.Text(f.Output), maxErrorLines)
	res := &Result{Kind: KindError, Subject: strings.Join(lines, "\n")}
	if len(lines) == 0 {
		return res, nil
	}
	found := map[string]*Item{}
	for i, l := range lines {
		mems, _, err := r.FindMemories(ctx, cairn.MemoryFilter{Project: f.Project, Types: seenTypes,
			Tags: []string{failure.ErrorTag(l)}, SkipTotal: true, Limit: actionLimit})
		if err != nil {
			return nil, err
		}
		for _, m := range mems {
			if !m.Live(f.Now) || found[m.ID] != nil || f.Shown[m.ID] {
				continue
			}
			// The earlier a line comes in the output, the more it is the
			// failure itself.
			found[m.ID] = &Item{Memory: m, Score: 2 - float64(i)/float64(len(lines)) + recency(m, f.Now)/10,
				Section: "fixes", Why: "the same error"}
		}
	}
	if len(found) == 0 && !f.Exact {
		near, err := lookupError(ctx, r, Request{Project: f.Project, Subject: errorQuery(lines), Now: f.Now, Limit: actionLimit})
		if err != nil {
			return nil, err
		}
		for _, it := range near.Items {
			if !f.Shown[it.Memory.ID] {
				found[it.Memory.ID] = &it
			}
		}
	}
	res.Items = ranked(found, actionLimit)
	res.Text = block(f.Project, "Met before: what fixed this error", res.Items, f.Now, f.Budget)
	return res, nil
}

// PendingCommand is a shell command about to run.
type PendingCommand struct {
	Project string
	Line    string // the command line
	Now     time.Time
	Budget  int             // tokens of the block; 0 means ActionBudget
	Shown   map[string]bool // memories the session was shown already: left out
}

// CommandFailures finds what is known about the failures of the command
// a shell command line runs (its program and sub-command,
// failure.CommandKey): the fixes of errors that command met before,
// newest first. The result's Text is a block in cairn's context format,
// "" when nothing is known.
func CommandFailures(ctx context.Context, r Reader, c PendingCommand) (*Result, error) {
	now := c.Now
	if now.IsZero() {
		now = time.Now().UTC()
	}
	res := &Result{Kind: KindCommand, Subject: failure.CommandKey(c.Line)}
	tag := failure.CommandTag(c.Line)
	if tag == "" {
		return res, nil
	}
	mems, _, err := r.FindMemories(ctx, cairn.MemoryFilter{Project: c.Project, Types: seenTypes, Tags: []string{tag},
		SkipTotal: true, Limit: 20})
	if err != nil {
		return nil, err
	}
	found := map[string]*Item{}
	for _, m := range mems {
		// Before a command runs, what helps is how to run it: a fix that
		// was only an edit of the code fixed that code, not the command
		// (unless the error keeps coming back).
		if m.Live(now) && !c.Shown[m.ID] && (!onlyEdits(m.Content) || recurs(m.Content)) {
			found[m.ID] = &Item{Memory: m, Score: recency(m, now) * (0.5 + 0.5*m.Confidence), Section: "fixes",
				Why: "a failure of this command"}
		}
	}
	// Memories written by hand or by the agent about the command's
	// failures carry no tag: those that name the command in their text.
	hits, err := r.Search(ctx, cairn.Query{Project: c.Project, Text: res.Subject, Types: commandTypes, Limit: 20, Now: now})
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		m := h.Memory
		if found[m.ID] != nil || !m.Live(now) || c.Shown[m.ID] {
			continue
		}
		if containsWord(m.Title+"\n"+m.Content, res.Subject) {
			found[m.ID] = &Item{Memory: m, Score: 0.9 * recency(m, now) * (0.5 + 0.5*m.Confidence), Section: "fixes",
				Why: "names this command"}
		}
	}
	res.Items = ranked(found, actionLimit)
	res.Text = block(c.Project, "Known failures of `"+res.Subject+"`", res.Items, now, c.Budget)
	return res, nil
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

// ranked orders items by score (then newest) and keeps n.
func ranked(found map[string]*Item, n int) []Item {
	items := make([]Item, 0, len(found))
	for _, it := range found {
		items = append(items, *it)
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].Score != items[j].Score {
			return items[i].Score > items[j].Score
		}
		return items[i].Memory.UpdatedAt.After(items[j].Memory.UpdatedAt)
	})
	if len(items) > n {
		items = items[:n]
	}
	return items
}

// block renders items as a context block with one section.
func block(project, title string, items []Item, now time.Time, budget int) string {
	if len(items) == 0 {
		return ""
	}
	if budget <= 0 {
		budget = ActionBudget
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
