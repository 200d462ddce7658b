package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/wire"
)

// runLoop is iteration memory for agent loops (seed 003; package loop).
func runLoop(ctx context.Context, m *Main, g *globals, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" {
		return usagef("loop: give a subcommand: record, context, model, status or prune")
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "record":
		return runLoopRecord(ctx, m, g, rest)
	case "context":
		return runLoopContext(ctx, m, g, rest)
	case "model":
		return runLoopModel(ctx, m, g, rest)
	case "status":
		return runLoopStatus(ctx, m, g, rest)
	case "prune":
		return runLoopPrune(ctx, m, g, rest)
	case "-h", "--help", "help":
		fmt.Fprint(m.Stdout, loopUsage)
		return nil
	}
	return usagef("loop: unknown subcommand %q: want record, context, model, status or prune", sub)
}

const loopUsage = `Usage: cairn loop record|context|model|status|prune [flags]

  record   --task T --iteration N --outcome done|failed|no-signal [--model M]
           [--duration-ms D] [--cost-usd C] [--result FILE|-]
           store one iteration: its metrics, the signals of its result, and
           a failure report (a minimal one when a failed iteration wrote none)
  context  --task T [--title … --description … --files …] [--budget CHARS]
           what the next iteration on T needs: Previous Attempts, Learnings
           from Previous Iterations, Loop Status, Stuck Loop Warning
  model    --task T [--tiers haiku,sonnet,opus]
           the model tier for the next attempt (stdout), and why (stderr)
  status   every task, flagged and stuck ones first
  prune    archive the failure reports of tasks done long ago; fold old
           iterations into totals

See docs/agent-loops.md, and cairn loop SUBCOMMAND --help.
`

// loopPolicy is the escalation policy and tiers of the configuration.
func loopPolicy(m *Main) (cairn.LoopPolicy, config.LoopConfig, error) {
	cfg, err := m.loadConfig()
	if err != nil {
		return cairn.LoopPolicy{}, config.LoopConfig{}, err
	}
	return cfg.Config.Loop.Policy(), cfg.Config.Loop, nil
}

func runLoopRecord(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "loop record", "--task T --iteration N --outcome done|failed|no-signal [flags]")
	var task, model, outcome, result, run, agent, session optString
	var iteration, duration optString
	var cost optString
	var asJSON bool
	fs.Var(&task, "task", "the task's `id` in the loop (required)")
	fs.Var(&iteration, "iteration", "the loop's iteration `number`, from 1 (required)")
	fs.Var(&outcome, "outcome", "done, failed or no-signal (required)")
	fs.Var(&model, "model", "the model or tier that ran the iteration")
	fs.Var(&duration, "duration-ms", "how long the iteration took, in `milliseconds`")
	fs.Var(&cost, "cost-usd", "what the iteration cost, in `dollars`")
	fs.Var(&result, "result", "the agent's output: a `FILE`, or - for standard input")
	fs.Var(&run, "run", "the loop run's `id`, when the loop has one")
	fs.Var(&agent, "agent", "the agent that ran, e.g. claude")
	fs.Var(&session, "session", "the agent session `id`")
	fs.BoolVar(&asJSON, "json", false, "print what was stored as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("loop record: unexpected argument %q (the result is given with --result FILE|-)", pos[0])
	}
	if strings.TrimSpace(task.v) == "" || !iteration.set || !outcome.set {
		return usagef("loop record: --task, --iteration and --outcome are required")
	}
	n, err := strconv.Atoi(iteration.v)
	if err != nil || n < 1 {
		return usagef("loop record: --iteration %q: want a number from 1", iteration.v)
	}
	if !cairn.ValidOutcome(outcome.v) {
		return usagef("loop record: --outcome %q: want done, failed or no-signal", outcome.v)
	}
	var ms int64
	if duration.set {
		if ms, err = strconv.ParseInt(duration.v, 10, 64); err != nil || ms < 0 {
			return usagef("loop record: --duration-ms %q: want a whole number of milliseconds", duration.v)
		}
	}
	var usd float64
	if cost.set {
		if usd, err = strconv.ParseFloat(cost.v, 64); err != nil || usd < 0 || usd != usd {
			return usagef("loop record: --cost-usd %q: want a number of dollars", cost.v)
		}
	}
	var text string
	switch {
	case result.v == "-":
		text, err = readText(ctx, m.Stdin, "standard input")
	case result.set:
		text, err = readFileText(ctx, result.v)
	}
	if err != nil {
		return err
	}
	_, lc, err := loopPolicy(m)
	if err != nil {
		return err
	}
	var rec *cairn.LoopRecorded
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		rec, err = svc.LoopRecord(ctx, cairn.LoopRecord{Run: run.v, Task: task.v, Iteration: n, Model: model.v, Outcome: outcome.v,
			DurationMS: ms, CostUSD: usd, Result: text, Agent: agent.v, Session: session.v, SummarizeAfter: lc.SummarizeAfter})
		return err
	})
	if err != nil {
		return err
	}
	for _, p := range rec.Problems {
		fmt.Fprintf(m.Stderr, "cairn: result line %d: %s\n", p.Line, p.Reason)
	}
	if asJSON {
		return writeJSON(m.Stdout, wire.RecordedJSONOf(rec))
	}
	fmt.Fprintf(m.Stdout, "iteration %d of task %s: %s\n", rec.Iteration.Iteration, rec.Iteration.Task, rec.Iteration.Outcome)
	for _, w := range rec.Memories {
		fmt.Fprintf(m.Stdout, "%s %s %s\n", w.Memory.ID, w.Status, w.Memory.Type)
	}
	if rec.MinimalReport {
		fmt.Fprintln(m.Stdout, "(no <failure-report> in the result: a minimal report was made from it)")
	}
	for _, w := range rec.Summaries {
		fmt.Fprintf(m.Stdout, "%s summary %s: the learnings it merged are superseded by it\n", w.Memory.ID, w.Memory.Type)
	}
	return nil
}

