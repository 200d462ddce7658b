package transcript

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
	"github.com/cairn-dev/cairn/capture/failure"
	"github.com/cairn-dev/cairn/redact"
)

// gateRE matches the commands of quality gates: tests, builds, linters.
var gateRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s;&|(])(go (test|build|vet)|(npm|pnpm|yarn|bun)( run)? (test|lint|build|typecheck|check)|pytest|python3? -m (pytest|unittest|mypy)|cargo (test|build|check|clippy|nextest)|make( -\S+)* (test|lint|build|check)|golangci-lint|eslint|tsc|mypy|ruff|jest|vitest|staticcheck|gradlew?|mvn|dotnet (build|test)|swift (build|test))\b`)
})

// failRE matches the output of a failing gate.
var failRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)\bFAIL\b|exit status [1-9]|^Exit code [1-9]|npm ERR!|^error(\[E\d+\])?:|\b[1-9]\d* failed\b|^FAILED\b|Traceback \(most recent call last\)|command not found`)
})

// IsGate reports whether cmd runs a test, build or lint command.
func IsGate(cmd string) bool { return gateRE().MatchString(cmd) }

// Failed reports whether a gate's result is a failure.
func Failed(isError bool, output string) bool { return isError || failRE().MatchString(output) }

// NormalizeCommand collapses white space so that reruns of a command match.
func NormalizeCommand(cmd string) string { return strings.Join(strings.Fields(cmd), " ") }

// Limits of what an extractor keeps of a session.
const (
	maxRequests  = 8   // requests kept (the first and the next ones)
	maxFiles     = 200 // files changed kept
	maxListed    = 30  // files listed in a summary
	maxFixed     = 20  // commands listed as failed, then passed
	maxFailing   = 10  // commands listed as still failing
	maxErrors    = 5   // error lines of one failure
	maxBetween   = 6   // commands kept that ran between a failure and its pass
	maxRequest   = 300 // bytes of one request
	maxAsked     = 600 // bytes of a summary's Asked line
	maxTitleText = 80  // runes of a summary's title after "Session: "
)

// Extractor turns the entries of one transcript into memories. Give it
// the entries in order with Add; Finish returns the session summary.
//
// What it keeps (see the package documentation for the rules):
//   - the requests: what the user typed, not what Claude Code, an IDE or
//     another tool put around it;
//   - the files the session changed, relative to the project's folder;
//   - each command that failed with a named error and later passed: a fix
//     memory that names the error and what changed in between;
//   - the commands that still fail at the end;
//   - the signals of the assistant's text (MEMORY: lines, <learning>, …).
type Extractor struct {
	Project string
	// Hat is the session's hat; when it is CriticHat, the review findings
	// of the assistant's text become pitfall memories.
	Hat string
	// Paths rewrites the paths of what is kept: relative to the project's
	// folder (Paths.Root; "" takes the first working directory the
	// transcript names), home folders as "~".
	Paths redact.Paths

	sessionID string
	st        state
	restored  bool // the state came from RestorePending
}

// state is what an extractor knows of its session: what Pending saves
// for a later read of the rest of the transcript.
type state struct {
	Requests  []string `json:"requests,omitempty"`
	Carried   string   `json:"carried,omitempty"`
	Slash     string   `json:"slash,omitempty"`
	Files     []string `json:"files,omitempty"`
	Elsewhere []string `json:"elsewhere,omitempty"`
	Fixed     []string `json:"fixed,omitempty"`
	Ended     string   `json:"ended,omitempty"`
	Root      string   `json:"root,omitempty"`
	Started   string   `json:"started,omitempty"` // RFC 3339
	Last      string   `json:"last,omitempty"`
	Main      bool     `json:"main,omitempty"` // a line of the main conversation was seen (not only a sub-agent's)
	// Uses are the commands whose results are still to come, by tool use id.
	Uses map[string]string `json:"uses,omitempty"`
	// Open are the failures that have not passed yet, by command key.
	Open map[string]*episode `json:"open,omitempty"`
	// Passing are the signatures of the error-like lines that commands
	// printed when they passed (a banner, a status line): no failure's
	// error.
	Passing     []string `json:"passing,omitempty"`
	Recorded    bool     `json:"recorded,omitempty"`    // the agent stored a memory itself
	Corrected   bool     `json:"corrected,omitempty"`   // the user corrected the agent
	Interrupted bool     `json:"interrupted,omitempty"` // the last user line interrupted the agent
	Fixes       int      `json:"fixes,omitempty"`       // fixes made
	Asked       bool     `json:"asked,omitempty"`       // the agent was asked for its account
}

