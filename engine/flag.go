package engine

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/cairn-dev/cairn"
)

// Memory text is data, but a memory can be written to read as
// instructions to the agent that is shown it. The engine does not refuse
// such text (a memory about prompt injection may quote it); it flags it
// when it is written, and every renderer shows the flag beside the
// memory. The rules aim at text that has no business in a note about a
// code base, so that ordinary coding memories are never flagged:
//
//   - override: "ignore/disregard/forget/override (all) previous/prior/
//     above/earlier instructions/prompts/rules/context", "you are now a/an
//     …", "you are now in developer mode", "new system prompt:";
//   - hidden characters: zero-width spaces and joiners between ASCII
//     characters, word joiners and invisible operators, a byte order mark
//     after the start, bidirectional embeddings, overrides and isolates,
//     left-to-right and right-to-left marks in text without Hebrew or
//     Arabic letters, and Unicode tag characters;
//   - role syntax: tags of tool calls and roles (<tool_use>, <tool_result>,
//     <function_calls>, <invoke …>, <system>, </system>, <assistant>,
//     <human>, <system-reminder>, <…>), chat-template tokens
//     (<|im_start|>, <|endoftext|> …, [INST], <<SYS>>), and "Human:",
//     "Assistant:" followed by text at the start of a line.

// Each pattern is tried only on text that holds its needles (ASCII,
// compared case-insensitively, chosen without the letters k and s, whose
// case folds include non-ASCII letters): one needle of every group. A
// pattern cannot match text without them, and most memories have none,
// so writes do not pay for the regular expressions.
var overridePatterns = patternSet{
	{[][]string{{"ignore", "regard", "forget", "override"}, {"previou", "prior", "above", "earlier", "preceding", "exi", "original"}},
		`(?i)\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|of\s+)*(?:your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|existing|original)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|context|messages)\b`},
	{[][]string{{"you"}, {"are"}, {"now"}},
		`(?i)\byou\s+are\s+now\s+(?:an?\s|no\s+longer\b|in\s+(?:developer|god|jailbreak|dan|unrestricted)\s+mode\b|acting\s+as\b|unrestricted\b|dan\b)`},
	{[][]string{{"new"}, {"prompt"}, {":"}},
		`(?i)\bnew\s+system\s+prompt\s*:`},
}

var rolePatterns = patternSet{
	{[][]string{{"<"}, {">"}, {"tool_", "function_", "reminder", "antml:"}},
		`(?i)</?\s*(?:tool_use|tool_result|function_calls|function_results|system-reminder|antml:[a-z_]+)\b[^>]*>`},
	{[][]string{{"<invo"}, {"="}},
		`(?i)<invoke\s+name\s*=`},
	{[][]string{{"<"}, {">"}, {"tem", "tant", "human"}},
		`(?i)</?\s*(?:system|assistant|human)\s*>`},
	{[][]string{{"<|"}, {"|>"}},
		`<\|[a-z_]+\|>`},
	{[][]string{{"inst]"}},
		`\[/?INST\]`},
	{[][]string{{"<<"}, {">>"}},
		`<</?SYS>>`},
	{[][]string{{"human", "tant"}, {":"}},
		`(?m)^[ \t]*(?:Human|Assistant)[ \t]*:[ \t]*\S`},
}

// overrideRE and roleRE report whether s matches one of their patterns.
func overrideRE(s string) bool { return overridePatterns.match(s, appendASCIILower(nil, s)) }
func roleRE(s string) bool     { return rolePatterns.match(s, appendASCIILower(nil, s)) }

// gatedPattern is a regular expression and the needles text must hold
// for it to match.
type gatedPattern struct {
	needles [][]string // one of each group, in the text's ASCII lower case
	pattern string
}

// patternSet is patterns tried in turn, each compiled on its own (so that
// no flag of one applies to another) on first use rather than at
// start-up.
type patternSet []gatedPattern

var compiled sync.Map // pattern → *regexp.Regexp

