package client

import (
	"strings"
	"testing"
)

// parseAnswer reads what a Go HTTP server sends: a body of the length it
// announces, or in chunks; an answer cut short or that is not HTTP is an
// error, never a shorter body.
func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		status    int
		body      string
		err       string
	}{
		{"with a length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{\"a\"}", 200, `{"a"}`, ""},
		{"empty", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 200, "", ""},
		{"chunked", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", 200, "abcde", ""},
		{"an error", "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found", 404, "not found", ""},
		{"a body cut short", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{\"a\"}", 0, "", "not the 10 it announced"},
		{"chunks cut short", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nabc", 0, "", "cut short"},
		{"headers cut short", "HTTP/1.1 200 OK\r\nContent-Len", 0, "", "cut short"},
		{"not HTTP", "SSH-2.0-OpenSSH_9.6\r\n\r\n", 0, "", "not an HTTP answer"},
		{"a bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, "", "Content-Length"},
	} {
		status, body, err := parseAnswer([]byte(tc.raw))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %d %q %v, want an error saying %q", tc.name, status, body, err, tc.err)
			}
			continue
		}
		if err != nil || status != tc.status || string(body) != tc.body {
			t.Errorf("%s: %d %q %v, want %d %q", tc.name, status, body, err, tc.status, tc.body)
		}
	}
}
