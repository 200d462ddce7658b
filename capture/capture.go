package capture

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/lexical"
	"github.com/cairn-dev/cairn/redact"
)

// Signal kinds.
const (
	KindMemory          = "memory"
	KindLearning        = "learning"
	KindFailureReport   = "failure_report"
	KindDifficulty      = "difficulty"
	KindRetrySuggestion = "retry_suggestion"
)

// Signal is one memory an agent's output asks to keep.
type Signal struct {
	Kind    string // one of the Kind constants
	Type    string // the memory type it is stored as
	Title   string
	Content string
	Tags    []string
	Files   []string
	// Fields are the parsed parts: a failure report's keys, a difficulty's
	// level, score and reason, a learning's extra attributes.
	Fields map[string]string
	Line   int // the line the signal starts on, from 1
	// Listed marks a learning read from a bullet of a Key Learnings
	// section (prose the agent wrote for a person) rather than from a
	// signal the agent wrote for cairn.
	Listed bool
}

// Problem is a signal that could not be read.
type Problem struct {
	Line   int
	Text   string // the line, trimmed and shortened
	Reason string
}

// sigils maps the normalised tag names to their kinds.
var sigils = map[string]string{
	"learning":            KindLearning,
	"failure-report":      KindFailureReport,
	"difficulty-estimate": KindDifficulty,
	"retry-suggestion":    KindRetrySuggestion,
}

var sigilNames = []string{"learning", "failure-report", "difficulty-estimate", "retry-suggestion"}

const memPrefix = "MEMORY:"

// Parse finds the signals in text; see the package documentation for the
// formats. It reads text once, line by line.
func Parse(text string) ([]Signal, []Problem) {
	p := &parser{}
	n := 0
	for len(text) > 0 {
		var l string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, ""
		}
		n++
		p.feed(n, strings.TrimSuffix(l, "\r"))
	}
	p.eof()
	return p.sigs, p.probs
}

type parser struct {
	sigs  []Signal
	probs []Problem

	// An open code fence.
	fenceChar   byte
	fenceLen    int
	fenceLine   int
	fenceSignal int // the first line inside the fence with signal-looking text

	tag  *openTag
	mem  *pendingMemory
	sect *section
}

type openTag struct {
	name, kind string
	line       int
	text       string
	attrs      map[string]string
	body       strings.Builder
}

type pendingMemory struct {
	line   int
	typ    string
	indent int
	text   string
	lines  []string
}

type section struct {
	line    int
	text    string
	started bool
	cur     *bullet
}

type bullet struct {
	line   int
	indent int
	text   string
	lines  []string
}

func (p *parser) problem(line int, text, format string, args ...any) {
	p.probs = append(p.probs, Problem{Line: line, Text: shorten(text), Reason: fmt.Sprintf(format, args...)})
}

func shorten(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= 200 {
		return s
	}
	return cairn.CutBytes(s, 200) + "..."
}

func (p *parser) feed(n int, l string) {
	if p.tag != nil && p.bodyLine(n, l) {
		return
	}
	if p.fenceLen > 0 {
		if closesFence(l, p.fenceChar, p.fenceLen) {
			p.fenceLen = 0
		} else if p.fenceSignal == 0 && hasSignal(l) {
			p.fenceSignal = n
		}
		return
	}
	if p.mem != nil {
		if p.memContinues(l) {
			p.mem.lines = append(p.mem.lines, strings.TrimSpace(l))
			return
		}
		p.finishMemory()
	}
	if c, k, ok := opensFence(l); ok {
		if p.sect != nil {
			p.endSection()
		}
		p.fenceChar, p.fenceLen, p.fenceLine, p.fenceSignal = c, k, n, 0
		return
	}
	if p.sect != nil && p.sectionLine(n, l) {
		return
	}
	if learningsHeading(l) {
		p.sect = &section{line: n, text: l}
		return
	}
	p.scan(n, l, 0)
}

func (p *parser) eof() {
	if p.tag != nil {
		p.problem(p.tag.line, p.tag.text, "<%s> is not closed (no </%s> before the end of the output)", p.tag.name, p.tag.name)
		p.tag = nil
	}
	if p.mem != nil {
		p.finishMemory()
	}
	if p.sect != nil {
		p.endSection()
	}
	if p.fenceLen > 0 && p.fenceSignal > 0 {
		p.problem(p.fenceSignal, "", "a code fence opened on line %d is never closed; the signals after it were not read", p.fenceLine)
	}
}

