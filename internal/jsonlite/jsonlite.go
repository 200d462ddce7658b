// Package jsonlite reads and writes the JSON of cairn's small wire objects
// without reflection. encoding/json builds its decoders and encoders by
// reflection the first time it meets a type, which in a short-lived
// process (a CLI command, a hook) costs more than the request it serves.
//
// A Reader accepts only the plain form of JSON that cairn and most tools
// write: callers decode what it accepts and hand anything else
// (unknown or repeated keys, an unusual escape, a wrong type, a syntax
// error) to encoding/json, which gives the same value for every input a
// Reader-based decoder accepts and the error for the others. AppendString
// writes a string exactly as encoding/json does.
package jsonlite

import (
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Reader reads JSON values from a byte slice that must be valid UTF-8
// (check it with utf8.Valid first: encoding/json replaces invalid bytes,
// a Reader does not). Each method consumes its value and reports false,
// leaving the position unspecified, when the next value is not of the
// kind it reads.
type Reader struct {
	b []byte
	i int
}

// NewReader reads b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Peek returns the next byte, 0 at the end.
func (d *Reader) Peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// Space skips white space.
func (d *Reader) Space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// Byte consumes c if it comes next.
func (d *Reader) Byte(c byte) bool {
	if d.Peek() == c {
		d.i++
		return true
	}
	return false
}

// End reports whether only white space is left.
func (d *Reader) End() bool {
	d.Space()
	return d.i == len(d.b)
}

// Null consumes a null if one comes next.
func (d *Reader) Null() bool { return d.word("null") }

func (d *Reader) word(w string) bool {
	if len(d.b)-d.i >= len(w) && string(d.b[d.i:d.i+len(w)]) == w {
		d.i += len(w)
		return true
	}
	return false
}

// Key returns the next object key, a string without escapes.
func (d *Reader) Key() ([]byte, bool) {
	if !d.Byte('"') {
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

// Object reads an object: for each key in turn it calls field, which
// must read the key's value and report whether it could (false stops
// the object, and Object reports false).
func (d *Reader) Object(field func(key []byte) bool) bool {
	d.Space()
	if !d.Byte('{') {
		return false
	}
	d.Space()
	if d.Byte('}') {
		return true
	}
	for {
		key, ok := d.Key()
		if !ok {
			return false
		}
		d.Space()
		if !d.Byte(':') {
			return false
		}
		d.Space()
		if !field(key) {
			return false
		}
		d.Space()
		if d.Byte(',') {
			d.Space()
			continue
		}
		return d.Byte('}')
	}
}

// Array reads an array, calling elem for each element, which must read
// it and report whether it could.
func (d *Reader) Array(elem func() bool) bool {
	d.Space()
	if !d.Byte('[') {
		return false
	}
	d.Space()
	if d.Byte(']') {
		return true
	}
	for {
		d.Space()
		if !elem() {
			return false
		}
		d.Space()
		if d.Byte(']') {
			return true
		}
		if !d.Byte(',') {
			return false
		}
	}
}

// String returns the next value, a string.
func (d *Reader) String() (string, bool) {
	if !d.Byte('"') {
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
func (d *Reader) escaped(start int) (string, bool) {
	out := make([]byte, d.i-start, d.i-start+64)
	copy(out, d.b[start:d.i])
	for d.i < len(d.b) {
		// The run of plain bytes up to the next quote, backslash or
		// control character is copied at once.
		j := d.i
		for j < len(d.b) && d.b[j] != '"' && d.b[j] != '\\' && d.b[j] >= 0x20 {
			j++
		}
		out = append(out, d.b[d.i:j]...)
		if d.i = j; j == len(d.b) {
			break
		}
		switch c := d.b[j]; {
		case c == '"':
			d.i++
			return string(out), true
		case c < 0x20:
			return "", false
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
			r, ok := hex4(d.b[d.i : d.i+4])
			if !ok || r >= 0xD800 && r < 0xE000 {
				return "", false
			}
			out = utf8.AppendRune(out, r)
			d.i += 4
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape (encoding/json writes
// "<", ">" and "&" so, and a block holds many).
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number returns the next value's bytes if it is a JSON number.
func (d *Reader) number() ([]byte, bool) {
	start := d.i
	d.Byte('-')
	switch c := d.Peek(); {
	case c == '0':
		d.i++
	case '1' <= c && c <= '9':
		d.digits()
	default:
		return nil, false
	}
	if d.Byte('.') && !d.digits() {
		return nil, false
	}
	if c := d.Peek(); c == 'e' || c == 'E' {
		d.i++
		if c := d.Peek(); c == '+' || c == '-' {
			d.i++
		}
		if !d.digits() {
			return nil, false
		}
	}
	return d.b[start:d.i], true
}

// digits consumes a run of digits and reports whether there was one.
func (d *Reader) digits() bool {
	start := d.i
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// Float returns the next value, a number that fits a float64.
func (d *Reader) Float() (float64, bool) {
	b, ok := d.number()
	if !ok {
		return 0, false
	}
	// The bytes are read, not kept: no copy of them is made.
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	return v, err == nil
}

// Int returns the next value, an integer that fits an int (as
// encoding/json decodes into an int: no fraction, no exponent).
func (d *Reader) Int() (int, bool) {
	b, ok := d.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(b), len(b)), 10, 0)
	return int(v), err == nil
}

// Bool returns the next value, true or false.
func (d *Reader) Bool() (v, ok bool) {
	switch {
	case d.word("true"):
		return true, true
	case d.word("false"):
		return false, true
	}
	return false, false
}

// Strings returns the next value, an array of strings (an empty array
// gives an empty, not nil, slice, as encoding/json does).
func (d *Reader) Strings() ([]string, bool) {
	out := []string{}
	ok := d.Array(func() bool {
		s, ok := d.String()
		out = append(out, s)
		return ok
	})
	return out, ok
}

// AppendString appends s as a JSON string, byte for byte as
// encoding/json writes it (HTML characters, U+2028 and U+2029 escaped,
// invalid UTF-8 as U+FFFD).
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendStrings appends ss as a JSON array of strings (null for nil, as
// encoding/json writes a nil slice).
func AppendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}
