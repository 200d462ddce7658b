package client

import (
	"bytes"
	"fmt"
	"io"
	"net/http/httputil"
	"strconv"
	"strings"
	"time"
)

// maxHookAnswer bounds the answer PostHook reads: a hook's block is a few
// KiB.
const maxHookAnswer = 16 << 20

// PostHook posts a hook's payload to path (the server's hook route,
// /hooks/AGENT/EVENT) on the Unix socket sock, with the headers given
// (names and values, without line breaks), and returns the answer's status
// and body, the whole exchange bounded by timeout. It speaks only the
// HTTP/1.1 this exchange needs, without net/http's client: a command hook
// is a process started for one request, and in such a process loading
// and running that client, and decoding and encoding the block, cost more
// than the rest of the hook (docs/performance.md).
func PostHook(sock, path string, header [][2]string, payload []byte, timeout time.Duration) (status int, body []byte, err error) {
	req := make([]byte, 0, 256+len(payload))
	req = append(req, "POST "+path+" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: "...)
	req = strconv.AppendInt(req, int64(len(payload)), 10)
	req = append(req, "\r\n"...)
	for _, h := range header {
		if strings.ContainsAny(h[0]+h[1], "\r\n") {
			return 0, nil, fmt.Errorf("the header %q holds a line break", h[0])
		}
		req = append(req, h[0]+": "+h[1]+"\r\n"...)
	}
	req = append(req, "\r\n"...)
	req = append(req, payload...)
	f, err := dialUnix(sock, timeout)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	if _, err := f.Write(req); err != nil {
		return 0, nil, err
	}
	// The server closes the connection after its answer (Connection: close).
	raw, err := io.ReadAll(io.LimitReader(f, maxHookAnswer+1))
	if err != nil {
		return 0, nil, err
	}
	if len(raw) > maxHookAnswer {
		return 0, nil, fmt.Errorf("the answer is larger than %d MiB", maxHookAnswer>>20)
	}
	return parseAnswer(raw)
}

// parseAnswer reads an HTTP/1.1 answer: its status line, the headers it
// needs (Content-Length, Transfer-Encoding) and its body.
func parseAnswer(raw []byte) (status int, body []byte, err error) {
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		return 0, nil, fmt.Errorf("the answer was cut short: %q", cut(raw))
	}
	lines := strings.Split(string(head), "\r\n")
	proto, rest, _ := strings.Cut(lines[0], " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err = strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return 0, nil, fmt.Errorf("not an HTTP answer: %q", cut(raw))
	}
	length, chunked := -1, false
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		switch {
		case strings.EqualFold(k, "Content-Length"):
			if length, err = strconv.Atoi(v); err != nil || length < 0 {
				return 0, nil, fmt.Errorf("a Content-Length of %q", v)
			}
		case strings.EqualFold(k, "Transfer-Encoding"):
			chunked = strings.EqualFold(v, "chunked")
		}
	}
	switch {
	case chunked:
		if body, err = io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(body))); err != nil {
			return 0, nil, fmt.Errorf("the answer's body was cut short: %v", err)
		}
	case length >= 0 && len(body) != length:
		return 0, nil, fmt.Errorf("the answer's body is %d bytes, not the %d it announced", len(body), length)
	}
	return status, body, nil
}

// cut is the start of an answer, for messages.
func cut(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