// episode is a command that failed and has not passed since.
type episode struct {
	Command string   `json:"command"` // the last failing command line
	Core    string   `json:"core"`
	Dir     string   `json:"dir,omitempty"` // the folder it last failed in, as the transcript names it
	Errors  []string `json:"errors,omitempty"`
	Tests   []string `json:"tests,omitempty"` // the tests it reported failed
	Edits   []string `json:"edits,omitempty"` // project files edited since the first failure
	// Ran are the commands that changed something since the last failure
	// (the latest); Installs those that installed something since the
	// first.
	Ran      []string  `json:"ran,omitempty"`
	Installs []string  `json:"installs,omitempty"`
	Manual   bool      `json:"manual,omitempty"` // an edited file declares dependencies or the environment
	Failed   int       `json:"failed"`           // failures of it so far
	At       time.Time `json:"at"`               // the first failure
}

// NewExtractor returns an extractor for memories of project.
func NewExtractor(project string) *Extractor {
	return &Extractor{Project: project, st: state{Uses: map[string]string{}, Open: map[string]*episode{}}}
}

// SessionID is the session id of the entries seen so far.
func (x *Extractor) SessionID() string { return x.sessionID }

// Pending returns what a later run over the rest of the transcript needs
// to know from this one, as text for RestorePending: the session so far
// (its requests, files, fixes), the commands that failed and have not
// passed, the commands whose results are still to come. It is "" when
// nothing was seen.
func (x *Extractor) Pending() string {
	if x.empty() {
		return ""
	}
	b, _ := json.Marshal(x.st) // strings, maps and times: cannot fail
	return string(b)
}

func (x *Extractor) empty() bool {
	s := &x.st
	return len(s.Requests) == 0 && s.Carried == "" && s.Slash == "" && len(s.Files) == 0 && len(s.Elsewhere) == 0 &&
		len(s.Fixed) == 0 && len(s.Uses) == 0 && len(s.Open) == 0 && !s.Recorded && !s.Corrected && !s.Asked && s.Started == ""
}

// RestorePending continues from the state an earlier run's Pending
// returned, so that a failure read by one run and its fix read by the
// next still make a fix, and the summary goes on. A text it cannot read
// is an error and restores nothing. A state written by an older version
// ({"uses", "failing"}) restores its pending commands.
func (x *Extractor) RestorePending(text string) error {
	if text == "" {
		return nil
	}
	var st state
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		return fmt.Errorf("transcript: pending state: %w", err)
	}
	var old struct {
		Failing map[string]struct {
			Output string   `json:"output"`
			Files  []string `json:"files"`
		} `json:"failing"`
	}
	if json.Unmarshal([]byte(text), &old) == nil {
		for cmd, f := range old.Failing {
			if st.Open == nil {
				st.Open = map[string]*episode{}
			}
			cmd = redact.Text(cmd)
			st.Open[failure.CommandKey(cmd)] = &episode{Command: cmd, Core: failure.Core(cmd),
				Errors: failure.ErrorLines(redact.Text(f.Output), maxErrors), Edits: f.Files, Failed: 1}
		}
	}
	if st.Uses == nil {
		st.Uses = map[string]string{}
	}
	if st.Open == nil {
		st.Open = map[string]*episode{}
	}
	// A state saved by an earlier version may hold secrets: redact it too.
	for id, cmd := range st.Uses {
		st.Uses[id] = redact.Text(cmd)
	}
	for _, ep := range st.Open {
		ep.Command = redact.Text(ep.Command)
		for i := range ep.Errors {
			ep.Errors[i] = redact.Text(ep.Errors[i])
		}
		for i := range ep.Ran {
			ep.Ran[i] = redact.Text(ep.Ran[i])
		}
	}
	x.st = st
	x.restored = len(st.Requests) > 0 || st.Carried != "" || len(st.Files) > 0 || len(st.Fixed) > 0 || st.Started != ""
	return nil
}

