package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
)

// DefaultTiers are the model tiers, cheapest first, when none are given.
var DefaultTiers = []string{"haiku", "sonnet", "opus"}

// withDefaults is p with its zero values set to the defaults.
func withDefaults(p cairn.LoopPolicy) cairn.LoopPolicy {
	if p.EscalateAfter <= 0 {
		p.EscalateAfter = 2
	}
	if p.StuckAfter <= 0 {
		p.StuckAfter = 3
	}
	if p.ReviewAfter <= 0 {
		p.ReviewAfter = 5
	}
	if p.RecentWindow <= 0 {
		p.RecentWindow = 10
	}
	return p
}

// taskState folds a task's iterations (newest first) and totals.
func taskState(task string, its []*cairn.Iteration, totals []cairn.IterationTotals, p cairn.LoopPolicy) cairn.TaskState {
	s := cairn.TaskState{Task: task, Recent: its}
	counting := true
	for _, it := range its {
		s.Attempts++
		failed := it.Outcome != cairn.OutcomeDone
		if failed {
			s.Failures++
		}
		if counting {
			if failed {
				s.ConsecutiveFailures++
			} else {
				counting = false
			}
		}
		if s.Difficulty == "" {
			s.Difficulty = it.Difficulty
		}
	}
	if len(its) > 0 {
		s.LastOutcome, s.LastModel, s.LastAt = its[0].Outcome, its[0].Model, its[0].CreatedAt
		s.Done = its[0].Outcome == cairn.OutcomeDone
	}
	for _, t := range totals {
		if t.Task != task {
			continue
		}
		s.Attempts += t.Count
		if t.Outcome != cairn.OutcomeDone {
			s.Failures += t.Count
		}
		if len(its) == 0 && t.Last.After(s.LastAt) { // totals are older than any iteration kept
			s.LastAt = t.Last
		}
	}
	s.Stuck = s.ConsecutiveFailures >= p.StuckAfter
	s.Flagged = s.ConsecutiveFailures >= p.ReviewAfter
	return s
}

// ChooseModel picks the tier for the next attempt at task from the
// recorded iterations, with tiers ordered cheapest first:
//
//   - the middle tier by default (sonnet of haiku, sonnet, opus);
//   - one tier cheaper when the project's recent iterations mostly succeed
//     (at least 80% of the latest Policy.RecentWindow, and at least 5 of
//     them) and the task is not estimated hard;
//   - one tier up when the task is estimated hard, or when the recent
//     success rate is under 50% (of at least 5);
//   - but when the task has a difficulty estimate and the project's other
//     tasks of that estimate say more (seed 003: "a task rated hard that
//     was completed by sonnet suggests sonnet is sufficient"), their
//     outcomes decide instead: the cheapest tier on which most of their
//     iterations were done (at least two), or one tier above the default
//     when they only failed on it (at least twice);
//   - one more tier up per failure from the Policy.EscalateAfter-th
//     consecutive failure on the task, and the most capable tier once it
//     is stuck (Policy.StuckAfter).
//
// The reason says which rules applied, in that order.
func ChooseModel(ctx context.Context, svc Service, project, task string, tiers []string, p cairn.LoopPolicy) (*cairn.LoopChoice, error) {
	p = withDefaults(p)
	if len(tiers) == 0 {
		tiers = DefaultTiers
	}
	st, recent, err := load(ctx, svc, project, task, p)
	if err != nil {
		return nil, err
	}
	similar, err := loadSimilar(ctx, svc, project, st)
	if err != nil {
		return nil, err
	}
	c := choose(st, recent, similar, tiers, p)
	return &c, nil
}

// similarWindow is how many of the project's latest iterations the
// outcomes of similar tasks are read from.
const similarWindow = 500

// similarOutcomes are the outcomes, by model, of the iterations of the
// project's other tasks estimated as difficult as this one (seed 003: "a
// task rated hard that was completed by sonnet suggests sonnet is
// sufficient").
type similarOutcomes struct {
	difficulty string
	done       map[string]int
	failed     map[string]int
}

// loadSimilar reads the outcomes of the other tasks with the task's
// difficulty estimate; nil when the task has none.
func loadSimilar(ctx context.Context, svc Service, project string, st cairn.TaskState) (*similarOutcomes, error) {
	if st.Difficulty == "" {
		return nil, nil
	}
	its, err := svc.FindIterations(ctx, cairn.IterationFilter{Project: project, Limit: similarWindow})
	if err != nil {
		return nil, err
	}
	difficulty := map[string]string{} // each task's latest estimate (newest first)
	for _, it := range its {
		if _, ok := difficulty[it.Task]; !ok && it.Difficulty != "" {
			difficulty[it.Task] = it.Difficulty
		}
	}
	s := &similarOutcomes{difficulty: st.Difficulty, done: map[string]int{}, failed: map[string]int{}}
	for _, it := range its {
		if it.Task == st.Task || difficulty[it.Task] != st.Difficulty || it.Model == "" {
			continue
		}
		if it.Outcome == cairn.OutcomeDone {
			s.done[it.Model]++
		} else {
			s.failed[it.Model]++
		}
	}
	return s, nil
}

// minSimilar is how many iterations of similar tasks on one tier it takes
// to decide by them.
const minSimilar = 2

