package conversation

import (
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
)

// Signals returns the memories the messages signal (package capture:
// MEMORY:, <learning>, <failure-report>, …), in the user's and the
// assistant's messages (not the system's). An assistant's memories are
// written by its sender, when named. The caller sets the project and
// fills in the provenance left empty; the problems of chat text are not
// worth reporting and are dropped. It is deterministic: the extraction
// that needs no model.
func Signals(msgs []Message) []*cairn.Memory {
	var out []*cairn.Memory
	for _, msg := range msgs {
		if msg.Role != RoleUser && msg.Role != RoleAssistant {
			continue
		}
		sigs, _ := capture.Parse(msg.Content)
		for _, sig := range sigs {
			mem := sig.Memory("")
			if msg.Role == RoleAssistant && msg.SenderName != "" {
				mem.Agent = msg.SenderName
			}
			out = append(out, mem)
		}
	}
	return out
}

// Render renders messages for a model as "role: content" lines, one
// message after the other.
func Render(msgs []Message) string {
	var b strings.Builder
	for _, msg := range msgs {
		b.WriteString(msg.Role)
		b.WriteString(": ")
		b.WriteString(msg.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// AddMessage appends msg to the log and records, in the state of its
// month, the chat it belongs to (chat, when not nil) and the project's
// name as the month's project path (when none is recorded). It returns
// the month.
func (l *Log) AddMessage(msg Message, chat *string) (month string, err error) {
	if _, err := l.Append(msg); err != nil {
		return "", err
	}
	month = MonthOf(msg.Timestamp)
	err = l.Update(func(st State) error {
		ms := st[month]
		if chat != nil {
			ms.ChatID = *chat
		}
		if ms.ProjectPath == "" {
			ms.ProjectPath = l.Project
		}
		st[month] = ms
		return nil
	})
	return month, err
}
