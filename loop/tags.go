package loop

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Relevance tags (seed 003): a learning is tagged, when it is captured,
// with the files, error types and tools of its iteration, so that a later
// task about the same file, error or tool finds it by tag as well as by
// its words. Tags are namespaced: file:PATH, error:KIND, tool:NAME.

// maxTagsEach bounds the tags of each kind a learning gets.
const maxTagsEach = 4

var (
	// filePattern is a path with an extension, or with a folder: what a
	// result names when it names a file.
	filePattern = regexp.MustCompile(`(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.(?:go|py|ts|tsx|js|jsx|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|swift|php|sql|sh|toml|yaml|yml|json|md|proto|css|html|vue)\b`)
	// errorTypePattern is an error type's own name (TypeError,
	// NullPointerException, ErrNotFound).
	errorTypePattern = regexp.MustCompile(`\b(?:[A-Z][A-Za-z0-9]*(?:Error|Exception)|Err[A-Z][A-Za-z0-9]*)\b`)
)

// errorKinds are kinds of failure a result names in words, and the tag
// each gets.
var errorKinds = []struct {
	re  *regexp.Regexp
	tag string
}{
	{regexp.MustCompile(`(?i)\btim(?:es|ed)? ?out\b|\btimeout\b|deadline exceeded`), "timeout"},
	{regexp.MustCompile(`(?i)nil pointer|null pointer|nil map|segmentation fault|segfault`), "nil-pointer"},
	{regexp.MustCompile(`(?i)\bpanic(?:ked|s)?\b`), "panic"},
	{regexp.MustCompile(`(?i)\bdeadlock`), "deadlock"},
	{regexp.MustCompile(`(?i)data race|race detected|race condition`), "race"},
	{regexp.MustCompile(`(?i)\bundefined:|cannot find symbol|compil(?:e|ation) (?:error|failed)|syntax error`), "compile"},
	{regexp.MustCompile(`(?i)permission denied|access denied|forbidden`), "permission"},
	{regexp.MustCompile(`(?i)rate[- ]limit`), "rate-limit"},
	{regexp.MustCompile(`(?i)out of memory|\boom\b`), "out-of-memory"},
	{regexp.MustCompile(`(?i)connection refused|connection reset|no route to host`), "connection"},
	{regexp.MustCompile(`(?i)\bflaky\b`), "flaky"},
}

// tools are the commands a result may name, by the word that names each.
var tools = regexp.MustCompile(`\b(go (?:test|build|vet|run)|npm|npx|yarn|pnpm|pytest|pip|cargo|make|docker|kubectl|git|jest|vitest|tsc|eslint|gradle|mvn|bundle|rake|terraform|psql|sqlite3|curl)\b`)

// relevanceTags are the tags of the files, error types and tools that
// text names, at most maxTagsEach of each, in the order they appear.
func relevanceTags(text string) []string {
	var out []string
	add := func(prefix string, vs []string) {
		n := 0
		for _, v := range vs {
			t := prefix + strings.ToLower(v)
			if n == maxTagsEach || slices.Contains(out, t) || !cairn.ValidName(t) {
				continue
			}
			out = append(out, t)
			n++
		}
	}
	var files []string
	for _, f := range filePattern.FindAllString(text, -1) {
		files = append(files, path.Clean(f))
	}
	add("file:", files)
	errs := errorTypePattern.FindAllString(text, -1)
	for _, k := range errorKinds {
		if k.re.MatchString(text) {
			errs = append(errs, k.tag)
		}
	}
	add("error:", errs)
	var ts []string
	for _, m := range tools.FindAllString(text, -1) {
		ts = append(ts, strings.Fields(m)[0])
	}
	add("tool:", ts)
	return out
}
