package main

// Tests of cairn embed, search --mode and context --search-mode against a
// local OpenAI-compatible embeddings endpoint (package embedtest).
//
// Bad inputs tried here: an unknown --mode and --search-mode, embed with
// no endpoint configured, an endpoint slower than the prompt timeout.

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/embed/embedtest"
	"github.com/cairn-dev/cairn/server"
)

var cliConcepts = map[string]string{
	"ship": "deliver", "published": "deliver", "version": "release", "releases": "release", "tagging": "release",
}

func embedCLI(t *testing.T) (*cli, *embedtest.Server) {
	t.Helper()
	srv := embedtest.NewServer(t, cliConcepts)
	c := newCLI(t)
	c.env["TEST_EMBED_KEY"] = "sk-test-key"
	os.MkdirAll(filepath.Join(c.dir, ".cairn"), 0o755)
	c.writeFile(".cairn/cairn.toml", "[embeddings]\nbase_url = \""+srv.URL()+"\"\nmodel = \"test-embed\"\napi_key_env = \"TEST_EMBED_KEY\"\nbatch_size = 2\n")
	return c, srv
}

func TestEmbedThenHybridSearchFindsTheAnswerByMeaning(t *testing.T) {
	t.Parallel()
	c, srv := embedCLI(t)
	answer := c.add("--type", "decision", "Releases are published by tagging main.")
	distractor := c.add("--type", "pitfall", "The new parser mishandles nested blocks.")
	c.add("--type", "learning", "Golden files are regenerated with the update flag.")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("adding memories called the endpoint %d times", n)
	}
	r := c.ok("search", "how do we ship a new version")
	if !strings.Contains(r.stderr, "ranked lexically: no memory has a vector") {
		t.Errorf("before embedding: %v", r)
	}
	if r := c.ok("stats"); !strings.Contains(r.stdout, "vectors: 0 of 3 memories embedded with test-embed (0%)") {
		t.Errorf("stats before: %v", r)
	}
	r = c.ok("embed")
	if !strings.Contains(r.stdout, "embedded 3 contents with test-embed (2 requests") || strings.Contains(r.stderr, "\r") {
		t.Errorf("embed: %v", r)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[0].Auth != "Bearer sk-test-key" {
		t.Errorf("requests: %+v", reqs)
	}
	if r := c.ok("stats"); !strings.Contains(r.stdout, "vectors: 3 of 3 memories embedded with test-embed (100%)") {
		t.Errorf("stats after: %v", r)
	}
	if r := c.ok("stats", "--json"); !strings.Contains(r.stdout, `"vectors": {`) || !strings.Contains(r.stdout, `"embedded": 3`) {
		t.Errorf("stats --json: %v", r)
	}
	if r := c.ok("embed"); !strings.Contains(r.stdout, "embedded 0 contents") {
		t.Errorf("embed again: %v", r)
	}
	r = c.ok("search", "--explain", "how do we ship a new version")
	if !strings.Contains(r.stdout, "ranking: hybrid\n") || !strings.Contains(r.stdout, "lexical rank -, vector rank 1") {
		t.Errorf("explain: %v", r)
	}
	if ids := c.searchIDs("how do we ship a new version"); len(ids) == 0 || ids[0] != answer {
		t.Errorf("hybrid: %v, want %s first", ids, answer)
	}
	if ids := c.searchIDs("--mode", "lexical", "how do we ship a new version"); len(ids) != 1 || ids[0] != distractor {
		t.Errorf("lexical: %v, want only %s", ids, distractor)
	}
	if r := c.run("", "search", "--mode", "semantic", "x"); r.code != 2 || !strings.Contains(r.stderr, "lexical, vector or hybrid") {
		t.Errorf("bad mode: %v", r)
	}
	r = c.ok("context", "--prompt", "ship a version", "--explain", "--dry-run")
	if !strings.Contains(r.stdout, answer) || !strings.Contains(r.stdout, "ranking: hybrid\n") {
		t.Errorf("context: %v", r)
	}
	if r := c.run("", "context", "--search-mode", "fuzzy"); r.code != 2 {
		t.Errorf("bad search mode: %v", r)
	}
	// A slow endpoint: the prompt is ranked lexically within the prompt timeout.
	srv.SetDelay(2 * time.Second)
	start := time.Now()
	r = c.ok("context", "--prompt", "ship a version", "--explain", "--dry-run")
	if !strings.Contains(r.stdout, "ranking: lexical (asked hybrid; the embeddings endpoint did not answer within 150ms)") || time.Since(start) > time.Second {
		t.Errorf("slow endpoint after %s: %v", time.Since(start), r)
	}
}

func TestEmbedWithoutAnEndpointSaysHowToConfigureOne(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.add("something to embed")
	r := c.run("", "embed")
	if r.code != 2 || !strings.Contains(r.stderr, "embeddings.base_url") {
		t.Errorf("%v", r)
	}
	if r := c.ok("stats"); strings.Contains(r.stdout, "vectors:") {
		t.Errorf("stats without an endpoint: %v", r)
	}
}

