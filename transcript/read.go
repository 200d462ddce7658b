// Package transcript reads Claude Code transcripts (JSON Lines, one event
// per line) as a stream and extracts, without a model, what a session
// teaches: the signals of package capture in the assistant's text, the
// fixes of failing quality gates (a test, build or lint command that
// fails and later passes after file edits), and a summary of the session.
//
// # Critic findings
//
// When the session's hat is critic (Extractor.Hat, set by `cairn ingest
// claude --hat critic`), the review findings in the assistant's text
// blocks become pitfall memories tagged review and critic-finding, with
// confidence 0.6 and source automatic. Findings reads the text line by
// line:
//   - a list item is a line starting with "- ", "* ", "1. " or "1) ";
//     indented lines after it (continuations, nested items) belong to it,
//     and a blank line ends it;
//   - a finding is a list item under a heading or lead-in line that
//     contains "finding", "issue", "problem", "concern" or "bug"
//     (case-insensitive), e.g. "## Issues found" or "I found these
//     problems:"; the next non-list line that does not contain one of
//     these words ends the section;
//   - a list item starting with "**Issue", "**Bug", "**Problem", "Issue:",
//     "Bug:" or "Problem:" is a finding wherever it is.
//
// The memory's title is the finding's first line without "**" (at most
// 80 characters); its content is the whole finding. Lines in code fences
// are not special-cased beyond a fence line closing a section.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"
)

// MaxLine is the longest line Read accepts; longer lines are skipped.
const MaxLine = 16 << 20

// Entry is one user, assistant, system or summary line of a transcript.
type Entry struct {
	Type      string // "user", "assistant", "system" or "summary"
	UUID      string
	SessionID string
	Timestamp time.Time
	CWD       string
	Role      string
	// Text is the content when it is a plain string (and a summary's text).
	Text   string
	Blocks []Block
	// IsMeta marks a line Claude Code wrote for the model, not the user
	// (a slash command's expansion, a caveat); IsSidechain a line of a
	// sub-agent; IsCompactSummary the summary a compaction starts the
	// rest of the conversation with.
	IsMeta, IsSidechain, IsCompactSummary bool
	Line                                  int   // the line number, from 1 at the point Read started
	End                                   int64 // the byte offset just past the line, from where Read started
}

// Block is one content block of a message.
type Block struct {
	Type string // "text", "thinking", "tool_use", "tool_result", …
	// Text is a text block's text, a thinking block's thinking, or a tool
	// result's output.
	Text string
	// tool_use
	ID       string
	Name     string
	Command  string // Bash: input.command
	FilePath string // Edit, Write, MultiEdit: input.file_path (NotebookEdit: notebook_path)
	// tool_result
	ToolUseID string
	IsError   bool
}

// Stats count what Read saw.
type Stats struct {
	Lines     int   // complete lines read (blank lines included)
	Entries   int   // lines passed to fn
	Skipped   int   // lines of another type, or without a type
	Malformed int   // lines that are not a JSON object, or too long
	Bytes     int64 // bytes consumed: whole lines only
}

var knownTypes = map[string]bool{"user": true, "assistant": true, "system": true, "summary": true}

// Read reads the transcript from r line by line and calls fn with each
// entry of a known type. Memory use is bounded by the longest line, not by
// the transcript. Malformed lines are counted, never fatal. A last line
// without a newline is read only when it is a whole JSON object (the
// writer may still be writing it otherwise); Stats.Bytes then stops
// before it, so a later Read from that offset sees it complete.
// An error from fn stops Read and is returned.
func Read(r io.Reader, fn func(Entry) error) (Stats, error) {
	return readLines(r, parseLine, fn)
}

