package transcript

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
	"github.com/cairn-dev/cairn/redact"
)

// gateRE matches the commands of quality gates: tests, builds, linters.
var gateRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s;&|(])(go (test|build|vet)|(npm|pnpm|yarn)( run)? (test|lint|build|typecheck)|pytest|python3? -m pytest|cargo (test|build|check|clippy)|make( -\S+)* (test|lint|build|check)|golangci-lint|eslint|tsc|mypy|ruff|jest|vitest|staticcheck)\b`)
})

// failRE matches the output of a failing gate.
var failRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)\bFAIL\b|exit status [1-9]|^Exit code [1-9]|npm ERR!|^error(\[E\d+\])?:|\b[1-9]\d* failed\b`)
})

// IsGate reports whether cmd runs a test, build or lint command.
func IsGate(cmd string) bool { return gateRE().MatchString(cmd) }

// Failed reports whether a gate's result is a failure.
func Failed(isError bool, output string) bool { return isError || failRE().MatchString(output) }

// NormalizeCommand collapses white space so that reruns of a command match.
func NormalizeCommand(cmd string) string { return strings.Join(strings.Fields(cmd), " ") }

// Extractor turns the entries of one transcript into memories. Give it
// the entries in order with Add; Finish returns the session summary.
type Extractor struct {
	Project string
	// Hat is the session's hat; when it is CriticHat, the review findings
	// of the assistant's text become pitfall memories.
	Hat string

	sessionID string
	prompt    string
	files     []string
	fixed     []string
	uses      map[string]string   // tool_use id -> gate command, until its result
	failing   map[string]*failure // gate command -> its first failure since it last passed
}

type failure struct {
	output string
	files  []string
}

// pendingState is what Pending saves: the gate commands still waiting for
// their results, and the gates that failed and have not passed.
type pendingState struct {
	Uses    map[string]string      `json:"uses,omitempty"`
	Failing map[string]pendingFail `json:"failing,omitempty"`
}

type pendingFail struct {
	Output string   `json:"output"`
	Files  []string `json:"files,omitempty"`
}

// Pending returns what a later run over the rest of the transcript needs
// to know from this one, as text for RestorePending: the test, build and
// lint commands that failed and have not passed yet (with the files edited
// since) and the ones whose results are still to come. It is "" when
// nothing is pending.
func (x *Extractor) Pending() string {
	if len(x.uses) == 0 && len(x.failing) == 0 {
		return ""
	}
	st := pendingState{Uses: x.uses, Failing: map[string]pendingFail{}}
	for cmd, f := range x.failing {
		st.Failing[cmd] = pendingFail{Output: f.output, Files: f.files}
	}
	b, _ := json.Marshal(st) // maps of strings: cannot fail
	return string(b)
}

// RestorePending continues from the state an earlier run's Pending
// returned, so that a failure read by one run and its fix read by the
// next still make a fix. A text it cannot read is an error and restores
// nothing.
func (x *Extractor) RestorePending(text string) error {
	if text == "" {
		return nil
	}
	var st pendingState
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		return fmt.Errorf("transcript: pending state: %w", err)
	}
	// A state saved by an earlier version may hold secrets: redact it too.
	for id, cmd := range st.Uses {
		x.uses[id] = redact.Text(cmd)
	}
	for cmd, f := range st.Failing {
		for i := range f.Files {
			f.Files[i] = redact.Text(f.Files[i])
		}
		x.failing[redact.Text(cmd)] = &failure{output: redact.Text(f.Output), files: f.Files}
	}
	return nil
}

// NewExtractor returns an extractor for memories of project.
func NewExtractor(project string) *Extractor {
	return &Extractor{Project: project, uses: map[string]string{}, failing: map[string]*failure{}}
}

// SessionID is the session id of the entries seen so far.
func (x *Extractor) SessionID() string { return x.sessionID }