// Add consumes one entry and returns the memories it completes: the
// signals of its assistant text, and the fix of a command it sees pass
// after a failure.
func (x *Extractor) Add(e Entry) []*cairn.Memory {
	if x.sessionID == "" && e.SessionID != "" {
		x.sessionID = e.SessionID
	}
	if x.st.Root == "" && e.CWD != "" {
		x.st.Root = e.CWD
	}
	if !e.Timestamp.IsZero() {
		ts := e.Timestamp.UTC().Format(time.RFC3339Nano)
		if x.st.Started == "" {
			x.st.Started = ts
		}
		x.st.Last = ts
	}
	if !e.IsSidechain && (e.Type == "user" || e.Type == "assistant") {
		x.st.Main = true
	}
	var out []*cairn.Memory
	switch e.Type {
	case "user":
		x.addRequest(e)
		for _, b := range e.Blocks {
			if b.Type != "tool_result" {
				continue
			}
			cmd, ok := x.st.Uses[b.ToolUseID]
			if !ok {
				continue
			}
			delete(x.st.Uses, b.ToolUseID)
			if m := x.result(cmd, b, e); m != nil {
				out = append(out, m)
			}
		}
	case "assistant":
		if e.Text != "" {
			out = append(out, x.assistantText(e.Text, e)...)
		}
		for _, b := range e.Blocks {
			switch b.Type {
			case "text":
				out = append(out, x.assistantText(b.Text, e)...)
			case "tool_use":
				x.toolUse(b, e)
			}
		}
	}
	return out
}

// addRequest keeps what a user line asked.
func (x *Extractor) addRequest(e Entry) {
	r := userRequest(e)
	switch {
	case r.interrupted:
		x.st.Interrupted = true
		return
	case r.carried != "" && x.st.Carried == "" && len(x.st.Requests) == 0:
		x.st.Carried = x.text(r.carried, maxRequest)
	case r.slash != "" && x.st.Slash == "":
		x.st.Slash = r.slash
	}
	if r.text == "" {
		return
	}
	if len(x.st.Requests) > 0 && corrects(r.text) {
		x.st.Corrected = true
	}
	x.st.Interrupted = false
	t := x.text(r.text, maxRequest)
	if t == "" || slices.Contains(x.st.Requests, t) || len(x.st.Requests) >= maxRequests {
		return
	}
	x.st.Requests = append(x.st.Requests, t)
}

// text is s as a memory may hold it: secrets redacted, paths rewritten,
// white space collapsed, at most n bytes.
func (x *Extractor) text(s string, n int) string {
	return cut(strings.Join(strings.Fields(x.paths().Text(redact.Text(s))), " "), n)
}

// paths is the path rewriter of the session: the given one, its root
// defaulting to the session's first working directory.
func (x *Extractor) paths() redact.Paths {
	p := x.Paths
	if p.Root == "" {
		p.Root = x.st.Root
	}
	return p
}

// assistantText reads the signals (and, for a critic, the findings) of an
// assistant's text, and keeps its gist as how the session ended.
func (x *Extractor) assistantText(text string, e Entry) []*cairn.Memory {
	out := x.signals(text, e)
	if len(out) > 0 {
		x.st.Recorded = true
	}
	out = append(out, x.findings(text, e)...)
	if !e.IsSidechain {
		if g := gist(text); g != "" {
			x.st.Ended = x.text(g, 240)
		}
	}
	return out
}

