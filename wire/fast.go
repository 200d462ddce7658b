package wire

import (
	"strconv"
	"unicode/utf8"
)

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
	d := fastDecoder{b: b}
	w := &Memory{}
	var seen uint32
	d.space()
	if !d.byte('{') {
		return nil, false
	}
	d.space()
	if d.peek() == '}' {
		d.i++
	} else {
		for {
			key, ok := d.key()
			if !ok {
				return nil, false
			}
			f := fieldOf(key)
			if f < 0 || seen&(1<<f) != 0 {
				return nil, false
			}
			seen |= 1 << f
			d.space()
			if !d.byte(':') {
				return nil, false
			}
			d.space()
			if !d.field(w, f) {
				return nil, false
			}
			d.space()
			if d.byte(',') {
				d.space()
				continue
			}
			if !d.byte('}') {
				return nil, false
			}
			break
		}
	}
	d.space()
	return w, d.i == len(b)
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

type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte consumes c if it comes next.
func (d *fastDecoder) byte(c byte) bool {
	if d.peek() == c {
		d.i++
		return true
	}
	return false
}

// null consumes a null if one comes next.
func (d *fastDecoder) null() bool {
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// key returns the next object key, a string without escapes.
func (d *fastDecoder) key() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return d.b[start : d.i-1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// str returns the next value, a string.
func (d *fastDecoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return string(d.b[start : d.i-1]), true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		}
		d.i++
	}
	return "", false
}

// escaped finishes a string that started at start and has an escape at
// d.i. Escapes of UTF-16 surrogates are left to encoding/json.
func (d *fastDecoder) escaped(start int) (string, bool) {
	out := make([]byte, d.i-start, d.i-start+64)
	copy(out, d.b[start:d.i])
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if d.i+4 > len(d.b) {
				return "", false
			}
			r, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
			if err != nil || r >= 0xD800 && r < 0xE000 {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			d.i += 4
		default:
			return "", false
		}
	}
	return "", false
}

// number returns the next value's text if it is a JSON number.
func (d *fastDecoder) number() (string, bool) {
	start := d.i
	d.byte('-')
	switch c := d.peek(); {
	case c == '0':
		d.i++
	case '1' <= c && c <= '9':
		d.digits()
	default:
		return "", false
	}
	if d.byte('.') && !d.digits() {
		return "", false
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.i++
		if c := d.peek(); c == '+' || c == '-' {
			d.i++
		}
		if !d.digits() {
			return "", false
		}
	}
	return string(d.b[start:d.i]), true
}

// digits consumes a run of digits and reports whether there was one.
func (d *fastDecoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// list returns the next value, an array of strings.
func (d *fastDecoder) list() ([]string, bool) {
	if !d.byte('[') {
		return nil, false
	}
	out := []string{}
	d.space()
	if d.byte(']') {
		return out, true
	}
	for {
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		d.space()
		if d.byte(']') {
			return out, true
		}
		if !d.byte(',') {
			return nil, false
		}
		d.space()
	}
}

// field decodes the next value into field f of w.
func (d *fastDecoder) field(w *Memory, f int) bool {
	if d.null() {
		return true // every field's zero value
	}
	switch f {
	case fConfidence:
		s, ok := d.number()
		if !ok {
			return false
		}
		v, err := strconv.ParseFloat(s, 64)
		w.Confidence = v
		return err == nil
	case fUseCount:
		s, ok := d.number()
		if !ok {
			return false
		}
		v, err := strconv.ParseInt(s, 10, 0)
		w.UseCount = int(v)
		return err == nil
	case fPinned:
		switch {
		case len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true":
			w.Pinned = true
			d.i += 4
		case len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false":
			d.i += 5
		default:
			return false
		}
		return true
	case fTags, fFileRefs:
		l, ok := d.list()
		if f == fTags {
			w.Tags = l
		} else {
			w.FileRefs = l
		}
		return ok
	}
	s, ok := d.str()
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
