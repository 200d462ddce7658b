package main

// Tests of terminal safety: a memory's control characters reach a
// terminal as visible escapes, never raw.
//
// Bad inputs tried here: an OSC 52 clipboard write, a window-title change,
// a screen clear, a carriage return that hides a line's start, a C1 CSI
// (U+009B), a right-to-left override (U+202E), in a memory's content and
// the title cut from it, through show, list, search, log and recall.

import (
	"bytes"
	"strings"
	"testing"
)

// hostile holds sequences a terminal acts on.
const hostile = "Pin \x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 and \x1b]0;pwned\x07 then \x1b[2J\x1b[H, a \rhidden start, \u009b31m C1 and \u202eevil\u202c bidi"

func TestHumanOutputEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--type", "decision", "Pin versions "+hostile)
	for _, args := range [][]string{
		{"show", id},
		{"list"},
		{"search", "pin versions"},
		{"search", "--explain", "pin versions"},
		{"log"},
		{"recall"},
	} {
		r := c.ok(args...)
		for _, raw := range []string{"\x1b", "\x07", "\r", "\u009b", "\u202e"} {
			if strings.Contains(r.stdout, raw) {
				t.Errorf("cairn %s printed %q raw:\n%q", strings.Join(args, " "), raw, r.stdout)
			}
		}
		if !strings.Contains(r.stdout, `\x1b]52;c;`) && (args[0] == "show" || args[0] == "search") {
			t.Errorf("cairn %s: want the escape shown as \\x1b, got %q", strings.Join(args, " "), r.stdout)
		}
	}
	// JSON stays exact: a program reads it, and encoding/json escapes C0.
	r := c.ok("show", "--json", id)
	if !strings.Contains(r.stdout, `\u001b]52;c;`) {
		t.Errorf("show --json: %q", r.stdout)
	}
}

func TestTermSafeKeepsTextAndSplitsNothing(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text\n\tindented, ünïcödé, 日本語": "plain text\n\tindented, ünïcödé, 日本語",
		"a\x1b[31mred\x1b[0m":                  `a\x1b[31mred\x1b[0m`,
		"del\x7f nul\x00 bell\x07":             `del\x7f nul\x00 bell\x07`,
		"c1 \u0085 \u009b":                     `c1 \u0085 \u009b`,
		"bidi \u2066x\u2069":                   `bidi \u2066x\u2069`,
		"invalid \xff\xfe utf-8":               "invalid \xff\xfe utf-8",
	} {
		var b bytes.Buffer
		n, err := termSafe(&b).Write([]byte(in))
		if err != nil || n != len(in) || b.String() != want {
			t.Errorf("termSafe(%q) = %q, %d, %v; want %q", in, b.String(), n, err, want)
		}
	}
}