// similarTier is the tier the similar tasks' outcomes point to: the
// cheapest on which most of their iterations were done (at least
// minSimilar); else, when the default tier only failed them (at least
// minSimilar times), the one above it. ok is false when they say nothing.
func (s *similarOutcomes) similarTier(tiers []string, def int) (tier int, why string, ok bool) {
	if s == nil {
		return 0, "", false
	}
	for i, t := range tiers {
		d, f := s.done[t], s.failed[t]
		if d >= minSimilar && d > f {
			return i, fmt.Sprintf("%s: earlier tasks estimated %s were done on it (%d of %d iterations)", t, s.difficulty, d, d+f), true
		}
	}
	if f := s.failed[tiers[def]]; f >= minSimilar && s.done[tiers[def]] == 0 && def+1 < len(tiers) {
		return def + 1, fmt.Sprintf("up: earlier tasks estimated %s failed on %s (%d iterations)", s.difficulty, tiers[def], f), true
	}
	return 0, "", false
}

// FirstChoice is the choice for a task of a project with nothing
// recorded.
func FirstChoice(tiers []string, p cairn.LoopPolicy) *cairn.LoopChoice {
	if len(tiers) == 0 {
		tiers = DefaultTiers
	}
	c := choose(cairn.TaskState{}, nil, nil, tiers, withDefaults(p))
	return &c
}

// load reads the task's state and the project's latest iterations.
func load(ctx context.Context, svc Service, project, task string, p cairn.LoopPolicy) (cairn.TaskState, []*cairn.Iteration, error) {
	its, err := svc.FindIterations(ctx, cairn.IterationFilter{Project: project, Task: task, Limit: 200})
	if err != nil {
		return cairn.TaskState{}, nil, err
	}
	totals, err := svc.IterationTotals(ctx, project, task)
	if err != nil {
		return cairn.TaskState{}, nil, err
	}
	recent, err := svc.FindIterations(ctx, cairn.IterationFilter{Project: project, Limit: p.RecentWindow})
	if err != nil {
		return cairn.TaskState{}, nil, err
	}
	return taskState(task, its, totals, p), recent, nil
}

func choose(st cairn.TaskState, recent []*cairn.Iteration, similar *similarOutcomes, tiers []string, p cairn.LoopPolicy) cairn.LoopChoice {
	c := cairn.LoopChoice{State: st, RecentCount: len(recent)}
	for _, it := range recent {
		if it.Outcome == cairn.OutcomeDone {
			c.RecentDone++
		}
	}
	top := len(tiers) - 1
	tier := top / 2
	why := []string{fmt.Sprintf("%s by default", tiers[tier])}
	rate := func() string { return fmt.Sprintf("%d of the last %d iterations done", c.RecentDone, c.RecentCount) }
	if t, reason, ok := similar.similarTier(tiers, tier); ok {
		tier = t
		why = append(why, reason)
	} else {
		switch {
		case st.Difficulty == "hard":
			tier++
			why = append(why, "up: the task is estimated hard")
		case c.RecentCount >= 5 && c.RecentDone*10 >= c.RecentCount*8:
			tier--
			why = append(why, "down: "+rate())
		case c.RecentCount >= 5 && c.RecentDone*2 < c.RecentCount:
			tier++
			why = append(why, "up: only "+rate())
		}
	}
	switch f := st.ConsecutiveFailures; {
	case f >= p.StuckAfter:
		tier = top
		why = append(why, fmt.Sprintf("the most capable: %d failures in a row, the task is stuck", f))
	case f >= p.EscalateAfter:
		tier += f - p.EscalateAfter + 1
		why = append(why, fmt.Sprintf("escalated: %d failures in a row", f))
	case f == 1:
		why = append(why, "not escalated after one failure: its report is in the context")
	}
	tier = max(0, min(tier, top))
	c.Tier, c.Model = tier, tiers[tier]
	c.Reason = strings.Join(why, "; ")
	return c
}

// Status is the state of every task of a project, flagged ones first, then
// stuck ones, then by the latest attempt (newest first).
func Status(ctx context.Context, svc Service, project string, p cairn.LoopPolicy) ([]cairn.TaskState, error) {
	p = withDefaults(p)
	its, err := svc.FindIterations(ctx, cairn.IterationFilter{Project: project})
	if err != nil {
		return nil, err
	}
	totals, err := svc.IterationTotals(ctx, project, "")
	if err != nil {
		return nil, err
	}
	byTask := map[string][]*cairn.Iteration{}
	var order []string
	for _, it := range its {
		if _, ok := byTask[it.Task]; !ok {
			order = append(order, it.Task)
		}
		byTask[it.Task] = append(byTask[it.Task], it)
	}
	for _, t := range totals {
		if _, ok := byTask[t.Task]; !ok {
			byTask[t.Task] = nil
			order = append(order, t.Task)
		}
	}
	out := make([]cairn.TaskState, 0, len(order))
	for _, task := range order {
		out = append(out, taskState(task, byTask[task], totals, p))
	}
	slices.SortStableFunc(out, func(a, b cairn.TaskState) int {
		if a.Flagged != b.Flagged {
			return boolFirst(a.Flagged)
		}
		if a.Stuck != b.Stuck {
			return boolFirst(a.Stuck)
		}
		return b.LastAt.Compare(a.LastAt)
	})
	return out, nil
}

func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}
