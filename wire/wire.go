// Package wire is cairn's JSON form of memories: the export document of
// seed 000, JSON Lines, and the objects that `--json` output, the HTTP API
// and MCP tools carry. Field names are those of seed 000's export format
// (use_count, last_used_at, file_refs, …) and are a stable contract.
//
// Reading is lenient where other tools differ (a task id may be a number,
// tags may be a JSON array or a comma-separated string, times may be
// RFC 3339, "YYYY-MM-DD HH:MM:SS" or a date) and strict where data would be
// lost (a confidence that is not a number is an error).
package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Memory is the JSON form of a cairn.Memory.
type Memory struct {
	ID                 string  `json:"id"`
	Project            string  `json:"project,omitempty"`
	Scope              string  `json:"scope,omitempty"`
	Type               string  `json:"type"`
	Key                string  `json:"key,omitempty"`
	Title              string  `json:"title"`
	Content            string  `json:"content"`
	Tags               List    `json:"tags"`
	FileRefs           List    `json:"file_refs"`
	Confidence         float64 `json:"confidence"`
	Source             string  `json:"source,omitempty"`
	CreatedByAgent     Text    `json:"created_by_agent,omitempty"`
	CreatedByHat       Text    `json:"created_by_hat,omitempty"`
	CreatedByTaskID    Text    `json:"created_by_task_id,omitempty"`
	CreatedBySessionID Text    `json:"created_by_session_id,omitempty"`
	CreatedAt          Time    `json:"created_at,omitzero"`
	UpdatedAt          Time    `json:"updated_at,omitzero"`
	LastUsedAt         Time    `json:"last_used_at,omitzero"`
	VerifiedAt         Time    `json:"verified_at,omitzero"`
	ExpiresAt          Time    `json:"expires_at,omitzero"`
	UseCount           int     `json:"use_count"`
	Pinned             bool    `json:"pinned,omitempty"`
	SupersededBy       string  `json:"superseded_by,omitempty"`
	Flag               string  `json:"flag,omitempty"`
}

// FromMemory converts a memory to its JSON form.
func FromMemory(m *cairn.Memory) *Memory {
	tags, refs := m.Tags, m.FileRefs
	if tags == nil {
		tags = []string{}
	}
	if refs == nil {
		refs = []string{}
	}
	return &Memory{
		ID: m.ID, Project: m.Project, Scope: string(m.Scope), Type: m.Type, Key: m.Key,
		Title: m.Title, Content: m.Content, Tags: tags, FileRefs: refs,
		Confidence: round(m.Confidence), Source: string(m.Source),
		CreatedByAgent: Text(m.Agent), CreatedByHat: Text(m.Hat),
		CreatedByTaskID: Text(m.TaskID), CreatedBySessionID: Text(m.SessionID),
		CreatedAt: Time(m.CreatedAt), UpdatedAt: Time(m.UpdatedAt), LastUsedAt: Time(m.LastUsedAt),
		VerifiedAt: Time(m.VerifiedAt), ExpiresAt: Time(m.ExpiresAt),
		UseCount: m.UseCount, Pinned: m.Pinned, SupersededBy: m.SupersededBy, Flag: m.Flag,
	}
}

func round(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 4, 64), 64)
	return v
}

// ToMemory converts the JSON form to a memory (not yet validated).
func (w *Memory) ToMemory() *cairn.Memory {
	return &cairn.Memory{
		ID: w.ID, Project: w.Project, Scope: cairn.Scope(w.Scope), Type: w.Type, Key: w.Key,
		Title: w.Title, Content: w.Content, Tags: w.Tags, FileRefs: w.FileRefs,
		Confidence: w.Confidence, Source: cairn.Source(w.Source),
		Agent: string(w.CreatedByAgent), Hat: string(w.CreatedByHat),
		TaskID: string(w.CreatedByTaskID), SessionID: string(w.CreatedBySessionID),
		CreatedAt: time.Time(w.CreatedAt), UpdatedAt: time.Time(w.UpdatedAt),
		LastUsedAt: time.Time(w.LastUsedAt), VerifiedAt: time.Time(w.VerifiedAt),
		ExpiresAt: time.Time(w.ExpiresAt), UseCount: w.UseCount, Pinned: w.Pinned,
		SupersededBy: w.SupersededBy, Flag: w.Flag,
	}
}

// Document is seed 000's export document.
type Document struct {
	Version    int       `json:"version"`
	Project    string    `json:"project"`
	ExportedAt Time      `json:"exported_at"`
	Memories   []*Memory `json:"memories"`
}

// DocumentVersion is the version of Document that cairn writes.
const DocumentVersion = 1

// Time is a time in JSON: written as RFC 3339 in UTC with milliseconds
// when they are not zero; read from RFC 3339, "YYYY-MM-DD HH:MM:SS"
// (SQLite's CURRENT_TIMESTAMP), "YYYY-MM-DD", or null.
type Time time.Time

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	if tt.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + FormatTime(tt) + `"`), nil
}

// Time returns t as a time.Time.
func (t Time) Time() time.Time { return time.Time(t) }

// IsZero lets omitzero leave unset times out.
func (t Time) IsZero() bool { return time.Time(t).IsZero() }

// FormatTime is how cairn writes times: RFC 3339, UTC, milliseconds only
// when not zero.
func FormatTime(t time.Time) string {
	return t.UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano)
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a time must be a string such as 2024-01-15T10:30:00Z")
	}
	v, err := ParseTime(s)
	if err != nil {
		return err
	}
	*t = Time(v)
	return nil
}

// ParseTime reads the time formats Time accepts; "" is the zero time.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
		if v, err := time.Parse(layout, s); err == nil {
			return v.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: use RFC 3339 (2024-01-15T10:30:00Z) or a date (2024-01-15)", s)
}

// Text is a string that may also be written as a JSON number (seed 000
// stores task ids as integers).
type Text string

// UnmarshalJSON implements json.Unmarshaler.
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*t = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Text(s)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		*t = Text(b)
	default:
		return fmt.Errorf("expected a string or a number")
	}
	return nil
}

// List is a list of strings that may also be written as one
// comma-separated string, or as a JSON array encoded in a string (as seed
// 000 stores tags).
type List []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *List) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*l = nil
		return nil
	}
	if len(b) > 0 && b[0] == '[' {
		var xs []string
		if err := json.Unmarshal(b, &xs); err != nil {
			return fmt.Errorf("expected a list of strings")
		}
		*l = xs
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("expected a list of strings")
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		var xs []string
		if err := json.Unmarshal([]byte(s), &xs); err == nil {
			*l = xs
			return nil
		}
	}
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	*l = out
	return nil
}
