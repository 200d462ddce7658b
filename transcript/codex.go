package transcript

// Codex's rollout files (~/.codex/sessions/YYYY/MM/DD/rollout-…-UUID.jsonl)
// are read into the same entries as Claude Code's transcripts, so that one
// Extractor finds the same things in both: the user's prompt, the signals
// in the assistant's text, the fixes of quality gates that failed and then
// passed after edits, and the files the session changed.
//
// A line is {"timestamp", "type", "payload"}:
//   - session_meta: the session's id and working directory;
//   - turn_context: the working directory of the turn;
//   - response_item: a message (role user or assistant, content blocks of
//     input_text or output_text), a function_call (shell, shell_command,
//     exec_command, container.exec: a command; apply_patch: edits), a
//     local_shell_call, a custom_tool_call (apply_patch's patch), and
//     their *_output lines, whose exit code says whether the command
//     passed;
//   - event_msg and compacted lines repeat what the response items hold
//     and are skipped.
//
// Rollouts written before the wrapper existed hold the response items
// themselves, one a line, after a first line of session metadata: those
// are read too.

import (
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CodexSession is the state a rollout's lines share: its session id and
// working directory. A later read of the same file from an offset starts
// without the session_meta line, so the caller seeds it (CodexSessionOf
// reads both from the file's first line, and the id is in its name).
type CodexSession struct {
	ID  string
	CWD string
}

// codexUUID is the session id at the end of a rollout file's name.
var codexUUID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$`)
})

// CodexSessionOf reads the session of a rollout from its head (the first
// lines up to its session_meta) and, failing that, its id from the file
// name. It never fails: what it cannot read stays "".
func CodexSessionOf(path string, head io.Reader) CodexSession {
	var s CodexSession
	if m := codexUUID().FindStringSubmatch(filepath.Base(path)); m != nil {
		s.ID = m[1]
	}
	if head == nil {
		return s
	}
	_, _ = readLines(io.LimitReader(head, 1<<20), func(line []byte) (Entry, bool, error) {
		var raw codexLine
		if json.Unmarshal(line, &raw) != nil {
			return Entry{}, false, nil
		}
		if raw.Type == "session_meta" || raw.Type == "" && raw.ID != "" {
			meta := raw.Payload
			if raw.Type == "" {
				meta, _ = json.Marshal(raw) // an old rollout's first line is the metadata
			}
			var m codexMeta
			if json.Unmarshal(meta, &m) == nil {
				if m.ID != "" {
					s.ID = m.ID
				}
				if m.CWD != "" {
					s.CWD = m.CWD
				}
			}
			return Entry{}, true, nil
		}
		return Entry{}, false, nil
	}, func(Entry) error { return errStop })
	return s
}

type stopError struct{}

func (stopError) Error() string { return "stop" }

var errStop error = stopError{}

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	ID        string          `json:"id"` // an old rollout's first line
}

type codexMeta struct {
	ID  string `json:"id"`
	CWD string `json:"cwd"`
}

type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   []codexContent  `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	ID        string          `json:"id"`
	Output    json.RawMessage `json:"output"`
	Action    *struct {
		Command []string `json:"command"`
	} `json:"action"`
	CWD string `json:"cwd"` // turn_context
}

type codexContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ReadCodex reads a Codex rollout as Read reads a Claude Code transcript,
// with the same guarantees (bounded memory, partial last line left for a
// later read, malformed lines counted). s carries the session across
// lines and is updated by session_meta and turn_context lines.
func ReadCodex(r io.Reader, s *CodexSession, fn func(Entry) error) (Stats, error) {
	if s == nil {
		s = &CodexSession{}
	}
	return readLines(r, s.parse, fn)
}

