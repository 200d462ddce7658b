package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// runTask stores a task event as memories (seed 001; with --agent and
// --title, seed 002's learning), where the memories are
// (cairn.TaskService): what each event stores is package capture's rule;
// this command reads the flags and prints.
func runTask(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "task", "created|completed|failed --task ID [flags] TEXT|-")
	var task, title, agent, session, hat optString
	var files listFlag
	fs.Var(&task, "task", "the task `id` (required)")
	fs.Var(&title, "title", "a short `title` (default: the first sentence)")
	fs.Var(&files, "files", "comma-separated files the task modified or involved")
	fs.Var(&agent, "agent", "the agent that ran the task, e.g. claude")
	fs.Var(&session, "session", "the agent session `id`")
	fs.Var(&hat, "hat", "the agent role (hat), e.g. creator")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("task: give the event: created, completed or failed")
	}
	event, pos := pos[0], pos[1:]
	if event != cairn.TaskCreated && event != cairn.TaskCompleted && event != cairn.TaskFailed {
		return usagef("task: unknown event %q: want created, completed or failed", event)
	}
	ev := cairn.TaskEvent{Event: event, Task: task.v, Title: title.v, Files: files.vals, Agent: agent.v, Session: session.v, Hat: hat.v}
	if strings.TrimSpace(task.v) == "" && !ev.Learns() {
		return usagef("task %s: --task ID is required (or, for completed and failed, --agent and --title)", event)
	}
	if len(pos) == 0 {
		return usagef("task %s: give the text, or - to read it from standard input", event)
	}
	text, err := m.readContent(ctx, pos)
	if err != nil {
		return err
	}
	ev.Text = strings.TrimSpace(text)
	if err := ev.Validate(); err != nil {
		return usagef("task %s: %s", event, cairn.ErrorMessage(err)) // the text is empty
	}

	if err := g.resolve(m); err != nil {
		return err
	}
	var rep *cairn.TaskReport
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) (err error) {
		rep, err = svc.RecordTaskEvent(ctx, ev)
		return err
	})
	if err != nil {
		return err
	}
	var refused []cairn.CaptureProblem
	for _, p := range rep.Problems {
		if p.Refused {
			refused = append(refused, p)
		} else {
			fmt.Fprintf(m.Stderr, "cairn: line %d: %s\n", p.Line, p.Reason)
		}
	}
	signals := 0
	for _, c := range append([]cairn.Captured{rep.Event}, rep.Stored...) {
		fmt.Fprintf(m.Stdout, "%s %s %s\n", c.ID, c.Status, c.Type)
		if c.Line > 0 {
			signals++
		}
	}
	for _, p := range refused {
		where := ""
		if p.Line > 0 {
			where = fmt.Sprintf("line %d: ", p.Line)
			signals++
		}
		fmt.Fprintf(m.Stderr, "cairn: %s%s\n", where, p.Reason)
	}
	if len(refused) > 0 {
		fmt.Fprintf(m.Stderr, "cairn: %d of %d signals could not be stored\n", len(refused), signals)
		return exitError(exitFailure)
	}
	return nil
}