// toolUse keeps a command to wait for its result, or an edited file.
func (x *Extractor) toolUse(b Block, e Entry) {
	switch b.Name {
	case "Bash":
		// Commands and their output are kept (in the pending state) and
		// stored (in fixes): redacted from the start.
		if c := NormalizeCommand(x.paths().Text(redact.Text(b.Command))); c != "" {
			x.st.Uses[b.ID] = c
		}
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		x.edited(b.FilePath, e.CWD)
	default:
		if b.Name == "remember" || strings.HasSuffix(b.Name, "__remember") {
			x.st.Recorded = true // the agent stored a memory through cairn's MCP tool
		}
	}
}

// edited records a file the session changed: in the summary, and as a
// change between each open failure and its pass.
func (x *Extractor) edited(file, cwd string) {
	ref, ok := x.paths().File(redact.Text(file), cwd)
	if ref == "" {
		return
	}
	if !ok {
		if !slices.Contains(x.st.Elsewhere, ref) && len(x.st.Elsewhere) < maxListed {
			x.st.Elsewhere = append(x.st.Elsewhere, ref)
		}
		return
	}
	if !slices.Contains(x.st.Files, ref) && len(x.st.Files) < maxFiles {
		x.st.Files = append(x.st.Files, ref)
	}
	for _, ep := range x.st.Open {
		if !slices.Contains(ep.Edits, ref) && len(ep.Edits) < maxFiles {
			ep.Edits = append(ep.Edits, ref)
		}
		if failure.Manifest(ref) {
			ep.Manual = true
		}
	}
}

func (x *Extractor) signals(text string, e Entry) []*cairn.Memory {
	sigs, _ := capture.Parse(text)
	out := make([]*cairn.Memory, 0, len(sigs))
	for _, s := range sigs {
		m := s.Memory(x.Project)
		if s.Listed && !aboutProject(m.Content, x.paths()) {
			continue
		}
		m.SessionID = e.SessionID
		if !e.Timestamp.IsZero() {
			m.CreatedAt = e.Timestamp.UTC()
		}
		out = append(out, m)
	}
	return out
}

// result reads a command's outcome: a failure opens (or extends) its
// episode, a pass closes it with a fix, and any other command that
// changed something is remembered as what ran in between.
func (x *Extractor) result(cmd string, b Block, e Entry) *cairn.Memory {
	out := b.Text
	if strings.Contains(headOf(out, 300), "<tool_use_error>") || strings.HasPrefix(out, "[Request interrupted") ||
		strings.HasPrefix(out, "The user doesn't want to proceed with this tool use") {
		return nil // the tool refused the call, or the user stopped or rejected it: the command did not run
	}
	key := failure.CommandKey(cmd)
	piped := strings.Contains(cmd, "|")
	failed := b.IsError || (IsGate(cmd) || piped) && failRE().MatchString(out)
	if failed {
		x.fail(cmd, key, x.paths().Text(redact.Text(out)), e)
		return nil
	}
	passing := x.notePassing(out)
	ep := x.st.Open[key]
	if ep == nil || key == "" || !samePass(ep, cmd) {
		if !failure.Inert(cmd) && !IsGate(cmd) {
			for _, o := range x.st.Open {
				if failure.Installs(cmd) {
					o.Installs = appendBounded(o.Installs, cmd, maxBetween)
				} else {
					o.Ran = appendBounded(o.Ran, cmd, maxBetween)
				}
			}
		}
		return nil
	}
	delete(x.st.Open, key)
	// What the passing run prints too (a banner, a status line) is not
	// the error.
	ep.Errors = slices.DeleteFunc(ep.Errors, func(l string) bool { return passing[failure.Signature(l)] })
	return x.pass(ep, cmd, b, e)
}

// maxPassing bounds the error-like lines of passing commands kept.
const maxPassing = 400

// notePassing keeps the signatures of the error-like lines of a passing
// command's output, and returns them.
func (x *Extractor) notePassing(out string) map[string]bool {
	sigs := map[string]bool{}
	for _, raw := range strings.Split(headOf(out, 1<<20), "\n") {
		if l, ok := failure.ErrorLine(raw); ok {
			sig := failure.Signature(x.paths().Text(l))
			sigs[sig] = true
			if !slices.Contains(x.st.Passing, sig) {
				x.st.Passing = append(x.st.Passing, sig)
			}
		}
	}
	if n := len(x.st.Passing); n > maxPassing {
		x.st.Passing = x.st.Passing[n-maxPassing:]
	}
	return sigs
}

