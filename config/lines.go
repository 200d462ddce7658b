package config

// The TOML decoder reports where syntax errors are but not where each key
// is, and errors about values must name their line. keyLines recovers the
// lines from the source of a document the decoder has already accepted: it
// only needs to tell keys from values, and stops at anything it does not
// expect (a key it did not reach is then reported at its table's line).

import (
	"strconv"
	"strings"
)

// pathKey is the map key of a path in keyLines's result. Elements of arrays
// (and of arrays of tables) are path parts "[0]", "[1]", ...
func pathKey(path []string) string { return strings.Join(path, "\x00") }

func indexPart(i int) string { return "[" + strconv.Itoa(i) + "]" }

// maxLineDepth bounds the paths keyLines records: no key of the
// configuration lies deeper, and recording every element of nested arrays
// (a file of [[[[…]]]]) would cost time quadratic in the nesting.
const maxLineDepth = 8

// keyLines returns the line where each key and table of src is defined,
// down to maxLineDepth parts.
func keyLines(src string) map[string]int {
	s := &scanner{src: src, line: 1, lines: map[string]int{}, arrays: map[string]int{}}
	s.document()
	return s.lines
}

// lineOf returns the line of path, or of its nearest ancestor that has
// one; 0 if none does.
func lineOf(lines map[string]int, path []string) int {
	for n := len(path); n > 0; n-- {
		if l, ok := lines[pathKey(path[:n])]; ok {
			return l
		}
	}
	return 0
}

type scanner struct {
	src    string
	pos    int
	line   int
	lines  map[string]int
	arrays map[string]int // elements so far of each array of tables
	table  []string
}

func (s *scanner) rest() string { return s.src[s.pos:] }

func (s *scanner) at(c byte) bool { return s.pos < len(s.src) && s.src[s.pos] == c }

func (s *scanner) record(path []string) {
	k := pathKey(path)
	if _, ok := s.lines[k]; !ok {
		s.lines[k] = s.line
	}
}

func (s *scanner) document() {
	for {
		s.skipSpace(true)
		if s.pos >= len(s.src) {
			return
		}
		switch {
		case strings.HasPrefix(s.rest(), "[["):
			s.pos += 2
			key, ok := s.key()
			if !ok || !strings.HasPrefix(s.skipBlank().rest(), "]]") {
				return
			}
			s.pos += 2
			path := s.inArrays(key)
			k := pathKey(path)
			i := s.arrays[k]
			s.arrays[k] = i + 1
			s.table = append(path, indexPart(i))
			s.record(path)
			s.record(s.table)
		case s.at('['):
			s.pos++
			key, ok := s.key()
			if !ok || !s.skipBlank().at(']') {
				return
			}
			s.pos++
			s.table = s.inArrays(key)
			s.record(s.table)
		default:
			key, ok := s.key()
			if !ok || !s.skipBlank().at('=') {
				return
			}
			s.pos++
			path := append(append([]string(nil), s.table...), key...)
			s.record(path)
			if !s.value(path) {
				return
			}
		}
	}
}

// inArrays inserts, after each part of a table header but the last, the
// index of the current element if that part names an array of tables
// ([keywords.sub] belongs to the last [[keywords]]).
func (s *scanner) inArrays(key []string) []string {
	var path []string
	for i, part := range key {
		path = append(path, part)
		if n := s.arrays[pathKey(path)]; n > 0 && i < len(key)-1 {
			path = append(path, indexPart(n-1))
		}
	}
	return path
}

