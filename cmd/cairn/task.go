package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
)

// runTask stores a task event as memories (seed 001; with --agent and
// --title, seed 002's learning): what each event stores is
// capture.TaskEvent's rule; this command reads the flags and prints.
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
	if event != capture.TaskCreated && event != capture.TaskCompleted && event != capture.TaskFailed {
		return usagef("task: unknown event %q: want created, completed or failed", event)
	}
	ev := capture.TaskEvent{Event: event, Task: task.v, Title: title.v, Files: files.vals, Agent: agent.v, Session: session.v, Hat: hat.v}
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
	if ev.Text == "" && !(event == capture.TaskCompleted && len(files.vals) > 0) {
		return usagef("task %s: the text is empty", event)
	}

	if err := g.resolve(m); err != nil {
		return err
	}
	mems := ev.Memories(g.project)
	for _, p := range mems.Problems {
		fmt.Fprintf(m.Stderr, "cairn: line %d: %s\n", p.Line, p.Reason)
	}
	var st *storer
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		res, err := svc.AddMemory(ctx, mems.Event)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "%s %s %s\n", res.Memory.ID, res.Status, res.Memory.Type)
		st = newStorer(ctx, m, svc, true)
		for _, lm := range mems.Learned {
			r, err := st.store(lm, "", "learned "+lm.Type)
			if err != nil {
				return err
			}
			if r != nil {
				fmt.Fprintf(m.Stdout, "%s %s %s\n", r.Memory.ID, r.Status, r.Memory.Type)
			}
		}
		for _, sig := range mems.Signals {
			r, err := st.store(sig.MemoryFrom(g.project, ev.Provenance()), fmt.Sprintf("line %d: ", sig.Line), sig.Kind)
			if err != nil {
				return err
			}
			if r != nil {
				fmt.Fprintf(m.Stdout, "%s %s %s\n", r.Memory.ID, r.Status, r.Memory.Type)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if st.failed > 0 {
		fmt.Fprintf(m.Stderr, "cairn: %d of %d signals could not be stored\n", st.failed, len(mems.Signals))
		return exitError(exitFailure)
	}
	return nil
}