// fail opens or extends the episode of a failing command.
func (x *Extractor) fail(cmd, key, out string, e Entry) {
	if key == "" {
		return
	}
	errs := failure.ErrorLines(out, 2*maxErrors)
	errs = slices.DeleteFunc(errs, func(l string) bool { return slices.Contains(x.st.Passing, failure.Signature(l)) })
	ep := x.st.Open[key]
	if ep == nil {
		ep = &episode{At: e.Timestamp.UTC()}
		x.st.Open[key] = ep
	}
	ep.Command, ep.Core, ep.Dir = cmd, failure.Core(cmd), e.CWD
	ep.Ran = nil // what explains a pass ran after the last failure
	ep.Failed++
	for _, n := range failure.FailedTests(out, 3) {
		if len(ep.Tests) < 3 && !slices.Contains(ep.Tests, n) {
			ep.Tests = append(ep.Tests, n)
		}
	}
	for _, l := range errs {
		if len(ep.Errors) >= maxErrors {
			break
		}
		if !slices.ContainsFunc(ep.Errors, func(o string) bool { return failure.Normalize(o) == failure.Normalize(l) }) {
			ep.Errors = append(ep.Errors, l)
		}
	}
}

// samePass reports whether a passing command is a rerun of the episode's
// command: the same core, or the same program and arguments run with
// other flags or environment.
func samePass(ep *episode, cmd string) bool {
	core := failure.Core(cmd)
	if core == ep.Core {
		return true
	}
	return slices.Equal(plainArgs(core), plainArgs(ep.Core))
}

// plainArgs are the words of a command's core that are not flags.
func plainArgs(core string) []string {
	var out []string
	for _, w := range strings.Fields(core) {
		if !strings.HasPrefix(w, "-") {
			out = append(out, w)
		}
	}
	return out
}

func appendBounded(list []string, s string, n int) []string {
	if slices.Contains(list, s) {
		return list
	}
	list = append(list, s)
	if len(list) > n {
		list = list[len(list)-n:]
	}
	return list
}

