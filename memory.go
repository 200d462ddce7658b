package cairn

import (
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Scope says who can see a memory: its own project only, or every project
// (user-wide preferences and conventions).
type Scope string

const (
	ScopeProject Scope = "project"
	ScopeGlobal  Scope = "global"
)

// Source says how a memory came to be. It sets the default initial
// confidence (see InitialConfidence).
type Source string

const (
	SourceExplicit  Source = "explicit"  // a person or an agent asked to remember it
	SourceAutomatic Source = "automatic" // derived by cairn from agent activity
	SourceExtracted Source = "extracted" // produced by a model from conversation
	SourceImported  Source = "imported"  // read from an export or another tool
)

// Confidence bounds and steps. Confidence is in [MinConfidence, MaxConfidence]
// after any automatic change; a caller may set 1.0 explicitly.
const (
	MinConfidence = 0.1
	MaxConfidence = 0.95
	UsageBoost    = 0.02
	DecayPerWeek  = 0.02
)

// Boosted is a confidence conf after uses uses, each adding boost up to
// max as one use does: a confidence already at or above max is left as
// it is. Stores apply many uses at once with it.
func Boosted(conf float64, uses int64, boost, max float64) float64 {
	for range uses {
		if conf < max {
			conf = math.Min(max, conf+boost)
		}
	}
	return conf
}

// Limits on what a memory may hold. Writes beyond them fail with EINVALID.
const (
	MaxContentBytes = 64 * 1024
	MaxTitleBytes   = 512
	MaxTags         = 64
	MaxFileRefs     = 64
	MaxNameBytes    = 128 // type, tag, key, project, provenance fields
)

// The kinds of Memory.Flag: text that reads as instructions to the agent.
const (
	// FlagOverride: a phrase that tries to replace the agent's
	// instructions ("ignore previous instructions", "you are now …").
	FlagOverride = "override"
	// FlagHiddenCharacters: zero-width, bidirectional-control or tag
	// characters that hide text from a person reading the memory.
	FlagHiddenCharacters = "hidden-characters"
	// FlagRoleSyntax: the syntax of a tool call or a conversation role
	// (<tool_use>, </system>, <|im_start|>, "Human:" at the start of a
	// line …) that could pass for the agent's own transcript.
	FlagRoleSyntax = "role-syntax"
)

// Memory is one thing an agent learned about a project.
type Memory struct {
	ID      string
	Project string // the project it belongs to (for global scope: where it was learned)
	Scope   Scope
	Type    string // an open set; see DefaultTypes
	Key     string // optional; writing the same (project, type, key) updates in place
	Title   string
	Content string
	Tags    []string // namespaced tags such as "scope:global", "agent:claude"
	// FileRefs are globs or paths of the files the memory is about.
	FileRefs   []string
	Confidence float64
	Source     Source

	// Provenance: who wrote it, while doing what.
	Agent     string
	Hat       string
	TaskID    string
	SessionID string

	CreatedAt  time.Time
	UpdatedAt  time.Time
	LastUsedAt time.Time // zero when never used
	VerifiedAt time.Time // zero when never verified
	ExpiresAt  time.Time // zero when it does not expire
	UseCount   int

	Pinned       bool   // always injected into context
	SupersededBy string // id of the memory that replaces this one; kept searchable, not injected
	// Flag says why the memory's text reads as instructions to an agent
	// rather than as data: the kinds found (FlagOverride,
	// FlagHiddenCharacters, FlagRoleSyntax), comma-separated in that
	// order, "" when none. The engine sets it on every write; renderers
	// show it.
	Flag string

	// Set by the engine; backends store them as given.
	ContentHash string // hash of the whitespace-normalised content, for dedup
	Partition   string // the search index partition: the project, or "" for global scope
	DocNum      int64  // the memory's number in its partition's search index
}

// Live reports whether m is in force at now: not expired and not superseded.
func (m *Memory) Live(now time.Time) bool {
	if m.SupersededBy != "" {
		return false
	}
	return m.ExpiresAt.IsZero() || now.Before(m.ExpiresAt)
}

// HasTag reports whether m carries tag t.
func (m *Memory) HasTag(t string) bool {
	for _, x := range m.Tags {
		if x == t {
			return true
		}
	}
	return false
}

// ValidName reports whether s can name a type or a tag: 1 to MaxNameBytes
// bytes of lowercase ASCII letters, digits and "_ - : . /", starting with a
// letter or digit.
func ValidName(s string) bool {
	if s == "" || len(s) > MaxNameBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && (c == '_' || c == '-' || c == ':' || c == '.' || c == '/'):
		default:
			return false
		}
	}
	return true
}

