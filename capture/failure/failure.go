// Package failure reads what a failed shell command says: the lines of its
// output that name the error (ErrorLines), a form of such a line that
// stays the same when the paths, numbers and ids in it change (Normalize,
// Signature), and which command it was (CommandKey), so that the same
// failure met in another session, in another folder or on another line of
// a file is recognised as the same.
//
// The rules hold for any toolchain's output: compilers (go, rustc, gcc,
// clang, tsc), test runners (go test, pytest, jest, cargo test), package
// managers, shells, git, ssh, database clients. An error line is one that
// names what went wrong: a diagnostic ("file.go:12:3: undefined: x"), an
// exception with its message ("ModuleNotFoundError: No module named
// 'ruamel'"), an assertion, "command not found", "Permission denied",
// "cannot open". The lines that only say that something failed are not:
// a runner's header or summary ("--- FAIL: TestX (0.00s)", "FAIL
// pkg [build failed]", "error: could not compile `x` due to 3 previous
// errors", "Found 2 errors", "make: *** [all] Error 2", "Exit code 1"), a
// traceback's frame lines, npm's lifecycle lines, a tool call cancelled
// because a sibling call failed.
package failure

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MaxLineBytes bounds an error line as ErrorLines returns it.
const MaxLineBytes = 240

// maxScan bounds the output ErrorLines reads: the last part of a longer
// output, where a failure's summary and last errors are.
const maxScan = 1 << 20