func runLoopContext(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "loop context", "--task T [flags]")
	var task, title, desc, budget, format, iteration optString
	var files, tiers listFlag
	var explain bool
	fs.Var(&task, "task", "the task's `id` (required)")
	fs.Var(&title, "title", "the task's title")
	fs.Var(&desc, "description", "the task's description (- reads it from standard input)")
	fs.Var(&files, "files", "comma-separated files the task is about")
	fs.Var(&budget, "budget", "the most `characters` of the text (default from the configuration, 4000)")
	fs.Var(&iteration, "iteration", "the iteration about to run (default: one after the latest recorded)")
	fs.Var(&tiers, "tiers", "model tiers, cheapest first (default from the configuration)")
	fs.Var(&format, "format", "markdown (default), xml or json")
	fs.BoolVar(&explain, "explain", false, "after the text, explain what was placed and what was left out")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("loop context: unexpected argument %q", pos[0])
	}
	if strings.TrimSpace(task.v) == "" {
		return usagef("loop context: --task is required")
	}
	p, lc, err := loopPolicy(m)
	if err != nil {
		return err
	}
	chars := lc.BudgetChars
	if budget.set {
		if chars, err = strconv.Atoi(budget.v); err != nil || chars < 1 {
			return usagef("loop context: --budget %q: want a number of characters", budget.v)
		}
	}
	n := 0
	if iteration.set {
		if n, err = strconv.Atoi(iteration.v); err != nil || n < 1 {
			return usagef("loop context: --iteration %q: want a number from 1", iteration.v)
		}
	}
	if desc.v == "-" {
		if desc.v, err = readText(ctx, m.Stdin, "standard input"); err != nil {
			return err
		}
	}
	t := lc.Tiers
	if tiers.set {
		t = tiers.vals
	}
	var c *cairn.LoopContext
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		c, err = svc.LoopContext(ctx, cairn.LoopContextRequest{Task: task.v, Title: title.v, Description: desc.v, Files: files.vals,
			Budget: chars, Iteration: n, Tiers: t, Policy: p, Format: format.v, Explain: explain, Root: m.projectFolder(g)})
		return err
	})
	if errIsNoDatabase(err) {
		return nil // nothing recorded yet: nothing to say
	}
	if err != nil {
		return err
	}
	fmt.Fprint(m.Stdout, c.Text)
	if explain {
		fmt.Fprintf(m.Stdout, "\n--- explain ---\n%s", c.Explain)
	}
	return nil
}

