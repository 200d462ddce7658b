package recall

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/contextpack"
	"github.com/cairn-dev/cairn/filestale"
	"github.com/cairn-dev/cairn/loop"
)

// The loop profile: what the next iteration of an agent loop on a task
// needs (seed 003). Its candidates are the task's attempts (package loop
// reads them and chooses the model) and the memories that match the
// task's words, files and the errors of its attempts.

// maxAttempts is how many previous attempts are shown at most.
const maxAttempts = 5

// LoopBlock renders, within one character budget, what the next iteration
// on a task needs, most useful first:
//
//	Stuck Loop Warning   once the task failed Policy.StuckAfter times in a row
//	Previous Attempts    the task's failed attempts, newest first (at most 5):
//	                     what was tried, the error, what to avoid
//	Loop Status          the iteration, attempts on this task, the recent
//	                     success rate, the model choice and why
//	Learnings from Previous Iterations
//	                     memories of any task that match the task's words,
//	                     files and the errors of its attempts, by relevance
//	                     then recency (the loop profile's weights and floor)
//
// An item that does not fit is left out whole (a long one is shortened
// first, pointing to cairn show ID); with nothing recorded and nothing
// relevant the text is "". EINVALID without a task.
func LoopBlock(ctx context.Context, svc loop.Service, req cairn.LoopContextRequest) (*cairn.LoopContext, error) {
	req.Task = strings.TrimSpace(req.Task)
	if req.Task == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "loop context: the task is required")
	}
	p := profiles[cairn.ProfileLoop]
	chars := req.Budget
	if chars <= 0 {
		chars = p.Budget * 4
	}
	t, err := loop.LoadTask(ctx, svc, req.Project, req.Task, req.Iteration, req.Tiers, req.Policy)
	if err != nil {
		return nil, err
	}
	tp, err := taskPart(ctx, svc, req.Project, req.Task, t, 0)
	if err != nil {
		return nil, err
	}
	sections := tp.sections
	learnings, err := learningItems(ctx, svc, p, req, tp.failures, tp.seen)
	if err != nil {
		return nil, err
	}
	if len(learnings) > 0 {
		sections = append(sections, contextpack.Section{Kind: "learnings", Title: "Learnings from Previous Iterations", Priority: 3, Items: learnings})
	}
	choice := t.Choice
	if len(sections) == 0 {
		return &cairn.LoopContext{Choice: &choice}, nil
	}
	res := contextpack.Render(contextpack.Request{
		Project: req.Project, Sections: sections, Budget: chars / 4, MaxChars: chars,
		Format: req.Format, Explain: req.Explain,
	})
	return &cairn.LoopContext{Text: res.Text, IDs: placedIDs(res.Placed), Explain: res.Explain, Choice: &choice}, nil
}

// taskSections are the sections about a task's own attempts for a context
// block that finds its relevant memories itself (`cairn context --task`):
// the Stuck Loop Warning, Previous Attempts and Loop Status; nil when
// nothing is recorded for the task.
func taskSections(ctx context.Context, svc loop.Service, project, task string, tiers []string, p cairn.LoopPolicy) ([]contextpack.Section, error) {
	t, err := loop.LoadTask(ctx, svc, project, task, 0, tiers, p)
	if err != nil || t.State.Attempts == 0 {
		return nil, err
	}
	tp, err := taskPart(ctx, svc, project, strings.TrimSpace(task), t, 0)
	if err != nil {
		return nil, err
	}
	return tp.sections, nil
}

type taskParts struct {
	sections []contextpack.Section
	failures string          // the latest failure report's text
	seen     map[string]bool // the reports shown
}

