package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// node is a JSON value that keeps what a user's file had: the order of an
// object's keys and the exact text of every scalar (a string's escapes, a
// number's spelling), so that re-encoding an untouched file gives the same
// bytes when it was indented the way [encode] indents.
type node struct {
	kind byte // '{' object, '[' array, 'v' scalar
	keys []string
	vals []*node // object values, in key order; array elements
	raw  string  // a scalar's JSON text
}

func (n *node) isObject() bool { return n != nil && n.kind == '{' }
func (n *node) isArray() bool  { return n != nil && n.kind == '[' }

// get returns the value of key in an object (the first, if repeated).
func (n *node) get(key string) *node {
	if !n.isObject() {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// set replaces key's value, or appends key at the end of the object.
func (n *node) set(key string, v *node) {
	for i, k := range n.keys {
		if k == key {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

// del removes every occurrence of key from an object.
func (n *node) del(key string) {
	for i := 0; i < len(n.keys); i++ {
		if n.keys[i] == key {
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i], n.vals[i+1:]...)
			i--
		}
	}
}

// str returns a scalar's string value, and whether it is a string.
func (n *node) str() (string, bool) {
	if n == nil || n.kind != 'v' || !strings.HasPrefix(n.raw, `"`) {
		return "", false
	}
	var s string
	if json.Unmarshal([]byte(n.raw), &s) != nil {
		return "", false
	}
	return s, true
}

func newObject() *node { return &node{kind: '{'} }
func newArray() *node  { return &node{kind: '['} }

// scalar encodes a Go string, number or bool as a JSON scalar node.
func scalar(v any) *node {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings, ints and bools always encode
	return &node{kind: 'v', raw: strings.TrimSuffix(b.String(), "\n")}
}

// SyntaxError is a file that is not valid JSON (or TOML): where, and why.
// Install and uninstall leave such a file untouched.
type SyntaxError struct {
	Path string
	Line int // 1-based; 0 when unknown
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s; cairn left the file untouched, fix it and run again", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s; cairn left the file untouched, fix it and run again", e.Path, e.Msg)
}

// lineOf is the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// parseObject reads a JSON document whose top level must be an object. An
// empty (or all white space) document is an empty object.
func parseObject(path string, data []byte) (*node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &SyntaxError{Path: path, Line: lineOf(data, se.Offset), Msg: "malformed JSON: " + se.Error()}
		}
		return nil, &SyntaxError{Path: path, Msg: "malformed JSON: " + err.Error()}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, &SyntaxError{Path: path, Line: 1, Msg: "the top level is not a JSON object"}
	}
	p := &parser{data: data}
	return p.value(), nil
}

// parser walks a document that encoding/json has already accepted, so it
// checks nothing.
type parser struct {
	data []byte
	i    int
}

func (p *parser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() *node {
	p.ws()
	switch p.data[p.i] {
	case '{':
		p.i++
		n := &node{kind: '{'}
		for {
			p.ws()
			if p.data[p.i] == '}' {
				p.i++
				return n
			}
			if p.data[p.i] == ',' {
				p.i++
				continue
			}
			k := p.scalarText()
			var key string
			_ = json.Unmarshal([]byte(k), &key)
			p.ws()
			p.i++ // ':'
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, p.value())
		}
	case '[':
		p.i++
		n := &node{kind: '['}
		for {
			p.ws()
			if p.data[p.i] == ']' {
				p.i++
				return n
			}
			if p.data[p.i] == ',' {
				p.i++
				continue
			}
			n.vals = append(n.vals, p.value())
		}
	default:
		return &node{kind: 'v', raw: p.scalarText()}
	}
}

// scalarText returns the text of the string, number or literal at p.i.
func (p *parser) scalarText() string {
	start := p.i
	if p.data[p.i] == '"' {
		p.i++
		for p.data[p.i] != '"' {
			if p.data[p.i] == '\\' {
				p.i++
			}
			p.i++
		}
		p.i++
		return string(p.data[start:p.i])
	}
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return string(p.data[start:p.i])
		}
		p.i++
	}
	return string(p.data[start:p.i])
}

// detectIndent returns the indentation unit of a document: the white space
// before the first indented line's text, else two spaces.
func detectIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 || len(t) == len(line) {
			continue
		}
		return string(line[:len(line)-len(t)])
	}
	return "  "
}

// encode writes n the way JSON.stringify(v, null, indent) and Go's
// MarshalIndent do: one member or element a line, `"key": value`, empty
// containers as {} and [].
func encode(n *node, indent string) []byte {
	var b bytes.Buffer
	write(&b, n, indent, 0)
	return b.Bytes()
}

func write(b *bytes.Buffer, n *node, indent string, depth int) {
	switch n.kind {
	case 'v':
		b.WriteString(n.raw)
	case '{', '[':
		open, close := byte('{'), byte('}')
		if n.kind == '[' {
			open, close = '[', ']'
		}
		b.WriteByte(open)
		if len(n.vals) == 0 {
			b.WriteByte(close)
			return
		}
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(indent, depth+1))
			if n.kind == '{' {
				b.WriteString(scalar(n.keys[i]).raw)
				b.WriteString(": ")
			}
			write(b, v, indent, depth+1)
		}
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(indent, depth))
		b.WriteByte(close)
	}
}

// render encodes a document edited from old: old's indentation, and a
// final newline when old had one (or was new).
func render(n *node, old []byte) []byte {
	out := encode(n, detectIndent(old))
	if len(bytes.TrimSpace(old)) == 0 || bytes.HasSuffix(old, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}