// scan looks for signals in l from pos on.
func (p *parser) scan(n int, l string, pos int) {
	mi := indexMemory(l, pos)
	for pos < len(l) {
		if mi >= 0 && mi < pos {
			mi = indexMemory(l, pos)
		}
		ti := strings.IndexByte(l[pos:], '<')
		if ti >= 0 {
			ti += pos
		}
		if mi < 0 && ti < 0 {
			return
		}
		if mi >= 0 && (ti < 0 || mi < ti) {
			p.startMemory(n, l, mi)
			return
		}
		next, done := p.tagAt(n, l, ti)
		if done {
			return
		}
		pos = next
	}
}

// indexMemory returns the index of the first MEMORY: signal in l at or
// after from, or -1.
func indexMemory(l string, from int) int {
	for from < len(l) {
		i := strings.Index(l[from:], memPrefix)
		if i < 0 {
			return -1
		}
		i += from
		if i == 0 || !(isWordByte(l[i-1]) || l[i-1] == '`') {
			return i
		}
		from = i + len(memPrefix)
	}
	return -1
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isNameByte(c byte) bool { return isWordByte(c) || c == '-' }

// normName lowercases a tag name and turns "_" into "-".
func normName(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case c == '_':
			b[i] = '-'
		}
	}
	return string(b)
}

// sameName reports whether the raw tag name s normalises to norm.
func sameName(s, norm string) bool {
	if len(s) != len(norm) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		} else if c == '_' {
			c = '-'
		}
		if c != norm[i] {
			return false
		}
	}
	return true
}

// sigilAt returns the normalised name of the sigil tag opening at l[i]
// ("<name" followed by white space, ">" or "/"), or "".
func sigilAt(l string, i int) string {
	if i+1 >= len(l) || l[i] != '<' {
		return ""
	}
	j := i + 1
	for j < len(l) && isNameByte(l[j]) && j-i < 40 {
		j++
	}
	if j == i+1 || (j < len(l) && l[j] != ' ' && l[j] != '\t' && l[j] != '>' && l[j] != '/') {
		return ""
	}
	name := normName(l[i+1 : j])
	if _, ok := sigils[name]; ok {
		return name
	}
	return ""
}

// hasSignal reports whether l holds a MEMORY: signal or a sigil tag.
func hasSignal(l string) bool {
	if indexMemory(l, 0) >= 0 {
		return true
	}
	for i := 0; i < len(l); {
		k := strings.IndexByte(l[i:], '<')
		if k < 0 {
			return false
		}
		i += k
		if sigilAt(l, i) != "" {
			return true
		}
		i++
	}
	return false
}

// startsWithSigil reports whether l, after indentation, opens a sigil tag.
func startsWithSigil(l string) bool {
	t := strings.TrimLeft(l, " \t")
	return sigilAt(t, 0) != ""
}

func indentOf(l string) int {
	w := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w
		}
	}
	return w
}

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// opensFence reports whether l opens a code fence, and its character and length.
func opensFence(l string) (byte, int, bool) {
	t := strings.TrimLeft(l, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0, false
	}
	c := t[0]
	k := 0
	for k < len(t) && t[k] == c {
		k++
	}
	if k < 3 {
		return 0, 0, false
	}
	if c == '`' && strings.IndexByte(t[k:], '`') >= 0 {
		return 0, 0, false // inline code such as ```x```
	}
	return c, k, true
}

func closesFence(l string, c byte, n int) bool {
	t := strings.TrimSpace(l)
	if len(t) < n {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != c {
			return false
		}
	}
	return true
}

// headingText returns the text of a Markdown heading of level 1 to maxLevel.
func headingText(l string, maxLevel int) (string, bool) {
	t := strings.TrimSpace(l)
	k := 0
	for k < len(t) && t[k] == '#' {
		k++
	}
	if k == 0 || k > maxLevel || (k < len(t) && t[k] != ' ' && t[k] != '\t') {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(t[k:], "# \t")), true
}

