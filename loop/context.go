package loop

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/contextpack"
	"github.com/cairn-dev/cairn/filestale"
)

// ContextRequest asks for the memory of the next iteration on a task.
type ContextRequest struct {
	Project     string
	Task        string // required
	Title       string // the task's title, when the loop has one
	Description string
	Files       []string // files the task is about
	// Budget is the most characters of the whole text; 0 means
	// DefaultBudget.
	Budget    int
	Iteration int      // the iteration about to run; 0: one after the latest recorded
	Tiers     []string // for the model choice shown in Loop Status
	Policy    Policy
	Format    string // contextpack's formats; "" is markdown
	// Root is the project's folder: a learning whose files changed there
	// since it was written or verified is marked possibly stale and counts
	// for half, as in every context block; "" checks nothing.
	Root    string
	Explain bool
	Now     time.Time
}

// DefaultBudget is the character budget of a loop context when none is
// given.
const DefaultBudget = 4000

// maxAttempts is how many previous attempts are shown at most.
const maxAttempts = 5

// maxLearnings is how many learnings are offered to the packer at most:
// more than the default budget holds beside the attempts.
const maxLearnings = 10

// learningTypes are the memory types offered as learnings: what an
// iteration (or any session) learned that applies beyond its own attempt.
var learningTypes = cairn.TypesWith(cairn.FacetLearning | cairn.FacetPractice | cairn.FacetPitfall | cairn.FacetFix |
	cairn.FacetRule | cairn.FacetProblem | cairn.FacetOutcome)

// Context is a rendered loop context and what it is made of.
type Context struct {
	contextpack.Result
	Choice *Choice
}

// BuildContext renders, within one character budget, what the next
// iteration on a task needs, most useful first:
//
//	Stuck Loop Warning   once the task failed Policy.StuckAfter times in a row
//	Previous Attempts    the task's failed attempts, newest first (at most 5):
//	                     what was tried, the error, what to avoid
//	Loop Status          the iteration, attempts on this task, the recent
//	                     success rate, the model choice and why
//	Learnings from Previous Iterations
//	                     memories of any task that match the task's words,
//	                     files and the errors of its attempts, by relevance
//	                     then recency
//
// An item that does not fit is left out whole (a long one is shortened
// first, pointing to cairn show ID); with nothing recorded and nothing
// relevant the text is "".
func BuildContext(ctx context.Context, svc Service, req ContextRequest) (*Context, error) {
	req.Task = strings.TrimSpace(req.Task)
	if req.Task == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "loop context: the task is required")
	}
	p := req.Policy.withDefaults()
	tiers := req.Tiers
	if len(tiers) == 0 {
		tiers = DefaultTiers
	}
	budget := req.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	t, err := taskSections(ctx, svc, req.Project, req.Task, req.Iteration, tiers, p, 0)
	if err != nil {
		return nil, err
	}
	sections := t.sections
	choice := t.choice
	learnings, err := learningItems(ctx, svc, req, t.failures, t.seen)
	if err != nil {
		return nil, err
	}
	if len(learnings) > 0 {
		sections = append(sections, contextpack.Section{Kind: "learnings", Title: "Learnings from Previous Iterations", Priority: 3, Items: learnings})
	}
	if len(sections) == 0 {
		return &Context{Choice: choice}, nil
	}
	res := contextpack.Render(contextpack.Request{
		Project: req.Project, Sections: sections, Budget: budget / 4, MaxChars: budget,
		Format: req.Format, Explain: req.Explain,
	})
	return &Context{Result: res, Choice: choice}, nil
}

