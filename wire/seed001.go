package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Seed 001's memory items are JSON Lines of another shape:
//
//	{"id":"mem-a1b2c3d4","type":"decision","content":"…","source":"task",
//	 "sourceId":"task-xyz","projectPath":"/path/to/project","createdBy":"Alice",
//	 "createdAt":"2026-02-04T10:30:00.000Z"}
//
// They import without loss of what cairn can hold:
//
//	source "task"          source automatic, sourceId the task id
//	source "conversation"  (or "chat") source extracted, sourceId the session id
//	source "manual"        (or "user") source explicit; sourceId a tag source-id:…
//	another source         source imported, tagged source:<it> (when a valid
//	                       tag), sourceId a tag source-id:…
//	projectPath            the project, its last path element (when no project is given)
//	createdBy              the agent (when no created_by_agent is given)
//	createdAt, updatedAt   the times (when created_at, updated_at are not given)
type seed001 struct {
	Source      string          `json:"source"`
	SourceID    string          `json:"sourceId"`
	ProjectPath string          `json:"projectPath"`
	CreatedBy   string          `json:"createdBy"`
	CreatedAt   json.RawMessage `json:"createdAt"`
	UpdatedAt   json.RawMessage `json:"updatedAt"`
}

var seed001Keys = [][]byte{[]byte(`"sourceId"`), []byte(`"projectPath"`), []byte(`"createdBy"`), []byte(`"createdAt"`), []byte(`"updatedAt"`)}

// fromSeed001 applies the seed-001 fields of record b to m. It reads b
// again only when b has one of them, or a source cairn does not know.
func fromSeed001(b []byte, m *cairn.Memory) error {
	known := false
	switch m.Source {
	case "", cairn.SourceExplicit, cairn.SourceAutomatic, cairn.SourceExtracted, cairn.SourceImported:
		known = true
	}
	if known {
		has := false
		for _, k := range seed001Keys {
			if bytes.Contains(b, k) {
				has = true
				break
			}
		}
		if !has {
			return nil
		}
	}
	var s seed001
	if err := json.Unmarshal(b, &s); err != nil {
		return describe(err)
	}
	idTag := func() {
		if t := strings.ToLower("source-id:" + s.SourceID); s.SourceID != "" && cairn.ValidName(t) {
			m.Tags = append(m.Tags, t)
		}
	}
	switch strings.ToLower(s.Source) {
	case "", "explicit", "automatic", "extracted", "imported":
		idTag()
	case "task":
		m.Source = cairn.SourceAutomatic
		if m.TaskID == "" {
			m.TaskID = s.SourceID
		}
	case "conversation", "chat":
		m.Source = cairn.SourceExtracted
		if m.SessionID == "" {
			m.SessionID = s.SourceID
		}
	case "manual", "user":
		m.Source = cairn.SourceExplicit
		idTag()
	default:
		m.Source = cairn.SourceImported
		if t := "source:" + strings.ToLower(s.Source); cairn.ValidName(t) {
			m.Tags = append(m.Tags, t)
		}
		idTag()
	}
	if m.Project == "" && s.ProjectPath != "" {
		if p := path.Base(strings.TrimRight(strings.ReplaceAll(s.ProjectPath, "\\", "/"), "/")); p != "." && p != "/" {
			m.Project = p
		}
	}
	if m.Agent == "" {
		m.Agent = s.CreatedBy
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  *time.Time
	}{{"createdAt", s.CreatedAt, &m.CreatedAt}, {"updatedAt", s.UpdatedAt, &m.UpdatedAt}} {
		if len(f.raw) == 0 || string(f.raw) == "null" || !f.dst.IsZero() {
			continue
		}
		var t Time
		if err := t.UnmarshalJSON(f.raw); err != nil {
			return fmt.Errorf("field %s: %v", f.name, err)
		}
		*f.dst = time.Time(t)
	}
	return nil
}
