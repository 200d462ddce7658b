package httpapi

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/jsonlite"
)

// ContextIn and ContextOut are what a hook's client sends and reads on
// every prompt and tool call: they are written and read without
// reflection (package jsonlite), with the bytes and values encoding/json
// gives, because its reflection costs a short-lived process more than
// the rest of the exchange.

// MarshalJSON writes in as encoding/json writes the struct, byte for byte.
func (in ContextIn) MarshalJSON() ([]byte, error) {
	if len(in.Config) > 0 {
		// A configuration is compacted and checked as encoding/json does.
		type plain ContextIn
		return json.Marshal(plain(in))
	}
	b := make([]byte, 1, 128+len(in.Prompt))
	b[0] = '{'
	key := func(k string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
	}
	str := func(k, v string) {
		if v != "" {
			key(k)
			b = jsonlite.AppendString(b, v)
		}
	}
	strs := func(k string, v []string) {
		if len(v) > 0 {
			key(k)
			b = jsonlite.AppendStrings(b, v)
		}
	}
	num := func(k string, v *int) {
		if v != nil {
			key(k)
			b = strconv.AppendInt(b, int64(*v), 10)
		}
	}
	flag := func(k string, v bool) {
		if v {
			key(k)
			b = append(b, "true"...)
		}
	}
	str("profile", in.Profile)
	str("prompt", in.Prompt)
	strs("files", in.Files)
	str("hat", in.Hat)
	str("agent", in.Agent)
	str("task", in.Task)
	str("session", in.Session)
	num("budget", in.Budget)
	num("limit", in.Limit)
	num("max_chars", in.MaxChars)
	str("format", in.Format)
	str("mode", in.Mode)
	str("search_mode", in.SearchMode)
	flag("dry_run", in.DryRun)
	strs("tiers", in.Tiers)
	strs("types", in.Types)
	flag("index", in.Index)
	flag("explain", in.Explain)
	if in.MaxJSONChars != 0 {
		num("max_json_chars", &in.MaxJSONChars)
	}
	str("root", in.Root)
	strs("conversations", in.Conversations)
	flag("default_config", in.DefaultConfig)
	return append(b, '}'), nil
}

// UnmarshalJSON decodes b into o as encoding/json decodes the struct,
// with the same result and the same errors.
func (o *ContextOut) UnmarshalJSON(b []byte) error {
	if utf8.Valid(b) {
		// Into a copy, kept only when the whole answer reads: a key that
		// is absent, or a null string or number, leaves o's value, as
		// encoding/json does; a null list empties it.
		t := *o
		var seen uint8
		d := jsonlite.NewReader(b)
		ok := d.Object(func(k []byte) bool {
			var f uint8
			switch string(k) {
			case "block":
				f = 1
			case "ids":
				f = 2
			case "tokens":
				f = 4
			case "explain":
				f = 8
			default:
				return false
			}
			if seen&f != 0 {
				return false
			}
			seen |= f
			if d.Null() {
				if f == 2 {
					t.IDs = nil
				}
				return true
			}
			var ok bool
			switch f {
			case 1:
				t.Block, ok = d.String()
			case 2:
				t.IDs, ok = d.Strings()
			case 4:
				t.Tokens, ok = d.Int()
			case 8:
				t.Explain, ok = d.String()
			}
			return ok
		})
		if ok && d.End() {
			*o = t
			return nil
		}
	}
	type plain ContextOut
	return json.Unmarshal(b, (*plain)(o))
}