var (
	ansiRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]`)
	})
	// errorWordRE marks a line that may name an error.
	errorWordRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(errors?|err!|fatal|panic(ked)?|exception|failed|failure|cannot|can't|could not|couldn't|unable to|not found|no such|undefined|undeclared|unresolved|missing|denied|refused|timed out|timeout|no module named|unknown|invalid|mismatch|not used|unexpected|expected|does not exist|doesn't exist|is not defined|not a function|has no attribute|unsupported|conflict|not installed|not recognized|violat\w*|assert\w*|segmentation fault|aborted|killed|rejected|unauthorized|forbidden)\b|\b\w+(Error|Exception)\b`)
	})
	// diagnosticRE is a compiler's, linter's or test's line: a file, a
	// line (and column), then the message.
	diagnosticRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:[A-Za-z]:)?[\w./\\@+-]*[\w-]\.\w{1,6}[:(]\d+(?:[:,]\d+)?\)?:?\s+(.*)$`)
	})
	// exceptionRE is an exception's type and message: "KeyError: 'x'".
	exceptionRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:[\w.]+\.)?\w+(?:Error|Exception|Fault)\b:\s*\S`)
	})
	// pytestSummaryRE is pytest's short summary line; the part after " - "
	// is the error.
	pytestSummaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:FAILED|ERROR)\s+\S+(?:::\S+)*\s+-\s+(.+)$`)
	})
	// genericRE are the lines that say only that something failed, not
	// what: headers and summaries of runners and build tools.
	genericRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(` + strings.Join(genericLines, "|") + `)`)
	})
	quotedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("[`'\"‘“][^`'\"’”<>]{1,}[`'\"’”]") })
	wordRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z]{2,}`) })
)

// genericStartRE and genericAnywhereRE are genericRE in two: its
// alternatives at the line's start, and those it finds anywhere in the
// line (".*" first), without their ".*". On a line without a newline
// (where "." matches every character) one of the two matches exactly when
// genericRE does; each costs a fraction of it, the first failing at the
// line's first characters.
var (
	genericStartRE = sync.OnceValue(func() *regexp.Regexp {
		var alts []string
		for _, a := range genericLines {
			if !strings.HasPrefix(a, ".*") {
				alts = append(alts, a)
			}
		}
		return regexp.MustCompile(`(?i)^(` + strings.Join(alts, "|") + `)`)
	})
	genericAnywhereRE = sync.OnceValue(func() *regexp.Regexp {
		var alts []string
		for _, a := range genericLines {
			if rest, ok := strings.CutPrefix(a, ".*"); ok {
				alts = append(alts, rest)
			}
		}
		return regexp.MustCompile(`(?i)(` + strings.Join(alts, "|") + `)`)
	})
)

// generic reports whether line says only that something failed
// (genericRE).
func generic(line string) bool {
	if strings.IndexByte(line, '\n') >= 0 {
		return genericRE().MatchString(line)
	}
	return genericStartRE().MatchString(line) || mayEndGeneric(line) && genericAnywhereRE().MatchString(line)
}

// genericAnywhereWords are words one of which each alternative of
// genericAnywhereRE holds as it is (a test checks it).
var genericAnywhereWords = []string{"error", "exit status", "elifecycle", "command failed with exit code"}

// mayEndGeneric reports whether line may match genericAnywhereRE: whether
// it holds one of genericAnywhereWords, in any case. A line that is not
// ASCII may hold them in letters that only fold to ASCII ones ("ſ" is an
// "s" to (?i)), so it may.
func mayEndGeneric(line string) bool {
	for i := range len(line) {
		if line[i] >= utf8.RuneSelf {
			return true
		}
	}
	l := strings.ToLower(line)
	for _, w := range genericAnywhereWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// genericLines are the alternatives of genericRE.
var genericLines = []string{
	`exit (code|status) -?\d+`,
	`.*\bexit status \d+$`,
	`(fail|ok)\s+\S+\s+(\[[^\]]*\]|[\d.]+s|\(cached\))`,
	`fail\s*$`, `fail\s+\S+\s*$`, `failed\s*$`, `errors?:?\s*$`, `error!?\s*$`,
	`-{2,} fail:`, `=== (run|cont|pause)`,
	`.*could not compile .* due to \d+ previous errors?`,
	`error: aborting due to`, `for more information about (this|an) error`,
	`some errors have detailed explanations`,
	`error: (could not compile|test failed, to rerun)`,
	`make(\[\d+\])?: \*\*\*`, `.*\berror \d+\s*$`,
	`npm err! (code|errno|a complete log|this is probably|failed at|exit status|lifecycle|syscall|path|command failed|signal)`,
	`.*\belifecycle\b`, `.*command failed with exit code`, `error command failed`,
	`traceback \(most recent call last\)`, `file ".*", line \d+`, `during handling of the above exception`,
	`the above exception was the direct cause`,
	`\d+ (failed|errors?|failures?|problems?)\b`, `found \d+ errors?`, `\d+ errors? generated`,
	`tests?:\s+\d+ failed`, `test suites:\s+\d+ failed`, `test result: failed`,
	`[=_-]{3,}.*(failed|errors?|failures|short test summary)`,
	`(build|tests?|compilation|lint(ing)?) failed\.?\s*$`,
	`.*sibling tool call errored`, `\[request interrupted`, `<tool_use_error>`,
	`(warning|note|help|hint|info):`, `\s*\d+\s*\|`, `\s*\|`, `\s*-->`, `\s*\^[~^\s]*$`,
	`=\s*(note|help)\b`, `--\s`, `\*{3}\s`,
	`error: script .* failed`, `error: process completed with exit code`,
	`error: recipe for target`, `.*too many errors`, `error: the following`,
	`the command .* exited with`, `.*returned non-zero exit status \d+\.?$`,
}

// ErrorLines returns the lines of a failed command's output that name its
// error, in the order they appear, without repeats (by Normalize), at most
// max of them (max < 1 means 5), each at most MaxLineBytes long. ANSI
// escapes are removed and the lines trimmed. A pytest summary line keeps
// only its error ("FAILED t.py::test_x - AssertionError: …" gives
// "AssertionError: …"). An output that names no error gives none.
func ErrorLines(output string, max int) []string {
	if max < 1 {
		max = 5
	}
	if len(output) > maxScan {
		output = output[len(output)-maxScan:]
		if i := strings.IndexByte(output, '\n'); i >= 0 {
			output = output[i+1:]
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, raw := range strings.Split(output, "\n") {
		line, ok := ErrorLine(raw)
		if !ok {
			continue
		}
		n := Normalize(line)
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, line)
		if len(out) == max {
			break
		}
	}
	return out
}

// ErrorLine reports whether one line of output names an error, and gives
// it cleaned (ANSI escapes removed, trimmed, cut to MaxLineBytes; a pytest
// summary line reduced to its error).
func ErrorLine(raw string) (string, bool) {
	if len(raw) > 4*MaxLineBytes*4 {
		return "", false // minified code or data, not a message
	}
	line := strings.TrimSpace(strings.TrimRight(stripANSI(raw), "\r"))
	if line == "" {
		return "", false
	}
	if strings.HasPrefix(line, "FAILED") || strings.HasPrefix(line, "ERROR") {
		if m := pytestSummaryRE().FindStringSubmatch(line); m != nil {
			line = m[1]
		}
	}
	if generic(line) {
		return "", false
	}
	var diag []string
	if hasDigit(line) {
		diag = diagnosticRE().FindStringSubmatch(line)
	}
	return judge(line, diag)
}

// judge is ErrorLine's verdict on a cleaned line that no generic pattern
// matched, diag the line's match of diagnosticRE (nil: none).
func judge(line string, diag []string) (string, bool) {
	switch {
	case diag != nil:
		msg := strings.ToLower(diag[1])
		if strings.HasPrefix(msg, "warning") || strings.HasPrefix(msg, "note") || strings.HasPrefix(msg, "info") {
			return "", false
		}
		if len(wordRE().FindAllString(diag[1], -1)) < 2 {
			return "", false
		}
	case exceptionRE().MatchString(line):
	case errorWordRE().MatchString(line):
		if !specific(line) {
			return "", false
		}
	default:
		return "", false
	}
	return cut(line, MaxLineBytes), true
}

// specific reports whether a line says enough to tell one error from
// another: five words, or three and a quoted name.
func specific(line string) bool {
	n := Normalize(line)
	words := len(wordRE().FindAllString(placeholderRE().ReplaceAllString(n, " "), -1))
	if words >= 5 {
		return true
	}
	return words >= 3 && (quotedRE().MatchString(line) || identRE().MatchString(line))
}

// identRE is a name from code: snake_case, kebab-case, camelCase, a
// qualified name (a.b, a::b).
var identRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b[A-Za-z]\w*(?:[_-]|::|\.)[A-Za-z]\w*|\b[a-z]+[A-Z]\w*`)
})