func learningsHeading(l string) bool {
	h, ok := headingText(l, 4)
	if !ok {
		return false
	}
	h = strings.ToLower(strings.TrimSpace(strings.TrimSuffix(h, ":")))
	return h == "key learnings" || h == "learnings"
}

// checkContent returns why content cannot be stored, or "".
func checkContent(content string) string {
	switch {
	case !utf8.ValidString(content):
		return "is not valid UTF-8"
	case strings.IndexByte(content, 0) >= 0:
		return "contains a NUL byte"
	case len(content) > cairn.MaxContentBytes:
		return fmt.Sprintf("is %d bytes, more than the limit of %d", len(content), cairn.MaxContentBytes)
	}
	return ""
}

func (p *parser) add(s Signal, text string) {
	if why := checkContent(s.Content); why != "" {
		p.problem(s.Line, text, "the content of this %s %s", strings.ReplaceAll(s.Kind, "_", " "), why)
		return
	}
	if s.Title == "" {
		s.Title = titleOf(s.Content)
	}
	p.sigs = append(p.sigs, s)
}

// --- MEMORY: ---

func (p *parser) startMemory(n int, l string, at int) {
	rest := l[at+len(memPrefix):]
	c := strings.IndexByte(rest, ':')
	if c < 0 {
		p.problem(n, l, "MEMORY: has no type: write MEMORY:type:content")
		return
	}
	typ := strings.ToLower(strings.TrimSpace(rest[:c]))
	if !cairn.ValidName(typ) {
		p.problem(n, l, "MEMORY: type %q is not valid: use lowercase letters, digits and _ - : . /, starting with a letter or digit", strings.TrimSpace(rest[:c]))
		return
	}
	p.mem = &pendingMemory{line: n, typ: typ, indent: indentOf(l), text: l, lines: []string{strings.TrimSpace(rest[c+1:])}}
}

func (p *parser) memContinues(l string) bool {
	if isBlank(l) || indentOf(l) < p.mem.indent+2 {
		return false
	}
	if _, _, ok := opensFence(l); ok {
		return false
	}
	return !hasSignal(l)
}

func (p *parser) finishMemory() {
	m := p.mem
	p.mem = nil
	content := strings.TrimSpace(strings.Join(m.lines, "\n"))
	if content == "" {
		p.problem(m.line, m.text, "MEMORY:%s: has no content", m.typ)
		return
	}
	p.add(Signal{Kind: KindMemory, Type: m.typ, Content: content, Line: m.line}, m.text)
}

// --- Key Learnings sections ---

// bulletText returns the text of a list item line.
func bulletText(l string) (string, bool) {
	t := strings.TrimLeft(l, " \t")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return strings.TrimSpace(t[2:]), true
	}
	if len(t) == 1 && (t[0] == '-' || t[0] == '*' || t[0] == '+') {
		return "", true
	}
	k := 0
	for k < len(t) && k < 9 && t[k] >= '0' && t[k] <= '9' {
		k++
	}
	if k > 0 && k+1 < len(t) && (t[k] == '.' || t[k] == ')') && (t[k+1] == ' ' || t[k+1] == '\t') {
		return strings.TrimSpace(t[k+2:]), true
	}
	return "", false
}

// sectionLine handles a line of a Key Learnings section; it returns false
// when the line is not part of the section and must be scanned normally.
func (p *parser) sectionLine(n int, l string) bool {
	s := p.sect
	if isBlank(l) {
		if s.started {
			p.endSection()
		}
		return true
	}
	if _, ok := headingText(l, 6); ok {
		p.endSection()
		return false
	}
	if s.cur != nil && indentOf(l) >= s.cur.indent+2 && !hasSignal(l) {
		s.cur.lines = append(s.cur.lines, strings.TrimSpace(l))
		return true
	}
	if text, ok := bulletText(l); ok {
		p.flushBullet()
		s.started = true
		if hasSignal(text) {
			return false
		}
		s.cur = &bullet{line: n, indent: indentOf(l), text: l, lines: []string{text}}
		return true
	}
	p.endSection()
	return false
}