// TaskSections are the sections about a task's own attempts: the Stuck
// Loop Warning, Previous Attempts (priority first) and Loop Status
// (priority+1), for a block that finds its relevant memories itself
// (cairn context --task). They are nil when nothing is recorded for the
// task.
func TaskSections(ctx context.Context, svc Service, project, task string, tiers []string, p Policy, priority int) ([]contextpack.Section, error) {
	if len(tiers) == 0 {
		tiers = DefaultTiers
	}
	t, err := taskSections(ctx, svc, project, strings.TrimSpace(task), 0, tiers, p.withDefaults(), priority)
	if err != nil || t.state.Attempts == 0 {
		return nil, err
	}
	return t.sections, nil
}

type taskPart struct {
	sections []contextpack.Section
	choice   *Choice
	state    TaskState
	failures string
	seen     map[string]bool
}

func taskSections(ctx context.Context, svc Service, project, task string, iteration int, tiers []string, p Policy, priority int) (*taskPart, error) {
	st, recent, err := load(ctx, svc, project, task, p)
	if err != nil {
		return nil, err
	}
	choice := choose(st, recent, tiers, p)
	if iteration <= 0 {
		iteration = 1
		if len(recent) > 0 {
			iteration = maxIteration(recent) + 1
		}
	}
	out := &taskPart{choice: &choice, state: st}
	if st.Stuck {
		out.sections = append(out.sections, contextpack.Section{Kind: "stuck_warning", Title: "Stuck Loop Warning", Priority: priority,
			Text: stuckText(task, st, p)})
	}
	var attempts []contextpack.Item
	attempts, out.failures, out.seen, err = attemptItems(ctx, svc, project, st)
	if err != nil {
		return nil, err
	}
	if len(attempts) > 0 {
		out.sections = append(out.sections, contextpack.Section{Kind: "attempts", Title: "Previous Attempts", Priority: priority, Items: attempts})
	}
	if len(recent) > 0 || st.Attempts > 0 {
		out.sections = append(out.sections, contextpack.Section{Kind: "loop_status", Title: "Loop Status", Priority: priority + 1,
			Text: statusText(task, iteration, st, choice)})
	}
	return out, nil
}

func maxIteration(its []*cairn.Iteration) int {
	n := 0
	for _, it := range its {
		n = max(n, it.Iteration)
	}
	return n
}

// attemptItems are the task's failed attempts with their reports (read in
// one query), newest first; failures is the latest report's text (for the
// learnings' query), seen the ids shown.
func attemptItems(ctx context.Context, svc Service, project string, st TaskState) ([]contextpack.Item, string, map[string]bool, error) {
	type attempt struct {
		it     *cairn.Iteration
		number int // among all the task's attempts, done ones included
	}
	var shown []attempt
	var ids []string
	for i, it := range st.Recent {
		if it.Outcome == cairn.OutcomeDone {
			continue
		}
		if len(shown) == maxAttempts {
			break
		}
		shown = append(shown, attempt{it, st.Attempts - i})
		if it.FailureID != "" {
			ids = append(ids, it.FailureID)
		}
	}
	reports := map[string]*cairn.Memory{}
	if len(ids) > 0 {
		ms, _, err := svc.FindMemories(ctx, cairn.MemoryFilter{Project: project, IDs: ids, SkipTotal: true})
		if err != nil {
			return nil, "", nil, err
		}
		for _, m := range ms {
			reports[m.ID] = m
		}
	}
	var items []contextpack.Item
	var failures string
	seen := map[string]bool{}
	for _, a := range shown {
		it := a.it
		title := fmt.Sprintf("Attempt %d (iteration %d", a.number, it.Iteration)
		if it.Model != "" {
			title += ", " + it.Model
		}
		title += ", " + it.Outcome + ")"
		content, id := it.Summary, ""
		if m := reports[it.FailureID]; m != nil { // a report deleted by hand: the summary
			content, id = m.Content, m.ID
			if failures == "" {
				// The latest report's error: what a learning about the
				// same failure shares (older errors would mostly find
				// the task's own reports, shown here already).
				failures = m.Content
			}
			seen[id] = true
		}
		if content == "" {
			content = "(no report)"
		}
		items = append(items, contextpack.Item{ID: id, Type: "attempt", Title: title, Content: content,
			CreatedAt: it.CreatedAt, Value: 2 - float64(len(items))*0.1})
	}
	return items, failures, seen, nil
}