var (
	urlRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[a-zA-Z][\w+.-]*://\S+`) })
	// pathRE is a path with at least one separator, or a file name with a
	// line number.
	pathRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\\/][\w.@+~%-]+)+[\\/]?|[\w.@+~-]+(?:[\\/][\w.@+~%-]+)+[\\/]?|\b[\w-]+\.[A-Za-z]\w{0,5}(?::\d+)+`)
	})
	uuidRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	})
	hexRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:0x[0-9a-f]+|[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*\d[0-9a-f]*)\b`)
	})
	numRE         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+(?:[.:,]\d+)*`) })
	placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<(?:p|n|id|url)>`) })
)

// Normalize is line with what changes from one run to the next replaced:
// ANSI escapes removed, URLs as <url>, paths (and file:line:col) as <p>,
// uuids and hexadecimal ids (of 6 or more digits, or 0x…) as <id>, numbers
// (and line:col) as <n>, lower case, white space collapsed. Two errors
// are the same failure when their normalised forms are equal.
//
// Each pattern runs only on a line holding what every match of it holds
// (an escape, "://", a dash, a separator, a digit): most error lines
// have no URL, id or path, and the patterns cost more than the rest of
// the answer after a failure but its search.
func Normalize(line string) string {
	s := stripANSI(line)
	if strings.Contains(s, "://") {
		s = urlRE().ReplaceAllString(s, "<url>")
	}
	if strings.IndexByte(s, '-') >= 0 {
		s = uuidRE().ReplaceAllString(s, "<id>")
	}
	// A path holds a separator; a file name with a line number, a colon
	// and a digit.
	if strings.ContainsAny(s, `/\`) || colonDigit(s) {
		s = pathRE().ReplaceAllString(s, "<p>")
	}
	if hasDigit(s) {
		s = hexRE().ReplaceAllStringFunc(s, func(h string) string {
			if len(h) >= 6 || strings.HasPrefix(strings.ToLower(h), "0x") {
				return "<id>"
			}
			return h
		})
		s = numRE().ReplaceAllString(s, "<n>")
	}
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// stripANSI is s without its ANSI escapes (ansiRE, every match of which
// starts with ESC).
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	return ansiRE().ReplaceAllString(s, "")
}

// colonDigit reports whether s holds a colon followed by an ASCII digit.
func colonDigit(s string) bool {
	for i := strings.IndexByte(s, ':'); i >= 0 && i+1 < len(s); {
		if c := s[i+1]; c >= '0' && c <= '9' {
			return true
		}
		j := strings.IndexByte(s[i+1:], ':')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// hasDigit reports whether s holds an ASCII digit, which every match of
// hexRE, numRE and diagnosticRE holds (\d is ASCII only).
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// Signature is a short, stable name of an error line: 12 hexadecimal
// digits of a hash of its normalised form. Lines with the same Normalize
// have the same signature.
func Signature(line string) string {
	sum := sha256.Sum256([]byte(Normalize(line)))
	return hex.EncodeToString(sum[:6])
}

// missingRE marks an error that says a module, package or program is not
// there: what an install, not an edit of the code, fixes.
var missingRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)no module named|modulenotfounderror|command not found|\bnot found in \$?path|failed to spawn|cannot find module|could not find (module|package|command|executable)|is not recognized as an internal or external command|executable file not found|not installed|cannot find package|no required module provides package|missing (module|package|dependency)|can't find crate|no matching package named|package .* is not in (std|goroot)|unable to locate package|no such command|importerror: cannot import name`)
})

