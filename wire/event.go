package wire

import "github.com/cairn-dev/cairn"

// Event is the JSON form of an event (cairn.Event): the data of a
// server-sent event of `cairn serve`'s /api/projects/{project}/events, and
// a line of `cairn watch --json`.
type Event struct {
	Seq       int64  `json:"seq"`
	At        Time   `json:"at"`
	Project   string `json:"project"`
	MemoryID  string `json:"memory_id"`
	Action    string `json:"action"`
	SessionID string `json:"session_id,omitempty"`
	Detail    string `json:"detail,omitempty"`
	Type      string `json:"type,omitempty"`  // the memory's, while it exists
	Title     string `json:"title,omitempty"` // the memory's, while it exists
}

// FromEvent converts an event to its JSON form.
func FromEvent(e cairn.Event) Event {
	return Event{Seq: e.Seq, At: Time(e.At), Project: e.Project, MemoryID: e.MemoryID, Action: e.Action,
		SessionID: e.SessionID, Detail: e.Detail, Type: e.Type, Title: e.Title}
}

// ToEvent converts the JSON form back to an event.
func (e Event) ToEvent() cairn.Event {
	return cairn.Event{Seq: e.Seq, At: e.At.Time(), Project: e.Project, MemoryID: e.MemoryID, Action: e.Action,
		SessionID: e.SessionID, Detail: e.Detail, Type: e.Type, Title: e.Title}
}