// value skips a value, recording the keys of inline tables under path.
func (s *scanner) value(path []string) bool {
	s.skipBlank()
	if s.pos >= len(s.src) {
		return false
	}
	switch s.src[s.pos] {
	case '"', '\'':
		return s.str()
	case '[':
		s.pos++
		for i := 0; ; i++ {
			s.skipSpace(true)
			if s.pos >= len(s.src) {
				return false
			}
			if s.at(']') {
				s.pos++
				return true
			}
			elem := path
			if len(path) < maxLineDepth {
				elem = append(append([]string(nil), path...), indexPart(i))
				s.record(elem)
			}
			if !s.value(elem) {
				return false
			}
			s.skipSpace(true)
			if s.at(',') {
				s.pos++
			}
		}
	case '{':
		s.pos++
		for {
			s.skipSpace(true)
			if s.pos >= len(s.src) {
				return false
			}
			if s.at('}') {
				s.pos++
				return true
			}
			key, ok := s.key()
			if !ok || !s.skipBlank().at('=') {
				return false
			}
			s.pos++
			p := path
			if len(path) < maxLineDepth {
				p = append(append([]string(nil), path...), key...)
				s.record(p)
			}
			if !s.value(p) {
				return false
			}
			s.skipSpace(true)
			if s.at(',') {
				s.pos++
			}
		}
	}
	// A number, boolean or date: up to the next delimiter.
	for s.pos < len(s.src) && !strings.ContainsRune(",]}#\r\n", rune(s.src[s.pos])) {
		s.pos++
	}
	return true
}

// str skips a string of any of TOML's four kinds.
func (s *scanner) str() bool {
	q := s.src[s.pos]
	escapes := q == '"'
	if delim := strings.Repeat(string(q), 3); strings.HasPrefix(s.rest(), delim) {
		s.pos += 3
		for s.pos < len(s.src) {
			switch c := s.src[s.pos]; {
			case escapes && c == '\\':
				s.pos++
				if s.at('\n') {
					s.line++
				}
				s.pos++
			case c == '\n':
				s.line++
				s.pos++
			case strings.HasPrefix(s.rest(), delim):
				s.pos += 3
				// Up to two quotes may end the content: """a"""" is `a"`.
				for n := 0; n < 2 && s.at(q); n++ {
					s.pos++
				}
				return true
			default:
				s.pos++
			}
		}
		return false
	}
	s.pos++
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case escapes && c == '\\':
			s.pos += 2
		case c == q:
			s.pos++
			return true
		case c == '\n':
			return false
		default:
			s.pos++
		}
	}
	return false
}

// key reads a dotted key.
func (s *scanner) key() ([]string, bool) {
	var key []string
	for {
		s.skipBlank()
		part, ok := s.keyPart()
		if !ok {
			return nil, false
		}
		key = append(key, part)
		if !s.skipBlank().at('.') {
			return key, true
		}
		s.pos++
	}
}

func (s *scanner) keyPart() (string, bool) {
	if s.pos >= len(s.src) {
		return "", false
	}
	start := s.pos
	switch s.src[s.pos] {
	case '"':
		if !s.str() {
			return "", false
		}
		part, err := strconv.Unquote(s.src[start:s.pos])
		if err != nil {
			part = s.src[start+1 : s.pos-1]
		}
		return part, true
	case '\'':
		if !s.str() {
			return "", false
		}
		return s.src[start+1 : s.pos-1], true
	}
	for s.pos < len(s.src) && !strings.ContainsRune(" \t\r\n.=[]\"'#,{}", rune(s.src[s.pos])) {
		s.pos++
	}
	return s.src[start:s.pos], s.pos > start
}

// skipBlank skips spaces and tabs.
func (s *scanner) skipBlank() *scanner {
	for s.at(' ') || s.at('\t') {
		s.pos++
	}
	return s
}

// skipSpace skips white space and comments, and newlines if asked.
func (s *scanner) skipSpace(newlines bool) {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\r':
			s.pos++
		case '\n':
			if !newlines {
				return
			}
			s.line++
			s.pos++
		case '#':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		default:
			return
		}
	}
}

// parseKey splits a dotted key as TOML writes it: context.budget,
// keywords."quick task".mode.
func parseKey(k string) ([]string, bool) {
	s := &scanner{src: k}
	key, ok := s.key()
	if !ok || s.skipBlank().pos != len(k) {
		return nil, false
	}
	return key, true
}