// Resume continues a session whose earlier entries were summarised in
// prev (a summary made by Finish): its prompt, files and fixes are kept.
func (x *Extractor) Resume(prev *cairn.Memory) {
	if prev == nil {
		return
	}
	sect := ""
	for _, l := range strings.Split(prev.Content, "\n") {
		switch {
		case strings.HasPrefix(l, "**Asked:** "):
			if x.prompt == "" {
				x.prompt = strings.TrimPrefix(l, "**Asked:** ")
			}
			sect = ""
		case strings.HasPrefix(l, "**Files changed:**"):
			sect = "files"
		case strings.HasPrefix(l, "**Failed, then passed:**"):
			sect = "fixed"
		case strings.HasPrefix(l, "- ") && sect == "files":
			x.addFile(strings.TrimPrefix(l, "- "))
		case strings.HasPrefix(l, "- `") && sect == "fixed":
			c := strings.TrimSuffix(strings.TrimPrefix(l, "- `"), "`")
			if !slices.Contains(x.fixed, c) {
				x.fixed = append(x.fixed, c)
			}
		}
	}
}

func (x *Extractor) addFile(f string) {
	if f != "" && !slices.Contains(x.files, f) {
		x.files = append(x.files, f)
	}
}

// Add consumes one entry and returns the memories it completes: the
// signals of its assistant text, and the fix of a gate it sees pass again.
func (x *Extractor) Add(e Entry) []*cairn.Memory {
	if x.sessionID == "" && e.SessionID != "" {
		x.sessionID = e.SessionID
	}
	var out []*cairn.Memory
	switch e.Type {
	case "user":
		if x.prompt == "" {
			if p := userPrompt(e); p != "" {
				x.prompt = p
			}
		}
		for _, b := range e.Blocks {
			if b.Type != "tool_result" {
				continue
			}
			cmd, ok := x.uses[b.ToolUseID]
			if !ok {
				continue
			}
			delete(x.uses, b.ToolUseID)
			if m := x.result(cmd, b, e); m != nil {
				out = append(out, m)
			}
		}
	case "assistant":
		if e.Text != "" {
			out = append(out, x.signals(e.Text, e)...)
			out = append(out, x.findings(e.Text, e)...)
		}
		for _, b := range e.Blocks {
			switch b.Type {
			case "text":
				out = append(out, x.signals(b.Text, e)...)
				out = append(out, x.findings(b.Text, e)...)
			case "tool_use":
				switch b.Name {
				case "Bash":
					// Commands and their output are kept (in the pending
					// state) and stored (in fixes): redacted from the start.
					if c := NormalizeCommand(redact.Text(b.Command)); c != "" && IsGate(c) {
						x.uses[b.ID] = c
					}
				case "Edit", "Write", "MultiEdit", "NotebookEdit":
					f := redact.Text(x.relative(b.FilePath, e.CWD))
					x.addFile(f)
					for _, fl := range x.failing {
						if f != "" && !slices.Contains(fl.files, f) {
							fl.files = append(fl.files, f)
						}
					}
				}
			}
		}
	}
	return out
}

// relative shortens a path inside the session's working directory.
func (x *Extractor) relative(path, cwd string) string {
	if cwd != "" {
		if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(cwd, "/")+"/"); ok {
			return rest
		}
	}
	return path
}

// userPrompt is the text a person typed, not a tool result.
func userPrompt(e Entry) string {
	t := e.Text
	for _, b := range e.Blocks {
		if b.Type == "text" && t == "" {
			t = b.Text
		}
	}
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "<command-") || strings.HasPrefix(t, "Caveat:") {
		return "" // Claude Code's local command echoes
	}
	return t
}

func (x *Extractor) signals(text string, e Entry) []*cairn.Memory {
	sigs, _ := capture.Parse(text)
	out := make([]*cairn.Memory, 0, len(sigs))
	for _, s := range sigs {
		m := s.Memory(x.Project)
		m.SessionID = e.SessionID
		out = append(out, m)
	}
	return out
}

// result records a gate's outcome; a pass after a failure is a fix.
func (x *Extractor) result(cmd string, b Block, e Entry) *cairn.Memory {
	if Failed(b.IsError, b.Text) {
		if x.failing[cmd] == nil {
			x.failing[cmd] = &failure{output: failingLines(redact.Text(b.Text))}
		}
		return nil
	}
	fl := x.failing[cmd]
	if fl == nil {
		return nil
	}
	delete(x.failing, cmd)
	if !slices.Contains(x.fixed, cmd) {
		x.fixed = append(x.fixed, cmd)
	}
	if len(fl.files) == 0 {
		return nil // passed again without edits: flaky, or fixed elsewhere
	}
	key := ""
	if e.SessionID != "" {
		key = "fix:" + e.SessionID + ":" + b.ToolUseID
	}
	return &cairn.Memory{
		Project:    x.Project,
		Type:       "fix",
		Key:        key,
		Title:      "Fix for `" + cmd + "` failure",
		Content:    "**Problem:** " + fl.output + "\n\n**Fix:** edited " + strings.Join(fl.files, ", "),
		Tags:       []string{"quality-gate"},
		FileRefs:   slices.Clone(fl.files),
		Confidence: 0.7,
		Source:     cairn.SourceAutomatic,
		SessionID:  e.SessionID,
	}
}