func compile(pattern string) *regexp.Regexp {
	if re, ok := compiled.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re, _ := compiled.LoadOrStore(pattern, regexp.MustCompile(pattern))
	return re.(*regexp.Regexp)
}

// match reports whether s, whose ASCII lower case is lower, matches one
// of the patterns.
func (ps patternSet) match(s string, lower []byte) bool {
next:
	for _, p := range ps {
		for _, group := range p.needles {
			if !slices.ContainsFunc(group, func(n string) bool { return bytes.Contains(lower, []byte(n)) }) {
				continue next
			}
		}
		if compile(p.pattern).MatchString(s) {
			return true
		}
	}
	return false
}

// appendASCIILower appends s with its ASCII letters in lower case (and
// only those: the needles are ASCII) to b.
func appendASCIILower(b []byte, s string) []byte {
	b = append(b, s...)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// lowerBufs are instructionFlags's buffers for lower-cased text.
var lowerBufs = sync.Pool{New: func() any { return new([]byte) }}

// instructionFlags returns the Memory.Flag of title and content.
func instructionFlags(title, content string) string {
	buf := lowerBufs.Get().(*[]byte)
	*buf = appendASCIILower(appendASCIILower((*buf)[:0], title), content)
	defer func() {
		if cap(*buf) <= 1<<20 { // keep no huge text's buffer
			lowerBufs.Put(buf)
		}
	}()
	lowTitle, lowContent := (*buf)[:len(title)], (*buf)[len(title):]
	var kinds []string
	if overridePatterns.match(title, lowTitle) || overridePatterns.match(content, lowContent) {
		kinds = append(kinds, cairn.FlagOverride)
	}
	if hasHiddenCharacters(title) || hasHiddenCharacters(content) {
		kinds = append(kinds, cairn.FlagHiddenCharacters)
	}
	if rolePatterns.match(title, lowTitle) || rolePatterns.match(content, lowContent) {
		kinds = append(kinds, cairn.FlagRoleSyntax)
	}
	return strings.Join(kinds, ",")
}

// flagOrder is the order of the kinds in a Memory.Flag.
var flagOrder = []string{cairn.FlagOverride, cairn.FlagHiddenCharacters, cairn.FlagRoleSyntax}

// mergeFlags joins two Memory.Flag values: a flag given with a memory
// (by an import) is kept, along with what the engine finds. Unknown kinds
// are dropped.
func mergeFlags(given, found string) string {
	if given == "" {
		return found
	}
	var kinds []string
	all := strings.Split(given+","+found, ",")
	for _, k := range flagOrder {
		if slices.ContainsFunc(all, func(s string) bool { return strings.TrimSpace(strings.ToLower(s)) == k }) {
			kinds = append(kinds, k)
		}
	}
	return strings.Join(kinds, ",")
}

// hasHiddenCharacters reports whether s holds characters that hide text
// from a reader (see the rules above).
func hasHiddenCharacters(s string) bool {
	ascii := true // every character looked for is outside ASCII
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < 0x80
	}
	if ascii {
		return false
	}
	rs := []rune(s)
	rtl := -1 // unknown yet: whether s has Hebrew or Arabic letters
	for i, r := range rs {
		switch {
		case r == 0x200B, r >= 0x2060 && r <= 0x2064, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069,
			r >= 0xE0000 && r <= 0xE007F:
			return true
		case r == 0xFEFF && i > 0:
			return true
		case r == 0x200C || r == 0x200D:
			// Joiners belong in emoji sequences and some scripts; between
			// ASCII characters they only hide.
			if i > 0 && i+1 < len(rs) && rs[i-1] < 0x80 && rs[i+1] < 0x80 {
				return true
			}
		case r == 0x200E || r == 0x200F:
			if rtl < 0 {
				rtl = 0
				if strings.IndexFunc(s, func(r rune) bool { return unicode.In(r, unicode.Hebrew, unicode.Arabic) }) >= 0 {
					rtl = 1
				}
			}
			if rtl == 0 {
				return true
			}
		}
	}
	return false
}
