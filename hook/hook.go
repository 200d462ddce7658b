// Package hook reads the JSON that Claude Code gives a hook command on
// standard input and writes the answers Claude Code reads back.
//
// Claude Code runs a hook command with one JSON object on standard input.
// The fields every event carries are session_id, transcript_path, cwd,
// hook_event_name and permission_mode; the events add their own:
//
//   - SessionStart: source (startup, resume, clear or compact)
//   - UserPromptSubmit: prompt
//   - Stop and SubagentStop: stop_hook_active (true while Claude is already
//     continuing because a Stop hook asked it to); SubagentStop also
//     agent_id and agent_transcript_path in newer versions, and both
//     last_assistant_message in newer versions
//   - PreCompact: trigger (manual or auto) and custom_instructions
//   - SessionEnd: reason (clear, logout, prompt_input_exit, other, …)
//   - PostToolUse: tool_name, tool_input, tool_response and tool_use_id
//   - PostToolUseFailure (a tool call that failed; a Bash command that
//     exits with a status other than 0 is one): tool_name, tool_input,
//     tool_use_id, error (for Bash "Exit code N" and the command's
//     output) and is_interrupt
//
// SessionStart, UserPromptSubmit, PreToolUse, SubagentStart and
// PostToolUseFailure add context: Context renders it as
// {"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}, which
// Claude Code caps at MaxContext characters and shows the model with the
// next request (after a failure, beside the tool's result). Whatever the
// other events print matters too (a PreCompact hook's plain output becomes
// compaction instructions), so cairn prints nothing for them, except a
// Stop hook that asks the agent, once, to write what it learned: Block
// renders {"decision":"block","reason":…}, which Claude Code gives the
// model as feedback and then lets it go on; the next Stop then carries
// stop_hook_active true.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Event is a Claude Code hook event, named as Claude Code names it in
// hook_event_name and in settings.json ("SessionStart", …).
type Event string

// The events cairn answers.
const (
	SessionStart     Event = "SessionStart"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SubagentStop     Event = "SubagentStop"
	PreCompact       Event = "PreCompact"
	SessionEnd       Event = "SessionEnd"
	PostToolUse      Event = "PostToolUse"
	PreToolUse       Event = "PreToolUse"
	SubagentStart    Event = "SubagentStart"
	// PostToolUseFailure follows a tool call that failed.
	PostToolUseFailure Event = "PostToolUseFailure"
)

// Events lists the events in the order a session meets them.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, SubagentStart, Stop, SubagentStop, PreCompact, SessionEnd}

// Injects reports whether cairn answers event with context (and so must
// answer it fast): SessionStart, UserPromptSubmit, PreToolUse,
// SubagentStart and PostToolUseFailure. The other events capture.
func Injects(e Event) bool {
	switch e {
	case SessionStart, UserPromptSubmit, PreToolUse, SubagentStart, PostToolUseFailure:
		return true
	}
	return false
}