func (p *parser) flushBullet() {
	b := p.sect.cur
	if b == nil {
		return
	}
	p.sect.cur = nil
	content := strings.TrimSpace(strings.Join(b.lines, "\n"))
	if content == "" {
		p.problem(b.line, b.text, "an empty item in the Key Learnings list")
		return
	}
	p.add(Signal{Kind: KindLearning, Type: "learning", Content: content, Line: b.line, Listed: true}, b.text)
}

func (p *parser) endSection() {
	p.flushBullet()
	if !p.sect.started {
		p.problem(p.sect.line, p.sect.text, "a Key Learnings heading without a list of \"- \" items under it")
	}
	p.sect = nil
}

// --- tags ---

// tagAt handles the "<" at l[at]. It returns where scanning goes on, or
// done when the rest of the line has been dealt with.
func (p *parser) tagAt(n int, l string, at int) (next int, done bool) {
	if at > 0 && l[at-1] == '`' {
		return at + 1, false
	}
	if at+1 < len(l) && l[at+1] == '/' {
		j := at + 2
		for j < len(l) && isNameByte(l[j]) {
			j++
		}
		k := j
		for k < len(l) && l[k] == ' ' {
			k++
		}
		if k < len(l) && l[k] == '>' {
			if name := normName(l[at+2 : j]); sigils[name] != "" {
				p.problem(n, l, "</%s> has no opening <%s>", name, name)
			}
			return k + 1, false
		}
		return at + 2, false
	}
	j := at + 1
	for j < len(l) && isNameByte(l[j]) && j-at <= 40 {
		j++
	}
	if j == at+1 || (j < len(l) && l[j] != ' ' && l[j] != '\t' && l[j] != '>' && l[j] != '/') {
		return at + 1, false
	}
	name := normName(l[at+1 : j])
	kind := sigils[name]
	if kind == "" {
		if like := lookAlike(name); like != "" {
			p.problem(n, l, "unknown sigil <%s> (did you mean <%s>?)", l[at+1:j], like)
		}
		return j, false
	}
	attrs, end, self, err := parseAttrs(l, j)
	if err != "" {
		p.problem(n, l, "malformed <%s> tag: %s", name, err)
		return 0, true
	}
	if self {
		p.problem(n, l, "<%s/> has no body", name)
		return end, false
	}
	t := &openTag{name: name, kind: kind, line: n, text: l, attrs: attrs}
	if cs, ce := findClose(l[end:], name); cs >= 0 {
		t.body.WriteString(l[end : end+cs])
		p.finishTag(t)
		return end + ce, false
	}
	t.body.WriteString(l[end:])
	t.body.WriteByte('\n')
	p.tag = t
	return 0, true
}

// bodyLine adds l to the open tag's body; it returns false when l was not
// consumed (a new sigil starts there and the open tag is unclosed).
func (p *parser) bodyLine(n int, l string) bool {
	t := p.tag
	if startsWithSigil(l) {
		p.problem(t.line, t.text, "<%s> is not closed (a new sigil starts on line %d)", t.name, n)
		p.tag = nil
		return false
	}
	if cs, ce := findClose(l, t.name); cs >= 0 {
		t.body.WriteString(l[:cs])
		p.tag = nil
		p.finishTag(t)
		p.scan(n, l, ce)
		return true
	}
	t.body.WriteString(l)
	t.body.WriteByte('\n')
	return true
}

// findClose finds "</name>" (any case, "_" for "-", spaces before ">") in s.
func findClose(s, name string) (start, end int) {
	off := 0
	for {
		i := strings.Index(s[off:], "</")
		if i < 0 {
			return -1, -1
		}
		i += off
		j := i + 2
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		k := j
		for k < len(s) && s[k] == ' ' {
			k++
		}
		if k < len(s) && s[k] == '>' && sameName(s[i+2:j], name) {
			return i, k + 1
		}
		off = i + 2
	}
}

