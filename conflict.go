package cairn

import "strings"

// Conflicts between memories (seed 004's open question 2, answered without
// a model): when a new memory has the key of a memory of another type, or
// says the opposite of a live memory about the same subject, the engine
// tags both with TagConflict and with ConflictTagPrefix + the other's id.
// A person resolves the conflict by superseding one with the other; a
// context block meanwhile shows the two as one conflict line.
const (
	TagConflict       = "conflict"
	ConflictTagPrefix = "conflict:"
)

// ConflictsWith returns the ids of the memories m is in conflict with, as
// its tags say.
func (m *Memory) ConflictsWith() []string {
	var ids []string
	for _, t := range m.Tags {
		if id, ok := strings.CutPrefix(t, ConflictTagPrefix); ok && id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}
