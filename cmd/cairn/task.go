package main

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
)

// maxTaskInputRunes bounds a task_input memory: a task description is kept
// as its first characters, with "…" saying it was cut.
const maxTaskInputRunes = 500

// runTask stores a task event as a memory (seed 001):
//
//	created    type task_input, the description (at most 500 characters),
//	           key task:ID:input (recreating the task updates it)
//	completed  type task_result, the summary and "Files: …", key
//	           task:ID:result; signals in the summary (MEMORY:, <learning>,
//	           …) are captured as well
//	failed     type issue, the error, no key: every distinct failure of a
//	           task is kept, and repeating the same error reinforces the
//	           memory already stored (content dedup) instead of piling up
//
// With --agent and --title, completed and failed learn as seed 002 does
// (capture.LearnFromTask, capture.LearnFromFailure): a completed task's
// rules become pattern and convention memories of the agent, and a failed
// one is an error_solution keyed "agent: title", "Failed with: …",
// confidence 0.7 (instead of an issue); --task may then be left out.
//
// All of them carry the task id as provenance.
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
	if event != "created" && event != "completed" && event != "failed" {
		return usagef("task: unknown event %q: want created, completed or failed", event)
	}
	seed002 := agent.v != "" && strings.TrimSpace(title.v) != "" && event != "created"
	if strings.TrimSpace(task.v) == "" && !seed002 {
		return usagef("task %s: --task ID is required (or, for completed and failed, --agent and --title)", event)
	}
	if len(pos) == 0 {
		return usagef("task %s: give the text, or - to read it from standard input", event)
	}
	text, err := m.readContent(ctx, pos)
	if err != nil {
		return err
	}
	text = strings.TrimSpace(text)
	if text == "" && !(event == "completed" && len(files.vals) > 0) {
		return usagef("task %s: the text is empty", event)
	}

	mem := &cairn.Memory{Title: title.v, FileRefs: files.vals, Source: cairn.SourceAutomatic}
	var sigs []capture.Signal
	switch event {
	case "created":
		mem.Type, mem.Key, mem.Content = "task_input", "task:"+task.v+":input", truncateRunes(redactSecrets(text), maxTaskInputRunes)
	case "completed":
		mem.Type, mem.Content = "task_result", taskResultContent(text, files.vals)
		if task.v != "" {
			mem.Key = "task:" + task.v + ":result"
		}
		var probs []capture.Problem
		sigs, probs = capture.Parse(text)
		for _, p := range probs {
			fmt.Fprintf(m.Stderr, "cairn: line %d: %s\n", p.Line, p.Reason)
		}
	case "failed":
		mem.Type, mem.Content = "issue", text
		if seed002 {
			mem = capture.LearnFromFailure("", agent.v, title.v, redactSecrets(text))
			mem.FileRefs = files.vals
		}
	}

	s, err := m.open(ctx, g, false)
	if err != nil {
		return err
	}
	defer s.Close()
	mem.Project = g.project // known once the store is open
	prov := capture.Provenance{Hat: hat.v, Agent: agent.v, Task: task.v, Session: session.v}
	mem.TaskID, mem.Agent, mem.SessionID, mem.Hat = prov.Task, prov.Agent, prov.Session, prov.Hat
	res, err := s.eng.AddMemory(ctx, mem)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s %s %s\n", res.Memory.ID, res.Status, res.Memory.Type)
	st := newStorer(ctx, m, s.eng, true)
	if event == "completed" {
		for _, lm := range capture.LearnFromTask(g.project, agent.v, redactSecrets(text)) {
			lm.TaskID, lm.SessionID, lm.Hat = prov.Task, prov.Session, prov.Hat
			r, err := st.store(lm, "", "learned "+lm.Type)
			if err != nil {
				return err
			}
			if r != nil {
				fmt.Fprintf(m.Stdout, "%s %s %s\n", r.Memory.ID, r.Status, r.Memory.Type)
			}
		}
	}
	for _, sig := range sigs {
		r, err := st.store(sig.MemoryFrom(g.project, prov), fmt.Sprintf("line %d: ", sig.Line), sig.Kind)
		if err != nil {
			return err
		}
		if r != nil {
			fmt.Fprintf(m.Stdout, "%s %s %s\n", r.Memory.ID, r.Status, r.Memory.Type)
		}
	}
	if st.failed > 0 {
		fmt.Fprintf(m.Stderr, "cairn: %d of %d signals could not be stored\n", st.failed, len(sigs))
		return exitError(exitFailure)
	}
	return nil
}

// truncateRunes cuts s to at most n characters, the last one "…" when cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " \t\r\n") + "…"
}

// taskResultContent is a completed task's summary and the files it touched.
func taskResultContent(summary string, files []string) string {
	if len(files) == 0 {
		return summary
	}
	line := "Files: " + strings.Join(files, ", ")
	if summary == "" {
		return line
	}
	return summary + "\n\n" + line
}
