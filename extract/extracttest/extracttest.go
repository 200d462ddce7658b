// Package extracttest is an OpenAI-compatible chat completions endpoint
// for tests of model extraction: it answers with recorded bodies instead
// of a model.
package extracttest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Server answers every request with a status and the content of a file
// of its folder (both can change between requests, and an answer can be
// delayed), and keeps what it was sent. It stops when the test ends.
type Server struct {
	srv *httptest.Server
	dir string

	mu     sync.Mutex
	status int
	file   string
	delay  time.Duration
	bodies [][]byte
	heads  []http.Header
	paths  []string
}

// NewServer starts a server answering status and the file named file of
// folder dir (e.g. the extract package's testdata).
func NewServer(t testing.TB, dir string, status int, file string) *Server {
	t.Helper()
	s := &Server{dir: dir, status: status, file: file}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.heads = append(s.heads, r.Header.Clone())
		s.paths = append(s.paths, r.Method+" "+r.URL.Path)
		status, file, delay := s.status, s.file, s.delay
		s.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		raw, err := os.ReadFile(filepath.Join(s.dir, file))
		if err != nil {
			t.Errorf("extracttest: %v", err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(raw)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's address, without a path.
func (s *Server) URL() string { return s.srv.URL }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Set changes the answer of the requests to come.
func (s *Server) Set(status int, file string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.file = status, file
}

// SetDelay makes the answers to come wait d (or until the client gives up).
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Hits is how many requests came.
func (s *Server) Hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// Bodies, Headers and Paths ("POST /v1/chat/completions") are what the
// requests so far carried, in order.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// Headers are the requests' headers, in order.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.heads...)
}

// Paths are the requests' methods and paths, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}