// parseAttrs reads attributes from l[i:] up to the ">" ending the tag.
func parseAttrs(l string, i int) (attrs map[string]string, end int, self bool, err string) {
	for {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		if i >= len(l) {
			return nil, 0, false, "no \">\" on its line"
		}
		switch {
		case l[i] == '>':
			return attrs, i + 1, false, ""
		case l[i] == '/' && i+1 < len(l) && l[i+1] == '>':
			return attrs, i + 2, true, ""
		}
		k := i
		for i < len(l) && (isNameByte(l[i]) || l[i] == ':') {
			i++
		}
		if i == k {
			return nil, 0, false, fmt.Sprintf("unexpected %q in the attributes", l[i])
		}
		key := strings.ToLower(l[k:i])
		val := ""
		if i < len(l) && l[i] == '=' {
			i++
			if i < len(l) && (l[i] == '"' || l[i] == '\'') {
				q := l[i]
				e := strings.IndexByte(l[i+1:], q)
				if e < 0 {
					return nil, 0, false, fmt.Sprintf("the value of %s has no closing quote", key)
				}
				val = l[i+1 : i+1+e]
				i += e + 2
			} else {
				v := i
				for i < len(l) && l[i] != ' ' && l[i] != '\t' && l[i] != '>' {
					i++
				}
				val = l[v:i]
			}
		}
		if attrs == nil {
			attrs = map[string]string{}
		}
		attrs[key] = val
	}
}