// taskPart is the task's sections: the Stuck Loop Warning and Previous
// Attempts at priority, Loop Status after them.
func taskPart(ctx context.Context, svc loop.Service, project, task string, t *loop.Task, priority int) (*taskParts, error) {
	out := &taskParts{}
	st := t.State
	if st.Stuck {
		out.sections = append(out.sections, contextpack.Section{Kind: "stuck_warning", Title: "Stuck Loop Warning", Priority: priority,
			Text: stuckText(task, st, t.Policy)})
	}
	var attempts []contextpack.Item
	var err error
	attempts, out.failures, out.seen, err = attemptItems(ctx, svc, project, st)
	if err != nil {
		return nil, err
	}
	if len(attempts) > 0 {
		out.sections = append(out.sections, contextpack.Section{Kind: "attempts", Title: "Previous Attempts", Priority: priority, Items: attempts})
	}
	if t.Recorded || st.Attempts > 0 {
		out.sections = append(out.sections, contextpack.Section{Kind: "loop_status", Title: "Loop Status", Priority: priority + 1,
			Text: statusText(task, t.Iteration, st, t.Choice)})
	}
	return out, nil
}

// attemptItems are the task's failed attempts with their reports (read in
// one query), newest first; failures is the latest report's text (for the
// learnings' query), seen the ids shown.
func attemptItems(ctx context.Context, svc loop.Service, project string, st cairn.TaskState) ([]contextpack.Item, string, map[string]bool, error) {
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

// learningItems are the task's own learnings (what its earlier
// iterations wrote, of the profile's types), first, then the memories of
// other tasks that match the task: its title, description, id and files,
// and the errors of its failed attempts, of the profile's types, scored
// and floored by it. The match is measured against the task's own failure
// reports too (searched with them, then left out): a memory that matches
// the task's words only as weakly as the generic ones of its title, next
// to a report that matches them all, stays below the floor.
func learningItems(ctx context.Context, svc loop.Service, p Profile, req cairn.LoopContextRequest, failures string, seen map[string]bool) ([]contextpack.Item, error) {
	now := req.Now
	if now.IsZero() {
		now = svc.Now()
	}
	stale := &filestale.Checker{Root: req.Root}
	var items []contextpack.Item
	add := func(m *cairn.Memory, relevance, lift float64) {
		if seen[m.ID] || cairn.FacetsOf(m.Type)&cairn.FacetAttempt != 0 || m.SupersededBy != "" || !m.Live(now) {
			return
		}
		seen[m.ID] = true
		// Relevance first; recency breaks near-ties (a week costs 0.01).
		value := lift + p.Weights.value(m, relevance, now)
		isStale := stale.Stale(m)
		if isStale {
			value *= filestale.Value
		}
		items = append(items, contextpack.Item{ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content,
			FileRefs: m.FileRefs, CreatedAt: m.CreatedAt, Value: value, Flag: m.Flag, Stale: isStale})
	}
	own, _, err := svc.FindMemories(ctx, cairn.MemoryFilter{Project: req.Project, Task: req.Task, Types: p.types(),
		Sort: cairn.SortCreatedDesc, Limit: p.Limit, SkipTotal: true})
	if err != nil {
		return nil, err
	}
	for _, m := range own {
		if strings.HasPrefix(m.Key, "difficulty:") {
			seen[m.ID] = true // Loop Status says what it made of the estimate
			continue
		}
		add(m, 1, 1) // above any other task's: they are about this very task
	}
	text := strings.Join([]string{req.Title, req.Description, strings.Join(req.Files, " "), errorWords(failures)}, " ")
	if strings.TrimSpace(text) == "" {
		return items, nil
	}
	types := p.types()
	if failures != "" {
		types = append(types, cairn.TypesWith(cairn.FacetAttempt)...)
	}
	hits, err := svc.Search(ctx, cairn.Query{Project: req.Project, Text: text, Types: types, Limit: p.Limit + len(seen),
		ExcludeSuperseded: true, NoFeedback: true, Now: req.Now})
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		if h.Relevance >= p.Floor {
			add(h.Memory, h.Relevance, 0)
		}
	}
	return items, nil
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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

func stuckText(task string, st cairn.TaskState, p cairn.LoopPolicy) string {
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

func statusText(task string, iteration int, st cairn.TaskState, c cairn.LoopChoice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Iteration %d. Task %s: %s", iteration, task, plural(st.Attempts, "earlier attempt"))
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

// placedIDs are the ids of the memories placed, in block order (the
// sections about the loop itself place items without one).
func placedIDs(placed []contextpack.Placed) []string {
	ids := []string{}
	for _, p := range placed {
		if p.ID != "" {
			ids = append(ids, p.ID)
		}
	}
	return ids
}
