package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// clipByFields is clip's definition: the words of s joined by one space,
// cut to n-1 runes and "…" when longer than n runes.
func clipByFields(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func TestClipIsItsDefinition(t *testing.T) {
	long := strings.Repeat("word ", 5000)
	for _, c := range []struct {
		s string
		n int
	}{
		{"", 5}, {"   ", 5}, {"abc", 3}, {"abcd", 3}, {"ab cd", 5}, {"ab cd", 4},
		{"  ab \n\t cd  ", 5}, {"  ab \n\t cd  ", 4}, {"ab  ", 2}, {"ab  c", 3}, {"ab  c", 4},
		{"héllo wörld", 7}, {"日本語 テキスト です", 5}, {"a\u00a0b\u2003c", 3}, {"x", 1}, {"xy", 1},
		{long, 160}, {long, 80},
	} {
		if got, want := clip(c.s, c.n), clipByFields(c.s, c.n); got != want {
			t.Errorf("clip(%q, %d) = %q, want %q", c.s, c.n, got, want)
		}
	}
}

// FuzzClip: clip gives what its definition gives, for any valid UTF-8
// text and width (odd spaces, long words, multi-byte runes).
func FuzzClip(f *testing.F) {
	f.Add("  one two\tthree\n four  ", 7)
	f.Add("日本語 テキスト", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if !utf8.ValidString(s) || n < 1 || n > 1000 {
			t.Skip()
		}
		if got, want := clip(s, n), clipByFields(s, n); got != want {
			t.Errorf("clip(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}
