package wire

import "github.com/cairn-dev/cairn/internal/jsonlite"

// decodeFast decodes a record written the way cairn and most tools write
// one: an object whose keys are Memory's JSON names, each once, with
// values of the field's usual JSON type (or null), lists as arrays of
// strings, and times as strings. It reports false for anything else
// (other keys, a key twice, a task id as a number, a tag list in one
// string, a syntax error, an unusual escape), and then says nothing of
// the record: the caller decodes it with encoding/json, which gives the
// same Memory for every record decodeFast accepts, and the error for
// the others. Import spends most of its decoding time in encoding/json's
// reflection otherwise. b must be valid UTF-8.
func decodeFast(b []byte) (*Memory, bool) {
	d := jsonlite.NewReader(b)
	w := &Memory{}
	var seen uint32
	ok := d.Object(func(key []byte) bool {
		f := fieldOf(key)
		if f < 0 || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		return memoryField(d, w, f)
	})
	return w, ok && d.End()
}

// The fields decodeFast knows, by their JSON names.
const (
	fID = iota
	fProject
	fScope
	fType
	fKey
	fTitle
	fContent
	fTags
	fFileRefs
	fConfidence
	fSource
	fAgent
	fHat
	fTaskID
	fSessionID
	fCreatedAt
	fUpdatedAt
	fLastUsedAt
	fVerifiedAt
	fExpiresAt
	fUseCount
	fPinned
	fSupersededBy
	fFlag
)

func fieldOf(key []byte) int {
	switch string(key) {
	case "id":
		return fID
	case "project":
		return fProject
	case "scope":
		return fScope
	case "type":
		return fType
	case "key":
		return fKey
	case "title":
		return fTitle
	case "content":
		return fContent
	case "tags":
		return fTags
	case "file_refs":
		return fFileRefs
	case "confidence":
		return fConfidence
	case "source":
		return fSource
	case "created_by_agent":
		return fAgent
	case "created_by_hat":
		return fHat
	case "created_by_task_id":
		return fTaskID
	case "created_by_session_id":
		return fSessionID
	case "created_at":
		return fCreatedAt
	case "updated_at":
		return fUpdatedAt
	case "last_used_at":
		return fLastUsedAt
	case "verified_at":
		return fVerifiedAt
	case "expires_at":
		return fExpiresAt
	case "use_count":
		return fUseCount
	case "pinned":
		return fPinned
	case "superseded_by":
		return fSupersededBy
	case "flag":
		return fFlag
	}
	return -1
}

// memoryField decodes the next value into field f of w.
func memoryField(d *jsonlite.Reader, w *Memory, f int) bool {
	if d.Null() {
		return true // every field's zero value
	}
	switch f {
	case fConfidence:
		v, ok := d.Float()
		w.Confidence = v
		return ok
	case fUseCount:
		v, ok := d.Int()
		w.UseCount = v
		return ok
	case fPinned:
		v, ok := d.Bool()
		w.Pinned = v
		return ok
	case fTags, fFileRefs:
		l, ok := d.Strings()
		if f == fTags {
			w.Tags = l
		} else {
			w.FileRefs = l
		}
		return ok
	}
	s, ok := d.String()
	if !ok {
		return false
	}
	switch f {
	case fID:
		w.ID = s
	case fProject:
		w.Project = s
	case fScope:
		w.Scope = s
	case fType:
		w.Type = s
	case fKey:
		w.Key = s
	case fTitle:
		w.Title = s
	case fContent:
		w.Content = s
	case fSource:
		w.Source = s
	case fAgent:
		w.CreatedByAgent = Text(s)
	case fHat:
		w.CreatedByHat = Text(s)
	case fTaskID:
		w.CreatedByTaskID = Text(s)
	case fSessionID:
		w.CreatedBySessionID = Text(s)
	case fSupersededBy:
		w.SupersededBy = s
	case fFlag:
		w.Flag = s
	default:
		t, err := ParseTime(s)
		if err != nil {
			return false
		}
		switch f {
		case fCreatedAt:
			w.CreatedAt = Time(t)
		case fUpdatedAt:
			w.UpdatedAt = Time(t)
		case fLastUsedAt:
			w.LastUsedAt = Time(t)
		case fVerifiedAt:
			w.VerifiedAt = Time(t)
		case fExpiresAt:
			w.ExpiresAt = Time(t)
		}
	}
	return true
}
