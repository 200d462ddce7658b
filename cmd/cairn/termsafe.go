package main

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// termSafe wraps the writer of a command's human-readable output: a
// memory's text may hold terminal control sequences (an OSC 52 clipboard
// write, a title change, a screen clear) or bidirectional overrides that
// make text read differently from what it is, and printed raw they would
// act on the reader's terminal. Every control character but line feed and
// tab, and every bidirectional control, is written as a visible escape
// (\x1b, \r, \u009b, \u202e). JSON output needs none of this: encoding/json
// escapes C0 controls itself, and a program reads it, not a terminal.
func termSafe(w io.Writer) io.Writer { return &safeWriter{w: w} }

type safeWriter struct{ w io.Writer }

func (s *safeWriter) Write(p []byte) (int, error) {
	clean := true
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		if needsEscape(r, n) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case !needsEscape(r, n):
			out = append(out, p[i:i+n]...)
		case r == '\r':
			out = append(out, `\r`...)
		case r < 0x80:
			out = fmt.Appendf(out, `\x%02x`, r)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// needsEscape reports whether a rune (of n bytes; invalid UTF-8 is left as
// it is) acts on a terminal or reorders text: C0 controls but '\n' and
// '\t', DEL, C1 controls, and the bidirectional embeddings, overrides and
// isolates.
func needsEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return false
	case r < 0x20:
		return r != '\n' && r != '\t'
	case r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