// Missing reports whether an error line says that a module, package or
// program is missing.
func Missing(line string) bool { return missingRE().MatchString(line) }

// missingProgramRE marks an error that says a program is not there.
var missingProgramRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)command not found|\bnot found in \$?path|failed to spawn|is not recognized as an internal or external command|executable file not found|no such command`)
})

// MissingProgram reports whether an error line says that the program a
// command runs is missing (not a module the code imports).
func MissingProgram(line string) bool { return missingProgramRE().MatchString(line) }

// cut shortens s to at most n bytes on a rune boundary, "…" marking a cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimRightFunc(s[:n], unicode.IsSpace) + "…"
}

// failedTestRE names a failed test in a runner's report: go test's
// "--- FAIL: TestX", pytest's "FAILED path::test_x", cargo test's "test
// x ... FAILED", jest's "● Suite › test".
var failedTestRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:--- FAIL: (\S+)|FAILED (\S+::[^\s]+)|test (\S+) \.\.\. FAILED|● (.+?)\s*$)`)
})

// FailedTests are the names of the tests a runner's output reports as
// failed, in order, without repeats, at most max (max < 1 means 3).
func FailedTests(output string, max int) []string {
	if max < 1 {
		max = 3
	}
	var out []string
	for _, m := range failedTestRE().FindAllStringSubmatch(stripANSI(output), -1) {
		for _, g := range m[1:] {
			if g != "" && !slices.Contains(out, g) && len(out) < max {
				out = append(out, cut(g, 120))
			}
		}
	}
	return out
}
