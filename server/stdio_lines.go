package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// maxMCPLine bounds one line of an MCP client over standard input.
const maxMCPLine = 16 << 20

// lockedWriter serialises whole writes: the MCP session writes each
// message in one Write, and mcpLines writes its error answers in between.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// mcpLines passes an MCP client's lines to the session one JSON object at
// a time and answers, without ending the session, what it cannot take: a
// line that is not JSON (a parse error, -32700) and a JSON-RPC batch,
// which MCP no longer has (an invalid request, -32600), each with id null
// as JSON-RPC asks when the request's id cannot be known. Blank lines are
// skipped. A line over maxMCPLine ends the session as the transport does.
type mcpLines struct {
	in     *bufio.Reader
	out    io.Writer
	log    io.Writer // told once per refused line
	rest   []byte    // of the current line, not yet read
	closer io.Closer
}

func newMCPLines(r io.ReadCloser, out, log io.Writer) *mcpLines {
	return &mcpLines{in: bufio.NewReaderSize(r, 64<<10), out: out, log: log, closer: r}
}

func (l *mcpLines) Close() error { return l.closer.Close() }

func (l *mcpLines) Read(p []byte) (int, error) {
	for len(l.rest) == 0 {
		line, err := l.readLine()
		if len(line) > 0 {
			l.rest = l.accept(line)
		}
		if err != nil && len(l.rest) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

// readLine reads one line, with its newline, up to maxMCPLine bytes.
func (l *mcpLines) readLine() ([]byte, error) {
	var line []byte
	for {
		part, err := l.in.ReadSlice('\n')
		line = append(line, part...)
		if err == bufio.ErrBufferFull {
			if len(line) > maxMCPLine {
				return nil, fmt.Errorf("an MCP message over %d MiB", maxMCPLine>>20)
			}
			continue
		}
		return line, err
	}
}

// accept returns the line to pass on, or nil after answering it.
func (l *mcpLines) accept(line []byte) []byte {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) == 0:
		return nil
	case t[0] == '{' && json.Valid(t):
		if id, ok := jsonRPCMessage(t); !ok {
			l.refuseID(id, -32600, "Invalid Request: not a JSON-RPC 2.0 message (jsonrpc \"2.0\" with a method, or an id with a result or an error)")
			return nil
		}
		if line[len(line)-1] != '\n' {
			line = append(line, '\n')
		}
		return line
	case t[0] == '[' && json.Valid(t):
		l.refuse(-32600, "Invalid Request: batches are not part of MCP; send one JSON-RPC message a line")
	default:
		l.refuse(-32700, "Parse error: the line is not a JSON object")
	}
	return nil
}

// jsonRPCMessage reports whether the JSON object t is a JSON-RPC 2.0
// request, notification or response, and its id when it has a usable one
// (a string or a number; else null).
func jsonRPCMessage(t []byte) (json.RawMessage, bool) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(t, &m) != nil {
		return nil, false
	}
	id := json.RawMessage(nil)
	if len(m.ID) > 0 && (m.ID[0] == '"' || m.ID[0] == '-' || m.ID[0] >= '0' && m.ID[0] <= '9') {
		id = m.ID
	}
	if m.JSONRPC != "2.0" || len(m.ID) > 0 && id == nil && string(m.ID) != "null" {
		return id, false
	}
	if m.Method != nil {
		return id, *m.Method != ""
	}
	return id, id != nil && (len(m.Result) > 0 || len(m.Error) > 0)
}

func (l *mcpLines) refuse(code int, msg string) { l.refuseID(nil, code, msg) }

func (l *mcpLines) refuseID(id json.RawMessage, code int, msg string) {
	var idv any = id
	if id == nil {
		idv = nil
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": idv, "error": map[string]any{"code": code, "message": msg}})
	l.out.Write(append(b, '\n'))
	fmt.Fprintf(l.log, "cairn: mcp: %s; the session goes on\n", msg)
}
