package failure

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// normalizeAll is Normalize running every pattern on every line, as it
// did before it looked for what each pattern needs.
func normalizeAll(line string) string {
	s := ansiRE().ReplaceAllString(line, "")
	s = urlRE().ReplaceAllString(s, "<url>")
	s = uuidRE().ReplaceAllString(s, "<id>")
	s = pathRE().ReplaceAllString(s, "<p>")
	s = hexRE().ReplaceAllStringFunc(s, func(h string) string {
		if len(h) >= 6 || strings.HasPrefix(strings.ToLower(h), "0x") {
			return "<id>"
		}
		return h
	})
	s = numRE().ReplaceAllString(s, "<n>")
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// errorLineAll is ErrorLine running every pattern on every line; the
// verdict on what they found (judge) is the one ErrorLine gives.
func errorLineAll(raw string) (string, bool) {
	if len(raw) > 4*MaxLineBytes*4 {
		return "", false
	}
	line := strings.TrimSpace(strings.TrimRight(ansiRE().ReplaceAllString(raw, ""), "\r"))
	if line == "" {
		return "", false
	}
	if m := pytestSummaryRE().FindStringSubmatch(line); m != nil {
		line = m[1]
	}
	if genericRE().MatchString(line) {
		return "", false
	}
	return judge(line, diagnosticRE().FindStringSubmatch(line))
}

// errorPieces are parts of error lines, put together at random by
// TestTheLinesPatternsRunOnlyWhereTheyCanMatch: each pattern's matches and
// near misses (a colon without a digit, a dash without an id, "://"
// alone, escapes, the generic lines' words anywhere in a line).
var errorPieces = []string{
	"panic:", "error:", "Error", "ERROR", "FAILED", "FAILED tests/t.py::test_x -", "failed", "in the worker", "exit status 1",
	"Exit code 2", "exit code", "npm ERR! code ELIFECYCLE", "elifecycle", "command failed with exit code 1", "error 2",
	"could not compile `app` due to 3 previous errors", "too many errors", "returned non-zero exit status 2.",
	"sibling tool call errored", "--- FAIL: TestX (0.00s)", "=== RUN", "warning:", "note:", "|", "-->", "^^^", "***",
	"/srv/app/main.go", "main.go:12:3:", "db.rs:4", "C:\\work\\app.py", "./run.sh", "~/x/y", "lib/a-b_c.ts(3,4):",
	"https://example.com/a?b=1", "s3://bucket/key", "a://", "a1b2c3d4-0000-4000-8000-123456789abc", "well-known", "-",
	"0x7ffd3a2b", "4f2c9e1", "deadbeef", "42", "1.2.3", "12:30", "v2", "\x1b[31m", "\x1b[0m", "\x1b]0;t\x07", "\r",
	"undefined: Conn", "cannot find module 'x'", "No module named 'ruamel'", "KeyError: 'k'", "AssertionError:",
	"TypeError", "is not defined", "timed out", "Permission denied", "conn_pool", "fooBar", "a.b", "x::y", "'quoted'",
	"the", "worker", "goroutine", "decision", "remember", "\u212a", "\u017f", "exit ſtatus 3", "ﬀ", "é",
}

// The patterns skipped on a line that lacks what they need change
// nothing: Normalize, ErrorLine and the generic lines' test give what
// running every pattern gives, over lines made of every kind of piece.
func TestTheLinesPatternsRunOnlyWhereTheyCanMatch(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	lines := slices.Clone(errorPieces)
	for range 5000 {
		var b strings.Builder
		for i := range 1 + r.IntN(7) {
			if i > 0 && r.IntN(4) > 0 {
				b.WriteByte(" :/-."[r.IntN(5)])
			}
			b.WriteString(errorPieces[r.IntN(len(errorPieces))])
		}
		lines = append(lines, b.String(), "  "+b.String(), b.String()+"\n"+errorPieces[r.IntN(len(errorPieces))])
	}
	for _, l := range lines {
		if got, want := Normalize(l), normalizeAll(l); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q", l, got, want)
		}
		if got, want := generic(l), genericRE().MatchString(l); got != want {
			t.Fatalf("generic(%q) = %v, want %v", l, got, want)
		}
		got, ok := ErrorLine(l)
		if want, wantOK := errorLineAll(l); got != want || ok != wantOK {
			t.Fatalf("ErrorLine(%q) = %q, %v; want %q, %v", l, got, ok, want, wantOK)
		}
	}
}

// Each alternative genericRE finds anywhere in a line holds one of
// genericAnywhereWords as it is, so that mayEndGeneric lets through every
// line it can match; an alternative added without its word fails here.
func TestGenericAnywhereAlternativesHoldTheirWords(t *testing.T) {
	n := 0
	for _, a := range genericLines {
		rest, ok := strings.CutPrefix(a, ".*")
		if !ok {
			continue
		}
		n++
		if !slices.ContainsFunc(genericAnywhereWords, func(w string) bool { return strings.Contains(rest, w) }) {
			t.Errorf("%q holds none of %q", a, genericAnywhereWords)
		}
	}
	if n == 0 {
		t.Fatal("no alternative found anywhere in a line: the check reads nothing")
	}
}