func runLoopModel(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "loop model", "--task T [--tiers haiku,sonnet,opus] [--json]")
	var task optString
	var tiers listFlag
	var asJSON bool
	fs.Var(&task, "task", "the task's `id` (required)")
	fs.Var(&tiers, "tiers", "model tiers, cheapest first (default from the configuration)")
	fs.BoolVar(&asJSON, "json", false, "print the choice as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || strings.TrimSpace(task.v) == "" {
		return usagef("loop model: give --task T (and nothing else)")
	}
	p, lc, err := loopPolicy(m)
	if err != nil {
		return err
	}
	t := lc.Tiers
	if tiers.set {
		t = tiers.vals
	}
	var c *cairn.LoopChoice
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		c, err = svc.LoopModel(ctx, task.v, t, p)
		return err
	})
	if errIsNoDatabase(err) {
		c, err = local.FirstModel(t, p), nil // nothing recorded yet
	}
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(m.Stdout, wire.ChoiceJSONOf(c))
	}
	fmt.Fprintln(m.Stdout, c.Model)
	fmt.Fprintf(m.Stderr, "cairn: %s: %s\n", c.Model, c.Reason)
	return nil
}

func runLoopStatus(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "loop status", "[--json]")
	var asJSON bool
	fs.BoolVar(&asJSON, "json", false, "print the tasks as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	p, _, err := loopPolicy(m)
	if err != nil {
		return err
	}
	var states []cairn.TaskState
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		states, err = svc.LoopStatus(ctx, p)
		return err
	})
	if err != nil && !errIsNoDatabase(err) {
		return err
	}
	if asJSON {
		return writeJSON(m.Stdout, wire.StatusJSONOf(states).Tasks)
	}
	if len(states) == 0 {
		fmt.Fprintln(m.Stdout, "no iterations recorded")
		return nil
	}
	w := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TASK\tATTEMPTS\tFAILED\tIN A ROW\tLAST\tMODEL\tWHEN\tSTATE")
	for _, st := range states {
		state := ""
		switch {
		case st.Flagged:
			state = "flagged for review"
		case st.Stuck:
			state = "stuck"
		case st.Done:
			state = "done"
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", st.Task, st.Attempts, st.Failures, st.ConsecutiveFailures,
			st.LastOutcome, st.LastModel, wire.FormatTime(st.LastAt), state)
	}
	return w.Flush()
}

func runLoopPrune(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "loop prune", "[--archive-after 720h] [--aggregate-after 2160h] [--json]")
	var archive, aggregate optString
	var asJSON bool
	fs.Var(&archive, "archive-after", "archive the failure reports of tasks done longer ago than this `duration` (default 720h, 30 days)")
	fs.Var(&aggregate, "aggregate-after", "fold iterations older than this `duration` into totals (default 2160h, 90 days)")
	fs.BoolVar(&asJSON, "json", false, "print what was done as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	var opts cairn.LoopPruneOptions
	for _, f := range []struct {
		flag *optString
		name string
		to   *time.Duration
	}{{&archive, "archive-after", &opts.ArchiveAfter}, {&aggregate, "aggregate-after", &opts.AggregateAfter}} {
		if !f.flag.set {
			continue
		}
		d, err := time.ParseDuration(f.flag.v)
		if err != nil || d <= 0 {
			return usagef("loop prune: --%s %q: want a duration such as 720h", f.name, f.flag.v)
		}
		*f.to = d
	}
	var p *cairn.LoopPruned
	err := m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		var err error
		p, err = svc.LoopPrune(ctx, opts)
		return err
	})
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(m.Stdout, wire.PrunedJSONOf(p))
	}
	fmt.Fprintf(m.Stdout, "archived %d failure reports, folded %d iterations into totals\n", len(p.Archived), p.Aggregated)
	return nil
}
