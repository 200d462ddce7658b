// Package embedtest is an OpenAI-compatible embeddings endpoint for tests.
// No model can be loaded in tests, so it answers with deterministic
// vectors that still carry meaning: each word is mapped to a concept (the
// word itself unless Concepts names another), each concept to a fixed
// pseudo-random direction, and a text's vector is the normalised sum of
// its concepts' directions. Words of one concept ("car", "automobile")
// thus give close vectors without sharing a letter, and unrelated texts
// give vectors close to orthogonal.
package embedtest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// DefaultDims is the length of the vectors when a request does not ask
// for dimensions.
const DefaultDims = 64

// Server is the endpoint. Its fields may be changed between requests
// through the setters; it stops when the test ends.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	concepts map[string]string
	fail     []int // statuses to answer the next requests with, in order
	raw      string
	delay    time.Duration
	requests []Request
	dims     int
	model    string // when set, other models are refused with 404
}

// Request is what the server was sent.
type Request struct {
	Model      string
	Input      []string
	Dimensions int
	Auth       string // the Authorization header
}

// NewServer starts a server with the given word → concept map (nil: every
// word is its own concept).
func NewServer(t testing.TB, concepts map[string]string) *Server {
	t.Helper()
	s := &Server{concepts: concepts, dims: DefaultDims}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the API root to configure, e.g. http://127.0.0.1:1234/v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// FailNext makes the next requests answer these statuses, one each, with
// an error body.
func (s *Server) FailNext(statuses ...int) {
	s.mu.Lock()
	s.fail = append(s.fail, statuses...)
	s.mu.Unlock()
}

// AnswerRaw makes every request answer this body with status 200 ("" to
// answer vectors again).
func (s *Server) AnswerRaw(body string) {
	s.mu.Lock()
	s.raw = body
	s.mu.Unlock()
}

// SetDelay delays every answer.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// OnlyModel makes the server refuse (HTTP 404) any other model.
func (s *Server) OnlyModel(m string) {
	s.mu.Lock()
	s.model = m
	s.mu.Unlock()
}

// Requests returns what the server was sent, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model      string          `json:"model"`
		Input      json.RawMessage `json:"input"`
		Dimensions int             `json:"dimensions"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	var input []string
	if err := json.Unmarshal(req.Input, &input); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			http.Error(w, `{"error":{"message":"input must be a string or a list of strings"}}`, http.StatusBadRequest)
			return
		}
		input = []string{one}
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Model: req.Model, Input: input, Dimensions: req.Dimensions, Auth: r.Header.Get("Authorization")})
	delay, raw, dims, model := s.delay, s.raw, s.dims, s.model
	status := 0
	if len(s.fail) > 0 {
		status, s.fail = s.fail[0], s.fail[1:]
	}
	concepts := s.concepts
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case status != 0:
		w.WriteHeader(status)
		w.Write([]byte(`{"error":{"message":"failing on purpose"}}`))
		return
	case model != "" && req.Model != model:
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":{"message":"model not found"}}`))
		return
	case raw != "":
		w.Write([]byte(raw))
		return
	}
	if req.Dimensions > 0 {
		dims = req.Dimensions
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: req.Model}
	// Answer in reverse order: clients must place vectors by index.
	for i := len(input) - 1; i >= 0; i-- {
		out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: Vector(input[i], concepts, dims)})
		out.Usage.PromptTokens += len(words(input[i]))
	}
	out.Usage.TotalTokens = out.Usage.PromptTokens
	json.NewEncoder(w).Encode(out)
}

// stop words carry no concept.
var stop = map[string]bool{"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true,
	"is": true, "are": true, "we": true, "our": true, "for": true, "and": true, "or": true, "it": true, "how": true,
	"what": true, "do": true, "does": true, "with": true, "by": true, "be": true, "at": true}

func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Vector is the vector the server gives text: unit length, dims long.
func Vector(text string, concepts map[string]string, dims int) []float32 {
	v := make([]float64, dims)
	for _, w := range words(text) {
		if stop[w] {
			continue
		}
		c := w
		if m, ok := concepts[w]; ok {
			c = m
		}
		h := fnv.New64a()
		h.Write([]byte(c))
		x := h.Sum64()
		for i := range v {
			// splitmix64 → a value in [-1, 1)
			x += 0x9e3779b97f4a7c15
			z := x
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
			z = (z ^ (z >> 27)) * 0x94d049bb133111eb
			z ^= z >> 31
			v[i] += float64(z>>11)/float64(1<<52) - 1
		}
	}
	norm := 0.0
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dims)
	if norm == 0 {
		out[0] = 1 // a text of stop words only: some fixed direction
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