// lookAlike returns the sigil name that name is probably a misspelling
// of, or "".
func lookAlike(name string) string {
	if len(name) > 30 {
		return ""
	}
	for _, s := range sigilNames {
		max := 2
		if len(s) >= 10 {
			max = 3
		}
		if abs(len(s)-len(name)) <= max && lexical.EditDistance(name, s) <= max {
			return s
		}
	}
	switch name {
	case "failure", "failure-reports", "failure-note", "fail-report", "error-report":
		return "failure-report"
	case "difficulty", "estimate", "difficulty-level":
		return "difficulty-estimate"
	case "retry", "retry-suggestions", "suggestion":
		return "retry-suggestion"
	case "learnings", "lesson", "lesson-learned":
		return "learning"
	}
	return ""
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// splitList splits a comma-separated list, trimming the items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// tagList validates comma-separated tags; bad ones are reported and dropped.
func (p *parser) tagList(t *openTag, s string) []string {
	var out []string
	for _, x := range splitList(s) {
		v := strings.ToLower(x)
		if !cairn.ValidName(v) {
			p.problem(t.line, t.text, "tag %q of <%s> is not valid (use lowercase letters, digits and _ - : . /); it was dropped", x, t.name)
			continue
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// trimBody trims a tag body: trailing space on each line, blank lines at
// both ends.
func trimBody(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n \t")
}

func (p *parser) finishTag(t *openTag) {
	body := trimBody(t.body.String())
	if body == "" {
		p.problem(t.line, t.text, "<%s> is empty", t.name)
		return
	}
	switch t.kind {
	case KindLearning:
		p.finishLearning(t, body)
	case KindFailureReport:
		p.finishFailure(t, body)
	case KindDifficulty:
		p.finishDifficulty(t, body)
	case KindRetrySuggestion:
		p.add(Signal{Kind: KindRetrySuggestion, Type: "task_result", Content: body,
			Tags: []string{"retry-suggestion"}, Fields: t.attrs, Line: t.line}, t.text)
	}
}

func (p *parser) finishLearning(t *openTag, body string) {
	s := Signal{Kind: KindLearning, Type: "learning", Content: body, Line: t.line}
	for k, v := range t.attrs {
		switch k {
		case "category", "type":
			c := strings.ToLower(strings.TrimSpace(v))
			if c == "" {
				continue
			}
			if !cairn.ValidName(c) {
				p.problem(t.line, t.text, "<learning> category %q is not a valid type name (use lowercase letters, digits and _ - : . /)", v)
				return
			}
			s.Type = c
		case "tags":
			s.Tags = p.tagList(t, v)
		case "files":
			s.Files = splitList(v)
		case "title":
			s.Title = strings.Join(strings.Fields(v), " ")
		default:
			if s.Fields == nil {
				s.Fields = map[string]string{}
			}
			s.Fields[k] = v
		}
	}
	p.add(s, t.text)
}

// --- failure reports ---

var fieldAliases = map[string]string{
	"err": "error", "failure": "error", "problem": "error",
	"tried": "approach", "attempted": "approach", "attempt": "approach", "approach_taken": "approach",
	"dont": "avoid", "don't": "avoid", "do_not": "avoid",
	"file": "files",
	"tag":  "tags",
}

// fieldKey returns the key of a "key: value" line, its value and its indentation.
func fieldKey(l string) (key, val string, indent int, ok bool) {
	indent = indentOf(l)
	t := strings.TrimLeft(l, " \t")
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		t = strings.TrimLeft(t[2:], " \t")
	}
	c := strings.IndexByte(t, ':')
	if c < 1 || c > 31 || (c+1 < len(t) && t[c+1] != ' ' && t[c+1] != '\t') {
		return "", "", 0, false
	}
	k := t[:c]
	if !(k[0] >= 'a' && k[0] <= 'z' || k[0] >= 'A' && k[0] <= 'Z') {
		return "", "", 0, false
	}
	for i := 1; i < len(k); i++ {
		if !isNameByte(k[i]) && k[i] != ' ' && k[i] != '\'' {
			return "", "", 0, false
		}
	}
	words := strings.Fields(k)
	if len(words) > 3 {
		return "", "", 0, false
	}
	key = strings.ToLower(strings.Join(words, "_"))
	key = strings.ReplaceAll(key, "-", "_")
	if a, ok := fieldAliases[key]; ok {
		key = a
	}
	return key, strings.TrimSpace(t[c+1:]), indent, true
}

// parseFields reads a failure report body into fields.
func parseFields(body string) map[string]string {
	fields := map[string]string{}
	var order []string
	vals := map[string][]string{}
	cur := "details"
	keyIndent := -1
	for _, l := range strings.Split(body, "\n") {
		if key, val, ind, ok := fieldKey(l); ok && (keyIndent < 0 || ind <= keyIndent) {
			if keyIndent < 0 {
				keyIndent = ind
			}
			cur = key
			if _, seen := vals[cur]; !seen {
				order = append(order, cur)
			}
			vals[cur] = append(vals[cur], val)
			continue
		}
		if _, seen := vals[cur]; !seen {
			order = append(order, cur)
		}
		vals[cur] = append(vals[cur], strings.TrimSpace(l))
	}
	for _, k := range order {
		if v := strings.TrimSpace(strings.Join(vals[k], "\n")); v != "" {
			fields[k] = v
		}
	}
	if keyIndent < 0 { // no keys: the whole body is the error
		if d, ok := fields["details"]; ok {
			delete(fields, "details")
			fields["error"] = d
		}
	}
	return fields
}

func (p *parser) finishFailure(t *openTag, body string) {
	fields := parseFields(body)
	s := Signal{Kind: KindFailureReport, Type: "failure", Tags: []string{"failure-report"}, Line: t.line}
	if v, ok := fields["files"]; ok {
		s.Files = splitList(strings.ReplaceAll(v, "\n", ","))
		for i, f := range s.Files {
			s.Files[i] = strings.TrimSpace(strings.TrimPrefix(f, "- "))
		}
		delete(fields, "files")
	}
	if v, ok := fields["tags"]; ok {
		for _, x := range p.tagList(t, strings.ReplaceAll(v, "\n", ",")) {
			if !slices.Contains(s.Tags, x) {
				s.Tags = append(s.Tags, x)
			}
		}
		delete(fields, "tags")
	}
	for k, v := range t.attrs {
		if _, ok := fields[k]; !ok {
			fields[k] = v
		}
	}
	if len(fields) == 0 {
		p.problem(t.line, t.text, "<failure-report> has no fields (write error:, approach:, avoid: lines)")
		return
	}
	s.Fields = fields
	s.Content = RenderFailure(fields)
	s.Title = titleOf(failureHeadline(fields))
	p.add(s, t.text)
}

// failureHeadline is the field a failure report's title comes from.
func failureHeadline(fields map[string]string) string {
	for _, k := range []string{"error", "details", "approach", "avoid"} {
		if v := fields[k]; v != "" {
			return "Failed: " + v
		}
	}
	return "Failed: " + RenderFailure(fields)
}

var fieldLabels = map[string]string{"error": "Error", "approach": "Tried", "avoid": "Avoid", "details": "Details"}

// RenderFailure renders a failure report's fields as Markdown: Error,
// Tried, Avoid, then the other fields sorted by name.
func RenderFailure(fields map[string]string) string {
	var keys []string
	for k := range fields {
		switch k {
		case "error", "approach", "avoid", "files", "tags":
		default:
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = append([]string{"error", "approach", "avoid"}, keys...)
	var b strings.Builder
	for _, k := range keys {
		v := fields[k]
		if v == "" {
			continue
		}
		label := fieldLabels[k]
		if label == "" {
			label = strings.ReplaceAll(k, "_", " ")
			label = strings.ToUpper(label[:1]) + label[1:]
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("**" + label + ":**")
		if strings.Contains(v, "\n") {
			b.WriteString("\n" + v)
		} else {
			b.WriteString(" " + v)
		}
	}
	return b.String()
}

// --- difficulty ---

func (p *parser) finishDifficulty(t *openTag, body string) {
	word := body
	reason := ""
	if i := strings.IndexAny(body, " \t\n:,;"); i >= 0 {
		word, reason = body[:i], body[i:]
	}
	reason = strings.TrimSpace(strings.TrimLeft(reason, " \t\n:,;-—–"))
	word = strings.ToLower(strings.TrimRight(word, ".!"))
	level, score := "", ""
	switch word {
	case "easy", "medium", "hard":
		level = word
	case "1", "2", "1/5", "2/5":
		level, score = "easy", word[:1]
	case "3", "3/5":
		level, score = "medium", word[:1]
	case "4", "5", "4/5", "5/5":
		level, score = "hard", word[:1]
	default:
		p.problem(t.line, t.text, "<difficulty-estimate> %q is not easy, medium, hard or a number from 1 to 5", shorten(body))
		return
	}
	fields := map[string]string{"level": level}
	content := "Difficulty: " + level
	if score != "" {
		fields["score"] = score
		content += " (" + score + "/5)"
	}
	if reason != "" {
		fields["reason"] = reason
		content += "\n\n" + reason
	}
	p.add(Signal{Kind: KindDifficulty, Type: "task_result", Title: "Difficulty: " + level, Content: content,
		Tags: []string{"difficulty", "difficulty:" + level}, Fields: fields, Line: t.line}, t.text)
}

// Memory returns the memory s asks to store in project, with Source
// explicit. The caller sets the provenance (Agent, Hat, TaskID, SessionID).
func (s Signal) Memory(project string) *cairn.Memory {
	m := &cairn.Memory{
		Project:  project,
		Type:     s.Type,
		Title:    s.Title,
		Content:  s.Content,
		Tags:     slices.Clone(s.Tags),
		FileRefs: slices.Clone(s.Files),
		Source:   cairn.SourceExplicit,
	}
	switch s.Kind {
	case KindHatTransition:
		m.Source = cairn.SourceAutomatic
	case KindLearning:
		if m.Type == "" {
			m.Type = "learning"
		}
	case KindFailureReport:
		if m.Type == "" {
			m.Type = "failure"
		}
		if m.Content == "" {
			m.Content = RenderFailure(s.Fields)
		}
		if !slices.Contains(m.Tags, "failure-report") {
			m.Tags = append([]string{"failure-report"}, m.Tags...)
		}
		if m.Title == "" {
			m.Title = titleOf(failureHeadline(s.Fields))
		}
	case KindDifficulty, KindRetrySuggestion:
		if m.Type == "" {
			m.Type = "task_result"
		}
	}
	if m.Title == "" {
		m.Title = titleOf(m.Content)
	}
	return m
}

// titleOf derives a title from text, redacted first: the title is cut at
// 100 bytes, and a secret cut there would no longer be recognised when
// the memory is stored.
func titleOf(text string) string { return cairn.TitleFromContent(redact.Text(text)) }

// Provenance is who wrote the output signals come from, while doing what.
type Provenance struct{ Hat, Agent, Task, Session string }

// MemoryFrom is the memory to store for s, with its provenance. A task's
// difficulty estimate is keyed by the task, so that the task keeps only
// its latest estimate.
func (s Signal) MemoryFrom(project string, p Provenance) *cairn.Memory {
	mem := s.Memory(project)
	mem.Hat, mem.Agent, mem.TaskID, mem.SessionID = p.Hat, p.Agent, p.Task, p.Session
	if s.Kind == KindDifficulty && p.Task != "" {
		mem.Key = "difficulty:" + p.Task
	}
	return mem
}