func (s *CodexSession) parse(line []byte) (Entry, bool, error) {
	var raw codexLine
	if err := json.Unmarshal(line, &raw); err != nil {
		return Entry{}, false, err
	}
	payload := raw.Payload
	switch raw.Type {
	case "session_meta":
		var m codexMeta
		if json.Unmarshal(payload, &m) == nil {
			if m.ID != "" {
				s.ID = m.ID
			}
			if m.CWD != "" {
				s.CWD = m.CWD
			}
		}
		return Entry{}, false, nil
	case "turn_context":
		var it codexItem
		if json.Unmarshal(payload, &it) == nil && it.CWD != "" {
			s.CWD = it.CWD
		}
		return Entry{}, false, nil
	case "response_item":
	case "":
		if raw.ID != "" { // an old rollout's metadata line
			var m codexMeta
			if json.Unmarshal(line, &m) == nil && s.ID == "" {
				s.ID = m.ID
			}
			return Entry{}, false, nil
		}
		return Entry{}, false, nil
	default:
		if len(payload) > 0 {
			return Entry{}, false, nil // event_msg, compacted …
		}
		payload = line // an old rollout's response item, unwrapped
	}
	var it codexItem
	if err := json.Unmarshal(payload, &it); err != nil {
		return Entry{}, false, err
	}
	e := Entry{SessionID: s.ID, CWD: s.CWD}
	if raw.Timestamp != "" {
		e.Timestamp, _ = time.Parse(time.RFC3339Nano, raw.Timestamp)
	}
	switch it.Type {
	case "message":
		var texts []string
		for _, c := range it.Content {
			if (c.Type == "input_text" || c.Type == "output_text" || c.Type == "text") && c.Text != "" {
				texts = append(texts, c.Text)
			}
		}
		switch it.Role {
		case "user":
			t := strings.TrimSpace(strings.Join(texts, "\n"))
			if t == "" || strings.HasPrefix(t, "<environment_context>") || strings.HasPrefix(t, "<user_instructions>") ||
				strings.HasPrefix(t, "# AGENTS.md instructions") {
				return Entry{}, false, nil // what Codex adds to every session, not what the user asked
			}
			e.Type, e.Role, e.Text = "user", "user", t
		case "assistant":
			e.Type, e.Role = "assistant", "assistant"
			for _, t := range texts {
				e.Blocks = append(e.Blocks, Block{Type: "text", Text: t})
			}
		default:
			return Entry{}, false, nil
		}
		return e, true, nil
	case "function_call", "custom_tool_call", "local_shell_call":
		e.Type, e.Role = "assistant", "assistant"
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		if it.Name == "apply_patch" {
			patch := it.Input
			if patch == "" {
				var a struct {
					Input string `json:"input"`
					Patch string `json:"patch"`
				}
				_ = json.Unmarshal([]byte(it.Arguments), &a)
				patch = a.Input + a.Patch
			}
			e.Blocks = patchEdits(patch, id)
			return e, len(e.Blocks) > 0, nil
		}
		cmd := ""
		if it.Action != nil {
			cmd = shellCommand(it.Action.Command)
		} else {
			cmd = commandOf(it.Arguments)
		}
		if cmd == "" {
			return Entry{}, false, nil
		}
		if strings.Contains(cmd, "*** Begin Patch") {
			e.Blocks = patchEdits(cmd, id)
			return e, len(e.Blocks) > 0, nil
		}
		e.Blocks = []Block{{Type: "tool_use", ID: id, Name: "Bash", Command: cmd}}
		return e, true, nil
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		text, code := codexOutput(it.Output)
		e.Type, e.Role = "user", "user"
		e.Blocks = []Block{{Type: "tool_result", ToolUseID: it.CallID, Text: text, IsError: code != 0}}
		return e, true, nil
	}
	return Entry{}, false, nil
}

// commandOf is the command of a shell tool's arguments: {"command":
// ["bash", "-lc", "go test ./..."]}, {"command": "go test ./..."} or
// {"cmd": "…"}.
func commandOf(args string) string {
	var a struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{a.Command, a.Cmd} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
		var list []string
		if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
			return shellCommand(list)
		}
	}
	return ""
}

// shellCommand is the command line of an argv: the script of a shell's
// -c or -lc, else the words joined.
func shellCommand(argv []string) string {
	if len(argv) >= 3 {
		switch filepath.Base(argv[0]) {
		case "bash", "sh", "zsh":
			if argv[1] == "-lc" || argv[1] == "-c" {
				return argv[2]
			}
		}
	}
	return strings.Join(argv, " ")
}

// codexExit matches the exit code at the head of a shell tool's output in
// the newer plain-text form ("Exit code: 1", "Process exited with code 1").
var codexExit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Exit code:?|Process exited with code) (-?\d+)`)
})

// codexOutput is a tool's output text and exit code (0 when it says none):
// {"output": "…", "metadata": {"exit_code": 1}} encoded in a string, the
// same as an object, or plain text.
func codexOutput(raw json.RawMessage) (string, int) {
	var text string
	if json.Unmarshal(raw, &text) != nil {
		text = string(raw)
	}
	var o struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") && json.Unmarshal([]byte(text), &o) == nil {
		return o.Output, o.Metadata.ExitCode
	}
	if m := codexExit().FindStringSubmatch(text); m != nil {
		code, _ := strconv.Atoi(m[1])
		return text, code
	}
	return text, 0
}

// patchEdits are the files an apply_patch patch adds, updates, deletes or
// moves, as Edit tool uses.
func patchEdits(patch, id string) []Block {
	var out []Block
	for _, l := range strings.Split(patch, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(l, p); ok && strings.TrimSpace(f) != "" {
				out = append(out, Block{Type: "tool_use", ID: id, Name: "Edit", FilePath: strings.TrimSpace(f)})
			}
		}
	}
	return out
}