// Kebab is the event's name on cairn's command line: "session-start",
// "user-prompt-submit", …; `cairn install claude` writes these names.
func (e Event) Kebab() string {
	var b strings.Builder
	for i, r := range string(e) {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseEvent accepts an event's kebab-case name ("user-prompt-submit") or
// Claude Code's CamelCase name ("UserPromptSubmit"), in any letter case,
// with dashes or underscores; ok is false for any other name.
func ParseEvent(name string) (e Event, ok bool) {
	for _, ev := range Events {
		if sameEventName(name, string(ev)) {
			return ev, true
		}
	}
	return "", false
}

// sameEventName reports whether name, its dashes and underscores left
// out and lowered rune by rune (as strings.ToLower lowers), is ev
// lowered, ev being a non-empty ASCII CamelCase name. It allocates
// nothing: an http hook parses its event on every call.
func sameEventName(name, ev string) bool {
	i := 0
	for _, r := range name {
		if r == '-' || r == '_' {
			continue
		}
		if i == len(ev) || unicode.ToLower(r) != rune(lowerASCII(ev[i])) {
			return false
		}
		i++
	}
	return i == len(ev) && i > 0
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Payload is the JSON object of one hook call. Fields an event does not
// carry are empty; unknown fields are ignored, so newer Claude Code
// versions keep working.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode"`

	Source string `json:"source"` // SessionStart
	Prompt string `json:"prompt"` // UserPromptSubmit

	StopHookActive       bool   `json:"stop_hook_active"`       // Stop, SubagentStop
	AgentID              string `json:"agent_id"`               // SubagentStart, SubagentStop (newer versions)
	AgentType            string `json:"agent_type"`             // SubagentStart, SubagentStop (newer versions)
	AgentTranscriptPath  string `json:"agent_transcript_path"`  // SubagentStop (newer versions)
	LastAssistantMessage string `json:"last_assistant_message"` // Stop, SubagentStop (newer versions)

	Trigger            string `json:"trigger"`             // PreCompact: manual or auto
	CustomInstructions string `json:"custom_instructions"` // PreCompact

	Reason string `json:"reason"` // SessionEnd

	ToolName     string          `json:"tool_name"` // PreToolUse, PostToolUse, PostToolUseFailure
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	ToolUseID    string          `json:"tool_use_id"`

	Error       string `json:"error"`        // PostToolUseFailure: what the tool said
	IsInterrupt bool   `json:"is_interrupt"` // PostToolUseFailure: the user stopped the call
}

// ErrEmpty is Parse's error for an empty or blank standard input.
var ErrEmpty = errors.New("no hook payload on standard input")

// Parse decodes one payload. Empty input, anything but one JSON object,
// and a value of the wrong type for a known field are errors.
func Parse(data []byte) (*Payload, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	if data[0] != '{' {
		return nil, errors.New("the hook payload is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var p Payload
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("the hook payload is not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the hook payload has more than one JSON value")
	}
	return &p, nil
}

// Event is the payload's hook_event_name as an Event; ok is false when it
// is missing or unknown.
func (p *Payload) Event() (Event, bool) { return ParseEvent(p.HookEventName) }

// Command is the shell command of a Bash tool call, "" for other tools.
func (p *Payload) Command() string {
	if p.ToolName != "Bash" || len(p.ToolInput) == 0 {
		return ""
	}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(p.ToolInput, &in) != nil {
		return ""
	}
	return in.Command
}

// FilePath is the file a file-editing tool call (Edit, MultiEdit, Write,
// NotebookEdit) is about to change, "" for other tools.
func (p *Payload) FilePath() string {
	switch p.ToolName {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
	default:
		return ""
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if len(p.ToolInput) == 0 || json.Unmarshal(p.ToolInput, &in) != nil {
		return ""
	}
	if in.FilePath != "" {
		return in.FilePath
	}
	return in.NotebookPath
}

// ToolResult is a tool call's output as text and whether Claude Code
// marked it as an error or an interruption. A Bash response
// ({"stdout","stderr","interrupted","isImage"}) gives its stdout and
// stderr; a string response is the output itself; any other object
// gives its "output", "content" or "error" text when it has one.
func (p *Payload) ToolResult() (output string, failed bool) {
	raw := bytes.TrimSpace(p.ToolResponse)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, false
		}
		return "", false
	}
	var r struct {
		Stdout      string `json:"stdout"`
		Stderr      string `json:"stderr"`
		Interrupted bool   `json:"interrupted"`
		IsError     bool   `json:"is_error"`
		Output      string `json:"output"`
		Content     any    `json:"content"`
		Error       string `json:"error"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return "", false
	}
	var parts []string
	for _, s := range []string{r.Stdout, r.Stderr, r.Output, r.Error} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if s, ok := r.Content.(string); ok && s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, "\n"), r.Interrupted || r.IsError || r.Error != ""
}

// Failure is the output of a failed tool call: PostToolUseFailure's error,
// or a PostToolUse response that says the call failed (a Bash command's
// exit code other than 0, is_error, an interruption). ok is false for a
// call that did not fail, or that the user interrupted.
func (p *Payload) Failure() (output string, ok bool) {
	if p.IsInterrupt {
		return "", false
	}
	if strings.TrimSpace(p.Error) != "" {
		return p.Error, true
	}
	out, failed := p.ToolResult()
	if !failed {
		var r struct {
			ExitCode *int `json:"exit_code"`
			Exit     *int `json:"exitCode"`
		}
		if json.Unmarshal(p.ToolResponse, &r) == nil {
			for _, c := range []*int{r.ExitCode, r.Exit} {
				if c != nil && *c != 0 {
					failed = true
				}
			}
		}
	}
	return out, failed && strings.TrimSpace(out) != ""
}

// Block is a Stop hook's answer that keeps the agent going once more with
// reason as its next instruction, one line of JSON ending in a newline.
func Block(reason string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", reason}) // strings always encode
	return b.Bytes()
}

// MaxContext is the most characters of additionalContext Claude Code
// takes from a hook.
const MaxContext = 10000

// Output is the JSON answer of a hook that adds context.
type Output struct {
	HookSpecificOutput SpecificOutput `json:"hookSpecificOutput"`
}

// SpecificOutput is the event-specific part of an Output.
type SpecificOutput struct {
	HookEventName     Event  `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// EscapedLen is the length of s as a JSON string in Context's output,
// without the quotes, in UTF-16 code units (JavaScript's string length,
// which Claude Code's cap counts: a character outside the Basic
// Multilingual Plane, such as an emoji, counts two): the measure Context
// keeps within MaxContext, so that the cap holds however the text is
// counted.
func EscapedLen(s string) int {
	n := 0
	for _, r := range string(escape(s)) {
		n += utf16.RuneLen(r)
	}
	return n
}

func escape(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return out[1 : len(out)-1]
}

// ErrTooLong is Context's error for a text whose escaped form exceeds
// MaxContext: callers render a shorter text rather than cut one apart.
var ErrTooLong = errors.New("the context is longer than Claude Code takes")

// Context is the answer that adds text to Claude's context for event, one
// line of JSON ending in a newline; nil when text is empty (print nothing:
// nothing is added). Text whose escaped form is longer than MaxContext
// gives ErrTooLong.
func Context(event Event, text string) ([]byte, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	if EscapedLen(text) > MaxContext {
		return nil, ErrTooLong
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Output{SpecificOutput{HookEventName: event, AdditionalContext: text}}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