// readLines is Read with the decoding of a line given: parse returns ok
// false for a line of a type that holds nothing to extract.
func readLines(r io.Reader, parse func([]byte) (Entry, bool, error), fn func(Entry) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // the start of a line longer than the reader's buffer
	var pending int64
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			pending += int64(len(chunk))
			if !tooLong {
				if len(long)+len(chunk) > MaxLine {
					tooLong, long = true, nil
				} else {
					long = append(long, chunk...)
				}
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return st, err
		}
		complete := err == nil
		lineLen := pending + int64(len(chunk))
		pending = 0
		if lineLen == 0 {
			return st, nil
		}
		line := chunk
		if long != nil {
			long = append(long, chunk...)
			line = long
		}
		wasLong := tooLong || len(line) > MaxLine
		tooLong, long = false, nil
		if wasLong {
			if !complete {
				return st, nil
			}
			st.Lines++
			st.Malformed++
			st.Bytes += lineLen
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if complete {
				st.Lines++
				st.Bytes += lineLen
				continue
			}
			return st, nil
		}
		e, ok, perr := parse(line)
		if !complete && perr != nil {
			return st, nil // a partial last line: leave it for a later Read
		}
		st.Lines++
		st.Bytes += lineLen
		switch {
		case perr != nil:
			st.Malformed++
		case !ok:
			st.Skipped++
		default:
			st.Entries++
			e.Line = st.Lines
			e.End = st.Bytes
			if err := fn(e); err != nil {
				return st, err
			}
		}
		if !complete {
			return st, nil
		}
	}
}

type rawLine struct {
	Type      string          `json:"type"`
	UUID      string          `json:"uuid"`
	SessionID string          `json:"sessionId"`
	Timestamp string          `json:"timestamp"`
	CWD       string          `json:"cwd"`
	Summary   string          `json:"summary"`
	IsMeta    bool            `json:"isMeta"`
	Sidechain bool            `json:"isSidechain"`
	Compact   bool            `json:"isCompactSummary"`
	Content   json.RawMessage `json:"content"` // system lines
	Message   *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type rawBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type rawInput struct {
	Command      string `json:"command"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
}

// parseLine decodes one line: ok is false for a line of another type.
func parseLine(line []byte) (Entry, bool, error) {
	var raw rawLine
	if err := json.Unmarshal(line, &raw); err != nil {
		return Entry{}, false, err
	}
	if !knownTypes[raw.Type] {
		return Entry{}, false, nil
	}
	e := Entry{Type: raw.Type, UUID: raw.UUID, SessionID: raw.SessionID, CWD: raw.CWD, IsMeta: raw.IsMeta,
		IsSidechain: raw.Sidechain, IsCompactSummary: raw.Compact}
	if raw.Timestamp != "" {
		e.Timestamp, _ = time.Parse(time.RFC3339Nano, raw.Timestamp)
	}
	content := raw.Content
	if raw.Message != nil {
		e.Role = raw.Message.Role
		content = raw.Message.Content
	}
	if raw.Type == "summary" {
		e.Text = raw.Summary
	}
	text, blocks, err := parseContent(content)
	if err != nil {
		return Entry{}, false, err
	}
	if text != "" {
		e.Text = text
	}
	e.Blocks = blocks
	return e, true, nil
}

// parseContent decodes content that is a string or an array of blocks.
func parseContent(c json.RawMessage) (string, []Block, error) {
	c = bytes.TrimSpace(c)
	if len(c) == 0 || string(c) == "null" {
		return "", nil, nil
	}
	if c[0] == '"' {
		var s string
		err := json.Unmarshal(c, &s)
		return s, nil, err
	}
	var raws []rawBlock
	if err := json.Unmarshal(c, &raws); err != nil {
		return "", nil, err
	}
	blocks := make([]Block, 0, len(raws))
	for _, rb := range raws {
		b := Block{Type: rb.Type, ID: rb.ID, Name: rb.Name, ToolUseID: rb.ToolUseID, IsError: rb.IsError}
		switch rb.Type {
		case "text":
			b.Text = rb.Text
		case "thinking":
			b.Text = rb.Thinking
		case "tool_use":
			var in rawInput
			if len(rb.Input) > 0 && json.Unmarshal(rb.Input, &in) == nil {
				b.Command = in.Command
				b.FilePath = in.FilePath
				if b.FilePath == "" {
					b.FilePath = in.NotebookPath
				}
			}
		case "tool_result":
			t, sub, err := parseContent(rb.Content)
			if err != nil {
				return "", nil, err
			}
			var sb strings.Builder
			sb.WriteString(t)
			for _, s := range sub {
				if s.Type == "text" {
					if sb.Len() > 0 {
						sb.WriteByte('\n')
					}
					sb.WriteString(s.Text)
				}
			}
			b.Text = sb.String()
		}
		blocks = append(blocks, b)
	}
	return "", blocks, nil
}