func TestThePromptHookLogsWhenItRanksLexicallyInstead(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, nil)
	c := newHookCLI(t)
	cfg := filepath.Join(c.dir, "cfg")
	c.env["XDG_CONFIG_HOME"] = cfg
	os.MkdirAll(filepath.Join(cfg, "cairn"), 0o700)
	os.WriteFile(filepath.Join(cfg, "cairn", "cairn.toml"), []byte("[embeddings]\nbase_url = \""+srv.URL()+"\"\nmodel = \"m\"\n"), 0o600)
	r := c.hook(c.payload("user-prompt-submit.json"), "user-prompt-submit")
	if !strings.Contains(r.stdout, "mem-authsvc000000003") {
		t.Errorf("the lexical ranking should still answer: %v", r)
	}
	if log := c.logText(); !strings.Contains(log, "ranked lexically instead of hybrid: no memory has a vector of m yet") {
		t.Errorf("cairn.log: %q", log)
	}
}

// Through a server started in the project's folder (as the hooks start
// it), hybrid search and a context ranked by meaning print what the CLI
// prints on the database itself, and --mode reaches the server.
func TestHybridSearchIsTheSameThroughTheServer(t *testing.T) {
	t.Parallel()
	c, _ := embedCLI(t)
	dir, err := os.MkdirTemp("", "cs") // a short path for the socket
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c.db = filepath.Join(dir, "c.db")
	answer := c.add("--type", "decision", "Releases are published by tagging main.")
	c.add("--type", "pitfall", "The new parser mishandles nested blocks.")
	c.ok("embed")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
			Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.wd, nil }}
		m.Run(ctx, []string{"--db", c.db, "--project", c.project, "serve", "--addr", "off"})
	}()
	t.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(server.SocketPath(c.db)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("cairn serve did not listen")
		}
	}
	for _, args := range [][]string{
		{"search", "--explain", "how do we ship a new version"},
		{"search", "--mode", "lexical", "--json", "how do we ship a new version"},
		{"context", "--dry-run", "--explain", "--prompt", "ship a version"},
		{"context", "--dry-run", "--search-mode", "lexical", "--prompt", "ship a version"},
	} {
		served, local := c.bothWays("", args...)
		if served.code != 0 || served.stdout != local.stdout || served.stderr != local.stderr {
			t.Errorf("%q through the server and locally differ:\n%v\n---\n%v", args, served, local)
		}
	}
	if r := c.ok("search", "how do we ship a new version", "--json"); !r.served || !strings.Contains(r.stdout, answer) {
		t.Errorf("hybrid search through the server: %v", r)
	}
}

func TestOpenAIKeyIsUsedOnlyWhenTheFallbackIsOn(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, cliConcepts)
	c := newCLI(t)
	c.env["OPENAI_API_KEY"] = "sk-openai-test"
	c.env["OPENAI_BASE_URL"] = srv.URL()
	c.add("--type", "decision", "Releases are published by tagging main.")
	// A key in the environment alone sends nothing anywhere.
	if r := c.run("", "embed"); r.code != 2 || !strings.Contains(r.stderr, "no embeddings endpoint is configured") {
		t.Fatalf("embed without the fallback: %v", r)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the endpoint was called %d times without being configured", n)
	}
	os.MkdirAll(filepath.Join(c.dir, ".cairn"), 0o755)
	c.writeFile(".cairn/cairn.toml", "[embeddings]\nopenai_fallback = true\n")
	r := c.ok("embed")
	if !strings.Contains(r.stdout, "embedded 1 contents with text-embedding-3-small") {
		t.Fatalf("embed with the fallback: %v", r)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Auth != "Bearer sk-openai-test" || reqs[0].Model != "text-embedding-3-small" {
		t.Errorf("requests: %+v", srv.Requests())
	}
	// A configured endpoint comes first.
	c.writeFile(".cairn/cairn.toml", "[embeddings]\nopenai_fallback = true\nbase_url = \""+srv.URL()+"\"\nmodel = \"test-embed\"\n")
	if r := c.ok("embed"); !strings.Contains(r.stdout, "with test-embed") {
		t.Errorf("configured endpoint: %v", r)
	}
}

func TestADownEndpointCostsOneProcessNotEach(t *testing.T) {
	t.Parallel()
	c, srv := embedCLI(t)
	c.add("--type", "decision", "Releases are published by tagging main.")
	c.ok("embed")
	srv.FailNext(503, 503, 503, 503, 503, 503, 503, 503)
	before := len(srv.Requests())
	r := c.ok("search", "how do we ship a new version")
	if !strings.Contains(r.stderr, "ranked lexically") {
		t.Fatalf("first search: %v", r)
	}
	asked := len(srv.Requests())
	if asked == before {
		t.Fatalf("the first search did not ask the endpoint")
	}
	// The next process, as the next hook would be, does not ask.
	r = c.ok("search", "how do we ship a new version")
	if !strings.Contains(r.stderr, "not asked again") || len(srv.Requests()) != asked {
		t.Errorf("second search: asked %d more times: %v", len(srv.Requests())-asked, r)
	}
}