// ValidProject reports whether s can name a project: 1 to MaxNameBytes bytes
// of valid UTF-8 without control characters.
func ValidProject(s string) bool {
	if s == "" || len(s) > MaxNameBytes || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// NormalizeContent folds runs of white space to one space and trims the
// ends: two contents are "the same" for deduplication when their
// normalised forms are equal.
func NormalizeContent(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// TitleFromContent derives a title from content by seed 000's rule: the
// first sentence or line, at most 100 bytes (cut on a rune boundary) with
// "..." appended when cut.
//
// The title is one clean line even when the content is terminal output:
// ANSI escape sequences (colours, cursor moves, OSC titles) are dropped, a
// carriage return ends the line as a newline does, a tab becomes a space,
// and other control characters are dropped.
func TitleFromContent(content string) string {
	t := strings.TrimSpace(plainLine(content))
	if i := sentenceEnd(t); i > 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	if len(t) > 100 {
		t = strings.TrimSpace(CutBytes(t, 100)) + "..."
	}
	return t
}

// CutBytes returns s cut to at most n bytes on a rune boundary (s itself
// when it is no longer), so that a cut never splits a character.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// plainLine returns the first line of s (ended by a newline or a carriage
// return) without ANSI escape sequences and control characters, tabs
// turned to spaces.
func plainLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\r':
			if strings.TrimSpace(b.String()) != "" {
				return b.String()
			}
			b.Reset() // leading blank lines
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
		case r == utf8.RuneError && size == 1:
			b.WriteByte(s[i]) // left for validation to refuse
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapeLen returns the length of the escape sequence at the start of s,
// which starts with ESC: a CSI sequence (ESC [ parameters final), an OSC or
// similar string (ESC ] … BEL or ESC \\), or ESC, intermediate bytes and
// one final character.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
			if s[i] < 0x20 || s[i] > 0x7e {
				return i // not a well-formed sequence: drop what was read
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			if s[i] == '\n' {
				return i
			}
		}
		return len(s)
	}
	// ESC, intermediate bytes (ESC ( B selects a character set), a final.
	i := 1
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	return min(i+1, len(s))
}

// sentenceEnd returns the index of the first ". " (a period followed by
// space) or a final ".", so that "fmt.Errorf" or "v1.2" do not end a title.
func sentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' && (i == len(s)-1 || s[i+1] == ' ') {
			return i
		}
	}
	return -1
}

// TitleRepeatsContent reports whether a title only repeats the start of
// the content, as a title derived from the first sentence does (maybe cut,
// with "..." appended): up to white space, and with a trailing "..." of
// the title ignored. Such a title is neither indexed nor rendered again.
func TitleRepeatsContent(title, content string) bool {
	return hasNormalizedPrefix(content, strings.TrimSuffix(title, "..."))
}

// HasOwnTitle reports whether m's title is its own, not just the start of
// its content (see TitleRepeatsContent).
func HasOwnTitle(m *Memory) bool {
	return strings.TrimSpace(m.Title) != "" && !TitleRepeatsContent(m.Title, m.Content)
}

// SameOwnTitle reports whether a and b are of one type and bear the same
// title of their own (HasOwnTitle), case and surrounding space aside: a
// boilerplate title several memories share ("Session catchup").
func SameOwnTitle(a, b *Memory) bool {
	return a.Type == b.Type && strings.EqualFold(strings.TrimSpace(a.Title), strings.TrimSpace(b.Title)) &&
		HasOwnTitle(a) && HasOwnTitle(b)
}

// hasNormalizedPrefix reports whether content starts with title when runs
// of white space in both count as one space (and leading space is ignored).
func hasNormalizedPrefix(content, title string) bool {
	c := strings.TrimLeftFunc(content, unicode.IsSpace)
	t := strings.TrimSpace(title)
	for len(t) > 0 {
		if len(c) == 0 {
			return false
		}
		tr, tn := utf8.DecodeRuneInString(t)
		cr, cn := utf8.DecodeRuneInString(c)
		if unicode.IsSpace(tr) {
			if !unicode.IsSpace(cr) {
				return false
			}
			t = strings.TrimLeftFunc(t, unicode.IsSpace)
			c = strings.TrimLeftFunc(c, unicode.IsSpace)
			continue
		}
		if tr != cr {
			return false
		}
		t, c = t[tn:], c[cn:]
	}
	return true
}
