package engine

import (
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

// Each set of patterns is tried only on text that holds one of its
// needles (ASCII, compared case-insensitively, chosen without the letters
// k and s, whose case folds include non-ASCII letters): a pattern cannot
// match text without them, and most memories have none, so writes do not
// pay for the regular expressions.
var overrideRE = gated([]string{"ignore", "regard", "forget", "override", "now", "prompt"}, overrideUngated)

var overrideUngated = anyOf(
	`(?i)\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|of\s+)*(?:your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|existing|original)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|context|messages)\b`,
	`(?i)\byou\s+are\s+now\s+(?:an?\s|no\s+longer\b|in\s+(?:developer|god|jailbreak|dan|unrestricted)\s+mode\b|acting\s+as\b|unrestricted\b|dan\b)`,
	`(?i)\bnew\s+system\s+prompt\s*:`,
)

var roleRE = gated([]string{"<", "[", "human", "tant"}, roleUngated)

var roleUngated = anyOf(
	`(?i)</?\s*(?:tool_use|tool_result|function_calls|function_results|system-reminder|antml:[a-z_]+)\b[^>]*>`,
	`(?i)<invoke\s+name\s*=`,
	`(?i)</?\s*(?:system|assistant|human)\s*>`,
	`<\|[a-z_]+\|>`,
	`\[/?INST\]`,
	`<</?SYS>>`,
	`(?m)^[ \t]*(?:Human|Assistant)[ \t]*:[ \t]*\S`,
)

// gated returns found, called only when s holds one of needles (lower
// case ASCII), ASCII letters compared case-insensitively.
func gated(needles []string, found func(string) bool) func(string) bool {
	return func(s string) bool {
		lower := []byte(s)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		for _, n := range needles {
			if strings.Contains(string(lower), n) {
				return found(s)
			}
		}
		return false
	}
}

// anyOf compiles each pattern on its own (so that no flag of one applies
// to another), on first use rather than at start-up, and reports whether
// any matches.
func anyOf(patterns ...string) func(string) bool {
	compile := sync.OnceValue(func() []*regexp.Regexp {
		res := make([]*regexp.Regexp, len(patterns))
		for i, p := range patterns {
			res[i] = regexp.MustCompile(p)
		}
		return res
	})
	return func(s string) bool {
		for _, re := range compile() {
			if re.MatchString(s) {
				return true
			}
		}
		return false
	}
}

// instructionFlags returns the Memory.Flag of title and content.
func instructionFlags(title, content string) string {
	var kinds []string
	for _, k := range []struct {
		kind  string
		found func(string) bool
	}{
		{cairn.FlagOverride, overrideRE},
		{cairn.FlagHiddenCharacters, hasHiddenCharacters},
		{cairn.FlagRoleSyntax, roleRE},
	} {
		if k.found(title) || k.found(content) {
			kinds = append(kinds, k.kind)
		}
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