// failingLines is the start of a failure's output, from its first line
// that names the failure, at most 400 bytes of whole lines when possible.
func failingLines(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	start := 0
	for i, l := range lines {
		if failRE().MatchString(l) || strings.Contains(l, "panic:") {
			if strings.HasPrefix(l, "Exit code") {
				continue
			}
			start = i
			break
		}
	}
	var sb strings.Builder
	for _, l := range lines[start:] {
		l = strings.TrimRight(l, " \t\r")
		if sb.Len()+len(l)+1 > 400 {
			if sb.Len() == 0 {
				sb.WriteString(cut(l, 400))
			}
			break
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(l)
	}
	return sb.String()
}

// A text longer than n is redacted before it is cut: a secret cut in two
// would no longer be recognised when the memory is stored.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if s = redact.Text(s); len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// shorten redacts s and cuts it to at most n runes, the last three "..."
// when cut.
func shorten(s string, n int) string {
	s = redact.Text(s)
	if utf8.RuneCountInString(s) > n {
		s = strings.TrimSpace(cut(s, n-3)) + "..."
	}
	return s
}

// maxSummaryItem bounds a file or command listed in a session summary;
// a longer one is cut.
const maxSummaryItem = 1024

// listEndReserve is room kept for the line that says how many items of a
// list a summary leaves out.
const listEndReserve = 64

// writeList appends a header and one line per item (each cut to
// maxSummaryItem bytes) while sb stays within limit bytes; the items left
// out are counted in a last line that, not starting with "- ", is not
// taken for an item when the summary is resumed.
func writeList(sb *strings.Builder, header string, items []string, format string, limit int, what string) {
	if len(items) == 0 {
		return
	}
	sb.WriteString(header)
	for i, it := range items {
		line := fmt.Sprintf(format, cut(it, maxSummaryItem))
		if sb.Len()+len(line) > limit {
			fmt.Fprintf(sb, "(and %d more %s)\n", len(items)-i, what)
			return
		}
		sb.WriteString(line)
	}
}

// SessionKey is the key of a session's summary memory.
func SessionKey(sessionID string) string { return "session:" + sessionID }

// Finish returns the summary of the session so far, or nil when there is
// nothing to summarise. It has the key SessionKey(id) when the session id
// is known, so that a later summary of the same session replaces it.
func (x *Extractor) Finish() *cairn.Memory {
	if x.prompt == "" && len(x.files) == 0 && len(x.fixed) == 0 {
		return nil
	}
	title := strings.Join(strings.Fields(x.prompt), " ")
	title = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1 // a title is one plain line
		}
		return r
	}, title)
	title = shorten(title, 80)
	if title == "" {
		title = "(no prompt)"
	}
	var sb strings.Builder
	sb.WriteString("**Asked:** " + cut(strings.Join(strings.Fields(x.prompt), " "), 1000) + "\n")
	// The lists are bounded so that any session, however many files it
	// touched, has a summary that fits in a memory.
	budget := cairn.MaxContentBytes - 2*listEndReserve
	writeList(&sb, "\n**Files changed:**\n", x.files, "- %s\n", budget/2, "files")
	writeList(&sb, "\n**Failed, then passed:**\n", x.fixed, "- `%s`\n", budget, "commands")
	var refs []string
	for _, f := range x.files {
		if len(refs) == cairn.MaxFileRefs {
			break
		}
		if len(f) <= maxSummaryItem {
			refs = append(refs, f)
		}
	}
	m := &cairn.Memory{
		Project:   x.Project,
		Type:      "session",
		Title:     "Session: " + title,
		Content:   strings.TrimSuffix(sb.String(), "\n"),
		FileRefs:  refs,
		Source:    cairn.SourceAutomatic,
		SessionID: x.sessionID,
	}
	if x.sessionID != "" {
		m.Key = SessionKey(x.sessionID)
	}
	return m
}