// learningItems are the memories that match the task: its title,
// description, id and files, and the errors of its failed attempts.
func learningItems(ctx context.Context, svc Service, req ContextRequest, failures string, seen map[string]bool) ([]contextpack.Item, error) {
	text := strings.Join([]string{req.Title, req.Description, strings.Join(req.Files, " "), errorWords(failures)}, " ")
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	hits, err := svc.Search(ctx, cairn.Query{Project: req.Project, Text: text, Types: learningTypes, Limit: maxLearnings,
		ExcludeSuperseded: true, NoFeedback: true, Now: req.Now})
	if err != nil {
		return nil, err
	}
	now := req.Now
	if now.IsZero() {
		now = svc.Now()
	}
	var items []contextpack.Item
	stale := &filestale.Checker{Root: req.Root}
	for _, h := range hits {
		m := h.Memory
		if seen[m.ID] || (m.TaskID == req.Task && m.Type == "failure") || !m.Live(now) {
			continue
		}
		if h.Relevance < 0.2 {
			continue
		}
		// Relevance first; recency breaks near-ties (a week costs 0.01).
		age := math.Floor(now.Sub(m.CreatedAt).Hours() / 24) // whole days: the same block all day
		value := max(h.Relevance-min(age, 365)/700, 0.01)
		isStale := stale.Stale(m)
		if isStale {
			value *= filestale.Value
		}
		items = append(items, contextpack.Item{ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content,
			FileRefs: m.FileRefs, CreatedAt: m.CreatedAt, Value: value, Flag: m.Flag, Stale: isStale})
	}
	return items, nil
}

// errorWords is the error lines of failure reports: what a learning about
// the same failure would share.
func errorWords(failures string) string {
	var out []string
	for _, l := range strings.Split(failures, "\n") {
		if rest, ok := strings.CutPrefix(l, "**Error:** "); ok {
			out = append(out, rest)
		}
	}
	return strings.Join(out, " ")
}

func stuckText(task string, st TaskState, p Policy) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s has failed %d times in a row. Do not retry an approach listed under Previous Attempts.\n", task, st.ConsecutiveFailures)
	b.WriteString("Split the task into smaller steps that can each be checked on their own (one per failing part), do the first, and name what is left in a retry-suggestion tag.\n")
	if st.Flagged {
		fmt.Fprintf(&b, "The task is flagged for human review (%d failures in a row, the limit is %d).", st.ConsecutiveFailures, p.ReviewAfter)
	} else {
		fmt.Fprintf(&b, "After %d failures in a row it is flagged for human review.", p.ReviewAfter)
	}
	return b.String()
}

func statusText(task string, iteration int, st TaskState, c Choice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Iteration %d. Task %s: %d earlier attempts", iteration, task, st.Attempts)
	if st.Attempts > 0 {
		fmt.Fprintf(&b, ", %d failed", st.Failures)
		if st.ConsecutiveFailures > 0 {
			fmt.Fprintf(&b, " (%d in a row)", st.ConsecutiveFailures)
		}
	}
	b.WriteString(".\n")
	if c.RecentCount > 0 {
		fmt.Fprintf(&b, "Recent success: %d of the last %d iterations done (%d%%).\n", c.RecentDone, c.RecentCount, c.RecentDone*100/c.RecentCount)
	}
	fmt.Fprintf(&b, "Model: %s (%s).\n", c.Model, c.Reason)
	b.WriteString("If this attempt fails, say why in a failure-report tag (lines error:, approach:, avoid:); " +
		"put what holds beyond this task in learning tags; a difficulty-estimate tag (easy, medium or hard) helps choose the next model.")
	return b.String()
}