func headOf(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// pass closes an episode: the command passed. It returns the fix memory,
// or nil when the failure named no error.
func (x *Extractor) pass(ep *episode, cmd string, b Block, e Entry) *cairn.Memory {
	errLine := ""
	if len(ep.Errors) > 0 {
		errLine = ep.Errors[0]
	}
	if errLine == "" {
		return nil // it failed without saying why: nothing to learn from
	}
	item := "`" + cut(failure.Trim(cmd), 160) + "` — " + cut(errLine, 200)
	if len(x.st.Fixed) < maxFixed && !slices.Contains(x.st.Fixed, item) {
		x.st.Fixed = append(x.st.Fixed, item)
	}
	x.st.Fixes++
	fix, known := fixText(ep, cmd, x.dirChange(ep.Dir, e.CWD))
	var sb strings.Builder
	tests := ""
	if len(ep.Tests) > 0 {
		tests = " (" + strings.Join(ep.Tests, ", ") + ")"
	}
	fmt.Fprintf(&sb, "**Error:** `%s` failed%s with:\n", cut(failure.Trim(ep.Command), 300), tests)
	for _, l := range ep.Errors {
		sb.WriteString(l + "\n")
	}
	sb.WriteString("\n**Fix:** " + fix + "\n")
	fmt.Fprintf(&sb, "**Passed:** `%s`", cut(cmd, 300))
	at := e.Timestamp.UTC()
	if !at.IsZero() {
		fmt.Fprintf(&sb, " (%s)", at.Format("2006-01-02"))
	}
	tags := []string{}
	for _, l := range ep.Errors {
		if t := failure.ErrorTag(l); !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	if t := failure.CommandTag(cmd); t != "" {
		tags = append(tags, t)
	}
	if IsGate(cmd) {
		tags = append(tags, "quality-gate")
	}
	conf := 0.7
	if !known {
		conf = 0.5
	}
	var refs []string
	for _, f := range ep.Edits {
		if len(refs) == cairn.MaxFileRefs {
			break
		}
		if len(f) <= maxSummaryItem {
			refs = append(refs, f)
		}
	}
	return &cairn.Memory{
		Project:    x.Project,
		Type:       "fix",
		Key:        FixKey(errLine),
		Title:      fixTitle(errLine, cmd),
		Content:    sb.String(),
		Tags:       tags,
		FileRefs:   refs,
		Confidence: conf,
		Source:     cairn.SourceAutomatic,
		SessionID:  e.SessionID,
		CreatedAt:  at,
	}
}

// fixTitle names a fix by its error and the command that failed.
func fixTitle(errLine, cmd string) string {
	t := strings.Map(func(r rune) rune {
		if r == '`' {
			return '\''
		}
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, errLine)
	return shorten(t, 110) + " — `" + shorten(failure.Trim(cmd), 90) + "`"
}

// dirChange says how the folder a command ran in changed between its
// failure and its pass ("" when it did not), relative to the project.
func (x *Extractor) dirChange(failedIn, passedIn string) string {
	if failedIn == "" || passedIn == "" || failedIn == passedIn {
		return ""
	}
	rel := func(d string) string {
		if d == x.paths().Root {
			return "the project's folder"
		}
		if r, ok := x.paths().File(d, ""); ok && r != "" {
			return r
		}
		return x.paths().Text(d)
	}
	return fmt.Sprintf("ran it in %s (it failed in %s)", rel(passedIn), rel(failedIn))
}

// fixText says what changed between an episode's failure and the pass of
// cmd (moved is the change of folder, if any), and whether that
// plausibly explains the pass.
func fixText(ep *episode, cmd, moved string) (string, bool) {
	var parts []string
	if moved != "" {
		parts = append(parts, moved)
	}
	fail, pass := failure.Trim(ep.Command), failure.Trim(cmd)
	// Other flags alone explain a pass only when nothing else changed.
	onlyFlags := slices.Equal(plainArgs(failure.Core(cmd)), plainArgs(ep.Core)) && envOf(cmd) == envOf(ep.Command)
	switch envFail, envPass := envOf(ep.Command), envOf(cmd); {
	case envFail != envPass && failure.Core(cmd) == ep.Core:
		parts = append(parts, "ran it with "+cut(envPass, 200)+" set")
	case fail != pass && (!onlyFlags || len(ep.Edits) == 0 && len(ep.Ran) == 0 && len(ep.Installs) == 0):
		parts = append(parts, fmt.Sprintf("ran it as `%s` (it failed as `%s`)", cut(pass, 200), cut(fail, 200)))
	}
	quote := func(cmds []string) string {
		q := make([]string, len(cmds))
		for i, c := range cmds {
			q[i] = "`" + cut(failure.Trim(c), 160) + "`"
		}
		return strings.Join(q, ", ")
	}
	if len(ep.Installs) > 0 {
		parts = append(parts, "ran "+quote(ep.Installs))
	}
	if others := ep.Ran; len(others) > 0 {
		if len(others) > 3 {
			others = others[len(others)-3:]
		}
		parts = append(parts, "ran "+quote(others))
	}
	edits := ""
	if len(ep.Edits) > 0 {
		edits = "edited " + listFiles(ep.Edits, 8)
	}
	// A missing program is installed, not edited away; a missing module
	// may be, by an edit of the very file the command runs.
	runs := slices.IndexFunc(ep.Edits, func(f string) bool { return strings.Contains(ep.Command, path.Base(f)) })
	missing := slices.ContainsFunc(ep.Errors, failure.MissingProgram) ||
		slices.ContainsFunc(ep.Errors, failure.Missing) && runs < 0
	switch {
	case missing && len(parts) == 0 && !ep.Manual && edits != "":
		return "not known: only " + edits + " in between, which installs nothing", false
	case len(parts) == 0 && edits == "":
		return "not known: the same command passed when run again with nothing changed in between (flaky, or fixed outside the session)", false
	}
	if edits != "" {
		if missing || runs < 0 || !slices.ContainsFunc(ep.Errors, failure.Missing) {
			parts = append(parts, edits)
		} else {
			parts = append(parts, edits+" ("+ep.Edits[runs]+" is what the command runs)")
		}
	}
	return strings.Join(parts, "; "), true
}

// envRE is an environment assignment at the start of a command's segment.
var envRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|&&|;|\|\||\n)\s*((?:[A-Za-z_]\w*=(?:"[^"]*"|'[^']*'|\S*)\s+)+)`)
})

// envOf is the environment assignments a command line starts its
// commands with.
func envOf(cmd string) string {
	var out []string
	for _, m := range envRE().FindAllStringSubmatch(cmd, -1) {
		out = append(out, strings.Fields(m[1])...)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func listFiles(files []string, n int) string {
	if len(files) <= n {
		return strings.Join(files, ", ")
	}
	return strings.Join(files[:n], ", ") + fmt.Sprintf(" and %d more", len(files)-n)
}

// FixKey is the key of the fix memory of an error: one memory per error,
// whatever session meets it.
func FixKey(errLine string) string { return "error:" + failure.Signature(errLine) }

// gistRE are lines that carry no content: a heading, a rule, a one-word
// exclamation, a table row.
var gistSkipRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(#|---|\*\*\*|\||` + "```" + `|(perfect|great|excellent|done|good|ok|okay|awesome|now|all set)\b[!.,:]*\s*$|(now )?let me\b|i'll\b|i will\b)`)
})

// diffstatRE is git's count of a change: "3 files changed, 40 insertions(+)".
var diffstatRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d+ )?files? changed\b|\binsertions?\(\+\)|\bdeletions?\(-\)`)
})

// gist is the first line of an assistant's text that says something:
// markdown markers removed, its first sentence, at most 240 bytes.
func gist(text string) string {
	fence := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			continue
		}
		t = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(t, "**", ""), "__", ""))
		if fence || t == "" || gistSkipRE().MatchString(t) || strings.HasSuffix(t, ":") || strings.Contains(t, "MEMORY:") ||
			strings.HasPrefix(t, "<") {
			continue
		}
		if diffstatRE().MatchString(t) {
			continue
		}
		t = strings.TrimSpace(strings.TrimLeft(t, "-*>0123456789. "))
		// A sentence says how it ended; a label, a file's place or a
		// tool's count does not.
		if contentWords(t) < 2 || len(strings.Fields(t)) < 4 || diffstatRE().MatchString(t) {
			continue
		}
		if label, value, ok := strings.Cut(t, ": "); ok && len(strings.Fields(label)) <= 3 && contentWords(value) < 3 {
			continue
		}
		if i := sentenceEnd(t); i > 0 {
			t = t[:i]
		}
		return cut(t, 240)
	}
	return ""
}

// sentenceEnd is the index just past the first sentence of s, 0 when it
// has one sentence only.
func sentenceEnd(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' && i > 20 {
			return i + 1
		}
	}
	return 0
}

// aboutProject reports whether a learning is about the project: it names
// no absolute path outside the project's folder (a repository the agent
// only read), and it is a whole sentence, not a table row or a fragment.
func aboutProject(content string, p redact.Paths) bool {
	t := strings.TrimSpace(content)
	if strings.HasPrefix(t, "|") || strings.Count(t, "|") >= 2 || contentWords(t) < 4 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(t, "*_` "))
	if !strings.ContainsRune(".!?)`\"'", last) && len(strings.Fields(t)) < 8 {
		return false
	}
	for _, f := range strings.Fields(t) {
		f = strings.Trim(f, "`'\"(),;:")
		if !strings.HasPrefix(f, "/") && !strings.HasPrefix(f, "~/") {
			continue
		}
		if _, ok := p.File(f, ""); !ok && p.Root != "" {
			return false
		}
	}
	return true
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
	return cairn.CutBytes(s, n)
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
