package wire

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/cairn-dev/cairn"
)

// Item is a memory in the shape of the per-type JSON Lines files that
// agents browse (the "MemoryItem" of the specification cairn's exports
// follow): camelCase names, the task or session it came from, who wrote
// it. It is written for reading, not for import: `cairn export` without
// --format item writes what import reads back whole.
type Item struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Content     string `json:"content"`
	Source      string `json:"source"`             // "task" for a task's memory, else cairn's source (explicit, automatic, extracted, imported)
	SourceID    string `json:"sourceId,omitempty"` // the task id, else the session id
	ProjectPath string `json:"projectPath"`        // the project's folder when known, else its name
	CreatedBy   string `json:"createdBy,omitempty"`
	CreatedAt   string `json:"createdAt"` // RFC 3339 with milliseconds, UTC
}

// ItemOf is m as an Item; projectPath is the project's folder, or "" for
// the project's name.
func ItemOf(m *cairn.Memory, projectPath string) Item {
	it := Item{ID: m.ID, Type: m.Type, Content: m.Content, Source: string(m.Source), SourceID: m.SessionID,
		ProjectPath: projectPath, CreatedBy: m.Agent, CreatedAt: m.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	if m.TaskID != "" {
		it.Source, it.SourceID = "task", m.TaskID
	}
	if it.ProjectPath == "" {
		it.ProjectPath = m.Project
	}
	if it.CreatedBy == "" {
		it.CreatedBy = m.Hat
	}
	return it
}

// WriteItems writes ms as Items, one JSON object a line.
func WriteItems(w io.Writer, ms []*cairn.Memory, projectPath string) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, m := range ms {
		if err := enc.Encode(ItemOf(m, projectPath)); err != nil {
			return err
		}
	}
	return bw.Flush()
}
