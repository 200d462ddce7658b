package capture

import (
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/redact"
)

// The events of a task (seed 001's task events, `cairn task`).
const (
	TaskCreated   = cairn.TaskCreated
	TaskCompleted = cairn.TaskCompleted
	TaskFailed    = cairn.TaskFailed
)

// MaxTaskInputRunes bounds a task_input memory: a task description is
// kept as its first characters, with "…" saying it was cut.
const MaxTaskInputRunes = 500

// TaskEvent is an event of a task, and what it says: cairn.TaskEvent,
// which converts to it, with what each event stores.
type TaskEvent cairn.TaskEvent

// Learns reports whether ev learns as seed 002 does: a completed or
// failed event of a named agent with a title.
func (ev TaskEvent) Learns() bool {
	c := cairn.TaskEvent(ev)
	return c.Learns()
}

// TaskMemories are what a task event stores, in this order.
type TaskMemories struct {
	// Event is the event's own memory: a task_input, a task_result, an
	// issue, or (failed, Learns) an error_solution.
	Event *cairn.Memory
	// Learned are the rules of a completed task's summary, as pattern
	// and convention memories of the agent, if named (LearnFromTask).
	Learned []*cairn.Memory
	// Signals are those of a completed task's summary (MEMORY:,
	// <learning>, …); store each with Signal.MemoryFrom(project,
	// Provenance).
	Signals []Signal
	// Problems are the signals of the summary that could not be read.
	Problems []Problem
}

// Memories returns what ev stores in project:
//
//	created    type task_input, the description (at most
//	           MaxTaskInputRunes characters), key task:ID:input
//	           (recreating the task updates it)
//	completed  type task_result, the summary and "Files: …", key
//	           task:ID:result (none without an id); signals in the
//	           summary are captured as well, and its rules become
//	           pattern and convention memories (of the agent, if named)
//	failed     type issue, the error, no key: every distinct failure of
//	           a task is kept, and the same error again reinforces the
//	           memory already stored (content dedup) instead of piling
//	           up; with Learns, an error_solution keyed "agent: title",
//	           "Failed with: …", confidence FailureConfidence instead
//
// All of them carry the task id, agent, session and hat as provenance.
// Secrets are redacted from the text before it is cut.
func (ev TaskEvent) Memories(project string) *TaskMemories {
	text := strings.TrimSpace(ev.Text)
	out := &TaskMemories{}
	mem := &cairn.Memory{Title: ev.Title, FileRefs: ev.Files, Source: cairn.SourceAutomatic}
	switch ev.Event {
	case TaskCreated:
		mem.Type, mem.Key, mem.Content = "task_input", "task:"+ev.Task+":input", truncateRunes(redact.Text(text), MaxTaskInputRunes)
	case TaskCompleted:
		mem.Type, mem.Content = "task_result", taskResultContent(text, ev.Files)
		if ev.Task != "" {
			mem.Key = "task:" + ev.Task + ":result"
		}
		out.Signals, out.Problems = Parse(text)
		for _, lm := range LearnFromTask(project, ev.Agent, redact.Text(text)) {
			lm.TaskID, lm.SessionID, lm.Hat = ev.Task, ev.Session, ev.Hat
			out.Learned = append(out.Learned, lm)
		}
	case TaskFailed:
		mem.Type, mem.Content = "issue", text
		if ev.Learns() {
			mem = LearnFromFailure("", ev.Agent, ev.Title, redact.Text(text))
			mem.FileRefs = ev.Files
		}
	}
	mem.Project = project
	mem.TaskID, mem.Agent, mem.SessionID, mem.Hat = ev.Task, ev.Agent, ev.Session, ev.Hat
	out.Event = mem
	return out
}

// Provenance is the provenance of ev's signals.
func (ev TaskEvent) Provenance() Provenance {
	return Provenance{Hat: ev.Hat, Agent: ev.Agent, Task: ev.Task, Session: ev.Session}
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
